"""Elementwise and statistical breadth of ``xjit.numpy``: hypot, logaddexp,
sinc, gcd/lcm, ldexp/frexp, closeness tests, NaN-ignoring reductions,
averages, differences, products (cross, kron), polynomials, interpolation
and selection. Everything is composed from lax primitives."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import (_is_array, abs as _abs, asarray, equal, greater, isinf, isnan, less,
                        logical_not, maximum, minimum, multiply, power, true_divide, util_dtype,
                        where)
from .more_ops import _static, jitted
from .reductions import all as _all, argmax as _argmax, argmin as _argmin
from .reductions import max as _max, mean as _mean, min as _min, prod as _prod, sum as _sum
from .shape_ops import concatenate, moveaxis, ravel


def _const(x, value):
    """``value`` in ``x``'s dtype and weakness (a scalar literal in jaxprs)."""
    return lax._convert(value, util_dtype(x), bool(getattr(x, "weak_type", True))
                        if _is_array(x) else True)


def _is_float(dt):
    return dt.kind == "f" or dtypes.is_float(dt)

# -- elementwise


@jitted("hypot")
def _hypot(x1, x2):
    x1, x2 = util.promote_args_inexact("hypot", x1, x2)
    x1, x2 = _abs(x1), _abs(x2)
    any_inf = lax.bitwise_or(isinf(x1), isinf(x2))
    big, small = maximum(x1, x2), minimum(x1, x2)
    zero = lax.eq(big, _const(big, 0))
    ratio = lax.div(small, where(zero, _const(big, 1), big))
    out = where(zero, big, lax.mul(big, lax.sqrt(lax.add(_const(ratio, 1), lax.square(ratio)))))
    return where(any_inf, _const(out, np.inf), out)


def hypot(x1, x2, /):
    util.check_arraylike("hypot", x1, x2)
    return _hypot(x1, x2)


def _logaddexp_impl(x1, x2, exp_fn, scale):
    x1, x2 = util.promote_args_inexact("logaddexp", x1, x2)
    amax = maximum(x1, x2)
    delta = lax.sub(x1, x2)
    soft = lax.log1p(exp_fn(lax.neg(lax.abs(delta))))
    if scale is not None:
        soft = lax.mul(soft, _const(soft, scale))
    return where(isnan(delta), lax.add(x1, x2), lax.add(amax, soft))


