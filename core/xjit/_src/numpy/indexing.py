"""``x[idx]`` without index arrays, by JAX's strategy: a static slice when
every index is a static int (in bounds, unless mode='clip') or slice, else
one dynamic_slice over integers (static, traced, 0-d arrays) and slices of
step 1 or -1, else a gather (``advanced_indexing``). Slices clamp as in
NumPy; an out-of-bounds static int clamps in the dynamic_slice."""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes, errors
from ..array import ArrayImpl
from ..sharded_array import ShardedArrayImpl
from ..core import Tracer
from xjit._src.lax import lax


def _is_int_like(i):
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def _is_traced_int(i):
    return isinstance(i, (Tracer, ArrayImpl)) and i.ndim == 0 and i.dtype.kind in "iu"


def _check_int_range(i):
    """A Python int index becomes an index array of the default int dtype, as
    in JAX: one that does not fit raises JAX's OverflowError."""
    if type(i) is int:
        dt = dtypes.default_int_dtype()
        if not np.iinfo(dt).min <= i <= np.iinfo(dt).max:
            raise OverflowError(f"Python int {i} too large to convert to {dt.name}")


def _expand_index(idx, ndim):
    if not isinstance(idx, tuple):
        idx = (idx,)
    n_ell = sum(1 for i in idx if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for i in idx if i is not None and i is not Ellipsis)
    if used > ndim:
        raise IndexError(f"Too many indices: array is {ndim}-dimensional, but {used} were indexed")
    if n_ell:
        k = idx.index(Ellipsis)
        idx = idx[:k] + (slice(None),) * (ndim - used) + idx[k + 1:]
    else:
        idx = idx + (slice(None),) * (ndim - used)
    return idx


def _partial(idx, shape):
    """Whether ``idx`` takes part of some dimension (JAX's partial slices)."""
    dims = iter(shape)
    for i in idx:
        if i is None:
            continue
        size = next(dims)
        if not isinstance(i, slice) or i.indices(size) != (0, size, 1):
            return True
    return False


def getitem(arr, idx):
    if type(arr.aval) is not core.ShapedArray and hasattr(arr.aval, "_getitem"):  # a ref tracer
        return arr.aval._getitem(arr, idx)
    _check_static_slices(idx)
    if _is_advanced(idx):
        from . import advanced_indexing
        return advanced_indexing.rewriting_take(arr, idx)
    out = slice_take(arr, idx)
    if out is None:
        from . import advanced_indexing
        return advanced_indexing.rewriting_take(arr, _expand_index(idx, len(arr.shape)))
    return out


def _is_advanced(idx):
    """Whether ``idx`` holds index arrays (other than integer scalars), lists
    or strings: a gather, whatever the mode."""
    def array_like(i):
        return isinstance(i, (np.ndarray, Tracer, ArrayImpl)) and not _is_traced_int(i) and \
            not (isinstance(i, np.ndarray) and i.ndim == 0 and _is_int_like(i[()]))
    if isinstance(idx, (list, str)):
        return True
    if isinstance(idx, tuple):
        return any(isinstance(i, list) or array_like(i) for i in idx)
    return array_like(idx)


def _check_static_slices(idx):
    """JAX's IndexError for a slice with a traced start, stop or step (at
    its position in the index as given)."""
    for position, i in enumerate(idx if isinstance(idx, tuple) else (idx,)):
        if isinstance(i, slice) and any(isinstance(p, Tracer) for p in (i.start, i.stop, i.step)):
            raise IndexError(f"Slice entries must be static integers. Got {i} at position "
                             f"{position}")


def _is_scalar_array(i):
    """An integer index JAX takes as an array (a traced or device scalar, a
    0-d NumPy array): never a static slice."""
    return _is_traced_int(i) or (isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype.kind in "iu")


def slice_take(arr, idx, mode=None, normalize_indices=True):
    """``arr[idx]`` (``idx`` without index arrays) as JAX's ``rewriting_take``
    picks its strategy: a static slice when every index is static (and in
    bounds, unless ``mode`` clips), else one ``dynamic_slice`` when the
    indices are integers and slices of step 1 or -1 (out-of-bounds static
    ints included: the dynamic_slice clamps them, and checkify sees them),
    else None: a gather. Only the modes that may slice (None,
    'promise_in_bounds', 'clip') do. Without ``normalize_indices`` negative
    indices are out of bounds, not counted from the end."""
    from xjit._src.lax import gather_scatter as gs
    modes = (gs.GatherScatterMode.PROMISE_IN_BOUNDS, gs.GatherScatterMode.CLIP)
    if mode is not None and gs.GatherScatterMode.from_any(mode) not in modes:
        return None
    clip = mode is not None and gs.GatherScatterMode.from_any(mode) == gs.GatherScatterMode.CLIP
    shape = arr.shape
    idx = _expand_index(idx, len(shape))
    if type(arr) is ShardedArrayImpl and arr.sharding.num_devices != 1 and _partial(idx, shape):
        # as JAX: a slice cannot carry a split array's layout, so a gather does (one
        # device's array is not split: a slice keeps its type)
        return None
    if any(isinstance(i, (bool, np.bool_)) for i in idx):
        return None
    if _static_applies(idx, shape, clip, normalize_indices):
        return _static_take(arr, idx, normalize_indices)
    for i in idx:  # JAX makes each an index array (a clipped static slice does not)
        if _is_int_like(i):
            _check_int_range(operator.index(i))
    if _dynamic_take_applies(idx, shape):
        return _dynamic_take(arr, idx, normalize_indices)
    return None


