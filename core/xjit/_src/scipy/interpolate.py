"""``jax.scipy.interpolate.RegularGridInterpolator``: linear or nearest
interpolation on a rectilinear grid, as JAX 0.10.2 has it.

The interpolator is a pytree (grid, values and fill value are its leaves;
method and ``bounds_error`` its static data), so it can be passed through
``jit``/``vmap`` and differentiated with respect to its values. Rebuilding
it from leaves runs the constructor again, as JAX's does. Each grid axis
must be strictly increasing; points outside the grid get ``fill_value``
(NaN by default), or the extrapolated value when it is ``None``.
"""
from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from xjit import numpy as jnp
from xjit._src.numpy.util import check_arraylike, promote_dtypes_inexact
from xjit._src.pjit import jit_named
from xjit._src.tree_util import register_pytree_node

_METHODS = ("linear", "nearest")


def _as_points(xi, ndim):
    """Query points as one ``(..., ndim)`` array: a tuple of per-dimension
    coordinate arrays is broadcast and stacked into the default float dtype."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        parts = jnp.broadcast_arrays(*xi)
        stacked = jnp.empty(parts[0].shape + (len(xi),), dtype=float)
        for j, part in enumerate(parts):
            stacked = stacked.at[..., j].set(part)
        return stacked
    xi = jnp.asarray(xi)
    return xi.reshape(-1, ndim) if xi.ndim == 1 else xi


class RegularGridInterpolator:
    """Interpolate ``values`` given on the grid ``points`` (one increasing
    1-D array per leading dimension of ``values``)."""

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        if method not in _METHODS:
            raise ValueError(f"method {method!r} is not defined")
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > values.ndim:
            raise ValueError(f"there are {len(points)} point arrays, but values has "
                             f"{values.ndim} dimensions")
        values = jnp.asarray(promote_dtypes_inexact(values)[0])
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = jnp.asarray(fill_value)
            if not np.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible "
                                 "with values")
        self.fill_value = fill_value
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(jnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        method = self.method if method is None else method
        if method not in _METHODS:
            raise ValueError(f"method {method!r} is not defined")
        if not isinstance(xi, tuple):
            check_arraylike("_ndim_coords_from_arrays", xi)
        return _evaluate(self, xi, method=method)

    def _locate(self, columns):
        """Per dimension: the cell each point falls in (clamped to the grid),
        its fractional position in that cell, and whether it left the grid."""
        cells, fracs = [], []
        outside = jnp.zeros((columns.shape[1],), dtype=bool)
        for x, g in zip(columns, self.grid):
            i = jnp.clip(jnp.searchsorted(g, x) - 1, 0, g.size - 2)
            cells.append(i)
            fracs.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return cells, fracs, outside

    def _linear(self, cells, fracs):
        """Sum over the cell's corners of value times the product of the
        per-dimension weights (1 - f at the lower corner, f at the upper)."""
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(cells))
        total = None
        for corner in itertools.product(*[(i, i + 1) for i in cells]):
            weight = functools.reduce(operator.mul, [
                jnp.where(c == i, 1 - f, f) for c, i, f in zip(corner, cells, fracs)])
            term = self.values[corner] * weight[trailing]
            total = term if total is None else total + term
        return total


@jit_named("RegularGridInterpolator", static_argnames=("method",))
def _evaluate(interp, xi, method):
    """The interpolation itself: one compiled program per grid layout."""
    ndim = len(interp.grid)
    xi = _as_points(xi, ndim)
    if xi.shape[-1] != ndim:
        raise ValueError(f"the requested sample points xi have dimension {xi.shape[1]}, "
                         f"but this RegularGridInterpolator has dimension {ndim}")
    lead = xi.shape[:-1]
    cells, fracs, outside = interp._locate(xi.reshape(-1, ndim).T)
    if method == "linear":
        out = interp._linear(cells, fracs)
    else:
        out = interp.values[tuple(jnp.where(f <= .5, i, i + 1) for i, f in zip(cells, fracs))]
    if interp.fill_value is not None:
        outside = outside.reshape(outside.shape + (1,) * (out.ndim - 1))
        out = jnp.where(outside, interp.fill_value, out)
    return out.reshape(lead + interp.values.shape[ndim:])


register_pytree_node(
    RegularGridInterpolator,
    lambda r: ((r.grid, r.values, r.fill_value), (r.method, r.bounds_error)),
    lambda aux, leaves: RegularGridInterpolator(leaves[0], leaves[1], *aux, leaves[2]))
