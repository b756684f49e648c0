"""Order statistics of ``xjit.numpy``: quantile, percentile, median and
their NaN-ignoring variants, read off ``jnp.sort`` with
``take_along_axis``, with NumPy's five interpolation methods."""
from __future__ import annotations

import numpy as np

from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray, isnan, logical_not, true_divide, util_dtype, where
from .reductions import sum as _sum
from .shape_ops import moveaxis

_QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _quantile(name, a, q, axis, method, keepdims, ignore_nan):
    from .advanced_indexing import take_along_axis
    from .sorting import sort
    if method not in _QUANTILE_METHODS:
        raise ValueError(f"{name} got method={method!r}; expected one of {_QUANTILE_METHODS}")
    (a,) = util.promote_dtypes_inexact(asarray(a))
    if a.dtype.kind == "c":
        raise ValueError("quantile does not support complex input, as the operation is poorly "
                         "defined.")
    a = asarray(a)
    q = lax._convert(asarray(q), util_dtype(a), False)
    if q.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {q.shape}")
    nd = a.ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = tuple(util.canonicalize_axis(x, nd) for x in (axis if isinstance(axis, (tuple, list))
                                                               else (axis,)))
    kept = [d for d in range(nd) if d not in axes]
    x = lax.transpose(a, tuple(kept) + axes)
    batch = x.shape[:len(kept)]
    n = int(np.prod([a.shape[d] for d in axes], dtype=np.int64))
    x = sort(lax.reshape(x, batch + (n,)), axis=-1)  # NaNs sort last
    dt = util_dtype(x)
    qs = lax.reshape(q, (1,) * len(batch) + (q.size,))
    if ignore_nan:
        count = _sum(logical_not(isnan(x)), axis=-1, keepdims=True, dtype=dt)
    else:
        count = lax.full(batch + (1,), n, dt)
    pos = lax.mul(qs, lax.sub(count, util.const_like(count, 1)))
    pos = lax.max(pos, util.const_like(pos, 0))
    lo = lax.floor(pos)
    hi = lax.ceil(pos)
    if method == "nearest":
        lo = hi = lax.round(pos, lax.RoundingMethod.TO_NEAREST_EVEN)
    top = lax.max(lax.sub(count, util.const_like(count, 1)), util.const_like(count, 0))

    def take(p):
        idx = lax._convert(lax.min(p, top), np.int32, False)
        idx = util.broadcast_to(idx, batch + (q.size,))
        return take_along_axis(x, idx, axis=-1)
    lo_v, hi_v = take(lo), take(hi)
    if method == "linear":
        t = lax.sub(pos, lo)
        out = lax.add(lax.mul(lo_v, lax.sub(util.const_like(t, 1), t)), lax.mul(hi_v, t))
    elif method == "lower":
        out = lo_v
    elif method == "higher":
        out = hi_v
    elif method == "midpoint":
        out = lax.mul(lax.add(lo_v, hi_v), util.const_like(lo_v, 0.5))
    else:
        out = lo_v
    if not ignore_nan:
        has_nan = lax.reduce_or(isnan(x), (x.ndim - 1,))
        has_nan = lax.broadcast_in_dim(has_nan, out.shape, tuple(range(len(batch))))
        out = where(has_nan, util.const_like(out, np.nan), out)
    elif n:
        none = lax.broadcast_in_dim(lax.eq(count, util.const_like(count, 0)), out.shape,
                                    tuple(range(len(batch) + 1)))
        out = where(none, util.const_like(out, np.nan), out)
    out = moveaxis(out, -1, 0)  # q's axis first, as NumPy
    if keepdims:
        shape = (q.size,) + tuple(1 if d in axes else a.shape[d] for d in range(nd))
        out = lax.reshape(out, shape)
    return lax.squeeze(out, (0,)) if q.ndim == 0 else out


def _quantile_fn(name, scale, ignore_nan):
    def fn(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
           interpolation=None):
        util.check_arraylike(name, a, q)
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        if interpolation is not None:
            method = interpolation
        if scale != 1:
            q = true_divide(q, scale)
        return _quantile(name, a, q, axis, method, keepdims, ignore_nan)
    fn.__name__ = fn.__qualname__ = name
    return fn


quantile = _quantile_fn("quantile", 1, False)
nanquantile = _quantile_fn("nanquantile", 1, True)
percentile = _quantile_fn("percentile", 100, False)
nanpercentile = _quantile_fn("nanpercentile", 100, True)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return quantile(a, 0.5, axis=axis, out=out, keepdims=keepdims, method="midpoint")


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return nanquantile(a, 0.5, axis=axis, out=out, keepdims=keepdims, method="midpoint")
