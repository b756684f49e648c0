"""Index construction of ``xjit.numpy``: grids (``mgrid``, ``ogrid``,
``indices``, ``ix_``), concatenation by indexing (``r_``, ``c_``), triangle
and diagonal index sets, and conversion between flat and multi-dimensional
indices. ``s_`` and ``index_exp`` are NumPy's own objects, as in JAX."""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import arange, array, asarray, linspace, where
from .shape_ops import concatenate, stack

s_ = np.s_
index_exp = np.index_exp


def _int_dtype():
    return dtypes.canonicalize_dtype(np.int64)


def _slice_values(s):
    """The 1-D array a slice stands for in mgrid/r_: an arange, or a
    linspace when the step is imaginary (its magnitude is the count)."""
    start = 0 if s.start is None else s.start
    stop, step = s.stop, 1 if s.step is None else s.step
    if isinstance(step, complex) or np.iscomplexobj(step):
        return linspace(start, stop, int(abs(step)), endpoint=True)
    return arange(start, stop, step)


class _Grid:
    """``mgrid`` (dense) / ``ogrid`` (sparse): index by slices."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _slice_values(key)
        if not isinstance(key, tuple):
            raise TypeError(f"'{type(key).__name__}' object is not iterable")
        axes = [_slice_values(k) for k in key]
        if axes:
            dtype = dtypes.result_type(*axes)
            axes = [lax._convert(a, dtype, False) for a in axes]
        if self.sparse:
            n = len(axes)
            return [lax.reshape(a, tuple(a.shape[0] if d == i else 1 for d in range(n)))
                    for i, a in enumerate(axes)]
        if not axes:
            return array([], dtype=_int_dtype())
        shape = tuple(a.shape[0] for a in axes)
        return stack([lax.broadcast_in_dim(a, shape, (i,)) for i, a in enumerate(axes)], 0)


mgrid = _Grid(False)
ogrid = _Grid(True)


class _AxisConcatenator:
    """``r_`` / ``c_``: concatenate slices, scalars and arrays along an axis,
    optionally led by a 'axis[,ndmin[,trans1d]]' (or 'r'/'c') directive."""

    def __init__(self, axis, ndmin, trans1d):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        axis, ndmin, trans1d, matrix = self.axis, self.ndmin, self.trans1d, None
        if isinstance(key[0], str):  # an empty key fails here (IndexError), as in NumPy
            directive, key = key[0], key[1:]
            if directive in ("r", "c"):
                matrix = directive
            else:
                try:
                    vals = [int(x) for x in directive.split(",")]
                    if len(vals) > 3:
                        raise ValueError
                except ValueError:
                    raise ValueError(f"could not understand directive {directive!r}") from None
                axis = vals[0]
                if len(vals) > 1:
                    ndmin = vals[1]
                if len(vals) > 2:
                    trans1d = vals[2]
        parts = []
        for item in key:
            if isinstance(item, slice):
                x = _slice_values(item)
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                x = asarray(item)
            parts.append(_promote_ndmin(x, ndmin, trans1d))
        out = concatenate(parts, axis=axis)
        if matrix is not None:
            if out.ndim < 2:
                out = lax.reshape(out, (1, out.size))
            if matrix == "c":
                out = lax.transpose(out, (1, 0))
        return out

    def __len__(self):
        return 0


def _promote_ndmin(x, ndmin, trans1d):
    """NumPy's rule: prepend unit axes up to ``ndmin``, then move the
    original axes to start at ``trans1d`` (-1: keep them last)."""
    nd = x.ndim
    if ndmin <= nd:
        return x
    x = lax.reshape(x, (1,) * (ndmin - nd) + x.shape)
    if trans1d != -1:
        k2, k1 = ndmin - nd, trans1d
        if k1 < 0:
            k1 += k2 + 1
        order = list(range(ndmin))
        x = lax.transpose(x, tuple(order[:k1] + order[k2:] + order[k1:k2]))
    return x


r_ = _AxisConcatenator(0, 1, -1)
c_ = _AxisConcatenator(-1, 2, 0)


def ix_(*args):
    """Open-mesh index arrays: the i-th argument along axis i."""
    util.check_arraylike("ix_", *args)
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = asarray(a)
        if a.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{a.shape}")
        if a.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * n
        shape[i] = a.shape[0]
        out.append(lax.broadcast_in_dim(a, tuple(shape), (i,)) if a.shape[0] != 0
                   else lax.full(tuple(shape), 0, a.dtype))
    return tuple(out)


def indices(dimensions, dtype=None, sparse=False):
    """The index grid of a shape: one array per axis."""
    dimensions = tuple(core.concrete_or_error(operator.index, d, "dimensions argument of "
                                              "jnp.indices") for d in dimensions)
    dtypes.check_user_dtype_supported(dtype, "indices")
    dt = dtypes.canonicalize_dtype(_int_dtype() if dtype is None else dtype)
    n = len(dimensions)
    out = []
    for i, d in enumerate(dimensions):
        shape = dimensions if not sparse else tuple(d if j == i else 1 for j in range(n))
        out.append(lax.broadcast_in_dim(lax.iota(dt, d), shape, (i,)))
    if sparse:
        return tuple(out)
    return stack(out, 0) if out else lax.full((0,), 0, dt)


# -- diagonals and triangles


def diag_indices(n, ndim=2):
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (lax.iota(_int_dtype(), n),) * ndim


def diag_indices_from(arr):
    util.check_arraylike("diag_indices_from", arr)
    shape = util.shape_of(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def _tri_indices(n, k, m, upper):
    n, k = operator.index(n), operator.index(k)
    m = n if m is None else operator.index(m)
    if n < 0 or m < 0:
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, got "
                        f"{(n, m)}.")
    rows, cols = (np.triu_indices if upper else np.tril_indices)(n, k, m)
    return (asarray(rows.astype(_int_dtype())), asarray(cols.astype(_int_dtype())))


def tril_indices(n, k=0, m=None):
    return _tri_indices(n, k, m, False)


def triu_indices(n, k=0, m=None):
    return _tri_indices(n, k, m, True)


def _tri_from(arr, k, upper):
    shape = util.shape_of(arr)
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return _tri_indices(shape[0], k, shape[1], upper)


def tril_indices_from(arr, k=0):
    return _tri_from(arr, k, False)


def triu_indices_from(arr, k=0):
    return _tri_from(arr, k, True)


def mask_indices(n, mask_func, k=0, *, size=None):
    """Indices where ``mask_func(ones((n, n)), k)`` is nonzero."""
    from .indexing import nonzero
    from .lax_numpy import ones
    i, j = nonzero(mask_func(ones((n, n)), k), size=size)
    return i, j


# -- flat <-> multi-dimensional indices


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """Flat indices of the coordinate arrays in ``multi_index``."""
    from .lax_numpy import clip, remainder
    if len(multi_index) != len(dims):
        raise AssertionError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(core.concrete_or_error(operator.index, d, "in `dims` argument of "
                                        "ravel_multi_index().") for d in dims)
    util.check_arraylike("ravel_multi_index", *multi_index)
    idx = [asarray(i) for i in multi_index]
    for i in idx:
        if not dtypes.issubdtype(i.dtype, np.integer):
            raise ValueError(f"dtype={i.dtype!r} is not an integer type.")
    if mode == "raise":
        host = [np.asarray(core.concrete_or_error(
            asarray, i, "The error occurred because ravel_multi_index was jit-compiled with "
                        "mode='raise'. Use mode='wrap' or mode='clip' instead.")) for i in idx]
        if any(np.any((h < 0) | (h >= d)) for h, d in zip(host, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        idx = [clip(i, 0, d - 1) for i, d in zip(idx, dims)]
    elif mode == "wrap":
        idx = [remainder(i, d) for i, d in zip(idx, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or "
                         "'ignore'.")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[::-1][:-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    dt = dtypes.canonicalize_dtype(dtype if dtype is not None else dtypes.result_type(*idx))
    total = None
    for i, st in zip(idx, strides):
        term = lax._convert(i, dt, False) * int(st)
        total = term if total is None else total + term
    return total if total is not None else lax.full((), 0, dt)


def unravel_index(indices, shape):
    """Coordinates of flat ``indices`` in an array of ``shape``; indices out
    of range are clipped to the first or last element."""
    from .lax_numpy import divmod as _divmod
    from .lax_numpy import greater, less
    util.check_arraylike("unravel_index", indices)
    idx = asarray(indices) if not isinstance(indices, (int, np.integer)) else indices
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out = [0] * len(shape)
    for i in reversed(range(len(shape))):
        idx, out[i] = _divmod(idx, shape[i])
    high = greater(idx, 0)
    unsigned = dtypes.issubdtype(asarray(idx).dtype, np.unsignedinteger)
    low = asarray(False) if unsigned else less(idx, -1)
    return tuple(where(high, s - 1, where(low, 0, o)) for s, o in zip(shape, out))
