"""Functional indexed updates: ``x.at[idx].set(y)``, ``.add``, ``.get`` ...

The index is described once as a gather (``advanced_indexing.make_indexer``);
a scatter uses the same numbers with gather's offset dims as its update
window dims. Scatters drop out-of-bounds updates; ``get`` clamps unless
``mode='fill'``.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import core, dtypes, sharding_in_types as sit
from ..array import ArrayImpl
from ..core import Tracer
from xjit._src.lax import lax
from ..lax import gather_scatter as gs
from . import advanced_indexing as adv
from . import indexing


def broadcast_to(y, shape, sharding=None):
    """``lax.broadcast_to``: leading dims added, unit dims stretched (laid
    out by ``sharding`` when given)."""
    yshape = tuple(np.shape(y)) if not isinstance(y, (Tracer, ArrayImpl)) else y.shape
    if yshape == tuple(shape) and (sharding is None or core.aval_of(y)._sharding == sharding):
        return y
    if len(shape) < len(yshape):
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={yshape} "
                         f"shape={tuple(shape)}")
    k = len(shape) - len(yshape)
    if any(a != 1 and a != b for a, b in zip(yshape, shape[k:])):
        aval = core.aval_of(y)
        raise ValueError(f"Incompatible types for broadcasting: input type="
                         f"{aval.str_short(False)} and requested type="
                         f"{aval.update(shape=shape).str_short(False)}")
    return lax.broadcast_in_dim(y, shape, tuple(range(k, len(shape))), out_sharding=sharding)


def _scatter_update(x, idx, y, scatter_fn, indices_are_sorted, unique_indices, mode,
                    normalize_indices):
    """As JAX: the scatter runs in the promoted dtype of ``x`` and ``y``, then
    converts back to ``x``'s dtype (so ``int.at[0].add(0.5)`` adds before it
    truncates); a Python int that fits ``x``'s integer dtype takes that dtype."""
    from .lax_numpy import asarray
    from .util import promote_dtypes
    x = asarray(x)
    if (isinstance(y, int) and not isinstance(y, bool) and x.dtype.kind in "iu"
            and np.iinfo(x.dtype).min <= y <= np.iinfo(x.dtype).max):
        y = asarray(y, dtype=x.dtype)
    else:
        y = asarray(y)
    layout = x.aval._sharding  # the updates are laid out as the slice of x they go to
    indexer = adv.make_indexer(x.shape, _bound_big_ints(idx, x.shape), normalize_indices,
                               None if layout is None else sit.parts(x.aval))
    dtype, weak = x.dtype, x.weak_type
    if not dtypes.is_weakly_typed(y) and dtypes.result_type(y, x) != dtype:
        warnings.warn("scatter inputs have incompatible types: cannot safely cast value from "
                      f"dtype={y.dtype.name} to dtype={dtype.name} with jax_numpy_dtype_promotion="
                      "standard. In future JAX releases this will result in an error.",
                      FutureWarning, stacklevel=4)
    if 0 in x.shape:  # nothing to update into: a new empty array, of x's canonical dtype
        return lax.full_like(x, 0)
    if 0 in indexer.slice_shape:  # nothing to update
        return x
    x, y = promote_dtypes(x, y)
    y = broadcast_to(y, indexer.slice_shape, None if layout is None else
                     layout.update(spec=indexer.slice_parts))
    if indexer.scalar_bool_dims:
        x = lax.expand_dims(x, indexer.scalar_bool_dims)
    if indexer.newaxis_dims:
        y = lax.squeeze(y, indexer.newaxis_dims)
    if indexer.reversed_y_dims:
        y = lax.rev(y, indexer.reversed_y_dims)
    dn = indexer.dnums
    sdn = gs.ScatterDimensionNumbers(update_window_dims=dn.offset_dims,
                                     inserted_window_dims=dn.collapsed_slice_dims,
                                     scatter_dims_to_operand_dims=dn.start_index_map)
    out = scatter_fn(x, indexer.gather_indices, y, sdn,
                     indices_are_sorted=indexer.indices_are_sorted or indices_are_sorted,
                     unique_indices=indexer.unique_indices or unique_indices, mode=mode)
    if indexer.scalar_bool_dims:
        out = lax.squeeze(out, indexer.scalar_bool_dims)
    if getattr(dtype, "extended", False):  # keys: updated with keys of their type, no cast
        return out
    return lax._convert(out, dtype, weak)


