"""More elementwise functions of ``xjit.numpy``: logarithms in other bases,
rounding toward zero or to integers, complex parts and angles, float bit
neighbours, infinity and complexity tests, bit counts, and the array-API
aliases. Each is composed from lax primitives, jitted under JAX's name where
JAX jits it, so printed jaxprs match."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..custom_derivatives import custom_jvp
from xjit._src.lax import lax
from . import util
from .lax_numpy import (_is_array, absolute, arctan2, asarray, ceil, floor, imag, left_shift, real,
                        right_shift, util_dtype, where)
from .more_math import _copysign, rad2deg

atan2 = arctan2
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


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


@util.named_jit("trunc")
def _trunc(x):
    if util_dtype(x).kind in "iub":
        return x
    _check_ordered("lt", x)
    return where(lax.lt(x, _const(x, 0)), ceil(x), floor(x))


def trunc(x):
    util.check_arraylike("trunc", x)
    return _trunc(x)


@util.named_jit("rint")
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
    return lax.conj(x) if np.iscomplexobj(x) else lax.asarray_device(asarray(x))


conj = conjugate


@util.named_jit("angle", ("deg",))
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


@util.named_jit("modf")
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


@util.named_jit("iscomplex")
def _iscomplex(x):
    i = imag(x)
    return lax.ne(i, _const(i, 0))


@util.named_jit("isreal")
def _isreal(x):
    i = imag(x)
    return lax.eq(i, _const(i, 0))


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


@util.named_jit("bitwise_count")
def _bitwise_count(x):
    (x,) = util.promote_args_numeric("bitwise_count", x)
    return lax._convert(lax.population_count(absolute(x)), np.uint8, False)


def bitwise_count(x, /):
    util.check_arraylike("bitwise_count", x)
    return _bitwise_count(x)


@util.named_jit("sort_complex")
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


@util.named_jit("i0")
def _i0_jit(x):
    (x,) = util.promote_args_inexact("i0", x)
    if not dtypes.is_float(util_dtype(x)):
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {util_dtype(x)}")
    return _i0(x)


def i0(x):
    util.check_arraylike("i0", x)
    return _i0_jit(x)
