"""``jax.scipy.ndimage.map_coordinates``: nearest (order 0) and linear
(order 1) interpolation with JAX 0.10.2's boundary modes.

Each output value is a weighted sum over the 1 or 2 neighbouring grid
points per dimension. Out-of-range neighbours are folded back into the
array per mode; JAX's ``'constant'`` and ``'wrap'`` behave as SciPy's
``'grid-constant'`` and ``'grid-wrap'``, so they differ from SciPy's
modes of the same names near the edges.
"""
from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import dtypes
from xjit._src.pjit import jit_named


def _mirror(i, size):
    """Fold onto [0, size) as a triangle wave (edge samples not repeated)."""
    half = size - 1
    return jnp.abs((i + half) % (2 * half) - half)


def _reflect(i, size):
    """Fold onto [0, size) with the edge samples repeated."""
    return jnp.floor_divide(_mirror(2 * i + 1, 2 * size + 1) - 1, 2)


_FOLDS = {
    "constant": lambda i, size: i,
    "nearest": lambda i, size: jnp.clip(i, 0, size - 1),
    "wrap": lambda i, size: i % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round(c):
    """Round half away from zero; integer coordinates are already exact."""
    return c if dtypes.issubdtype(c.dtype, np.integer) else lax.round(c)


def _nearest(c):
    return [(_round(c).astype(np.int32), c.dtype.type(1))]


def _linear(c):
    below = jnp.floor(c)
    frac = c - below
    rest = 1 - frac
    i = below.astype(np.int32)
    return [(i, rest), (i + 1, frac)]


@jit_named("_map_coordinates", static_argnums=(2, 3, 4))
def _map_coordinates(input, coordinates, order, mode, cval):
    arr = jnp.asarray(input)
    coords = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, arr.dtype)
    if len(coordinates) != arr.ndim:
        raise ValueError("coordinates must be a sequence of length input.ndim, but "
                         f"{len(coordinates)} != {arr.ndim}")
    fold = _FOLDS.get(mode)
    if fold is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_FOLDS)}.")
    if order not in (0, 1):
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires "
                                  "order<=1")
    neighbours = _nearest if order == 0 else _linear
    per_dim = []
    for c, size in zip(coords, arr.shape):
        per_dim.append([(fold(i, size), (0 <= i) & (i < size) if mode == "constant" else None, w)
                        for i, w in neighbours(c)])
    terms = []
    for corner in itertools.product(*per_dim):
        idx, inside, weights = zip(*corner)
        if mode == "constant":
            ok = functools.reduce(operator.and_, inside)
            value = jnp.where(ok, arr[idx], cval)
        else:
            value = arr[idx]
        terms.append(functools.reduce(operator.mul, weights) * value)
    out = functools.reduce(operator.add, terms)
    if dtypes.issubdtype(arr.dtype, np.integer):
        out = _round(out)
    return out.astype(arr.dtype)


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):
    """Values of ``input`` at fractional ``coordinates`` (one array per
    dimension); ``order`` 0 is nearest-neighbour, 1 is linear."""
    return _map_coordinates(input, coordinates, order, mode, cval)
