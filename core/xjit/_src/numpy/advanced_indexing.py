"""NumPy indexing that needs a gather: integer arrays, boolean masks and their
mixtures with ints, slices, None and Ellipsis; also ``take``,
``take_along_axis`` and ``nonzero(size=...)``.

``index_to_gather`` turns an index into gather dimension numbers plus one
array of start indices; ``rewriting_take`` gathers with it and ``.at[]``
(scatter.py) scatters with the same description. Negative indices wrap (the
``lt``/``add``/``select_n`` triple JAX emits); out-of-bounds ones follow the
gather mode (clamped by default, filled with ``mode='fill'``).
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from .. import core, dtypes, errors
from ..array import ArrayImpl
from ..core import Tracer
from xjit._src.pjit import jit
from xjit._src.lax import lax
from ..lax import gather_scatter as gs
from xjit._src.pjit import jit_named

_ARRAYS = (Tracer, ArrayImpl, np.ndarray)


class Indexer(NamedTuple):
    """How an index maps to a gather (or scatter): its dimension numbers, the
    start-indices array, and the reshaping around the primitive."""
    slice_shape: tuple
    gather_slice_shape: tuple
    gather_indices: object
    dnums: gs.GatherDimensionNumbers
    unique_indices: bool
    indices_are_sorted: bool
    reversed_y_dims: tuple
    newaxis_dims: tuple
    scalar_bool_dims: tuple
    slice_parts: tuple = ()  # the spec entries of the slice, from the operand's type


def _is_array(x):
    return isinstance(x, _ARRAYS)


def _is_int_scalar(i):
    if isinstance(i, (bool, np.bool_)):
        return False
    if isinstance(i, (int, np.integer)):
        return True
    return _is_array(i) and np.ndim(i) == 0 and i.dtype.kind in "iu"


def _check_index_types(idx):
    for i in idx:
        if i is None or i is Ellipsis or isinstance(i, slice):
            continue
        if isinstance(i, str):
            raise TypeError(f"JAX does not support string indexing; got idx={i!r}")
        if isinstance(i, (bool, np.bool_, int, np.integer)):
            continue
        dt = i.dtype if _is_array(i) else np.asarray(i).dtype
        if dt.kind not in "iub":
            raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                            f"{dt.name}")


def canonicalize_index(arr_shape, idx):
    """A tuple index with lists made arrays, boolean masks replaced by their
    nonzero positions and Ellipsis expanded. Also returns where scalar
    booleans add a unit dimension to the operand."""
    if isinstance(idx, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                        "use `arr[array(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    if isinstance(idx, str):
        raise TypeError(f"JAX does not support string indexing; got idx={idx!r}")
    if not isinstance(idx, tuple):
        idx = (idx,)
    idx = tuple(_list_to_array(i) for i in idx)
    _check_index_types(idx)
    # scalar booleans: a new unit axis indexed by the mask itself
    scalar_bool_dims, out, dim = [], [], 0
    for i in idx:
        if _is_array(i) and np.ndim(i) == 0 and i.dtype == np.bool_:
            if isinstance(i, Tracer):
                raise errors.NonConcreteBooleanIndexError(i)
            i = bool(i)  # a concrete 0-d mask indexes like a Python bool
        if isinstance(i, (bool, np.bool_)):
            scalar_bool_dims.append(dim)
            out.append(np.array(bool(i)))
            dim += 1
        elif i is None or i is Ellipsis:
            out.append(i)
        else:
            out.append(i)
            dim += 1 if not _is_array(i) or i.dtype != np.bool_ else max(np.ndim(i), 1)
    idx = tuple(out)
    shape = list(arr_shape)
    for d in scalar_bool_dims:
        shape.insert(d, 1)
    n_ell = sum(1 for i in idx if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_ndims_used(i) for i in idx)
    if used > len(shape):
        raise IndexError(f"Too many indices: array is {len(arr_shape)}-dimensional, but "
                         f"{used - len(scalar_bool_dims)} were indexed")
    fill = (slice(None),) * (len(shape) - used)
    if n_ell:
        k = idx.index(Ellipsis)
        idx = idx[:k] + fill + idx[k + 1:]
    else:
        idx = idx + fill
    return _expand_bool_masks(idx, shape), tuple(shape), tuple(scalar_bool_dims)


def _list_to_array(i):
    if isinstance(i, (list, tuple)):
        from .lax_numpy import asarray
        return asarray(i)
    return i


def _ndims_used(i):
    if i is None or i is Ellipsis:
        return 0
    if _is_array(i) and i.dtype == np.bool_:
        return max(np.ndim(i), 1)
    return 1


def _expand_bool_masks(idx, shape):
    out, dim = [], 0
    for pos, i in enumerate(idx):
        if _is_array(i) and i.dtype == np.bool_:
            if isinstance(i, Tracer):
                raise errors.NonConcreteBooleanIndexError(i)
            mask = np.asarray(i)
            nd = mask.ndim or 1
            expected = list(shape[dim:dim + nd]) if mask.ndim else [1]
            if mask.ndim and list(mask.shape) != expected:
                raise IndexError(f"boolean index did not match shape of indexed array in index "
                                 f"{pos}: got {mask.shape}, expected {expected}")
            index_dtype = dtypes.canonicalize_dtype(np.int64)
            out.extend(np.asarray(n, index_dtype) for n in np.nonzero(np.atleast_1d(mask)))
            dim += nd
        else:
            out.append(i)
            dim += i is not None
    return tuple(out)


def _normalize(i, size):
    """Wrap negative indices: ``select_n(i < 0, i, i + size)`` (the mask is
    computed on the host for NumPy constants, as JAX does)."""
    if isinstance(i, (int, np.integer)) and not _is_array(i):
        i = operator.index(i)
        return i + size if i < 0 else i
    dt = i.dtype
    if dt.kind == "u":
        return i
    weak = dtypes.is_weakly_typed(i)  # the constants share the index's weakness
    neg = (np.asarray(i) < 0) if isinstance(i, np.ndarray) else \
        lax.lt(i, lax._convert(0, dt, weak))
    return lax.select(neg, lax.add(i, lax._convert(size, dt, weak)), i)


def _index_dtype(shape):
    return np.dtype(np.int32) if max(shape, default=0) < 2 ** 31 else \
        dtypes.canonicalize_dtype(np.int64)


def _broadcast_index_arrays(arrays):
    shapes = [tuple(np.shape(a)) for a in arrays]
    nd = max(len(s) for s in shapes)
    out_shape = []
    for dims in zip(*[(1,) * (nd - len(s)) + s for s in shapes]):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
        out_shape.append(big.pop() if big else 1)
    out_shape = tuple(out_shape)
    return [a if s == out_shape else
            lax.broadcast_in_dim(a, out_shape, tuple(range(nd - len(s), nd)))
            for a, s in zip(arrays, shapes)], out_shape


def index_to_gather(x_shape, idx, normalize_indices=True, x_parts=None):
    """Describe ``x[idx]`` (idx canonical: see ``canonicalize_index``) as a
    gather; ``x_parts``: the operand's spec entries, when its type has them."""
    if normalize_indices:
        sizes = iter(x_shape)
        norm = []
        for i in idx:
            if i is None:
                norm.append(i)
                continue
            size = next(sizes)
            norm.append(_normalize(i, size) if (_is_int_scalar(i) or _is_array(i)) else i)
        idx = tuple(norm)
    index_dtype = _index_dtype(x_shape)
    # (position in idx, operand axis) of each advanced entry; ints join the
    # advanced group only when some index is an array
    entries = [(p, i) for p, i in enumerate(idx) if i is not None]
    adv = []
    if any(_is_array(i) and np.ndim(i) > 0 for _, i in entries):
        adv = [(p, ax) for ax, (p, i) in enumerate(entries)
               if (_is_array(i) and np.ndim(i) > 0) or _is_int_scalar(i)]
    adv_idx_pos = [p for p, _ in adv]
    adv_x_axes = [ax for _, ax in adv]
    contiguous = all(b - a == 1 for a, b in zip(adv_idx_pos, adv_idx_pos[1:]))
    group_at = (adv_idx_pos[0] if contiguous else 0) if adv else -1

    offset_dims, collapsed, start_index_map = [], [], []
    slice_shape, gather_slice_shape = [], []
    gather_indices, gather_shape = [], []
    newaxis_dims, reversed_y_dims, spec = [], [], []
    y_axis = collapsed_y_axis = x_axis = 0
    for pos, i in enumerate(idx):
        if pos == group_at:
            arrays, shape = _broadcast_index_arrays([idx[p] for p in adv_idx_pos])
            arrays = [lax._convert(a, index_dtype, False) for a in arrays]
            start = len(gather_shape)
            gather_indices += [(a, start) for a in arrays]
            gather_shape += shape
            start_index_map += adv_x_axes
            collapsed += adv_x_axes
            slice_shape += shape
            spec += [None] * len(shape)
            y_axis += len(shape)
            collapsed_y_axis += len(shape)
        if i is None:
            slice_shape.append(1)
            spec.append(None)
            newaxis_dims.append(y_axis)
            y_axis += 1
            continue
        if pos in adv_idx_pos:
            x_axis += 1
            gather_slice_shape.append(1)
            continue
        size = x_shape[x_axis]
        if _is_int_scalar(i):
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
            gather_indices.append((lax._convert(i, index_dtype, False), len(gather_shape)))
            collapsed.append(x_axis)
            gather_slice_shape.append(1)
            start_index_map.append(x_axis)
        elif isinstance(i, slice):
            start, step, n = _slice_params(i, size)
            if step == 1:
                if n != size:
                    gather_indices.append((lax._convert(start, index_dtype, False),
                                           len(gather_shape)))
                    start_index_map.append(x_axis)
                gather_slice_shape.append(n)
                offset_dims.append(collapsed_y_axis)
            else:
                ids = lax.add(lax._convert(start, index_dtype, False),
                              lax.mul(lax._convert(step, index_dtype, False),
                                      lax.iota(index_dtype, n)))
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    ids = lax.rev(ids, (0,))
                gather_slice_shape.append(1)
                gather_indices.append((ids, len(gather_shape)))
                start_index_map.append(x_axis)
                gather_shape.append(n)
                collapsed.append(x_axis)
            slice_shape.append(n)
            spec.append(None if x_parts is None else x_parts[x_axis])
            y_axis += 1
            collapsed_y_axis += 1
        else:
            raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                            f"{type(i).__name__} at position {pos}")
        x_axis += 1

    if not gather_indices:
        indices = np.zeros((0,), index_dtype)
    elif len(gather_indices) == 1:
        g = gather_indices[0][0]
        indices = lax.expand_dims(g, (np.ndim(g),))
    else:
        full = tuple(gather_shape) + (1,)
        indices = lax.concatenate(
            [lax.broadcast_in_dim(g, full, tuple(range(k, k + np.ndim(g))))
             for g, k in gather_indices], len(gather_shape))
    dnums = gs.GatherDimensionNumbers(offset_dims=tuple(offset_dims),
                                      collapsed_slice_dims=tuple(sorted(collapsed)),
                                      start_index_map=tuple(start_index_map))
    static = not adv
    return Indexer(tuple(slice_shape), tuple(gather_slice_shape), indices, dnums, static, static,
                   tuple(reversed_y_dims), tuple(newaxis_dims), (), tuple(spec))


