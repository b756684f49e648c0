"""Array creation, elementwise functions and the dtype scalar types of
``xjit.numpy``."""
from __future__ import annotations

import builtins
import operator
import types

import numpy as np

from .. import core, dtypes
from ..array import Array, ArrayImpl
from ..core import Tracer
from ..dispatch import device_put, host_value
from ..eager import fastpath
from xjit._src.pjit import jit
from xjit._src.lax import lax
from ..lax.structural import copy_p
from ..lax.elementwise import check_float0_operand
from xjit._src.interpreters.partial_eval import is_staging
from . import util
from .util import promote_args, promote_args_inexact, promote_args_numeric, shape_of

from .scalar_types import *  # noqa: E402,F401,F403 (the dtype scalar types and type queries)
from .scalar_types import bool_  # noqa: E402,F401
from xjit._src.pjit import jit_named

# -- creation


def _is_array(x):
    return isinstance(x, (Tracer, ArrayImpl))


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
    out = _array(a, dtype, False, order, 0, "asarray")
    return out if device is None else util.on_device(out, device)


def array(object, dtype=None, copy=True, order="K", ndmin=0, *, device=None):
    out = _array(object, dtype, copy, order, ndmin, "array")
    return out if device is None else util.on_device(out, device)


def _array(object, dtype, copy, order, ndmin, name):
    unwrapped = util.jax_array_of(object)
    via_protocol, object = unwrapped is not object, unwrapped  # JAX: then never weakly typed
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, name, stacklevel=4)
        dtype = dtypes.canonicalize_dtype(dtype)
    if _is_array(object):
        out = copy_p.bind(object) if copy else object  # JAX stages a copy equation
        if dtype is not None or (via_protocol and object.aval.weak_type):
            out = util.convert(out, dtype or object.aval.dtype, False)
    elif isinstance(object, (list, tuple)) and _contains_array(object):
        out = _stack_nested(object, dtype)
    else:
        if object is None:
            raise ValueError("None is not a valid value for jnp.array")
        if isinstance(object, (list, tuple)):
            _check_leaves(object)
        elif isinstance(object, np.ndarray) and object.dtype not in dtypes._NUMERIC:
            raise TypeError("Error interpreting argument to stage as a JAX value. The problematic "
                            "value is of type <class 'numpy.ndarray'> and was passed to stage at "
                            "position 0.")
        weak = dtype is None and type(object) in (int, float, complex) and not via_protocol
        if type(object) is int and dtype is None:  # must fit the default int dtype
            np_val = host_value(object, dtypes.canonicalize_dtype(int))
        else:
            np_val = np.asarray(object) if dtype is None else np.asarray(object, dtype=dtype)
        if np_val.dtype not in dtypes._NUMERIC:
            dtypes._check_valid(object, np_val.dtype)
        target = dtype or dtypes.canonicalize_dtype(
            dtypes.dtype(object, canonicalize=False) if not isinstance(object, (list, tuple))
            else np_val.dtype)
        if isinstance(object, (list, tuple)) and target.kind in "iu" and np_val.dtype != target:
            np_val = np.asarray(object, dtype=target)  # NumPy raises for an int out of bounds
        aval = core.ShapedArray(np_val.shape, target, weak)
        out = ArrayImpl(device_put_raw(aval, np_val), aval)
    if ndmin > util.ndim_of(out):
        out = lax.expand_dims(out, tuple(range(ndmin - util.ndim_of(out))))
    return out


def _check_leaves(obj):
    """JAX's errors for None and strings inside a nested list."""
    for o in obj:
        if o is None:
            raise ValueError("None is not a valid value for jnp.array")
        if isinstance(o, (str, bytes)):
            raise TypeError(f"Value '{o}' with dtype {np.asarray(o).dtype} is not a valid JAX "
                            "array type. Only arrays of numeric types are supported by JAX.")
        if isinstance(o, (list, tuple)):
            _check_leaves(o)


def device_put_raw(aval, np_val):
    """``np_val`` on the device, in memory of its own: as in JAX, ``jnp.array``
    and ``jnp.asarray`` of a NumPy array never see later writes to it."""
    from xjit._src.xla_bridge import transfer_to_device
    with np.errstate(over="ignore"):
        return transfer_to_device(aval, np.asarray(np_val, dtype=aval.dtype), copy=True)


