"""Elementwise functions of ``xjit.numpy`` beyond lax's one-primitive ones:
logarithms in other bases, rounding toward zero or to integers, complex parts
and angles, float bit neighbours, infinity and complexity tests, bit counts,
the array-API aliases, ``hypot``, ``logaddexp`` (a custom JVP, as in JAX),
``sinc``, ``heaviside``, sign bits, ``fmin``/``fmax``, ``gcd``/``lcm``,
``ldexp``/``frexp`` and ``nan_to_num``. Each is composed from lax primitives, jitted under JAX's name where
JAX jits it, so printed jaxprs match."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes
from ..custom_derivatives import custom_jvp
from xjit._src.lax import lax
from . import util
from .lax_numpy import (abs as _abs, absolute, arctan2, asarray, ceil, floor, greater, imag,
                        _is_array, isinf, isnan, left_shift, less, maximum, minimum, multiply, real,
                        right_shift, util_dtype, where)
from xjit._src.pjit import jit_named

atan2 = util.renamed(arctan2, "atan2")
bitwise_left_shift = util.renamed(left_shift, "bitwise_left_shift")
bitwise_right_shift = util.renamed(right_shift, "bitwise_right_shift")


def _check_ordered(name, x):
    """lax's comparison check (its complex operands have no order)."""
    dt = util_dtype(x)
    if dt.kind == "c":
        raise TypeError(f"{name} does not accept dtype {dt.name} at position 0. Accepted dtypes at "
                        "position 0 are subtypes of integer, floating, bool.")


def _const(x, value):
    """``value`` as a strongly typed scalar of ``x``'s dtype."""
    return lax._convert(value, util_dtype(x), False)


def _real_dtype(dt):
    return np.dtype(dtypes.finfo(dt).dtype)


def log10(x, /):
    (x,) = util.promote_args_inexact("log10", x)
    inv_ln10 = np.array(0.4342944819032518, _real_dtype(util_dtype(x)))  # 1 / log(10)
    if util_dtype(x).kind == "c":
        r = lax.log(x)
        re, im = lax.real(r), lax.imag(r)
        return lax.complex(lax.mul(re, inv_ln10), lax.mul(im, inv_ln10))
    return lax.mul(lax.log(x), inv_ln10)


def log2(x, /):
    (x,) = util.promote_args_inexact("log2", x)
    if util_dtype(x).kind == "c":
        r = lax.log(x)
        re, im = lax.real(r), lax.imag(r)
        ln2 = lax.log(_const(re, 2))
        return lax.complex(lax.div(re, ln2), lax.div(im, ln2))
    return lax.div(lax.log(x), lax.log(_const(x, 2)))


@jit_named("trunc")
def _trunc(x):
    if util_dtype(x).kind in "iub":
        return x
    _check_ordered("lt", x)
    return where(lax.lt(x, _const(x, 0)), ceil(x), floor(x))


def trunc(x):
    util.check_arraylike("trunc", x)
    return _trunc(x)


