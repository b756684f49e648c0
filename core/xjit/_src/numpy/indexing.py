"""``x[idx]`` for static indices: ints, slices, None, Ellipsis, and traced
integer scalars (via dynamic_slice). Static ints follow Python's bounds rules
(IndexError); slices clamp as in NumPy."""
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
    if isinstance(idx, (list, str)) or (isinstance(idx, tuple) and any(
            isinstance(i, (list, np.ndarray, Tracer, ArrayImpl)) and not _is_traced_int(i)
            and not (isinstance(i, np.ndarray) and i.ndim == 0 and _is_int_like(i[()]))
            for i in idx)) or (isinstance(idx, (np.ndarray, Tracer, ArrayImpl)) and not _is_traced_int(idx)
                               and not (isinstance(idx, np.ndarray) and idx.ndim == 0
                                        and _is_int_like(idx[()]))):
        from . import advanced_indexing
        return advanced_indexing.rewriting_take(arr, idx)
    shape = arr.shape
    idx = _expand_index(idx, len(shape))
    if type(arr) is ShardedArrayImpl and arr.sharding.num_devices != 1 and _partial(idx, shape):
        # as JAX: a slice cannot carry a split array's layout, so a gather does (one
        # device's array is not split: a slice keeps its type)
        from . import advanced_indexing
        return advanced_indexing.rewriting_take(arr, idx)
    if _dynamic_take_applies(idx):
        return _dynamic_take(arr, idx)
    starts, limits, strides, squeeze_dims, dyn, rev_dims = [], [], [], [], [], []
    new_axes = []
    dim = 0
    out_pos = 0
    for i in idx:
        if i is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        size = shape[dim]
        if isinstance(i, np.ndarray) and i.ndim == 0:
            i = i[()]
        if _is_int_like(i):
            i = operator.index(i)
            _check_int_range(i)
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {dim} with size 0")
            # out-of-bounds static indices clamp, as JAX's gather does
            i = min(max(i + size if i < 0 else i, 0), size - 1)
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            squeeze_dims.append(dim)
        elif _is_traced_int(i):
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {dim} with size 0")
            dyn.append((dim, i))
            starts.append(0)
            limits.append(size)
            strides.append(1)
        elif isinstance(i, slice):
            for part in (i.start, i.stop, i.step):
                if isinstance(part, (Tracer,)):
                    raise IndexError("Array slice indices must have static start/stop/step to be "
                                     "used with NumPy indexing syntax. Found slice("
                                     f"{i.start}, {i.stop}, {i.step}). To index a statically sized "
                                     "array at a dynamic position, try lax.dynamic_slice/"
                                     "dynamic_update_slice (JAX does not support dynamically sized "
                                     "arrays within JIT compiled functions).")
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
        elif isinstance(i, (bool, np.bool_)):
            from . import advanced_indexing
            return advanced_indexing.rewriting_take(arr, idx)
        else:
            raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                            f"{type(i).__name__} at position {dim}")
        dim += 1
    out = arr
    if rev_dims:  # slice the mirrored window first, then reverse it
        for d in rev_dims:
            starts[d], limits[d] = shape[d] - limits[d], shape[d] - starts[d]
    if tuple(starts) != (0,) * len(shape) or tuple(limits) != tuple(shape) or any(s != 1 for s in strides):
        out = lax.slice(out, starts, limits, None if all(s == 1 for s in strides) else strides)
    if rev_dims:
        out = lax.rev(out, tuple(rev_dims))
    for d, i in dyn:
        i = _normalize_traced_index(i, shape[d])
        starts_d = [0] * len(shape)
        starts_d[d] = i
        sizes = list(out.shape)
        sizes[d] = 1
        out = lax.dynamic_slice(out, starts_d, sizes)
        squeeze_dims.append(d)
    if squeeze_dims:
        out = lax.squeeze(out, tuple(sorted(squeeze_dims)))
    if new_axes:
        out = lax.expand_dims(out, tuple(new_axes))
    if out is arr and isinstance(arr, ArrayImpl):
        return arr
    return out


def _dynamic_take_applies(idx):
    """Traced integer scalars mixed only with static ints, unit-step slices and
    None become one dynamic_slice, as in JAX."""
    return any(_is_traced_int(i) for i in idx) and all(
        i is None or _is_int_like(i) or _is_traced_int(i)
        or (isinstance(i, slice) and i.step in (None, 1)
            and all(p is None or _is_int_like(p) for p in (i.start, i.stop)))
        for i in idx)


def _dynamic_take(arr, idx):
    """One dynamic_slice over every dimension. With several starts they are
    int32 arrays, each wrapped by lax.dynamic_slice (traced ones converted
    first); a lone start is wrapped as it is."""
    starts, sizes, squeeze_dims, new_axes = [], [], [], []
    dim = out_pos = 0
    for i in idx:
        if i is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        if isinstance(i, slice):
            start, stop, _ = i.indices(arr.shape[dim])
            starts.append(start)
            sizes.append(max(stop - start, 0))
            out_pos += 1
        else:
            if arr.shape[dim] == 0:  # XLA cannot slice one element of it
                raise IndexError(f"index is out of bounds for axis {dim} with size 0")
            starts.append(i)
            sizes.append(1)
            squeeze_dims.append(dim)
        dim += 1
    if len(starts) > 1:
        starts = [lax._convert(i, np.int32, False) for i in starts]
        starts = [lax.asarray_device(i) for i in starts]
    out = lax.squeeze(lax.dynamic_slice(arr, starts, sizes), tuple(squeeze_dims))
    return lax.expand_dims(out, tuple(new_axes)) if new_axes else out


def _normalize_traced_index(i, size):
    """Negative indices wrap, as in NumPy."""
    dt = i.dtype
    neg = lax.lt(i, lax._convert(0, dt, False))
    return lax.select(neg, lax.add(i, lax._convert(size, dt, False)), i)


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