def _contains_array(obj):
    return builtins.any(_is_array(o) or hasattr(o, "__jax_array__")
                        or (isinstance(o, (list, tuple)) and _contains_array(o)) for o in obj)


def _stack_nested(obj, dtype):
    """A (nested) list holding arrays or tracers: a strongly typed array
    built by concatenating the promoted elements, as jnp.array does."""
    leaves = [_stack_nested(o, None) if isinstance(o, (list, tuple)) else util.jax_array_of(o)
              for o in obj]
    dtype = dtype or dtypes.result_type(*leaves)
    return lax.concatenate([lax.expand_dims(lax._convert(x, dtype, False), (0,)) for x in leaves], 0)


from .filled import (  # noqa: E402,F401
    _full_like, empty, empty_like, full, full_like, ones, ones_like, zeros, zeros_like)


@util.takes_device
def arange(start, stop=None, step=None, dtype=None, *, device=None):
    start_name = "stop" if stop is None and step is None else "start"
    for name, v in ((start_name, start), ("stop", stop), ("step", step)):
        if isinstance(v, Tracer):
            core.concrete_or_error(None, v, f"It arose in the jnp.arange argument '{name}'")
    dtypes.check_user_dtype_supported(dtype, "arange")
    for name, v in ((start_name, start), ("stop", stop), ("step", step)):
        if v is not None and np.ndim(v) != 0:
            raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={v}")
    vals = [v for v in (start, stop, step) if v is not None]
    dt = dtypes.canonicalize_dtype(dtype or dtypes.result_type(*vals))
    if builtins.any(np.iscomplexobj(v) for v in vals):
        raise ValueError("Passing complex start/stop/step to jnp.arange is no longer supported "
                         "starting in JAX v0.10.0.")
    if dt == np.bool_:  # lax.iota's own check, made before XLA sees a boolean iota
        raise TypeError("iota does not accept dtype bool. Accepted dtypes are subtypes of "
                        "integer, floating, complexfloating.")
    start, stop, step = (np.asarray(v)[()] if _is_array(v) else v for v in (start, stop, step))
    if stop is None:
        start, stop = 0, start
    if step is not None:  # start + step * iota, in float32 for narrower floats
        wt = np.dtype(np.float32) if dtypes.is_float(dt) and dt.itemsize < 4 else dt
        size = builtins.max(0, int(np.ceil((stop - start) / step)))
        out = lax.add(lax._convert(start, wt, False),
                      lax.mul(lax._convert(step, wt, False), lax.iota(wt, size)))
        return lax.convert_element_type(out, dt)
    size = builtins.max(0, int(np.ceil(stop - start)))
    if start == 0:
        return lax.iota(dt, size)
    return lax.add(lax._convert(start, dt, False), lax.iota(dt, size))


def _linspace_impl(start, stop, num, endpoint, dtype):
    """Integer dtypes are computed in floating point and floored at the end."""
    div = (num - 1) if endpoint else num
    dt = dtype if dtypes.is_inexact(dtype) else dtypes.canonicalize_dtype(
        dtypes.to_inexact_dtype(dtype))
    start = lax._convert(start, dt, False)
    stop = lax._convert(stop, dt, False)
    if num == 0:
        return zeros((0,), dtype)
    if num == 1:
        return lax._convert(lax.broadcast_in_dim(start, (1,), ()), dtype, False)
    delta = lax.div(lax.sub(stop, start), div)  # noqa
    steps = lax.div(lax.iota(dt, div if endpoint else num), float(div))
    lo = lax.reshape(start, (1,))
    out = lax.add(lax.mul(lo, lax.sub(1.0, steps)), lax.mul(lax.reshape(stop, (1,)), steps))
    if endpoint:
        out = lax.concatenate([out, lax.broadcast_in_dim(stop, (1,), ())], 0)
    if dt != dtype:
        out = lax._convert(lax.floor(out), dtype, False)
    return out


_linspace = jit_named("_linspace", static_argnums=(2, 3, 4))(_linspace_impl)


@util.takes_device
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.linspace")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dtypes.check_user_dtype_supported(dtype, "linspace")
    dt = dtypes.canonicalize_dtype(dtype or dtypes.to_inexact_dtype(dtypes.result_type(start, stop)))
    dt = dtypes.canonicalize_dtype(dt)
    out = _linspace(start, stop, num, builtins.bool(endpoint), dt)
    if retstep:
        step = (np.asarray(stop) - np.asarray(start)) / ((num - 1) if endpoint else num) if num else np.nan
        return out, asarray(step, dtype=dt)
    return out