@jit_named("rint")
def _rint(x):
    dt = util_dtype(x)
    if dt.kind in "iub":
        return lax._convert(x, dtypes.default_float_dtype(), False)
    if dt.kind == "c":
        return lax.complex(_rint(lax.real(x)), _rint(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def rint(x, /):
    util.check_arraylike("rint", x)
    return _rint(x)


def fabs(x, /):
    util.check_arraylike("fabs", x)
    if util_dtype(x).kind == "c":
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    return lax.abs(*util.promote_args_inexact("fabs", x))


def conjugate(x, /):
    util.check_arraylike("conjugate", x)
    return lax.conj(x) if np.iscomplexobj(x) else lax.jit_output(asarray(x))


conj = util.renamed(conjugate, "conj")


@jit_named("angle", static_argnames=("deg",))
def _angle(z, deg):
    re, im = real(z), imag(z)
    if not dtypes.is_inexact(util_dtype(re)) or (
            dtypes.is_float(util_dtype(z)) and util.ndim_of(z) == 0):
        dt = dtypes.default_float_dtype()
        re, im = lax._convert(re, dt, False), lax._convert(im, dt, False)
    out = lax.atan2(im, re)
    return rad2deg(out) if deg else out


def angle(z, deg=False):
    util.check_arraylike("angle", z)
    return _angle(z, deg=bool(deg))


@jit_named("modf")
def _modf(x):
    (x,) = util.promote_dtypes_inexact(x)
    _check_ordered("ge", x)
    whole = where(lax.ge(x, _const(x, 0)), floor(x), ceil(x))
    return lax.sub(x, whole), whole


def modf(x, /, out=None):
    util.check_arraylike("modf", x)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    return _modf(x)


def nextafter(x, y, /):
    return lax.nextafter(*util.promote_args_inexact("nextafter", x, y))


def spacing(x, /):
    """The distance to the next float away from zero (toward +inf for float16,
    as JAX computes it), never 0: the smallest subnormal stands in."""
    (x,) = util.promote_args_inexact("spacing", x)
    dt = util_dtype(x)
    if dt.kind == "c":
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = _const(x, np.inf)
    if dt == np.float16:
        return lax.sub(lax.nextafter(x, inf), x)
    out = lax.sub(lax.nextafter(x, _copysign(inf, x)), x)
    tiny = np.asarray(dtypes.finfo(dt).smallest_subnormal, dt)[()]
    return where(lax.eq(out, _const(out, 0)), _copysign(tiny, x), out)


def _isposneginf(name, infinity, x, out):
    util.check_arraylike(name, x)
    if out is not None:
        raise NotImplementedError("The 'out' argument to isneginf/isposinf is not supported.")
    (x,) = util.promote_dtypes(x)
    dt = util_dtype(x)
    if dt.kind == "c":
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    if dtypes.is_inexact(dt):
        return lax.eq(x, _const(x, infinity))
    return lax.full_like(x, False, dtype=np.bool_)


def isposinf(x, /, out=None):
    return _isposneginf("isposinf", np.inf, x, out)


def isneginf(x, /, out=None):
    return _isposneginf("isneginf", -np.inf, x, out)


@jit_named("iscomplex")
def _iscomplex(x):
    i = imag(x)
    return lax.ne(i, lax.rule_const(i, 0))


@jit_named("isreal")
def _isreal(x):
    i = imag(x)
    return lax.eq(i, lax.rule_const(i, 0))


def iscomplex(x):
    util.check_arraylike("iscomplex", x)
    return _iscomplex(x)


def isreal(x):
    util.check_arraylike("isreal", x)
    return _isreal(x)


def iscomplexobj(x):
    if x is None:
        return False
    dt = util_dtype(x) if _is_array(x) else getattr(x, "dtype", None)
    return np.dtype(dt if dt is not None else np.asarray(x).dtype).kind == "c"


def isrealobj(x):
    return not iscomplexobj(x)


@jit_named("bitwise_count")
def _bitwise_count(x):
    (x,) = util.promote_args_numeric("bitwise_count", x)
    return lax._convert(lax.population_count(absolute(x)), np.uint8, False)


def bitwise_count(x, /):
    util.check_arraylike("bitwise_count", x)
    return _bitwise_count(x)


@jit_named("sort_complex")
def _sort_complex(a):
    from ..lax.sorting import sort
    a = sort(a)  # along the last axis
    return lax._convert(a, dtypes.to_complex_dtype(util_dtype(a)), False)


def sort_complex(a):
    util.check_arraylike("sort_complex", a)
    return _sort_complex(a)


def _i0_impl(x):
    from ..lax.special import bessel_i0e
    ax = lax.abs(x)
    return lax.mul(lax.exp(ax), bessel_i0e(ax))


def _i0_jvp(primals, tangents):
    """The derivative at 0 is exactly 0 (|x| has a kink there, I0 does not)."""
    from ..ad_api import jvp
    out, t = jvp(_i0_impl, primals, tangents)
    return out, where(lax.eq(primals[0], _const(primals[0], 0)), 0.0, t)


_i0 = custom_jvp(_i0_impl)
_i0.__name__ = "_i0"
_i0.defjvp(_i0_jvp)


@jit_named("i0")
def _i0_jit(x):
    (x,) = util.promote_args_inexact("i0", x)
    if not dtypes.is_float(util_dtype(x)):
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {util_dtype(x)}")
    return _i0(x)


def i0(x):
    util.check_arraylike("i0", x)
    return _i0_jit(x)


def _is_float(dt):
    return dt.kind == "f" or dtypes.is_float(dt)


@jit_named("hypot")
def _hypot(x1, x2):
    x1, x2 = util.promote_args_inexact("hypot", x1, x2)
    x1, x2 = _abs(x1), _abs(x2)
    any_inf = lax.bitwise_or(isinf(x1), isinf(x2))
    big, small = maximum(x1, x2), minimum(x1, x2)
    zero = lax.eq(big, util.const_like(big, 0))
    ratio = lax.div(small, where(zero, util.const_like(big, 1), big))
    out = where(zero, big, lax.mul(big, lax.sqrt(lax.add(util.const_like(ratio, 1), lax.square(ratio)))))
    return where(any_inf, util.const_like(out, np.inf), out)


def hypot(x1, x2, /):
    util.check_arraylike("hypot", x1, x2)
    if any(util_dtype(x).kind == "c" for x in (x1, x2)):
        raise ValueError("jnp.hypot is not well defined for complex-valued inputs. Please convert "
                         "to real values first, such as by using abs(x)")
    return _hypot(x1, x2)


def _wrap_between(x, a):
    """``x`` wrapped into ``[-a, a)``."""
    half, full, zero = (lax.rule_const(x, v) for v in (a, 2 * a, 0))
    rem = lax.rem(lax.add(x, half), full)
    return lax.sub(lax.select(lax.lt(rem, zero), lax.add(rem, full), rem), half)


def _make_logaddexp(name, exp_fn, inv_scale):
    """``log(exp(x1) + exp(x2))`` (``exp_fn`` = exp, or exp2 with the base-2
    ``inv_scale``) without overflow, as a custom JVP the way JAX defines it:
    NaN-safe for equal infinities, and for complex inputs the principal branch."""
    def soft(x):
        out = lax.log1p(exp_fn(x))
        if inv_scale is None:
            return out
        # JAX's constant: a Python float beside a weak 0-d value (the result stays
        # weak), else a strong one of the value's dtype
        return lax.mul(lax.rule_const(out, float(inv_scale)), out)

    def body(x1, x2):
        amax = lax.max(x1, x2)
        if util_dtype(x1).kind == "c":
            delta = lax.sub(lax.add(x1, x2), lax.mul(amax, lax.rule_const(amax, 2)))
            out = lax.add(amax, soft(delta))
            bound = np.pi if inv_scale is None else np.pi * inv_scale
            return lax.complex(lax.real(out), _wrap_between(lax.imag(out), bound))
        delta = lax.sub(x1, x2)
        return lax.select(lax.ne(delta, delta), lax.add(x1, x2),  # NaNs or same-sign infinities
                          lax.add(amax, soft(lax.neg(lax.abs(delta)))))

    def drop_posinf(x):
        re = lax.real(x) if util_dtype(x).kind == "c" else x
        return lax.select(lax.eq(re, _const(re, np.inf)), lax.full_like(x, 0), x)

    def jvp(primals, tangents):
        """Tangent weights ``exp(x_i - out)``, with +inf read as 0 (so a tie at
        +inf weighs 1), as JAX defines them."""
        (x1, x2), (t1, t2) = primals, tangents
        out = rule(x1, x2)
        w1 = exp_fn(lax.sub(drop_posinf(x1), drop_posinf(out)))
        w2 = exp_fn(lax.sub(drop_posinf(x2), drop_posinf(out)))
        return out, lax.add(lax.mul(t1, w1), lax.mul(t2, w2))

    body.__name__ = name
    jvp.__name__ = f"_{name}_jvp"
    rule = custom_jvp(body)
    rule.__name__ = name
    rule.defjvp(jvp)
    return rule


def _complex_broadcast(x1, x2):
    """Complex operands at one shape: lax's complex max does not broadcast."""
    s1, s2 = np.shape(x1), np.shape(x2)
    if util_dtype(x1).kind != "c" or s1 == s2:
        return x1, x2
    shape = np.broadcast_shapes(s1, s2)
    return util.broadcast_to(x1, shape), util.broadcast_to(x2, shape)


_logaddexp = _make_logaddexp("logaddexp", lax.exp, None)
_logaddexp2 = _make_logaddexp("logaddexp2", lax.exp2, 1 / np.log(2))


def logaddexp(x1, x2, /):
    util.check_arraylike("logaddexp", x1, x2)
    x1, x2 = util.promote_args_inexact("logaddexp", x1, x2)
    return _logaddexp(*_complex_broadcast(x1, x2))


lax.numpy_ops.register(logaddexp=logaddexp)  # cumlogsumexp's combine


def logaddexp2(x1, x2, /):
    util.check_arraylike("logaddexp2", x1, x2)
    x1, x2 = util.promote_args_inexact("logaddexp2", x1, x2)
    return _logaddexp2(*_complex_broadcast(x1, x2))


@jit_named("sinc")
def _sinc(x):
    (x,) = util.promote_dtypes_inexact(x)
    is_zero = lax.eq(x, util.const_like(x, 0))
    pi_x = lax.mul(util.const_like(x, np.pi), where(is_zero, util.const_like(x, 1), x))
    return where(is_zero, util.const_like(x, 1), lax.div(lax.sin(pi_x), pi_x))


def sinc(x, /):
    util.check_arraylike("sinc", x)
    return _sinc(x)


def _scale_by(factor, name):
    def fn(x, /):
        util.check_arraylike(name, x)
        (x,) = util.promote_dtypes_inexact(x)
        return lax.mul(x, util.const_like(x, factor))
    fn.__name__ = fn.__qualname__ = name
    return fn


deg2rad = _scale_by(np.pi / 180, "deg2rad")
radians = util.renamed(deg2rad, "radians")


rad2deg = _scale_by(180 / np.pi, "rad2deg")
degrees = util.renamed(rad2deg, "degrees")


@jit_named("heaviside")
def _heaviside(x1, x2):
    x1, x2 = util.promote_args_inexact("heaviside", x1, x2)
    zero = util.const_like(x1, 0)
    out = where(lax.lt(x1, zero), zero, where(lax.gt(x1, zero), util.const_like(x1, 1), x2))
    return where(isnan(x1), x1, out)


def heaviside(x1, x2, /):
    util.check_arraylike("heaviside", x1, x2)
    dt = dtypes.result_type(x1, x2)
    if dt.kind == "c":  # lax.lt's error, raised before the shapes are promoted, as in JAX
        raise TypeError(f"lt does not accept dtype {dt.name} at position 0. Accepted dtypes at "
                        "position 0 are subtypes of integer, floating, bool.")
    return _heaviside(x1, x2)


@jit_named("signbit")
def _signbit(x):
    dt = util_dtype(x)
    if dt == np.bool_:
        return lax.full_like(x, False, np.bool_)
    if dt.kind in "iu":
        return lax.lt(x, _const(x, 0))  # a strong zero: the result is never weak, as in JAX
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


@jit_named("copysign")
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
    f = jit_named(name)(impl)

    def fn(x1, x2, /):
        util.check_arraylike(name, x1, x2)
        return f(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    return fn


fmin = _fminmax("fmin", less)


fmax = _fminmax("fmax", greater)


def _euclid_steps(dt):
    """Enough Euclid steps for any pair of ``dt`` integers (Lamé's bound)."""
    return int(np.ceil(1.45 * 8 * dt.itemsize)) + 2


@jit_named("gcd")
def _gcd(x1, x2):
    x1, x2 = util.promote_dtypes(x1, x2)
    if util_dtype(x1).kind not in "iu":
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    shape = util.broadcast_shapes(util.shape_of(x1), util.shape_of(x2))
    a, b = (util.broadcast_to(_abs(x), shape) for x in (x1, x2))
    zero, one = util.const_like(a, 0), util.const_like(a, 1)
    for _ in range(_euclid_steps(util_dtype(a))):
        done = lax.eq(b, zero)
        r = lax.rem(a, where(done, one, b))
        a, b = where(done, a, b), where(done, zero, r)
    # JAX's loop mixes in a constant that is weak only beside a 0-d operand
    return lax._convert(a, util_dtype(a), False) if shape else a


def gcd(x1, x2, /):
    util.check_arraylike("gcd", x1, x2)
    return _gcd(x1, x2)


@jit_named("lcm")
def _lcm(x1, x2):
    x1, x2 = util.promote_dtypes(x1, x2)
    if util_dtype(x1).kind not in "iu":
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = _gcd(x1, x2)
    from .lax_numpy import floor_divide
    return where(lax.eq(d, util.const_like(d, 0)), util.const_like(d, 0),
                 _abs(multiply(x1, floor_divide(x2, where(lax.eq(d, util.const_like(d, 0)), util.const_like(d, 1), d)))))


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


@jit_named("ldexp")
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
    d1, d2 = util_dtype(x1), util_dtype(x2)
    if d1.kind == "c" or d2.kind in "fc":  # booleans are exponents too, as in JAX
        raise ValueError(f"ldexp not supported for input types {(d1, d2)}")
    return _ldexp(x1, x2)


def _frexp_bits(x):
    from ..prng import bitcast_convert_type
    dt = util_dtype(x)
    wt = _work_dtype(dt)
    it, mant, bias = _FLOAT_BITS[wt.itemsize]
    xw = lax._convert(x, wt, False)
    special = lax.bitwise_or(lax.eq(xw, util.const_like(xw, 0)), lax.bitwise_or(isinf(xw), isnan(xw)))
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


def _frexp_jvp(primals, tangents):
    """The mantissa's tangent is ``t * 2**-e`` (the bit arithmetic has none)."""
    (x,), (t,) = primals, tangents
    m, e = _frexp_rule(x)
    scale = lax.exp2(lax.neg(lax._convert(e, util_dtype(t), False)))
    return (m, e), (lax.mul(t, scale), np.zeros(np.shape(e), dtypes.float0))


_frexp_rule = custom_jvp(_frexp_bits)
_frexp_rule.__name__ = "_frexp"
_frexp_rule.defjvp(_frexp_jvp)


@jit_named("frexp")
def _frexp(x):
    (x,) = util.promote_dtypes_inexact(x)
    return _frexp_rule(x)


def frexp(x, /):
    util.check_arraylike("frexp", x)
    if util_dtype(x).kind == "c":
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


@jit_named("nan_to_num", static_argnames=("copy",))
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
    out = where(lax.bitwise_and(isinf(out), lax.gt(out, util.const_like(out, 0))),
                lax._convert(posinf, dt, False), out)
    return where(lax.bitwise_and(isinf(out), lax.lt(out, util.const_like(out, 0))),
                 lax._convert(neginf, dt, False), out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    util.check_arraylike("nan_to_num", x)
    return _nan_to_num(x, copy=builtins.bool(copy), nan=nan, posinf=posinf, neginf=neginf)
