"""Reductions of ``xjit.numpy``: sum, mean, max, argmax, var, ..., their
NaN-ignoring forms (``nansum`` ... ``nanargmin``), ``average`` and ``ptp``."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import core, dtypes
from ..core import Tracer
from xjit._src.lax import lax
from . import util
from ..eager import fastpath
from xjit._src.pjit import jit
from .lax_numpy import asarray, isnan, logical_not, util_dtype, where as where_
from xjit._src.pjit import jit_named


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
    return lax.broadcast_in_dim(out, new_shape, [i for i in range(len(shape)) if i not in axes])


_HALF = (np.dtype(np.float16), np.dtype(dtypes.bfloat16))


def _reduction(name, lax_fn, init, binop, bool_to_int=False, upcast_small=False,
               has_identity=True):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
           promote_integers=True):
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        util.check_arraylike(name, a)
        a = asarray(a)
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
            if bool_to_int:  # JAX's sum/prod also convert with lax.convert_element_type
                dtypes.check_user_dtype_supported(dtype, "convert_element_type")
            target = dtypes.canonicalize_dtype(dtype)
        elif bool_to_int and (dt == np.bool_ or (promote_integers and dt.kind in "iu"
                                                 and dt.itemsize < dtypes.default_int_dtype().itemsize)):
            target = (dtypes.default_int_dtype() if dt.kind != "u" or dt == np.bool_
                      else dtypes.canonicalize_dtype(np.uint64 if dtypes.default_int_dtype().itemsize == 8
                                                     else np.uint32))
        else:
            target = dt
        # half floats are summed/multiplied in float32 unless a dtype was asked for
        comp = np.dtype(np.float32) if upcast_small and dtype is None and target in _HALF \
            else target
        if bool_to_int and dt == np.bool_ and comp != np.bool_:
            a = lax._convert(a, dtypes.default_int_dtype(), False)
        a = lax._convert(a, comp, False)
        if where is not None:
            a = where_(where, a, np.array(init(comp), comp))
        out = lax_fn(a, axes)
        if initial is not None:
            out = binop(np.array(initial, comp), out)
        if keepdims:
            out = _keepdims(out, axes, shape)
        return lax._convert(out, target, False)
    fn.__name__ = fn.__qualname__ = name
    return fastpath(1)(fn)


def _max_init(dt):
    return -np.inf if dtypes.is_inexact(dt) else (np.iinfo(dt).min if dt.kind in "iu" else False)


def _min_init(dt):
    return np.inf if dtypes.is_inexact(dt) else (np.iinfo(dt).max if dt.kind in "iu" else True)


sum = _reduction("sum", lax.reduce_sum, lambda dt: 0, lax.add, bool_to_int=True, upcast_small=True)
prod = _reduction("prod", lax.reduce_prod, lambda dt: 1, lax.mul, bool_to_int=True,
                  upcast_small=True)
max = _reduction("max", lax.reduce_max, _max_init, lax.max, has_identity=False)
min = _reduction("min", lax.reduce_min, _min_init, lax.min, has_identity=False)
amax, amin = util.renamed(max, "amax"), util.renamed(min, "amin")


def _bool_reduction(name, lax_fn, init):
    def fn(a, axis=None, out=None, keepdims=False, *, where=None):
        util.check_arraylike(name, a)
        a = lax._convert(asarray(a), np.bool_, False)
        shape = util.shape_of(a)
        axes = _axes(axis, len(shape))
        if where is not None:
            a = where_(where, a, np.bool_(init))
        out = lax_fn(a, axes)
        return _keepdims(out, axes, shape) if keepdims else out
    fn.__name__ = fn.__qualname__ = name
    return fastpath(1)(fn)


all = _bool_reduction("all", lax.reduce_and, True)
any = _bool_reduction("any", lax.reduce_or, False)


def _count(shape, axes, where, dt, keepdims):
    """The number of elements reduced: a literal, or the sum of the mask."""
    if where is None:
        n = 1
        for ax in axes:
            n *= shape[ax]
        return lax._convert(float(n) if dtypes.is_inexact(dt) else n, dt, False)
    return sum(util.broadcast_to(where, shape), axis=axes, dtype=dt, keepdims=keepdims)


def _index_axes(shape, axis, where):
    """JAX sizes the reduced axes by indexing the shape before it reduces, so an
    axis past the rank raises that IndexError (not the reduction's ValueError)."""
    if where is None and axis is not None and not isinstance(axis, Tracer):
        for ax in axis if isinstance(axis, (tuple, list)) else (axis,):
            shape[ax]


def _mean_dtypes(in_dtype, dtype):
    """(computation dtype, result dtype): half floats are averaged in float32."""
    if dtype is not None:
        dt = dtypes.canonicalize_dtype(dtype)
        return dt, dt
    dt = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(in_dtype))
    return (np.dtype(np.float32) if dt in _HALF else dt), dt