@util.takes_device
def eye(N, M=None, k=0, dtype=None, *, device=None):
    dtypes.check_user_dtype_supported(dtype, "eye")
    dt = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    try:
        N, M = core.canonicalize_shape((N, N if M is None else M))
    except ValueError:  # a negative size
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}") from None
    rows = lax.broadcasted_iota(np.int32, (N, M), 0)
    cols = lax.broadcasted_iota(np.int32, (N, M), 1)
    mask = lax.eq(lax.add(rows, np.int32(k)), cols)
    return lax._convert(mask, dt, False)


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


# -- elementwise


def _one_to_one_binop(lax_fn, name, promote=promote_args, arg_names=("x", "y")):
    def fn(x1, x2, /):
        x1, x2 = promote(name, x1, x2)
        return lax_fn(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    return fastpath(2, arg_names)(fn)


def _one_to_one_unop(lax_fn, name, inexact=False, numeric=False):
    def fn(x, /):
        util.check_arraylike(name, x)
        if not _is_array(x):
            util.check_no_float0s(name, x)
        if inexact:
            (x,) = util.promote_dtypes_inexact(x)
        elif numeric:
            (x,) = util.promote_dtypes_numeric(x)
        elif not _is_array(x):
            (x,) = util.promote_dtypes(x)
        return lax_fn(x)
    fn.__name__ = fn.__qualname__ = name
    return fastpath(1)(fn)


def _bool_or(lax_fn, bool_fn, name):
    """jnp.add/multiply on booleans are logical or/and, as in NumPy."""
    def fn(x1, x2, /):
        x1, x2 = promote_args(name, x1, x2)
        return (bool_fn if util_dtype(x1) == np.bool_ else lax_fn)(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    return fastpath(2, ("x", "y"))(fn)


add = _bool_or(lax.add, lax.bitwise_or, "add")
subtract = _one_to_one_binop(lax.sub, "subtract")


def _mul_by_mask(x1, x2):
    """Eager ``mask * x`` with one boolean and one inexact operand, valued as
    JAX's compiled ``convert`` + ``mul`` is: XLA rewrites it to
    ``select(mask, x, 0)``, so ``False * nan`` is 0 (not IEEE's nan)."""
    mask_first = util_dtype(x1) == np.bool_
    p1, p2 = promote_args("multiply", x1, x2)
    other = p2 if mask_first else p1
    mask = asarray(x1 if mask_first else x2)
    shape = np.broadcast_shapes(np.shape(p1), np.shape(p2))
    return lax.select(util.broadcast_to(mask, shape), util.broadcast_to(other, shape),
                      lax.full(shape, 0, util_dtype(other)))


def _is_device_mask(x):
    """A boolean operand that reaches XLA as an array (a Python or NumPy scalar
    is folded on the host into a float literal, and multiplies as IEEE says)."""
    return type(x) is ArrayImpl or (isinstance(x, np.ndarray) and x.ndim > 0)


def _multiply(x1, x2, /):
    if core.trace_ctx.trace is core.eval_trace:
        d1, d2 = util_dtype(x1), util_dtype(x2)
        mask = x1 if d1 == np.bool_ else x2
        if (d1 == np.bool_) != (d2 == np.bool_) and _is_device_mask(mask) and dtypes.issubdtype(
                d2 if d1 == np.bool_ else d1, np.inexact):
            out = _mul_by_mask(x1, x2)
            dt, weak = dtypes.result_type(x1, x2, return_weak_type_flag=True)
            return lax._convert(out, dt, weak)
    x1, x2 = promote_args("multiply", x1, x2)
    return (lax.bitwise_and if util_dtype(x1) == np.bool_ else lax.mul)(x1, x2)


_multiply.__name__ = "multiply"
multiply = fastpath(2, ("x", "y"))(_multiply)
maximum = _one_to_one_binop(lax.max, "maximum")
minimum = _one_to_one_binop(lax.min, "minimum")
arctan2 = _one_to_one_binop(lax.atan2, "arctan2", promote_args_inexact, ("x1", "x2"))
equal = _one_to_one_binop(lax.eq, "equal")
not_equal = _one_to_one_binop(lax.ne, "not_equal")


def _complex_ordered(lax_cmp):
    """NumPy orders complex numbers lexicographically: by real part, then by
    imaginary part (lax's order comparisons reject them)."""
    def cmp(x, y):
        if util_dtype(x).kind != "c":
            return lax_cmp(x, y)
        return lax.select(lax.eq(lax.real(x), lax.real(y)), lax_cmp(lax.imag(x), lax.imag(y)),
                          lax_cmp(lax.real(x), lax.real(y)))
    return cmp


less = _one_to_one_binop(_complex_ordered(lax.lt), "less")
less_equal = _one_to_one_binop(_complex_ordered(lax.le), "less_equal")
greater = _one_to_one_binop(_complex_ordered(lax.gt), "greater")
greater_equal = _one_to_one_binop(_complex_ordered(lax.ge), "greater_equal")
bitwise_and = _one_to_one_binop(lax.bitwise_and, "bitwise_and")
bitwise_or = _one_to_one_binop(lax.bitwise_or, "bitwise_or")
bitwise_xor = _one_to_one_binop(lax.bitwise_xor, "bitwise_xor")
def _shift(signed_fn, unsigned_fn, name, arg_names=("x", "y")):
    """Shifts of booleans shift int32s; unsigned right shifts are logical."""
    def fn(x1, x2, /):
        x1, x2 = promote_args(name, x1, x2)
        if util_dtype(x1) == np.bool_:
            x1, x2 = lax._convert(x1, np.int32, False), lax._convert(x2, np.int32, False)
        return (unsigned_fn if util_dtype(x1).kind == "u" else signed_fn)(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    return fastpath(2, arg_names)(fn)


left_shift = _shift(lax.shift_left, lax.shift_left, "left_shift")
right_shift = _shift(lax.shift_right_arithmetic, lax.shift_right_logical, "right_shift",
                     ("x1", "x2"))


def _to_bool(x):
    """``lax.convert_element_type(x, bool)``: nonzero test for numbers."""
    if util_dtype(x) == np.bool_:
        return x
    # JAX compares with a zero that is weak only for a weak scalar x, so the
    # result of a non-scalar stays strongly typed
    weak = dtypes.is_weakly_typed(x) and not util.shape_of(x)
    return lax.ne(x, lax._convert(0, util_dtype(x), weak))


def _logical_binop(lax_fn, name):
    def fn(x1, x2, /):
        x1, x2 = promote_args(name, x1, x2)
        return lax_fn(_to_bool(x1), _to_bool(x2))
    fn.__name__ = fn.__qualname__ = name
    return fastpath(2, ("x", "y"))(fn)


def util_dtype(x):
    return x.aval.dtype if _is_array(x) else dtypes.dtype(x, canonicalize=True)


logical_and = _logical_binop(lax.bitwise_and, "logical_and")
logical_or = _logical_binop(lax.bitwise_or, "logical_or")
logical_xor = _logical_binop(lax.bitwise_xor, "logical_xor")


@fastpath(1)
def logical_not(x, /):
    (x,) = util.promote_dtypes(x)
    return lax.bitwise_not(_to_bool(x))


@fastpath(1)
def invert(x, /):
    (x,) = util.promote_dtypes(x)
    return lax.bitwise_not(x)


bitwise_not, bitwise_invert = util.renamed(invert, "bitwise_not"), util.renamed(invert, "bitwise_invert")

negative = _one_to_one_unop(lax.neg, "negative")
sign = _one_to_one_unop(lax.sign, "sign")
def _int_identity_unop(lax_fn, name):
    """floor/ceil return integer and bool input unchanged, as in JAX."""
    def fn(x, /):
        util.check_arraylike(name, x)
        (x,) = util.promote_dtypes(x)
        if util_dtype(x).kind in "iub":
            return lax.jit_output(x)
        return lax_fn(x)
    fn.__name__ = fn.__qualname__ = name
    return fastpath(1)(fn)


floor = _int_identity_unop(lax.floor, "floor")
ceil = _int_identity_unop(lax.ceil, "ceil")
exp = _one_to_one_unop(lax.exp, "exp", inexact=True)
exp2 = _one_to_one_unop(lax.exp2, "exp2", inexact=True)
log = _one_to_one_unop(lax.log, "log", inexact=True)
log1p = _one_to_one_unop(lax.log1p, "log1p", inexact=True)
expm1 = _one_to_one_unop(lax.expm1, "expm1", inexact=True)
sin = _one_to_one_unop(lax.sin, "sin", inexact=True)
cos = _one_to_one_unop(lax.cos, "cos", inexact=True)
tan = _one_to_one_unop(lax.tan, "tan", inexact=True)
arcsin = _one_to_one_unop(lax.asin, "arcsin", inexact=True)
arccos = _one_to_one_unop(lax.acos, "arccos", inexact=True)
arctan = _one_to_one_unop(lax.atan, "arctan", inexact=True)
sinh = _one_to_one_unop(lax.sinh, "sinh", inexact=True)
cosh = _one_to_one_unop(lax.cosh, "cosh", inexact=True)
tanh = _one_to_one_unop(lax.tanh, "tanh", inexact=True)
arcsinh = _one_to_one_unop(lax.asinh, "arcsinh", inexact=True)
arccosh = _one_to_one_unop(lax.acosh, "arccosh", inexact=True)
arctanh = _one_to_one_unop(lax.atanh, "arctanh", inexact=True)
sqrt = _one_to_one_unop(lax.sqrt, "sqrt", inexact=True)
cbrt = _one_to_one_unop(lax.cbrt, "cbrt", inexact=True)
square = _one_to_one_unop(lax.square, "square", numeric=True)
asin, acos, atan, asinh, acosh, atanh = (util.renamed(f, f.__name__.replace("arc", "a")) for f in
                                         (arcsin, arccos, arctan, arcsinh, arccosh, arctanh))


def positive(x, /):
    (x,) = util.promote_dtypes(x)
    return lax.jit_output(x)


def absolute(x, /):
    util.check_arraylike("absolute", x)
    if not _is_array(x):
        check_float0_operand("abs", getattr(x, "dtype", None))  # as lax.abs reports it
    (x,) = util.promote_dtypes(x)
    dt = util_dtype(x)
    if dt.kind == "u" or dt == np.bool_:
        return x
    return lax.abs(x)


abs = util.renamed(absolute, "abs")


def isfinite(x, /):
    util.check_arraylike("isfinite", x)
    (x,) = util.promote_dtypes(x)
    dt = util_dtype(x)
    if dt.kind == "f" or dtypes.is_float(dt):
        return lax.is_finite(x)
    if dt.kind == "c":
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.full_like(x, True, dtype=np.bool_)


def isnan(x, /):
    util.check_arraylike("isnan", x)
    (x,) = util.promote_dtypes(x)
    return lax.ne(x, x)


@jit_named("isinf")
def _isinf(x):
    dt = util_dtype(x)
    if dt.kind == "c":
        re, im = lax.real(x), lax.imag(x)
        inf = np.array(np.inf, util_dtype(re))
        return lax.bitwise_or(lax.eq(lax.abs(re), inf), lax.eq(lax.abs(im), inf))
    if dtypes.is_inexact(dt):
        return lax.eq(lax.abs(x), np.array(np.inf, dt))
    return lax.full_like(x, False, dtype=np.bool_)


def isinf(x, /):
    util.check_arraylike("isinf", x)
    return _isinf(x)


def true_divide(x1, x2, /):
    x1, x2 = promote_args_inexact("true_divide", x1, x2)
    return lax.div(x1, x2)


divide = util.renamed(true_divide, "divide")


def _floor_divide_impl(x1, x2):
    x1, x2 = util.promote_dtypes_numeric(x1, x2)
    x1, x2 = util.promote_shapes("floor_divide", x1, x2)
    dt = util_dtype(x1)
    if dt.kind == "u":
        return lax.div(x1, x2)
    if dt.kind == "i":
        q = lax.div(x1, x2)
        select = logical_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                             lax.ne(lax.rem(x1, x2), lax._convert(0, dt, True)))
        return where(select, lax.sub(q, lax._convert(1, dt, True)), q)
    if dt.kind == "c":
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


def _float_divmod(x1, x2):
    """Python's divmod for floats: the quotient is rounded toward -inf and the
    remainder takes the divisor's sign."""
    dt = util_dtype(x1)
    zero = lax._convert(0.0, dt, True)
    mod = lax.rem(x1, x2)
    div = lax.div(where(lax.eq(x2, zero), x1, lax.sub(x1, mod)), x2)
    ind = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.sign(x2), lax.sign(mod)))
    mod = lax.select(ind, lax.add(mod, x2), mod)
    div = lax.select(ind, lax.sub(div, lax._convert(1.0, dt, True)), div)
    return lax.round(div), mod