def _static_applies(idx, shape, clip, normalize):
    """JAX's static slice: static ints and concrete slices only, the ints in
    bounds unless clipped."""
    dims = iter(shape)
    for i in idx:
        if i is None:
            continue
        size = next(dims)
        if isinstance(i, slice):
            if any(isinstance(p, Tracer) for p in (i.start, i.stop, i.step)):
                return False
        elif _is_int_like(i):
            i = operator.index(i)
            if size == 0 or not (clip or 0 <= (i + size if normalize and i < 0 else i) < size):
                return False
        else:
            return False
    return True


def _static_take(arr, idx, normalize):
    shape = arr.shape
    starts, limits, strides, squeeze_dims, rev_dims = [], [], [], [], []
    new_axes = []
    dim = 0
    out_pos = 0
    for i in idx:
        if i is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        size = shape[dim]
        if _is_int_like(i):
            i = operator.index(i)
            # in bounds, or clipped (mode='clip')
            i = min(max(i + size if normalize and i < 0 else i, 0), size - 1)
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            squeeze_dims.append(dim)
        else:
            start, stop, step = i.indices(size)
            if step < 0:
                rev_dims.append(dim)
                # reversed view: element k of the result is x[start + k*step]
                n = len(range(start, stop, step))
                start = size - 1 - start
                stop = start + n * (-step) - (-step) + 1 if n else start
                step = -step
                if n == 0:
                    stop = start = 0
            else:
                n = len(range(start, stop, step))
                stop = stop if n else start
            starts.append(start)
            limits.append(stop)
            strides.append(step)
            out_pos += 1
        dim += 1
    out = arr
    if rev_dims:  # slice the mirrored window first, then reverse it
        for d in rev_dims:
            starts[d], limits[d] = shape[d] - limits[d], shape[d] - starts[d]
    if tuple(starts) != (0,) * len(shape) or tuple(limits) != tuple(shape) or any(s != 1 for s in strides):
        out = lax.slice(out, starts, limits, None if all(s == 1 for s in strides) else strides)
    if rev_dims:
        out = lax.rev(out, tuple(rev_dims))
    if squeeze_dims:
        out = lax.squeeze(out, tuple(squeeze_dims))
    if new_axes:
        out = lax.expand_dims(out, tuple(new_axes))
    if out is arr and isinstance(arr, ArrayImpl):
        return arr
    return out


def _dynamic_take_applies(idx, shape):
    """JAX's dynamic slice: integers (static, traced or 0-d arrays), None and
    static slices of step 1 or -1; no integer on an empty axis."""
    dims = iter(shape)
    for i in idx:
        if i is None:
            continue
        size = next(dims)
        if isinstance(i, slice):
            if i.step not in (None, 1, -1) or not all(
                    p is None or _is_int_like(p) for p in (i.start, i.stop)):
                return False
        elif _is_int_like(i) or _is_scalar_array(i):
            if size == 0:  # XLA cannot slice one element of it
                return False
        else:
            return False
    return True


def _dynamic_take(arr, idx, normalize):
    """One dynamic_slice over every dimension, then the reversals, squeezes
    and new axes. Each start is an array, as JAX's; with several they are
    int32, each wrapped by lax.dynamic_slice."""
    starts, sizes, squeeze_dims, new_axes, rev_dims = [], [], [], [], []
    dim = out_pos = 0
    for i in idx:
        if i is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        if isinstance(i, slice):
            start, stop, step = i.indices(arr.shape[dim])
            if step < 0:
                starts.append(stop + 1)
                sizes.append(max(0, start - stop))
                rev_dims.append(dim)
            else:
                starts.append(start)
                sizes.append(max(stop - start, 0))
            out_pos += 1
        else:
            starts.append(i)
            sizes.append(1)
            squeeze_dims.append(dim)
        dim += 1
    if len(starts) > 1:
        starts = [lax._convert(i, np.int32, False) for i in starts]
    else:  # jnp.asarray's dtype
        starts = [i if isinstance(i, (Tracer, ArrayImpl)) else
                  np.asarray(i, dtypes.canonicalize_dtype(np.asarray(i).dtype)) for i in starts]
    starts = [lax.asarray_device(i) for i in starts]  # static ones too: not wrapped on the host
    if normalize:
        out = lax.dynamic_slice(arr, starts, sizes)
    else:  # negative starts stay negative (and clamp to 0)
        from xjit._src.lax import slicing
        out = slicing.dynamic_slice_p.bind(arr, *starts, slice_sizes=tuple(sizes))
    if rev_dims:
        out = lax.rev(out, tuple(rev_dims))
    if squeeze_dims:
        out = lax.squeeze(out, tuple(squeeze_dims))
    return lax.expand_dims(out, tuple(new_axes)) if new_axes else out


def require_nonzero_size(a, size):
    """Without a static ``size`` a traced input can't give its nonzero count;
    the error names that (traced) count, as JAX's does."""
    if isinstance(a, Tracer) and size is None:
        from .reductions import count_nonzero
        raise errors.ConcretizationTypeError(
            count_nonzero(a), "The size argument of jnp.nonzero must be statically specified "
                              "to use jnp.nonzero within JAX transformations.")


def nonzero(a, *, size=None, fill_value=None):
    from .lax_numpy import asarray
    a = asarray(a)
    require_nonzero_size(a, size)
    if size is None:
        return tuple(asarray(r) for r in np.nonzero(np.asarray(a)))
    from . import advanced_indexing
    return advanced_indexing.nonzero_sized(a, size, fill_value)