@fastpath(1)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    util.check_arraylike("mean", a)
    a = asarray(a)
    shape = util.shape_of(a)
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, "mean")
    _index_axes(shape, axis, where)
    axes = _axes(axis, len(shape))
    comp, res = _mean_dtypes(util_dtype(a), dtype)
    n = _count(shape, axes, where, comp, keepdims)
    total = sum(a, axis=axes, dtype=comp, keepdims=keepdims, where=where)
    return lax._convert(lax.div(total, n), res, False)


def _real_dtype(dt):
    return np.dtype(np.float32 if dt == np.complex64 else np.float64) if dt.kind == "c" else dt


def _var_impl(a, ddof, where, axis, dtype, keepdims):
    comp, res = _mean_dtypes(util_dtype(a), dtype)
    if util_dtype(a).kind == "c":
        comp = util_dtype(a)
    elif comp in _HALF:  # even when asked for: variances of half floats accumulate in float32
        comp = np.dtype(np.float32)
    res = _real_dtype(res)
    real = _real_dtype(comp)
    a = lax._convert(a, comp, False)
    shape = util.shape_of(a)
    centered = lax.sub(a, mean(a, axis=axis, dtype=comp, keepdims=True, where=where))
    if comp.kind == "c":
        sq = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        sq = lax.square(centered)
    n = lax.sub(_count(shape, axis, where, real, False), lax._convert(ddof, real, False))
    out = lax.div(sum(sq, axis=axis, keepdims=keepdims, where=where), n)
    out = lax._convert(out, res, False)
    return where_(lax.gt(n, np.array(0, real)), out, np.nan)


_var = jit_named("_var", static_argnums=(3, 4, 5))(_var_impl)


def _std_impl(a, ddof, where, axis, dtype, keepdims):
    return lax.sqrt(_var(a, ddof, where, axis, dtype, keepdims))


_std = jit_named("_std", static_argnums=(3, 4, 5))(_std_impl)


def _var_args(name, a, axis, dtype, ddof, correction, where):
    util.check_arraylike(name, a)
    a = asarray(a)
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, name)
        dtype = dtypes.canonicalize_dtype(dtype)
    _index_axes(util.shape_of(a), axis, where)
    return a, _axes(axis, a.ndim), dtype, ddof if correction is None else correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
    a, axes, dtype, ddof = _var_args("var", a, axis, dtype, ddof, correction, where)
    return _var(a, ddof, where, axes, dtype, bool(keepdims))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
    a, axes, dtype, ddof = _var_args("std", a, axis, dtype, ddof, correction, where)
    return _std(a, ddof, where, axes, dtype, bool(keepdims))


def _arg_reduction(name, lax_fn):
    def fn(a, axis=None, out=None, keepdims=None):
        a = util.jax_array_of(a)
        util.check_arraylike(name, a)
        a = asarray(a)
        shape = util.shape_of(a)
        if axis is None:
            if a.size == 0:
                raise ValueError(f"attempt to get {name} of an empty sequence")
            flat = lax.reshape(a, (int(np.prod(shape)),))
            out = lax_fn(flat, 0, dtypes.default_int_dtype())
            return _keepdims(out, tuple(range(len(shape))), shape) if keepdims else out
        if not -len(shape) <= operator.index(axis) < len(shape):  # JAX's class: IndexError
            raise IndexError(f"axis {axis} is out of bounds for array of dimension {len(shape)}")
        ax = util.canonicalize_axis(axis, len(shape))
        if shape[ax] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        out = lax_fn(a, ax, dtypes.default_int_dtype())
        return _keepdims(out, (ax,), shape) if keepdims else out
    fn.__name__ = fn.__qualname__ = name
    return fastpath(1)(fn)


argmax = _arg_reduction("argmax", lax.argmax)
argmin = _arg_reduction("argmin", lax.argmin)


def _count_nonzero_impl(a, axis, keepdims):
    return sum(lax.ne(a, lax._convert(0, util_dtype(a), False)), axis=axis, keepdims=keepdims)


_count_nonzero = jit_named("count_nonzero", static_argnums=(1, 2))(_count_nonzero_impl)


def count_nonzero(a, axis=None, keepdims=False):
    a = asarray(a)
    return _count_nonzero(a, _axes(axis, a.ndim), bool(keepdims))


def cumulative_sum_index(x):
    return operator.index(x)


def _nan_fill(a, fill):
    return where_(isnan(a), util.const_like(a, fill), a)