_floor_divide = jit_named("floor_divide")(_floor_divide_impl)


def floor_divide(x1, x2, /):
    util.check_arraylike("floor_divide", x1, x2)
    util.check_no_float0s("floor_divide", x1, x2)
    return _floor_divide(x1, x2)


def _ones_like(x):
    """JAX's ``lax._ones``: a scalar operand gets a literal, not a broadcast."""
    aval = core.aval_of(x)
    one = lax._convert(1, aval.dtype, aval.weak_type)
    return lax.broadcast_in_dim(one, aval.shape, ()) if aval.shape else one


def _zero_divisor_guard(x2):
    """An integer divisor of 0 becomes 1, so XLA never divides by zero."""
    return where(lax.eq(x2, lax._convert(0, util_dtype(x2), False)), _ones_like(x2), x2)


def _remainder_impl(x1, x2):
    x1, x2 = util.promote_dtypes_numeric(x1, x2)
    x1, x2 = util.promote_shapes("remainder", x1, x2)
    dt = util_dtype(x1)
    zero = lax._convert(0, dt, False)
    if dt.kind in "iu":
        x2 = _zero_divisor_guard(x2)
    r = lax.rem(x1, x2)
    nz = lax.ne(r, zero)
    fix = lax.bitwise_and(lax.ne(lax.lt(r, zero), lax.lt(x2, zero)), nz)
    return lax.select(fix, lax.add(r, x2), r)