def _slice_params(s, size):
    """(start, step, length) of a slice, with JAX's errors for bad parts."""
    for part in (s.start, s.stop, s.step):
        if isinstance(part, Tracer):
            raise IndexError("Array slice indices must have static start/stop/step to be used "
                             "with NumPy indexing syntax. Found slice("
                             f"{s.start}, {s.stop}, {s.step}). To index a statically sized array "
                             "at a dynamic position, try lax.dynamic_slice/dynamic_update_slice "
                             "(JAX does not support dynamically sized arrays within JIT compiled "
                             "functions).")
    parts = [None if p is None else operator.index(p) for p in (s.start, s.stop, s.step)]
    start, stop, step = slice(*parts).indices(size)
    return start, step, len(range(start, stop, step))


def make_indexer(arr_shape, idx, normalize_indices=True, x_parts=None):
    idx, shape, bool_dims = canonicalize_index(arr_shape, idx)
    if x_parts is not None:  # the operand gains a unit dimension per scalar boolean
        x_parts = list(x_parts)
        for d in bool_dims:
            x_parts.insert(d, None)
    return index_to_gather(shape, idx, normalize_indices, x_parts)._replace(
        scalar_bool_dims=bool_dims)


def rewriting_take(arr, idx, indices_are_sorted=False, unique_indices=False, mode=None,
                   fill_value=None, normalize_indices=True):
    """``arr[idx]`` through a gather."""
    from .lax_numpy import asarray
    arr = asarray(arr)
    indexer = make_indexer(arr.shape, idx, normalize_indices)
    if 0 in indexer.slice_shape:  # an empty result needs no gather (which may not fit)
        return lax.full_like(arr, 0, shape=indexer.slice_shape)
    y = arr
    if indexer.scalar_bool_dims:
        y = lax.expand_dims(y, indexer.scalar_bool_dims)
    y = gs.gather(y, indexer.gather_indices, indexer.dnums, indexer.gather_slice_shape,
                  unique_indices=unique_indices or indexer.unique_indices,
                  indices_are_sorted=indices_are_sorted or indexer.indices_are_sorted,
                  mode=mode, fill_value=fill_value)
    if indexer.reversed_y_dims:
        y = lax.rev(y, indexer.reversed_y_dims)
    if indexer.newaxis_dims:
        y = lax.expand_dims(y, indexer.newaxis_dims)
    return y