def _logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)) without overflow; NaN-safe for equal infinities."""
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    nan = lax.ne(delta, delta)
    total = lax.add(x1, x2)
    out = lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta)))))
    return lax.select(nan, total, out)


def _logaddexp_jvp(primals, tangents):
    """Tangent weights exp(x_i - out): 1/2 each at a tie, as JAX defines it."""
    x1, x2 = primals
    t1, t2 = tangents
    out = _logaddexp_rule(x1, x2)
    w1 = lax.exp(lax.sub(x1, out))
    w2 = lax.exp(lax.sub(x2, out))
    return out, lax.add(lax.mul(t1, w1), lax.mul(t2, w2))


def _make_logaddexp_rule():
    from ..custom_derivatives import custom_jvp
    rule = custom_jvp(_logaddexp)
    rule.__name__ = "logaddexp"
    rule.defjvp(_logaddexp_jvp)
    return rule


_logaddexp_rule = _make_logaddexp_rule()


def logaddexp(x1, x2, /):
    util.check_arraylike("logaddexp", x1, x2)
    x1, x2 = util.promote_args_inexact("logaddexp", x1, x2)
    return _logaddexp_rule(x1, x2)


def logaddexp2(x1, x2, /):
    util.check_arraylike("logaddexp2", x1, x2)
    return _logaddexp_impl(x1, x2, lax.exp2, 1 / np.log(2))


@jitted("sinc")
def _sinc(x):
    (x,) = util.promote_dtypes_inexact(x)
    is_zero = lax.eq(x, _const(x, 0))
    pi_x = lax.mul(_const(x, np.pi), where(is_zero, _const(x, 1), x))
    return where(is_zero, _const(x, 1), lax.div(lax.sin(pi_x), pi_x))


def sinc(x, /):
    util.check_arraylike("sinc", x)
    return _sinc(x)


def _scale_by(factor, name):
    def fn(x, /):
        util.check_arraylike(name, x)
        (x,) = util.promote_dtypes_inexact(x)
        return lax.mul(x, _const(x, factor))
    fn.__name__ = name
    return fn


deg2rad = radians = _scale_by(np.pi / 180, "deg2rad")
rad2deg = degrees = _scale_by(180 / np.pi, "rad2deg")


@jitted("heaviside")
def _heaviside(x1, x2):
    x1, x2 = util.promote_args_inexact("heaviside", x1, x2)
    zero = _const(x1, 0)
    out = where(lax.lt(x1, zero), zero, where(lax.gt(x1, zero), _const(x1, 1), x2))
    return where(isnan(x1), x1, out)


def heaviside(x1, x2, /):
    util.check_arraylike("heaviside", x1, x2)
    return _heaviside(x1, x2)


@jitted("signbit")
def _signbit(x):
    dt = util_dtype(x)
    if dt == np.bool_:
        return lax.full_like(x, False, np.bool_)
    if dt.kind in "iu":
        return lax.lt(x, _const(x, 0))
    from ..prng import bitcast_convert_type
    int_dt = {2: np.int16, 4: np.int32, 8: np.int64}[dt.itemsize]
    sign = lax.shift_right_arithmetic(bitcast_convert_type(x, int_dt), int_dt(8 * dt.itemsize - 1))
    return lax._convert(sign, np.bool_, False)


def signbit(x, /):
    util.check_arraylike("signbit", x)
    (x,) = util.promote_dtypes(x)
    if util_dtype(x).kind == "c":
        raise ValueError("jnp.signbit is not well defined for complex values.")
    return _signbit(asarray(x))


@jitted("copysign")
def _copysign(x1, x2):
    x1, x2 = util.promote_args_inexact("copysign", x1, x2)
    if util_dtype(x1).kind == "c":
        raise TypeError("copysign does not support complex-valued inputs")
    neg = _signbit(asarray(x2))
    return where(neg, lax.neg(_abs(x1)), _abs(x1))


def copysign(x1, x2, /):
    util.check_arraylike("copysign", x1, x2)
    return _copysign(x1, x2)


def _fminmax(name, cmp):
    def impl(x1, x2):
        x1, x2 = util.promote_args(name, x1, x2)
        return where(lax.bitwise_or(cmp(x1, x2), isnan(x2)), x1, x2)
    f = jitted(name)(impl)

    def fn(x1, x2, /):
        util.check_arraylike(name, x1, x2)
        return f(x1, x2)
    fn.__name__ = name
    return fn


fmin = _fminmax("fmin", less)
fmax = _fminmax("fmax", greater)


def _euclid_steps(dt):
    """Enough Euclid steps for any pair of ``dt`` integers (Lamé's bound)."""
    return int(np.ceil(1.45 * 8 * dt.itemsize)) + 2


@jitted("gcd")
def _gcd(x1, x2):
    x1, x2 = util.promote_args_numeric("gcd", x1, x2)
    if util_dtype(x1).kind not in "iu":
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    a, b = (util.broadcast_to(_abs(x), util.broadcast_shapes(util.shape_of(x1), util.shape_of(x2)))
            for x in (x1, x2))
    zero, one = _const(a, 0), _const(a, 1)
    for _ in range(_euclid_steps(util_dtype(a))):
        done = lax.eq(b, zero)
        r = lax.rem(a, where(done, one, b))
        a, b = where(done, a, b), where(done, zero, r)
    return a


def gcd(x1, x2, /):
    util.check_arraylike("gcd", x1, x2)
    return _gcd(x1, x2)


@jitted("lcm")
def _lcm(x1, x2):
    x1, x2 = util.promote_args_numeric("lcm", x1, x2)
    if util_dtype(x1).kind not in "iu":
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = _gcd(x1, x2)
    from .lax_numpy import floor_divide
    return where(lax.eq(d, _const(d, 0)), _const(d, 0),
                 _abs(multiply(x1, floor_divide(x2, where(lax.eq(d, _const(d, 0)), _const(d, 1), d)))))


def lcm(x1, x2, /):
    util.check_arraylike("lcm", x1, x2)
    return _lcm(x1, x2)


# Powers of two are built from their bits, so ldexp/frexp are exact on every
# backend (exp2/log of integers are not exact on GPUs).
_FLOAT_BITS = {4: (np.int32, 23, 127), 8: (np.int64, 52, 1023)}  # int type, mantissa, bias


def _work_dtype(dt):
    """16-bit floats are handled in float32 (their values are exact there)."""
    return np.dtype(np.float32) if dt.itemsize < 4 else dt


def _pow2(k, dt):
    """2.0**k for integer k within the normal exponent range of ``dt``."""
    from ..prng import bitcast_convert_type
    it, mant, bias = _FLOAT_BITS[dt.itemsize]
    k = lax._convert(k, it, False)
    return bitcast_convert_type(lax.shift_left(lax.add(k, it(bias)), it(mant)), dt)


@jitted("ldexp")
def _ldexp(x1, x2):
    (x1,) = util.promote_dtypes_inexact(x1)
    x1, x2 = util.promote_shapes("ldexp", x1, x2)
    dt = util_dtype(x1)
    wt = _work_dtype(dt)
    it, mant, bias = _FLOAT_BITS[wt.itemsize]
    x = lax._convert(x1, wt, False)
    # beyond 3 * (bias - 1) every result is 0 or inf; three factors stay in range
    n = lax.clamp(it(-3 * (bias - 1)), lax._convert(x2, it, False), it(3 * (bias - 1)))
    third = lax.div(n, it(3))
    for part in (third, third, lax.sub(n, lax.mul(third, it(2)))):
        x = lax.mul(x, _pow2(part, wt))
    return lax._convert(x, dt, False)


def ldexp(x1, x2, /):
    util.check_arraylike("ldexp", x1, x2)
    if util_dtype(x2).kind not in "iu":
        raise ValueError(f"x2 argument to ldexp must be integer; got {util_dtype(x2)}")
    return _ldexp(x1, x2)


@jitted("frexp")
def _frexp(x):
    from ..prng import bitcast_convert_type
    (x,) = util.promote_dtypes_inexact(x)
    dt = util_dtype(x)
    wt = _work_dtype(dt)
    it, mant, bias = _FLOAT_BITS[wt.itemsize]
    xw = lax._convert(x, wt, False)
    special = lax.bitwise_or(lax.eq(xw, _const(xw, 0)), lax.bitwise_or(isinf(xw), isnan(xw)))
    tiny = lax.lt(lax.abs(xw), lax._convert(float(np.finfo(wt).tiny), wt, False))
    xw = where(tiny, lax.mul(xw, _pow2(it(mant), wt)), xw)  # subnormals: scale up exactly
    bits = bitcast_convert_type(xw, it)
    field = lax.bitwise_and(lax.shift_right_logical(bits, it(mant)), it(2 * bias + 1))
    e = lax.sub(field, it(bias - 1))
    e = where(tiny, lax.sub(e, it(mant)), e)
    keep = lax.bitwise_not(lax.shift_left(it(2 * bias + 1), it(mant)))
    m = bitcast_convert_type(lax.bitwise_or(lax.bitwise_and(bits, keep),
                                            lax.shift_left(it(bias - 1), it(mant))), wt)
    m = lax._convert(where(special, xw, m), dt, False)
    e = where(special, lax.full_like(e, 0), e)
    return m, lax._convert(e, np.int32, False)


def frexp(x, /):
    util.check_arraylike("frexp", x)
    if util_dtype(x).kind == "c":
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


# -- closeness and equality


@jitted("isclose", ("equal_nan",))
def _isclose(a, b, rtol, atol, equal_nan):
    a, b = util.promote_args("isclose", a, b)
    dt = util_dtype(a)
    if not dtypes.is_inexact(dt):
        return lax.eq(a, b)
    rt = dt if dt.kind != "c" else np.dtype(np.float32 if dt == np.complex64 else np.float64)
    rtol, atol = lax._convert(rtol, rt, False), lax._convert(atol, rt, False)
    out = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    a_inf, b_inf = isinf(a), isinf(b)
    out = where(lax.bitwise_or(a_inf, b_inf), False, out)
    out = where(lax.bitwise_and(a_inf, b_inf), lax.eq(a, b), out)
    if equal_nan:
        out = where(lax.bitwise_and(isnan(a), isnan(b)), True, out)
    return out


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    util.check_arraylike("isclose", a, b)
    return _isclose(a, b, rtol, atol, equal_nan=builtins.bool(equal_nan))


@jitted("allclose", ("equal_nan",))
def _allclose(a, b, rtol, atol, equal_nan):
    return _all(_isclose(a, b, rtol, atol, equal_nan=equal_nan))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    util.check_arraylike("allclose", a, b)
    return _allclose(a, b, rtol, atol, equal_nan=builtins.bool(equal_nan))


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return asarray(False)
    a1, a2 = util.promote_dtypes(a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan:
        eq = lax.bitwise_or(eq, lax.bitwise_and(isnan(a1), isnan(a2)))
    return _all(eq)


def array_equiv(a1, a2):
    a1, a2 = asarray(a1), asarray(a2)
    try:
        util.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return asarray(False)
    return _all(equal(a1, a2))

# -- NaN-ignoring reductions


def _nan_fill(a, fill):
    return where(isnan(a), _const(a, fill), a)


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
            res = where_(_all(isnan(a), axis=axis, keepdims=keepdims), _const(res, np.nan), res)
        return res
    fn.__name__ = name
    return fn


where_ = where
nansum = _nan_reduction("nansum", _sum, lambda dt: 0)
nanprod = _nan_reduction("nanprod", _prod, lambda dt: 1)
nanmax = _nan_reduction("nanmax", lambda a, **k: _max(a, **k), lambda dt: -np.inf, True)
nanmin = _nan_reduction("nanmin", lambda a, **k: _min(a, **k), lambda dt: np.inf, True)


def _nan_count(a, axis, keepdims, dt, where=None):
    valid = logical_not(isnan(a))
    if where is not None:
        valid = lax.bitwise_and(valid, util.broadcast_to(asarray(where), a.shape))
    return _sum(valid, axis=axis, keepdims=keepdims, dtype=dt)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    util.check_arraylike("nanmean", a)
    a = asarray(a)
    if not dtypes.is_inexact(util_dtype(a)):
        return _mean(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
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
    total = _sum(sq, axis=axis, keepdims=keepdims, where=where)
    count = _nan_count(a, axis, keepdims, util_dtype(total), where)
    denom = lax.max(lax.sub(count, _const(count, ddof)), _const(count, 0))
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
        res = fn(where(mask, _const(a, fill), a), axis=axis, keepdims=keepdims)
        return where(_all(mask, axis=axis, keepdims=builtins.bool(keepdims)), _const(res, -1), res)
    arg.__name__ = name
    return arg


nanargmax = _nan_arg("nanargmax", _argmax, -np.inf)
nanargmin = _nan_arg("nanargmin", _argmin, np.inf)


@jitted("nan_to_num", ("copy",))
def _nan_to_num(x, copy, nan, posinf, neginf):
    dt = util_dtype(x)
    if dt.kind == "c":
        return lax.complex(_nan_to_num(lax.real(x), copy=copy, nan=nan, posinf=posinf, neginf=neginf),
                           _nan_to_num(lax.imag(x), copy=copy, nan=nan, posinf=posinf, neginf=neginf))
    if not dtypes.is_inexact(dt):
        return x
    info = dtypes.finfo(dt)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = where(isnan(x), lax._convert(nan, dt, False), x)
    out = where(lax.bitwise_and(isinf(out), lax.gt(out, _const(out, 0))),
                lax._convert(posinf, dt, False), out)
    return where(lax.bitwise_and(isinf(out), lax.lt(out, _const(out, 0))),
                 lax._convert(neginf, dt, False), out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    util.check_arraylike("nan_to_num", x)
    return _nan_to_num(x, copy=builtins.bool(copy), nan=nan, posinf=posinf, neginf=neginf)

# -- averages, differences, products


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    util.check_arraylike("average", a)
    a = asarray(a)
    if weights is None:
        avg = _mean(a, axis=axis, keepdims=keepdims)
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
    wsum = _sum(w, axis=axis, keepdims=keepdims)
    avg = lax.div(_sum(lax.mul(a, w), axis=axis, keepdims=keepdims), wsum)
    if returned:
        return avg, util.broadcast_to(wsum, util.shape_of(avg))
    return avg


def _diff_once(a, axis, op):
    n = a.shape[axis]
    return op(lax.slice_along(a, 1, n, axis=axis), lax.slice_along(a, 0, n - 1, axis=axis))


@jitted("diff", ("n", "axis"))
def _diff(a, n, axis, prepend, append):
    a = asarray(a)
    axis = util.canonicalize_axis(axis, a.ndim)

    def edge(extra):
        e = asarray(extra)
        if e.ndim:
            return e
        shape = list(a.shape)
        shape[axis] = 1
        return util.broadcast_to(e, shape)

    parts = ([] if prepend is None else [edge(prepend)]) + [a] + \
        ([] if append is None else [edge(append)])
    a = concatenate(parts, axis=axis) if len(parts) > 1 else parts[0]
    op = lax.ne if util_dtype(a) == np.bool_ else lax.sub
    for _ in range(n):
        a = _diff_once(a, axis, op)
    return a


def diff(a, n=1, axis=-1, prepend=None, append=None):
    util.check_arraylike("diff", a)
    n = operator.index(_static(n, "jnp.diff n"))
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if util.ndim_of(a) == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    return _diff(a, n=n, axis=axis, prepend=prepend, append=append)


@jitted("ediff1d")
def _ediff1d(ary, to_end, to_begin):
    flat = ravel(ary)
    out = _diff_once(flat, 0, lax.sub) if flat.shape[0] else flat
    parts = [ravel(lax._convert(asarray(to_begin), util_dtype(flat), False))] if to_begin is not None else []
    parts.append(out)
    if to_end is not None:
        parts.append(ravel(lax._convert(asarray(to_end), util_dtype(flat), False)))
    return lax.concatenate(parts, 0) if len(parts) > 1 else out


def ediff1d(ary, to_end=None, to_begin=None):
    util.check_arraylike("ediff1d", ary)
    return _ediff1d(ary, to_end, to_begin)


@jitted("cross", ("axisa", "axisb", "axisc", "axis"))
def _cross(a, b, axisa, axisb, axisc, axis):
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = util.promote_dtypes(a, b)
    a, b = moveaxis(asarray(a), axisa, -1), moveaxis(asarray(b), axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")

    def comp(x, i):
        if i >= x.shape[-1]:
            return lax.full(x.shape[:-1], 0, util_dtype(x))
        return lax.squeeze(lax.slice_along(x, i, i + 1, axis=x.ndim - 1), (x.ndim - 1,))

    shape = util.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    a0, a1, a2 = (util.broadcast_to(comp(a, i), shape) for i in range(3))
    b0, b1, b2 = (util.broadcast_to(comp(b, i), shape) for i in range(3))
    z = lax.sub(lax.mul(a0, b1), lax.mul(a1, b0))
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return z
    c = [lax.sub(lax.mul(a1, b2), lax.mul(a2, b1)), lax.sub(lax.mul(a2, b0), lax.mul(a0, b2)), z]
    out = lax.concatenate([lax.expand_dims(x, (x.ndim,)) for x in c], len(shape))
    return moveaxis(out, -1, axisc)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    util.check_arraylike("cross", a, b)
    return _cross(a, b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)


@jitted("kron")
def _kron(a, b):
    a, b = (asarray(x) for x in util.promote_dtypes(a, b))
    nd = builtins.max(a.ndim, b.ndim)
    a = lax.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = lax.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    wide_a = lax.broadcast_in_dim(a, sum(((d, 1) for d in a.shape), ()), tuple(range(0, 2 * nd, 2)))
    wide_b = lax.broadcast_in_dim(b, sum(((1, d) for d in b.shape), ()), tuple(range(1, 2 * nd, 2)))
    wide_a, wide_b = util.promote_shapes("kron", wide_a, wide_b)
    prod = multiply(wide_a, wide_b)
    return lax.reshape(prod, tuple(x * y for x, y in zip(a.shape, b.shape)))


def kron(a, b):
    util.check_arraylike("kron", a, b)
    return _kron(a, b)


@jitted("polyval", ("unroll",))
def _polyval(p, x, unroll):
    p, x = util.promote_dtypes(p, x)
    p, x = asarray(p), asarray(x)
    y = lax.full_like(x, 0)
    for i in range(p.shape[0]):
        y = lax.add(*util.promote_shapes("polyval", lax.mul(y, x), p[i]))
    return y


def polyval(p, x, *, unroll=16):
    util.check_arraylike("polyval", p, x)
    return _polyval(p, x, unroll=unroll)


def vander(x, N=None, increasing=False):
    util.check_arraylike("vander", x)
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else operator.index(N)
    if N < 0:
        raise ValueError("N must be nonnegative")
    exps = lax.iota(util_dtype(x) if util_dtype(x).kind in "iu" else np.int32, N)
    if not increasing:
        exps = lax.rev(exps, (0,))
    return power(lax.expand_dims(x, (1,)), lax.expand_dims(exps, (0,)))


@jitted("trapezoid", ("axis",))
def _trapezoid(y, x, dx, axis):
    if x is None:
        (y,) = util.promote_dtypes_inexact(y)
        y = moveaxis(asarray(y), axis, -1)
        d = dx
    else:
        y, x = util.promote_dtypes_inexact(y, x)
        y, x = moveaxis(asarray(y), axis, -1), asarray(x)
        x = x if x.ndim == 1 else moveaxis(x, axis, -1)
        d = _diff_once(x, x.ndim - 1, lax.sub)
    n = y.shape[-1]
    mid = lax.add(lax.slice_along(y, 1, n, axis=y.ndim - 1), lax.slice_along(y, 0, n - 1, axis=y.ndim - 1))
    return multiply(0.5, _sum(multiply(d, mid), axis=-1))


def trapezoid(y, x=None, dx=1.0, axis=-1):
    util.check_arraylike("trapezoid", y)
    return _trapezoid(y, x, dx, axis=axis)

# -- selection and interpolation


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist ({} vs {})".format(
            len(condlist), len(choicelist)))
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        if util_dtype(cond) != np.bool_:
            raise TypeError(f"condlist must be a list of boolean arrays; got {util_dtype(cond)}")
        out = where(cond, choice, out)
    return asarray(out)


def piecewise(x, condlist, funclist, *args, **kw):
    util.check_arraylike("piecewise", x)
    x = asarray(x)
    if isinstance(condlist, (bool, np.bool_)) or util.ndim_of(condlist) == 0 or (
            _is_array(condlist) and condlist.ndim == x.ndim and condlist.dtype == np.bool_):
        condlist = [condlist]
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        otherwise, funclist = funclist[-1], funclist[:-1]
    elif nf == nc:
        otherwise = 0
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; "
                         f"got {nf}")

    def apply(f):
        val = f(x, *args, **kw) if callable(f) else f
        return util.broadcast_to(lax._convert(asarray(val), util_dtype(x), False), x.shape)

    out = apply(otherwise)
    for cond, f in zip(condlist, funclist):
        out = where(asarray(cond), apply(f), out)
    return out


def _onehot_take(table, idx):
    """``table[idx]`` for a 1-D table, as a masked sum (no gather needed)."""
    n = table.shape[0]
    hit = lax.eq(lax.expand_dims(idx, (idx.ndim,)),
                 lax.broadcast_in_dim(lax.iota(util_dtype(idx), n), idx.shape + (n,), (idx.ndim,)))
    full = lax.broadcast_in_dim(table, idx.shape + (n,), (idx.ndim,))
    return _sum(where(hit, full, lax.full_like(full, 0)), axis=-1)


@jitted("_interp")
def _interp(x, xp, fp, left, right):
    x, xp, fp = (asarray(v) for v in util.promote_dtypes_inexact(x, xp, fp))
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("xp and fp must be one-dimensional")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("xp and fp must have the same length")
    n = xp.shape[0]
    count = _sum(lax.le(lax.broadcast_in_dim(xp, x.shape + (n,), (x.ndim,)),
                        lax.expand_dims(x, (x.ndim,))), axis=-1, dtype=np.int32)
    i = lax.clamp(np.int32(1), count, np.int32(builtins.max(n - 1, 1)))
    xp0, xp1 = _onehot_take(xp, lax.sub(i, np.int32(1))), _onehot_take(xp, i)
    fp0, fp1 = _onehot_take(fp, lax.sub(i, np.int32(1))), _onehot_take(fp, i)
    dx = lax.sub(xp1, xp0)
    tiny = lax.le(lax.abs(dx), _const(dx, float(dtypes.finfo(util_dtype(dx)).eps)))
    f = where(tiny, fp0, lax.add(fp0, lax.mul(lax.div(lax.sub(x, xp0), where(tiny, _const(dx, 1), dx)),
                                           lax.sub(fp1, fp0))))
    left = fp[0] if left is None else left
    right = fp[-1] if right is None else right
    f = where(lax.lt(x, xp[0]), left, f)
    return where(lax.gt(x, xp[-1]), right, f)


def interp(x, xp, fp, left=None, right=None, period=None):
    util.check_arraylike("interp", x, xp, fp)
    if period is not None:
        from .statistics import interp_periodic
        return interp_periodic(x, xp, fp, left, right, period)
    if isinstance(left, str) or isinstance(right, str):
        raise ValueError("left and right must be numbers or None")
    return _interp(x, xp, fp, left, right)


@jitted("_ptp", ("axis", "keepdims"))
def _ptp(a, axis, keepdims):
    return lax.sub(_max(a, axis=axis, keepdims=keepdims), _min(a, axis=axis, keepdims=keepdims))


def ptp(a, axis=None, out=None, keepdims=False):
    util.check_arraylike("ptp", a)
    axis = tuple(axis) if isinstance(axis, list) else axis
    return _ptp(a, axis=axis, keepdims=builtins.bool(keepdims))


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    a = ravel(asarray(a))
    (a,) = util.promote_dtypes_inexact(a)
    if np.ndim(bins) == 1:
        return asarray(bins, dtype=util_dtype(a))
    bins = operator.index(_static(bins, "jnp.histogram bins"))
    lo, hi = (_min(a), _max(a)) if range is None else (asarray(range[0], util_dtype(a)),
                                                         asarray(range[1], util_dtype(a)))
    same = lax.eq(lo, hi)
    lo = where(same, lax.sub(lo, _const(lo, 0.5)), lo)
    hi = where(same, lax.add(hi, _const(hi, 0.5)), hi)
    from .lax_numpy import linspace
    return linspace(lo, hi, bins + 1, dtype=util_dtype(a))


def histogram(a, bins=10, range=None, weights=None, density=None):
    util.check_arraylike("histogram", a)
    edges = histogram_bin_edges(a, bins, range, weights)
    a = ravel(asarray(a))
    (a,) = util.promote_dtypes_inexact(a)
    a = asarray(a)
    nb = edges.shape[0] - 1
    w = lax.full_like(a, 1) if weights is None else ravel(asarray(weights, util_dtype(a)))
    # bin i holds edges[i] <= a < edges[i+1]; the last bin also holds its right edge
    above = _sum(lax.le(lax.broadcast_in_dim(edges, a.shape + (nb + 1,), (1,)),
                        lax.expand_dims(a, (1,))), axis=-1, dtype=np.int32)
    idx = lax.sub(above, np.int32(1))
    idx = where(lax.eq(a, edges[-1]), np.int32(nb - 1), idx)
    hit = lax.eq(lax.expand_dims(idx, (1,)),
                 lax.broadcast_in_dim(lax.iota(np.int32, nb), (a.shape[0], nb), (1,)))
    wide = lax.broadcast_in_dim(w, (a.shape[0], nb), (0,))
    counts = _sum(where(hit, wide, lax.full_like(wide, 0)), axis=0)
    if density:
        widths = _diff_once(edges, 0, lax.sub)
        counts = true_divide(true_divide(counts, widths), _sum(counts))
    return counts, edges