_remainder = jit_named("remainder")(_remainder_impl)


def remainder(x1, x2, /):
    util.check_arraylike("remainder", x1, x2)
    return _remainder(x1, x2)


mod = util.renamed(remainder, "mod")


@jit_named("fmod")
def _fmod(x1, x2):
    if dtypes.result_type(x1, x2).kind in "iu":
        x2 = _zero_divisor_guard(x2)
    x1, x2 = promote_args_numeric("fmod", x1, x2)
    return lax.rem(x1, x2)


def fmod(x1, x2, /):
    util.check_arraylike("fmod", x1, x2)
    return _fmod(x1, x2)


@jit_named("divmod")
def _divmod(x1, x2):
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if util_dtype(x1).kind in "iu":
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


def divmod(x1, x2, /):
    util.check_arraylike("divmod", x1, x2)
    return _divmod(x1, x2)


def power(x1, x2, /):
    util.check_arraylike("power", x1, x2)
    util.check_no_float0s("power", x1, x2)
    if core.is_concrete(x2) and not (isinstance(x2, Array) and is_staging()):
        try:  # a concrete integer exponent: integer_pow
            n = operator.index(x2)
        except TypeError:
            pass
        else:
            (x1,) = util.promote_dtypes_numeric(x1)
            return lax.integer_pow(x1, n)
    x1, x2 = util.promote_shapes("power", x1, x2)
    p1, p2 = promote_args_numeric("power", x1, x2)
    if util_dtype(p1).kind in "iub":
        return _integer_power(p1, p2)
    if util_dtype(x1).kind in "fc" and util_dtype(x2).kind in "iu":
        # unpromoted, so the derivative at a zero base stays finite (as JAX)
        return lax.pow(x1, x2)
    return lax.pow(p1, p2)