# --------------------------------------------------------------------------
# take / take_along_axis / nonzero


def _take_impl(a, indices, axis, mode, unique_indices, indices_are_sorted, fill_value):
    from . import lax_numpy as ln
    if axis is None:
        a = lax.reshape(a, (a.size,))
        axis = 0
    size = a.shape[axis]
    if size == 0:  # only empty indices reach here (checked in take)
        return a
    if indices.size == 0:
        shape = a.shape[:axis] + indices.shape + a.shape[axis + 1:]
        return lax.full_like(a, 0, shape=shape)
    if mode == "wrap":  # already in bounds after the wrap: no negative fix-up
        indices = ln.remainder(indices, lax._convert(size, indices.dtype, False))
        mode = gs.GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == gs.GatherScatterMode.FILL_OR_DROP and indices.dtype.kind != "u":
        # negative indices count from the end; clip mode clamps them to 0 as NumPy does
        indices = ln.where(lax.lt(indices, lax._convert(0, indices.dtype, False)),
                           lax.add(indices, lax._convert(size, indices.dtype, False)), indices)
    idx = lax.expand_dims(indices, (indices.ndim,))
    nd = indices.ndim
    offset_dims = tuple(list(range(axis)) + list(range(axis + nd, a.ndim + nd - 1)))
    dn = gs.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=(axis,),
                                   start_index_map=(axis,))
    sizes = tuple(1 if d == axis else s for d, s in enumerate(a.shape))
    return gs.gather(a, idx, dn, sizes, mode=mode, fill_value=fill_value,
                     unique_indices=unique_indices, indices_are_sorted=indices_are_sorted)