class _IndexUpdateHelper:
    """``x.at``: indexing it gives an ``_IndexUpdateRef``."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"



def _out_sharding(method):
    """``.at[...]``'s ``out_sharding=``: the gather or scatter in auto mode,
    its result of the type asked for (JAX's ``auto_axes``)."""
    import functools

    @functools.wraps(method)
    def wrapped(self, *args, out_sharding=None, **kwargs):
        if out_sharding is None:
            return method(self, *args, **kwargs)
        from xjit._src.sharding import auto_axes, canonicalize_sharding
        s = canonicalize_sharding(out_sharding, "at")
        run = lambda arr, *a: method(_IndexUpdateRef(arr, self.index), *a, **kwargs)  # noqa: E731
        return auto_axes(run, out_sharding=s, axes=s.mesh.explicit_axes)(self.array, *args)
    return wrapped

class _IndexUpdateRef:
    """``x.at[idx]``: each method returns the updated copy of ``x``."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    @_out_sharding
    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None,
            out_sharding=None, wrap_negative_indices=True):
        if mode is not None:
            gs.GatherScatterMode.from_any(mode)  # JAX's error for an unknown mode
        if _is_basic(self.index):
            # as JAX: a slice where one can be, whatever the fill_value
            out = indexing.slice_take(self.array, self.index, mode, wrap_negative_indices)
            if out is not None:
                return out
        if mode is None and fill_value is None:
            mode = gs.GatherScatterMode.PROMISE_IN_BOUNDS
        return adv.rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                                  unique_indices=unique_indices, mode=mode,
                                  fill_value=fill_value,
                                  normalize_indices=wrap_negative_indices)

    def _update(self, fn, values, indices_are_sorted, unique_indices, mode,
                wrap_negative_indices):
        return _scatter_update(self.array, self.index, values, fn, indices_are_sorted,
                               unique_indices, mode, wrap_negative_indices)

    @_out_sharding
    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        return self._update(gs.scatter, values, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices)

    @_out_sharding
    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        return self._update(gs.scatter_add, values, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    @_out_sharding
    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        return self._update(gs.scatter_sub, values, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    @_out_sharding
    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        return self._update(gs.scatter_mul, values, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    mul = multiply

    @_out_sharding
    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               out_sharding=None, wrap_negative_indices=True):
        from . import lax_numpy as ln
        x = self.array
        ones = lax.full(x.shape, 1, x.dtype) if x.dtype.kind != "b" else x
        scaled = _IndexUpdateRef(ones, self.index).multiply(
            values, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
            mode=mode, wrap_negative_indices=wrap_negative_indices)
        return ln.divide(x, scaled)

    @_out_sharding
    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              out_sharding=None, wrap_negative_indices=True):
        from . import lax_numpy as ln
        x = self.array
        ones = lax.full(x.shape, 1, x.dtype)
        scaled = _IndexUpdateRef(ones, self.index).multiply(
            values, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
            mode=mode, wrap_negative_indices=wrap_negative_indices)
        return ln.power(x, scaled)

    @_out_sharding
    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        return self._update(gs.scatter_min, values, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    @_out_sharding
    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        return self._update(gs.scatter_max, values, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        def scatter_fn(x, indices, y, dn, **kw):
            return gs.scatter_apply(x, indices, func, dn, update_shape=y.shape, **kw)
        # zero updates of the indexed shape stand in for the values (unused)
        return _scatter_update(self.array, self.index, 0, scatter_fn,
                               indices_are_sorted, unique_indices, mode, wrap_negative_indices)


def _bound_big_ints(idx, shape):
    """Python int positions past int32, as JAX treats them in a scatter: out of
    bounds (moved to the nearest out-of-bounds int32 position, so every mode
    acts as on any out-of-bounds index); past int64 NumPy's OverflowError."""
    items = idx if isinstance(idx, tuple) else (idx,)
    if not any(type(i) is int and not -2 ** 31 <= i < 2 ** 31 for i in items):
        return idx
    out, dim = [], 0
    for i in items:
        if type(i) is int and not -2 ** 31 <= i < 2 ** 31:
            size = shape[dim] if dim < len(shape) else 0
            if dim < len(shape) and not -2 ** 63 <= i < 2 ** 63:  # (too many indices: the
                if size == 0:  # indexer says; so does it of an empty axis, first)
                    raise IndexError(f"index is out of bounds for axis {dim} with size 0")
                raise OverflowError("Python int too large to convert to C long")
            i = size if i > 0 else -size - 1
        out.append(i)
        dim += i is not None and i is not Ellipsis
    return tuple(out) if isinstance(idx, tuple) else out[0]


def _is_basic(idx):
    """Whether ``x[idx]`` stays on the slicing path (no arrays but scalars)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    if isinstance(idx, list):
        return False
    for i in items:
        if i is None or i is Ellipsis or isinstance(i, slice):
            continue
        if isinstance(i, (bool, np.bool_)):
            return False
        if isinstance(i, (int, np.integer)):
            continue
        if isinstance(i, (Tracer, ArrayImpl, np.ndarray)) and np.ndim(i) == 0 and \
                i.dtype.kind in "iu":
            continue
        return False
    return True