pow = util.renamed(power, "pow")


def _integer_power(x1, x2):
    """Integer base and exponent: square-and-multiply over the exponent bits."""
    one, zero = lax._convert(1, util_dtype(x2), False), lax._convert(0, util_dtype(x2), False)
    # 0 ** n is 0 for n != 0, and anything ** 0 is 1
    acc = where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
    # exponents of 64 or more overflow any base but 0/1/-1, so, like JAX, we
    # look only at the six low bits of the exponent
    for _ in range(6):
        acc = where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
        x1 = lax.mul(x1, x1)
        x2 = lax.shift_right_logical(x2, one)
    return acc


def float_power(x1, x2, /):
    return power(*util.promote_dtypes_inexact(x1, x2))


def reciprocal(x, /):
    (x,) = util.promote_dtypes_inexact(x)
    return lax.integer_pow(x, -1)


def _where_impl(condition, x, y):
    if util_dtype(condition) != np.bool_:
        condition = lax.ne(condition, lax._convert(0, util_dtype(condition), False))
    x, y = util.promote_dtypes(x, y)
    shape = util.broadcast_shapes(*[shape_of(a) for a in (condition, x, y)])
    s = util.broadcast_sharding(condition, x, y)
    x, y = [util.broadcast_to(a, shape, s) for a in (x, y)]
    if shape_of(condition):  # a scalar predicate selects whole arrays as it is
        condition = util.broadcast_to(condition, shape, s)
    return lax.select_n(condition, y, x)