_take = jit_named("_take", static_argnums=(2, 3, 4, 5, 6))(_take_impl)


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    from . import util
    from .lax_numpy import asarray
    util.check_arraylike("take", a, indices)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = asarray(a), asarray(indices)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"take requires integer indices, got {indices.dtype.name}")
    if axis is not None:
        axis = util.canonicalize_axis(axis, a.ndim)
    if (a.size if axis is None else a.shape[axis]) == 0 and indices.size:
        raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
    if mode is None or mode == "fill":
        mode = gs.GatherScatterMode.FILL_OR_DROP
    elif mode == "wrap":
        pass
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "clip":
        mode = gs.GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    if mode == gs.GatherScatterMode.FILL_OR_DROP and fill_value is None:
        fill_value = gs.default_fill_value(a.dtype)
    return _take(a, indices, axis, mode, bool(unique_indices), bool(indices_are_sorted),
                 fill_value)


def _take_along_axis_impl(arr, indices, axis, mode, fill_value):
    size = arr.shape[axis]
    if indices.dtype.kind != "u":
        neg = lax.lt(indices, lax._convert(0, indices.dtype, False))
        indices = lax.select(neg, lax.add(indices, lax._convert(size, indices.dtype, False)),
                             indices)
    nd = arr.ndim
    batch = tuple(d for d in range(nd) if d != axis)
    idx = lax.reshape(indices, indices.shape + (1,))
    dn = gs.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                   start_index_map=(axis,), operand_batching_dims=batch,
                                   start_indices_batching_dims=batch)
    sizes = tuple(0 if d != axis and arr.shape[d] == 0 else 1 for d in range(nd))  # as JAX
    return gs.gather(arr, idx, dn, sizes, mode=mode, fill_value=fill_value)