def _nan_reduction(name, reduce, fill, all_nan_is_nan=False):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        util.check_arraylike(name, a)
        a = asarray(a)
        if not dtypes.is_inexact(util_dtype(a)):
            kw = {} if dtype is None else {"dtype": dtype}
            return reduce(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where,
                          **kw)
        kw = {} if dtype is None else {"dtype": dtype}
        res = reduce(_nan_fill(a, fill(util_dtype(a))), axis=axis, out=out, keepdims=keepdims,
                     initial=initial, where=where, **kw)
        if all_nan_is_nan:
            res = where_(all(isnan(a), axis=axis, keepdims=keepdims), util.const_like(res, np.nan), res)
        return res
    fn.__name__ = fn.__qualname__ = name
    return fn




nansum = _nan_reduction("nansum", sum, lambda dt: 0)


nanprod = _nan_reduction("nanprod", prod, lambda dt: 1)


nanmax = _nan_reduction("nanmax", lambda a, **k: max(a, **k), lambda dt: -np.inf, True)


nanmin = _nan_reduction("nanmin", lambda a, **k: min(a, **k), lambda dt: np.inf, True)


def _nan_count(a, axis, keepdims, dt, where=None):
    valid = logical_not(isnan(a))
    if where is not None:
        valid = lax.bitwise_and(valid, util.broadcast_to(asarray(where), a.shape))
    return sum(valid, axis=axis, keepdims=keepdims, dtype=dt)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    util.check_arraylike("nanmean", a)
    a = asarray(a)
    if not dtypes.is_inexact(util_dtype(a)):
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    dt = dtypes.canonicalize_dtype(dtype or util_dtype(a))
    count = _nan_count(a, axis, keepdims, dt, where)
    return lax.div(nansum(a, axis=axis, dtype=dt, keepdims=keepdims, where=where), count)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    util.check_arraylike("nanvar", a)
    a = asarray(a)
    (a,) = util.promote_dtypes_inexact(a)
    dt = dtypes.canonicalize_dtype(dtype or util_dtype(a))
    centered = lax.sub(a, nanmean(a, axis=axis, keepdims=True, where=where))
    sq = lax.real(lax.mul(centered, lax.conj(centered))) if dt.kind == "c" else lax.square(centered)
    sq = where_(isnan(a), lax.full_like(sq, 0), sq)  # NaNs made by inf - inf still count
    total = sum(sq, axis=axis, keepdims=keepdims, where=where)
    count = _nan_count(a, axis, keepdims, util_dtype(total), where)
    denom = lax.max(lax.sub(count, util.const_like(count, ddof)), util.const_like(count, 0))
    return lax._convert(lax.div(total, denom), dt if dt.kind != "c" else util_dtype(total), False)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    return lax.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where))


def _nan_arg(name, fn, fill):
    def arg(a, axis=None, out=None, keepdims=None):
        util.check_arraylike(name, a)
        a = asarray(a)
        if not dtypes.is_inexact(util_dtype(a)):
            return fn(a, axis=axis, keepdims=keepdims)
        mask = isnan(a)
        res = fn(where_(mask, util.const_like(a, fill), a), axis=axis, keepdims=keepdims)
        return where_(all(mask, axis=axis, keepdims=builtins.bool(keepdims)), util.const_like(res, -1), res)
    arg.__name__ = arg.__qualname__ = name
    return arg


nanargmax = _nan_arg("nanargmax", argmax, -np.inf)


nanargmin = _nan_arg("nanargmin", argmin, np.inf)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    util.check_arraylike("average", a)
    a = asarray(a)
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        if returned:
            n = a.size // builtins.max(avg.size, 1) if a.size else 0
            return avg, lax.full_like(avg, n)
        return avg
    a, w = util.promote_dtypes_inexact(a, asarray(weights))
    w = asarray(w)
    if a.shape != w.shape:
        if axis is None:
            raise ValueError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1:
            raise ValueError("1D weights expected when shapes of a and weights differ.")
        ax = util.canonicalize_axis(axis, a.ndim)
        if w.shape[0] != a.shape[ax]:
            raise ValueError("Length of weights not compatible with specified axis.")
        w = lax.broadcast_in_dim(w, a.shape, (ax,))
    wsum = sum(w, axis=axis, keepdims=keepdims)
    avg = lax.div(sum(lax.mul(a, w), axis=axis, keepdims=keepdims), wsum)
    if returned:
        return avg, util.broadcast_to(wsum, util.shape_of(avg))
    return avg


@jit_named("_ptp", static_argnames=("axis", "keepdims"))
def _ptp(a, axis, keepdims):
    return lax.sub(max(a, axis=axis, keepdims=keepdims), min(a, axis=axis, keepdims=keepdims))


def ptp(a, axis=None, out=None, keepdims=False):
    util.check_arraylike("ptp", a)
    axis = tuple(axis) if isinstance(axis, list) else axis
    return _ptp(a, axis=axis, keepdims=builtins.bool(keepdims))