_where = jit_named("_where")(_where_impl)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    if x is None and y is None:
        from .indexing import nonzero
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided to "
                         "jax.numpy.where, got {} and {}.".format(x, y))
    util.check_arraylike("where", condition, x, y)
    return _where(condition, x, y)


def _clip_impl(arr, min, max):
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return asarray(arr)


_clip = jit_named("clip")(_clip_impl)


def clip(arr=None, /, min=None, max=None, *, a=None, a_min=None, a_max=None):
    arr = a if arr is None else arr
    min = a_min if min is None else min
    max = a_max if max is None else max
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    util.check_arraylike("clip", arr)
    if builtins.any(t is not None and not isinstance(t, (list, tuple))
                    and util_dtype(t).kind == "c" for t in (arr, min, max)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped. Please convert to a real "
            "value or array by taking the real or imaginary components via "
            "jax.numpy.real/imag respectively.")
    return _clip(arr, min, max)


def astype(x, dtype, /, *, copy=False, device=None):
    dtypes.check_user_dtype_supported(dtype, "astype")
    x = util.jax_array_of(x)
    if isinstance(x, (np.generic, complex)):
        x = np.asarray(x)  # an array, as JAX's asarray makes it: it converts as XLA does
    return util.on_device(lax.convert_element_type(x, dtypes.canonicalize_dtype(dtype)), device)


def real(x, /):
    util.check_arraylike("real", x)
    x = asarray(x)
    return lax.real(x) if util_dtype(x).kind == "c" else lax.jit_output(x)


def imag(x, /):
    util.check_arraylike("imag", x)
    x = asarray(x)
    if util_dtype(x).kind == "c":
        return lax.imag(x)
    return lax._convert(lax.full_like(x, 0), util_dtype(x), x.aval.weak_type)


@jit_named("round", static_argnames=("decimals",))
def _round(a, decimals):
    dt = util_dtype(a)
    if dt == np.bool_:
        raise ValueError(f"data type {np.bool_} not inexact")
    if dt.kind in "iu":
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a

    def round_float(x):
        if decimals == 0:
            return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
        xdt = util_dtype(x)
        if xdt == np.float16:  # scaled in float32 so the product keeps its digits
            x = lax._convert(x, np.float32, False)
        factor = lax._convert(10 ** decimals, util_dtype(x), False)
        out = lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)
        return lax._convert(out, xdt, False)

    if decimals > np.log10(float(dtypes.finfo(dt).max)):
        return a  # finer than the dtype resolves: nothing to round
    if dt.kind == "c":
        return lax.complex(round_float(lax.real(a)), round_float(lax.imag(a)))
    return round_float(a)


def round(a, decimals=0, out=None):
    util.check_arraylike("round", a)
    decimals = core.concrete_or_error(operator.index, decimals,
                                      "'decimals' argument of jnp.round")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    return _round(a, decimals=decimals)


@jit_named("around", static_argnames=("decimals",))
def _around(a, decimals):
    return round(a, decimals)


def around(a, decimals=0, out=None):
    return _around(a, decimals=decimals) if out is None else round(a, decimals, out)


# What ``xjit.numpy`` re-exports: the public functions and types, not this
# module's imports and helpers.
_INTERNAL = {"Array", "ArrayImpl", "is_staging", "Tracer", "annotations", "copy_p", "device_put",
             "device_put_raw", "fastpath", "host_value", "jit", "promote_args",
             "promote_args_inexact", "promote_args_numeric", "shape_of", "util_dtype"}
__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and n not in _INTERNAL
           and not isinstance(v, types.ModuleType)]
ndarray = Array