_take_along_axis = jit_named("take_along_axis", static_argnums=(2, 3, 4))(_take_along_axis_impl)


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    from . import util
    from .lax_numpy import asarray
    util.check_arraylike("take_along_axis", arr, indices)
    arr, indices = asarray(arr), asarray(indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("take_along_axis indices must be 1D if axis=None, got shape "
                             f"{indices.shape}")
        arr = lax.reshape(arr, (arr.size,))
        indices = lax.reshape(indices, (indices.size,))
        axis = 0
    axis = util.canonicalize_axis(axis, arr.ndim)
    if indices.ndim != arr.ndim:
        raise ValueError("indices and arr must have the same number of dimensions; "
                         f"{indices.ndim} vs. {arr.ndim}")
    if indices.dtype.kind not in "iu":
        raise TypeError("take_along_axis indices must be of integer type, got "
                        f"{indices.dtype.name}")
    if arr.shape[axis] == 0:  # as JAX: nothing to gather, zeros of the broadcast shape
        shape = util.broadcast_shapes(indices.shape, arr.shape[:axis] + (1,) + arr.shape[axis + 1:])
        return lax.full(shape, 0, arr.dtype)
    out_shape = list(np.broadcast_shapes(
        tuple(1 if d == axis else s for d, s in enumerate(arr.shape)),
        tuple(1 if d == axis else s for d, s in enumerate(indices.shape))))
    ishape = list(out_shape)
    ishape[axis] = indices.shape[axis]
    if tuple(indices.shape) != tuple(ishape):
        indices = lax.broadcast_in_dim(indices, ishape, tuple(range(len(ishape))))
    ashape = list(out_shape)
    ashape[axis] = arr.shape[axis]
    if tuple(arr.shape) != tuple(ashape):
        arr = lax.broadcast_in_dim(arr, ashape, tuple(range(len(ashape))))
    mode = gs.GatherScatterMode.FILL_OR_DROP if mode is None else \
        gs.GatherScatterMode.from_any(mode)
    if mode == gs.GatherScatterMode.FILL_OR_DROP and fill_value is None:
        fill_value = gs.default_fill_value(arr.dtype)
    return _take_along_axis(arr, indices, axis, mode, fill_value)


def nonzero_sized(a, size, fill_value=None):
    """``jnp.nonzero(a, size=size)``: the first ``size`` nonzero positions per
    axis, padded with ``fill_value`` (default 0)."""
    from . import lax_numpy as ln
    from .sorting import cumsum
    size = core.concrete_or_error(operator.index, size,
                                  "The size argument of jnp.nonzero must be statically "
                                  "specified to use jnp.nonzero within JAX transformations.")
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar)"
                         ".nonzero() instead.")
    if size == 0 or a.size == 0:  # nothing to count: zeros, fill_value unused (as JAX)
        return tuple(lax.full((size,), 0, dtypes.default_int_dtype()) for _ in a.shape)
    mask = a if a.dtype == np.bool_ else ln.not_equal(a, 0)
    flat = lax.reshape(mask, (mask.size,))
    counts = cumsum(flat)
    # bincount of the running count: how many elements precede each output slot
    pos = ln.clip(counts, 0)
    pos = lax.expand_dims(_normalize(pos, size), (1,))
    ones = lax.full(pos.shape[:1], 1, pos.dtype)
    bins = gs.scatter_add(lax.full((size,), 0, pos.dtype), pos, ones,
                          gs.ScatterDimensionNumbers((), (0,), (0,)))
    flat_idx = cumsum(bins)
    strides = np.cumprod((1,) + a.shape[::-1])[:-1][::-1].astype(int)
    out = tuple(ln.remainder(ln.floor_divide(flat_idx, int(st)), d)
                for st, d in zip(strides, a.shape))
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * a.ndim
        if len(fills) != a.ndim:
            raise ValueError(f"fill_value must be a scalar or a tuple of length {a.ndim}; got "
                             f"{fill_value}")
        done = ln.greater_equal(ln.arange(size), lax.reduce_sum(
            lax._convert(flat, flat_idx.dtype), (0,)))
        out = tuple(ln.where(done, f, o) for f, o in zip(fills, out))
    return out


lax.numpy_ops.register(take_along_axis=take_along_axis)  # approx_top_k's JVP
