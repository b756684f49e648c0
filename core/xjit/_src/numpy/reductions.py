"""Reductions of ``xjit.numpy`` (sum, mean, max, argmax, var, ...)."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import core, dtypes
from ..core import Tracer
from ..lax import api as lax
from . import util
from .lax_numpy import _is_array, asarray, util_dtype, where


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Tracer):
        core.concrete_or_error(None, axis, "axis argument to a reduction must be static")
    if isinstance(axis, (tuple, list)):
        axes = tuple(util.canonicalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"duplicate value in 'axis': {axis}")
        return axes
    return (util.canonicalize_axis(axis, ndim),)


def _keepdims(out, axes, shape):
    new_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return lax.reshape(out, new_shape)


def _reduction(name, lax_fn, init, bool_to_int=False, upcast_small=False, has_identity=True):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
           promote_integers=True):
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        util.check_arraylike(name, a)
        (a,) = util.promote_dtypes(a) if not _is_array(a) else (a,)
        shape = util.shape_of(a)
        axes = _axes(axis, len(shape))
        if not has_identity and initial is None and where is None:
            for ax in axes:
                if shape[ax] == 0:
                    raise ValueError(f"zero-size array to reduction operation {name} which has no "
                                     "identity")
        dt = util_dtype(a)
        if dtype is not None:
            dtypes.check_user_dtype_supported(dtype, name)
            target = dtypes.canonicalize_dtype(dtype)
        elif bool_to_int and (dt == np.bool_ or (promote_integers and dt.kind in "iu"
                                                 and dt.itemsize < dtypes.default_int_dtype().itemsize)):
            target = (dtypes.default_int_dtype() if dt.kind != "u" or dt == np.bool_
                      else dtypes.canonicalize_dtype(np.uint64 if dtypes.default_int_dtype().itemsize == 8
                                                     else np.uint32))
        else:
            target = dt
        if target != dt:
            a = lax._convert(a, target, False)
        if where is not None:
            a = _where_fill(a, where, init(target))
        out = lax_fn(a, axes)
        if initial is not None:
            out = lax_fn(lax.concatenate([lax.expand_dims(out, (0,)),
                                          lax.expand_dims(lax.full_like(out, initial), (0,))], 0), (0,))
        if keepdims:
            out = _keepdims(out, axes, shape)
        return out
    fn.__name__ = name
    return fn


def _where_fill(a, mask, fill):
    return where(mask, a, lax.full_like(a, fill))


def _max_init(dt):
    return -np.inf if dtypes.is_inexact(dt) else (np.iinfo(dt).min if dt.kind in "iu" else False)


def _min_init(dt):
    return np.inf if dtypes.is_inexact(dt) else (np.iinfo(dt).max if dt.kind in "iu" else True)


sum = _reduction("sum", lax.reduce_sum, lambda dt: 0, bool_to_int=True)
prod = _reduction("prod", lax.reduce_prod, lambda dt: 1, bool_to_int=True)
max = _reduction("max", lax.reduce_max, _max_init, has_identity=False)
min = _reduction("min", lax.reduce_min, _min_init, has_identity=False)
amax, amin = max, min


def _bool_reduction(name, lax_fn, init):
    def fn(a, axis=None, out=None, keepdims=False, *, where=None):
        util.check_arraylike(name, a)
        a = asarray(a)
        if util_dtype(a) != np.bool_:
            a = lax.ne(a, lax._convert(0, util_dtype(a), False))
        shape = util.shape_of(a)
        axes = _axes(axis, len(shape))
        if where is not None:
            a = _where_fill(a, where, init)
        out = lax_fn(a, axes)
        return _keepdims(out, axes, shape) if keepdims else out
    fn.__name__ = name
    return fn


all = _bool_reduction("all", lax.reduce_and, True)
any = _bool_reduction("any", lax.reduce_or, False)


def _count(shape, axes, where, dt):
    if where is None:
        n = 1
        for ax in axes:
            n *= shape[ax]
        return n
    return sum(util.broadcast_to(where, shape), axis=axes, dtype=dt)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    util.check_arraylike("mean", a)
    a = asarray(a)
    shape = util.shape_of(a)
    axes = _axes(axis, len(shape))
    if dtype is None:
        dt = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(util_dtype(a)))
    else:
        dtypes.check_user_dtype_supported(dtype, "mean")
        dt = dtypes.canonicalize_dtype(dtype)
    total = sum(a, axis=axis, dtype=dt, keepdims=keepdims, where=where)
    n = _count(shape, axes, where, dt)
    if isinstance(n, int):
        return lax.div(total, lax._convert(float(n) if dtypes.is_inexact(dt) else n, dt, False))
    if keepdims:
        n = _keepdims(n, axes, shape)
    return lax.div(total, n)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
    if correction is not None:
        ddof = correction
    util.check_arraylike("var", a)
    a = asarray(a)
    out_dt = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(util_dtype(a)) if dtype is None else dtype)
    if out_dt.kind == "c":  # the variance of complex numbers is real
        out_dt = np.dtype(np.float32 if out_dt == np.complex64 else np.float64)
    # half-precision variances are accumulated in float32, as JAX does
    dt = np.dtype(np.float32) if out_dt in (np.float16, dtypes.bfloat16) else out_dt
    if util_dtype(a).kind != "c":
        a = lax._convert(a, dt, False)
    shape = util.shape_of(a)
    axes = _axes(axis, len(shape))
    centered = lax.sub(a, mean(a, axis=axis, keepdims=True, where=where))
    sq = lax.mul(centered, lax.conj(centered) if dt.kind == "c" else centered)
    if dt.kind == "c":
        sq = lax.real(sq)
    total = sum(sq, axis=axis, keepdims=keepdims, where=where)
    n = _count(shape, axes, where, total.dtype if _is_array(total) else dt)
    if isinstance(n, int):
        out = lax.div(total, lax._convert(float(builtins.max(n - ddof, 0)), util_dtype(total), False))
    else:
        out = lax.div(total, lax.sub(n, ddof))
    return lax._convert(out, out_dt, False)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
    return lax.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, correction=correction))


def _arg_reduction(name, lax_fn):
    def fn(a, axis=None, out=None, keepdims=None):
        util.check_arraylike(name, a)
        a = asarray(a)
        shape = util.shape_of(a)
        if axis is None:
            if a.size == 0:
                raise ValueError(f"attempt to get {name} of an empty sequence")
            flat = lax.reshape(a, (int(np.prod(shape)),))
            out = lax_fn(flat, 0, dtypes.default_int_dtype())
            return lax.reshape(out, (1,) * len(shape)) if keepdims else out
        ax = util.canonicalize_axis(axis, len(shape))
        if shape[ax] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        out = lax_fn(a, ax, dtypes.default_int_dtype())
        return _keepdims(out, (ax,), shape) if keepdims else out
    fn.__name__ = name
    return fn


argmax = _arg_reduction("argmax", lax.argmax)
argmin = _arg_reduction("argmin", lax.argmin)


def count_nonzero(a, axis=None, keepdims=False):
    a = asarray(a)
    return sum(lax.ne(a, lax._convert(0, util_dtype(a), False)), axis=axis, keepdims=keepdims)


def cumulative_sum_index(x):
    return operator.index(x)
