"""Elementwise primitives: one table row per primitive (name, arity, accepted
dtype kinds, StableHLO op) from which the abstract-eval, lowering and
batching rules are generated; the JVP and transpose rules follow, written as
JAX writes them (same operations in the same order, so differentiated
jaxprs print the same equations). Binary primitives take equal shapes, or a
rank-0 operand that is broadcast (as JAX 0.10.2 allows). ``mulhi`` (lowered as
lax code, so defined after the import of the lax API) and
``reduce_precision`` close the module."""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core, dtypes, sharding_in_types as sit
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero, defjvp, defjvp2, defjvp_zero, deflinear, deflinear2
from xjit._src.interpreters.ad import is_undefined_primal
from ..core import Primitive, ShapedArray
from xjit._src.interpreters.mlir import ttype

# dtype classes a primitive accepts, as JAX names them in its errors
FLOAT = ("floating",)
INEXACT = ("floating", "complexfloating")
NUM = ("integer", "floating", "complexfloating")
INT = ("integer",)
INT_BOOL = ("integer", "bool")
ANY = ("integer", "floating", "complexfloating", "bool")
REAL = ("integer", "floating", "bool")
REAL_NUM = ("integer", "floating")


def _kind_ok(dtype, kinds):
    k = dtype.kind
    for name in kinds:
        if name == "floating" and (k == "f" or dtype == dtypes.bfloat16 or dtypes.is_float(dtype)):
            return True
        if name == "complexfloating" and k == "c":
            return True
        if name == "integer" and (k in "iu" or (k == "V" and dtypes.is_int(dtype))):
            return True
        if name == "bool" and k == "b":
            return True
    return False


def _accepted(kinds):
    return "subtypes of " + ", ".join(kinds)


_FLOAT0_TAIL = ("float0s do not support any operations by design, because they are not "
                "compatible with non-trivial vector spaces. No implicit dtype conversion is "
                "done. You can use np.zeros_like(arr, dtype=np.float) to cast a float0 array "
                "to a regular zeros array. \nIf you didn't expect to get a float0 you might "
                "have accidentally taken a gradient with respect to an integer argument.")


def check_float0_operand(name, dtype, pos=None):
    """JAX's TypeError for a float0 operand (the tangent type of integers)."""
    if dtype == dtypes.float0:
        where = "a float0 array" if pos is None else f"a float0 at position {pos}"
        raise TypeError(f"Called {name} with {where}. {_FLOAT0_TAIL}")


def _check_unary(name, aval, kinds):
    if not _kind_ok(aval.dtype, kinds):
        check_float0_operand(name, aval.dtype)
        raise TypeError(f"{name} does not accept dtype {aval.dtype.name}. Accepted dtypes are "
                        f"{_accepted(kinds)}.")


def broadcast_shapes_binary(name, *avals):
    """Equal ranks with dims equal or 1, or rank-0 operands (as JAX 0.10.2's
    lax allows)."""
    shapes = [a.shape for a in avals if a.shape != ()]
    if not shapes:
        return ()
    if len({len(s) for s in shapes}) > 1:
        ranks = ", ".join(str(r) for r in sorted({len(s) for s in shapes}))
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {{{ranks}}}")
    out = []
    for dims in zip(*shapes):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(str(a.shape) for a in avals)}.")
        out.append(big.pop() if big else 1)
    return tuple(out)


def _naryop_eval(name, kinds, out_dtype=None, require_same=True):
    def rule(*avals, **params):
        for i, a in enumerate(avals):
            if not _kind_ok(a.dtype, kinds):
                if len(avals) == 1:
                    _check_unary(name, a, kinds)
                check_float0_operand(name, a.dtype, i)
                raise TypeError(f"{name} does not accept dtype {a.dtype.name} at position {i}. "
                                f"Accepted dtypes at position {i} are {_accepted(kinds)}.")
        if require_same and len(avals) > 1:
            d0 = avals[0].dtype
            if any(a.dtype != d0 for a in avals[1:]):
                names = ", ".join(a.dtype.name for a in avals)
                raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                                f"{names}. (Tip: jnp.{_JNP_NAME.get(name, name)} is a similar "
                                "function that does automatic type promotion on inputs).")
        shape = broadcast_shapes_binary(name, *avals) if len(avals) > 1 else avals[0].shape
        dt = out_dtype(avals[0].dtype) if out_dtype else avals[0].dtype
        weak = all(a.weak_type for a in avals)  # is_finite too: a weak operand, a weak result
        return ShapedArray(shape, dt, weak)
    return rule


_JNP_NAME = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide",
             "max": "maximum", "min": "minimum", "pow": "power", "rem": "remainder"}


def _bcast_operands(ctx, avals_in, aval_out, args):
    out = []
    for a, x in zip(avals_in, args):
        if a.shape != aval_out.shape:
            dims = lowering.i64_array(range(len(a.shape)))
            x = ctx.op("stablehlo.broadcast_in_dim", [x], [ttype(a)], ttype(aval_out.update(dtype=a.dtype)),
                       attrs=f"broadcast_dimensions = {dims}")
        out.append(x)
    return out


def _simple_lowering(op_name, attrs=None):
    def rule(ctx, avals_in, avals_out, *args, **params):
        aout = avals_out[0]
        args = _bcast_operands(ctx, avals_in, aout, args)
        in_types = [ttype(aout.update(dtype=a.dtype)) for a in avals_in]
        return ctx.op(op_name, args, in_types, ttype(aout), attrs=attrs)
    return rule


def naryop_eval(name, kinds):
    """Operands of ``kinds``, all of one dtype (JAX's message for these
    primitives has no jnp tip)."""
    base = _naryop_eval(name, kinds)

    def rule(*avals):
        if all(_kind_ok(a.dtype, kinds) for a in avals) and \
                len({a.dtype for a in avals}) > 1:
            raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                            f"{', '.join(a.dtype.name for a in avals)}.")
        return base(*avals)
    return rule


def naryop(name, nargs, eval_rule, lowering_rule=None):
    """A primitive applied elementwise to ``nargs`` operands, with its
    abstract eval, lowering (when given here) and the batching rule its arity
    calls for: n-ary operands broadcast against each other, a unary one keeps
    its batch axis where it is."""
    p = Primitive(name)
    core.abstract_eval_rules[p] = eval_rule
    if lowering_rule is not None:
        lowering.rules[p] = lowering_rule
    (batching.defbroadcasting if nargs > 1 else batching.defvectorized)(p)
    sit.sharding_rules[p] = sit.broadcasting_rule(name) if nargs > 1 else sit.unary_rule
    return p


def _define(name, kinds, op_name, nargs, out_dtype=None):
    return naryop(name, nargs, _naryop_eval(name, kinds, out_dtype), _simple_lowering(op_name))


# -- unary
neg_p = _define("neg", NUM, "stablehlo.negate", 1)
sign_p = _define("sign", NUM, "stablehlo.sign", 1)


def _lower_sign(ctx, avals_in, avals_out, x):
    """StableHLO's sign has no unsigned form: sign(x) = (x != 0) for those."""
    a = avals_in[0]
    if a.dtype.kind != "u":
        return ctx.op("stablehlo.sign", [x], [ttype(a)], ttype(a))
    zero = ctx.constant(np.zeros(a.shape, a.dtype), a)
    b = a.update(dtype=np.bool_)
    nz = ctx.op("stablehlo.compare", [x, zero], [ttype(a)] * 2, ttype(b),
                attrs="comparison_direction = #stablehlo<comparison_direction NE>, "
                      "compare_type = #stablehlo<comparison_type UNSIGNED>")
    return ctx.op("stablehlo.convert", [nz], [ttype(b)], ttype(a))
floor_p = _define("floor", FLOAT, "stablehlo.floor", 1)
ceil_p = _define("ceil", FLOAT, "stablehlo.ceil", 1)
is_finite_p = _define("is_finite", FLOAT, "stablehlo.is_finite", 1, out_dtype=lambda d: np.dtype(bool))
exp_p = _define("exp", INEXACT, "stablehlo.exponential", 1)
exp2_p = _define("exp2", INEXACT, "stablehlo.exponential", 1)  # lowered below
log_p = _define("log", INEXACT, "stablehlo.log", 1)
log1p_p = _define("log1p", INEXACT, "stablehlo.log_plus_one", 1)
expm1_p = _define("expm1", INEXACT, "stablehlo.exponential_minus_one", 1)
tanh_p = _define("tanh", INEXACT, "stablehlo.tanh", 1)
logistic_p = _define("logistic", INEXACT, "stablehlo.logistic", 1)
sin_p = _define("sin", INEXACT, "stablehlo.sine", 1)
cos_p = _define("cos", INEXACT, "stablehlo.cosine", 1)
tan_p = _define("tan", INEXACT, "stablehlo.tan", 1)
asin_p = _define("asin", INEXACT, "chlo.asin", 1)
acos_p = _define("acos", INEXACT, "chlo.acos", 1)
atan_p = _define("atan", INEXACT, "chlo.atan", 1)
sinh_p = _define("sinh", INEXACT, "chlo.sinh", 1)
cosh_p = _define("cosh", INEXACT, "chlo.cosh", 1)
asinh_p = _define("asinh", INEXACT, "chlo.asinh", 1)
acosh_p = _define("acosh", INEXACT, "chlo.acosh", 1)
atanh_p = _define("atanh", INEXACT, "chlo.atanh", 1)
sqrt_p = _define("sqrt", INEXACT, "stablehlo.sqrt", 1)
rsqrt_p = _define("rsqrt", INEXACT, "stablehlo.rsqrt", 1)
cbrt_p = _define("cbrt", FLOAT, "stablehlo.cbrt", 1)
erf_p = _define("erf", FLOAT, "chlo.erf", 1)
erfc_p = _define("erfc", FLOAT, "chlo.erfc", 1)
erf_inv_p = _define("erf_inv", FLOAT, "chlo.erf_inv", 1)
lgamma_p = _define("lgamma", FLOAT, "chlo.lgamma", 1)
digamma_p = _define("digamma", FLOAT, "chlo.digamma", 1)
not_p = _define("not", INT_BOOL, "stablehlo.not", 1)
population_count_p = _define("population_count", INT, "stablehlo.popcnt", 1)
clz_p = _define("clz", INT, "stablehlo.count_leading_zeros", 1)
square_p = _define("square", NUM, "stablehlo.multiply", 1)  # lowered below

# -- binary
add_p = _define("add", NUM, "stablehlo.add", 2)
sub_p = _define("sub", NUM, "stablehlo.subtract", 2)
mul_p = _define("mul", NUM, "stablehlo.multiply", 2)
div_p = _define("div", NUM, "stablehlo.divide", 2)
rem_p = _define("rem", REAL_NUM, "stablehlo.remainder", 2)
max_p = _define("max", ANY, "stablehlo.maximum", 2)
min_p = _define("min", ANY, "stablehlo.minimum", 2)
atan2_p = _define("atan2", INEXACT, "stablehlo.atan2", 2)
nextafter_p = _define("nextafter", FLOAT, "chlo.next_after", 2)
and_p = _define("and", INT_BOOL, "stablehlo.and", 2)
or_p = _define("or", INT_BOOL, "stablehlo.or", 2)
xor_p = _define("xor", INT_BOOL, "stablehlo.xor", 2)
shift_left_p = _define("shift_left", INT, "stablehlo.shift_left", 2)
shift_right_arithmetic_p = _define("shift_right_arithmetic", INT, "stablehlo.shift_right_arithmetic", 2)
shift_right_logical_p = _define("shift_right_logical", INT, "stablehlo.shift_right_logical", 2)


def _lower_exp2(ctx, avals_in, avals_out, x):
    a = avals_in[0]
    ln2 = ctx.constant(np.array(np.log(2), a.dtype), a.update(shape=()))
    ln2 = ctx.op("stablehlo.broadcast_in_dim", [ln2], [ttype(a.update(shape=()))], ttype(a),
                 attrs="broadcast_dimensions = array<i64>")
    y = ctx.op("stablehlo.multiply", [x, ln2], [ttype(a)] * 2, ttype(a))
    return ctx.op("stablehlo.exponential", [y], [ttype(a)], ttype(a))


lowering.rules[exp2_p] = _lower_exp2
lowering.rules[sign_p] = _lower_sign
lowering.rules[square_p] = lambda ctx, ai, ao, x: ctx.op(
    "stablehlo.multiply", [x, x], [ttype(ai[0])] * 2, ttype(ao[0]))


# -- unary with params
_integer_pow_dtype_rule = _naryop_eval("integer_pow", NUM)


def _integer_pow_eval(x, y):
    if y < 0 and x.dtype.kind in "iu":
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({x.str_short(False)}, {y})")
    return _integer_pow_dtype_rule(x)


_round_dtype_rule = _naryop_eval("round", FLOAT)


def _abs_eval(x):
    _check_unary("abs", x, NUM)
    dt = np.dtype(np.float32 if x.dtype == np.complex64 else np.float64) if x.dtype.kind == "c" else x.dtype
    return ShapedArray(x.shape, dt, x.weak_type)


def _complex_part_eval(name):
    def rule(x):
        if x.dtype.kind != "c":
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are "
                            "subtypes of complexfloating.")
        return ShapedArray(x.shape, np.float32 if x.dtype == np.complex64 else np.float64, x.weak_type)
    return rule




def _complex_eval(x, y):
    rule = _naryop_eval("complex", FLOAT)
    out = rule(x, y)
    return out.update(dtype=np.complex64 if out.dtype == np.float32 else np.complex128)


def _op_lowering(op_name):
    return lambda ctx, ai, ao, x: ctx.op(op_name, [x], [ttype(ai[0])], ttype(ao[0]))


abs_p = naryop("abs", 1, _abs_eval, _op_lowering("stablehlo.abs"))
real_p = naryop("real", 1, _complex_part_eval("real"), _op_lowering("stablehlo.real"))
imag_p = naryop("imag", 1, _complex_part_eval("imag"), _op_lowering("stablehlo.imag"))
complex_p = naryop("complex", 2, _complex_eval, _simple_lowering("stablehlo.complex"))


def _lower_conj(ctx, ai, ao, x, input_dtype=None):
    a = ai[0]
    if a.dtype.kind != "c":
        zero = ctx.constant(np.zeros(a.shape, a.dtype), a)
        return ctx.op("stablehlo.complex", [x, zero], [ttype(a)] * 2, ttype(ao[0]))
    re = ctx.op("stablehlo.real", [x], [ttype(a)], ttype(ao[0].update(dtype=_real_dtype(a.dtype))))
    im = ctx.op("stablehlo.imag", [x], [ttype(a)], ttype(ao[0].update(dtype=_real_dtype(a.dtype))))
    rt = ttype(ao[0].update(dtype=_real_dtype(a.dtype)))
    nim = ctx.op("stablehlo.negate", [im], [rt], rt)
    return ctx.op("stablehlo.complex", [re, nim], [rt, rt], ttype(ao[0]))


def _real_dtype(dt):
    return np.dtype(np.float32 if dt == np.complex64 else np.float64)


conj_p = naryop("conj", 1, lambda x, input_dtype=None: ShapedArray(
    x.shape, x.dtype if x.dtype.kind == "c" else dtypes.to_complex_dtype(x.dtype), x.weak_type),
    _lower_conj)


def _lower_integer_pow(ctx, avals_in, avals_out, x, y):
    """Exponentiation by squaring, as a chain of multiplies."""
    a = avals_in[0]
    t = ttype(a)
    if y == 0:
        return ctx.constant(np.ones(a.shape, a.dtype), a)
    acc, base, n = None, x, abs(y)
    while n:
        if n & 1:
            acc = base if acc is None else ctx.op("stablehlo.multiply", [acc, base], [t, t], t)
        n >>= 1
        if n:
            base = ctx.op("stablehlo.multiply", [base, base], [t, t], t)
    if y < 0:
        one = ctx.constant(np.ones(a.shape, a.dtype), a)
        acc = ctx.op("stablehlo.divide", [one, acc], [t, t], t)
    return acc


integer_pow_p = naryop("integer_pow", 1, _integer_pow_eval, _lower_integer_pow)


def _pow_eval(x, y):
    """An inexact base with an inexact exponent of its dtype or an exponent of
    any integer dtype; the result has the base's dtype."""
    for i, (a, kinds) in enumerate(((x, INEXACT), (y, NUM))):
        if not _kind_ok(a.dtype, kinds):
            check_float0_operand("pow", a.dtype, i)
            raise TypeError(f"pow does not accept dtype {a.dtype.name} at position {i}. "
                            f"Accepted dtypes at position {i} are {_accepted(kinds)}.")
    if x.dtype != y.dtype and y.dtype.kind not in "iu":
        raise TypeError("the first argument to pow must have an inexact dtype (float or complex), "
                        "and the second argument must have an inexact or integer dtype, and two "
                        f"inexact dtypes must match, but got {x.dtype.name} and {y.dtype.name} "
                        "respectively.")
    return ShapedArray(broadcast_shapes_binary("pow", x, y), x.dtype, x.weak_type and y.weak_type)


def _lower_pow(ctx, avals_in, avals_out, x, y):
    """StableHLO's power takes one element type: an integer exponent is
    converted to the base's dtype first."""
    ax, ay = avals_in
    if ay.dtype != ax.dtype:
        ay_new = ay.update(dtype=ax.dtype)
        y = ctx.op("stablehlo.convert", [y], [ttype(ay)], ttype(ay_new))
        ay = ay_new
    return _simple_lowering("stablehlo.power")(ctx, [ax, ay], avals_out, x, y)


pow_p = naryop("pow", 2, _pow_eval, _lower_pow)


def _minmax_lowering(op_name, pick_x):
    """StableHLO orders complex numbers by magnitude; JAX orders them
    lexicographically (real part, then imaginary), so those are lowered from
    comparisons of the parts."""
    real_rule = _simple_lowering(op_name)

    def lexicographic(x, y):
        shape = broadcast_shapes_binary(op_name, core.aval_of(x), core.aval_of(y))
        x, y = (v if v.shape == shape else  # a scalar, or size-1 axes (from vmap)
                lax.broadcast_in_dim(v, shape, tuple(range(len(shape) - v.ndim, len(shape))))
                for v in (x, y))
        rx, ry = lax.real(x), lax.real(y)
        take_x = lax.select(lax.eq(rx, ry), pick_x(lax)(lax.imag(x), lax.imag(y)), pick_x(lax)(rx, ry))
        return lax.select(take_x, x, y)

    def rule(ctx, avals_in, avals_out, x, y):
        if avals_in[0].dtype.kind != "c":
            return real_rule(ctx, avals_in, avals_out, x, y)
        return lower_fun(lexicographic)(ctx, avals_in, avals_out, x, y)
    return rule


lowering.rules[max_p] = _minmax_lowering("stablehlo.maximum", lambda lax: lax.gt)
lowering.rules[min_p] = _minmax_lowering("stablehlo.minimum", lambda lax: lax.lt)


def _lower_round(ctx, avals_in, avals_out, x, rounding_method=0):
    op = "stablehlo.round_nearest_afz" if int(rounding_method) == 0 else "stablehlo.round_nearest_even"
    return ctx.op(op, [x], [ttype(avals_in[0])], ttype(avals_out[0]))


round_p = naryop("round", 1, lambda x, **params: _round_dtype_rule(x), _lower_round)


# -- comparisons
_COMPARE = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}


def _compare_type(dtype):
    if dtype.kind in "fc" or dtypes.is_float(dtype):
        return "FLOAT"
    if dtype.kind in "ub" or dtype in dtypes._UNSIGNED:
        return "UNSIGNED"
    return "SIGNED"


def _define_compare(name, kinds):
    base = _naryop_eval(name, kinds)

    def lower(ctx, avals_in, avals_out, x, y):
        aout = avals_out[0]
        x, y = _bcast_operands(ctx, avals_in, aout, (x, y))
        t = ttype(aout.update(dtype=avals_in[0].dtype))
        attrs = (f"comparison_direction = #stablehlo<comparison_direction {_COMPARE[name]}>, "
                 f"compare_type = #stablehlo<comparison_type {_compare_type(avals_in[0].dtype)}>")
        return ctx.op("stablehlo.compare", [x, y], [t, t], ttype(aout), attrs=attrs)

    return naryop(name, 2, lambda x, y: base(x, y).update(dtype=np.dtype(bool)), lower)


eq_p = _define_compare("eq", ANY)
ne_p = _define_compare("ne", ANY)
# complex numbers have no order: JAX rejects them in these four
lt_p = _define_compare("lt", REAL)
le_p = _define_compare("le", REAL)
gt_p = _define_compare("gt", REAL)
ge_p = _define_compare("ge", REAL)


# --------------------------------------------------------------------------
# JVP and transpose rules (they call the lax API, which imports this module)

from xjit._src.lax import lax  # noqa: E402


def _maybe_broadcast(shape, x):
    """A tangent of a broadcast (rank-0 or size-1) operand at the output shape."""
    xs = core.aval_of(x).shape
    if xs == tuple(shape):
        return x
    if not xs:
        return lax.broadcast_in_dim(x, shape, ())
    dims = [i for i, (a, b) in enumerate(zip(xs, shape)) if a == b]
    return lax.broadcast_in_dim(lax.reshape(x, [xs[i] for i in dims]), shape, dims)


def _unbroadcast(aval, x):
    """Sum a cotangent back down to a broadcast operand's shape."""
    xs = core.aval_of(x).shape
    if xs == aval.shape:
        return x
    if not aval.shape:
        return lax.reduce_sum(x, tuple(range(len(xs))))
    dims = tuple(i for i, (a, b) in enumerate(zip(xs, aval.shape)) if a != b)
    return lax.reshape(lax.reduce_sum(x, dims), aval.shape)


for _p in (sign_p, floor_p, ceil_p, round_p, is_finite_p, not_p, and_p, or_p, xor_p,
           shift_left_p, shift_right_arithmetic_p, shift_right_logical_p,
           eq_p, ne_p, lt_p, le_p, gt_p, ge_p):
    defjvp_zero(_p)
# nextafter, population_count and clz have no JVP: with a nonzero tangent JAX
# raises NotImplementedError for them (before their dtype checks)

deflinear(neg_p, lambda ct: [lax.neg(ct)])
defjvp2(exp_p, lambda g, ans, x: lax.mul(g, ans))
defjvp2(exp2_p, lambda g, ans, x: lax.mul(lax.log(lax._const(x, 2)), lax.mul(g, ans)))
defjvp(log_p, lambda g, x: lax.div(g, x))
defjvp(log1p_p, lambda g, x: lax.div(g, lax.add(x, 1)))
defjvp2(expm1_p, lambda g, ans, x: lax.mul(g, lax.add(ans, 1)))
defjvp2(tanh_p, lambda g, ans, x: lax.mul(lax.add(g, lax.mul(g, ans)), lax.sub(1, ans)))
defjvp2(logistic_p, lambda g, ans, x: lax.mul(g, lax.mul(ans, lax.sub(1, ans))))
defjvp(sin_p, lambda g, x: lax.mul(g, lax.cos(x)))
defjvp(cos_p, lambda g, x: lax.neg(lax.mul(g, lax.sin(x))))
defjvp2(tan_p, lambda g, ans, x: lax.mul(g, lax.add(1, lax.square(ans))))
defjvp(asin_p, lambda g, x: lax.mul(g, lax.rsqrt(lax.sub(1, lax.square(x)))))
defjvp(acos_p, lambda g, x: lax.mul(g, lax.neg(lax.rsqrt(lax.sub(1, lax.square(x))))))
defjvp(atan_p, lambda g, x: lax.div(g, lax.add(1, lax.square(x))))
defjvp(sinh_p, lambda g, x: lax.mul(g, lax.cosh(x)))
defjvp(cosh_p, lambda g, x: lax.mul(g, lax.sinh(x)))
defjvp(asinh_p, lambda g, x: lax.mul(g, lax.rsqrt(lax.add(lax.square(x), 1))))
defjvp(acosh_p, lambda g, x: lax.mul(g, lax.rsqrt(lax.sub(lax.square(x), 1))))
defjvp(atanh_p, lambda g, x: lax.mul(lax.integer_pow(lax.add(1, x), -1),
                                        lax.div(g, lax.sub(1, x))))
defjvp2(sqrt_p, lambda g, ans, x: lax.mul(g, lax.div(lax._const(x, 0.5), ans)))
defjvp2(rsqrt_p, lambda g, ans, x: lax.mul(g, lax.mul(lax._const(x, -0.5), lax.div(ans, x))))
defjvp2(cbrt_p, lambda g, ans, x: lax.mul(g, lax.mul(lax._const(x, 1 / 3), lax.integer_pow(ans, -2))))
defjvp(erf_p, lambda g, x: lax.mul(lax._const(x, 2 / np.sqrt(np.pi)),
                                      lax.mul(g, lax.exp(lax.neg(lax.square(x))))))
defjvp(erfc_p, lambda g, x: lax.mul(lax._const(x, -2 / np.sqrt(np.pi)),
                                       lax.mul(g, lax.exp(lax.neg(lax.square(x))))))
defjvp2(erf_inv_p, lambda g, ans, x: lax.mul(lax._const(x, np.sqrt(np.pi) / 2),
                                                lax.mul(g, lax.exp(lax.square(ans)))))
defjvp(lgamma_p, lambda g, x: lax.mul(g, lax.digamma(x)))
defjvp(square_p, lambda g, x: lax.mul(g, lax.mul(lax._const(x, 2), x)))

# digamma's rule (polygamma) lives with the special functions, lax/special.py


def _abs_jvp(g, ans, x):
    if core.aval_of(x).dtype.kind == "c":  # in the complex domain, as JAX's rule
        xc = lax.conj(x)
        ans = lax.convert_element_type(ans, core.aval_of(x).dtype)
        safe = lax.select(lax.eq(ans, lax._const(ans, 0)), lax.full_like(ans, 1), ans)
        return lax.real(lax.mul(g, lax.div(xc, safe)))
    return lax.select(lax.ge(x, lax._const(x, 0)), g, lax.neg(g))


defjvp2(abs_p, _abs_jvp)


def _integer_pow_jvp(g, x, *, y):
    if y == 0:
        return lax.full_like(g, 0)
    if y == 1:
        return g
    return lax.mul(g, lax.mul(lax._const(x, y), x if y == 2 else lax.integer_pow(x, y - 1)))


defjvp(integer_pow_p, _integer_pow_jvp)


# -- complex parts
# the zero part is strongly typed, as JAX's: the gradient at a Python complex is strong
deflinear(real_p, lambda ct: [lax.complex(ct, np.zeros((), core.aval_of(ct).dtype))])
deflinear(imag_p, lambda ct: [lax.complex(np.zeros((), core.aval_of(ct).dtype), lax.neg(ct))])
deflinear(complex_p, lambda ct: [lax.real(ct), lax.neg(lax.imag(ct))])


def _conj_transpose(ct, x, *, input_dtype):
    if np.dtype(input_dtype).kind == "c":
        return [lax.conj(ct)]
    return [lax.real(ct)]


deflinear2(conj_p, _conj_transpose)


# -- binary
def _add_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = add_p.bind(x, y)
    shape = core.aval_of(out).shape
    if type(tx) is Zero:
        return out, _maybe_broadcast(shape, ty)
    if type(ty) is Zero:
        return out, _maybe_broadcast(shape, tx)
    return out, lax.add(tx, ty)


def _sub_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = sub_p.bind(x, y)
    shape = core.aval_of(out).shape
    if type(tx) is Zero:
        return out, _maybe_broadcast(shape, lax.neg(ty))
    if type(ty) is Zero:
        return out, _maybe_broadcast(shape, tx)
    return out, lax.sub(tx, ty)


def _add_transpose(ct, x, y):
    return [_unbroadcast(x.aval, ct) if is_undefined_primal(x) else None,
            _unbroadcast(y.aval, ct) if is_undefined_primal(y) else None]


def _sub_transpose(ct, x, y):
    return [_unbroadcast(x.aval, ct) if is_undefined_primal(x) else None,
            _unbroadcast(y.aval, lax.neg(ct)) if is_undefined_primal(y) else None]


ad.jvp_rules[add_p] = _add_jvp
ad.jvp_rules[sub_p] = _sub_jvp
ad.transpose_rules[add_p] = _add_transpose
ad.transpose_rules[sub_p] = _sub_transpose


def _mul_transpose(ct, x, y):
    if is_undefined_primal(x):
        return [_unbroadcast(x.aval, lax.mul(ct, y)), None]
    return [None, _unbroadcast(y.aval, lax.mul(x, ct))]


defjvp(mul_p, lambda g, x, y: lax.mul(g, y), lambda g, x, y: lax.mul(x, g))
ad.transpose_rules[mul_p] = _mul_transpose
defjvp(div_p, lambda g, x, y: lax.div(g, y),
       lambda g, x, y: lax.mul(lax.mul(lax.neg(g), x), lax.integer_pow(y, -2)))
ad.transpose_rules[div_p] = lambda ct, x, y: [_unbroadcast(x.aval, lax.div(ct, y)), None]
defjvp(rem_p, lambda g, x, y: _maybe_broadcast(np.broadcast_shapes(core.aval_of(x).shape, core.aval_of(y).shape), g),
       lambda g, x, y: lax.mul(lax.neg(g), lax.mul(lax.sign(lax.div(x, y)),
                                                  lax.floor(lax.abs(lax.div(x, y))))))


def _pow_jvp_lhs(g, ans, x, y):
    y_int = core.aval_of(y).dtype.kind in "iu"
    dt = core.aval_of(x).dtype  # both at the base's dtype, strongly typed
    x, y = lax.convert_element_type(x, dt), lax.convert_element_type(y, dt)
    if y_int:
        if core.aval_of(x).shape != core.aval_of(y).shape:
            shape = np.broadcast_shapes(core.aval_of(x).shape, core.aval_of(y).shape)
            x, y = _maybe_broadcast(shape, x), _maybe_broadcast(shape, y)
        is_zero, zeros = lax.eq(y, lax._const(y, 0)), lax.full_like(y, 0)
        nonzero_y = lax.select(lax.eq(y, lax._const(y, 0)), lax.full_like(y, 1), y)
        jac = lax.select(is_zero, zeros, lax.mul(nonzero_y, lax.pow(x, lax.sub(y, lax.full_like(y, 1)))))
    else:
        jac = lax.mul(y, lax.pow(x, lax.sub(y, lax.full_like(y, 1))))
    return lax.mul(g, jac)


def _pow_jvp_rhs(g, ans, x, y):
    safe_x = lax.select(lax.eq(x, lax._const(x, 0)), lax.full_like(x, 1), x)
    return lax.mul(g, lax.mul(lax.log(safe_x), ans))


defjvp2(pow_p, _pow_jvp_lhs, _pow_jvp_rhs)


def _balanced_eq(x, z, y):
    return lax.div(lax.select(lax.eq(x, z), lax.full_like(z, 1), lax.full_like(z, 0)),
                   lax.select(lax.eq(y, z), lax.full_like(z, 2), lax.full_like(z, 1)))


defjvp2(max_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
        lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
defjvp2(min_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
        lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
defjvp(atan2_p,
       lambda g, x, y: lax.mul(g, lax.div(y, lax.add(lax.square(x), lax.square(y)))),
       lambda g, x, y: lax.mul(g, lax.div(lax.neg(x), lax.add(lax.square(x), lax.square(y)))))

# -- mulhi (lowered as lax code) and reduce_precision

from .slicing import lower_fun  # noqa: E402


def _mulhi_impl(x, y):
    """Schoolbook product on half-width limbs, so every partial product fits
    the operand type; signed results are corrected from the unsigned one."""
    dt = x.dtype
    bits = dt.itemsize * 8
    udt = np.dtype(f"uint{bits}")
    shape = np.broadcast_shapes(x.shape, y.shape)
    x = lax.broadcast_in_dim(x, shape, tuple(range(x.ndim))) if x.shape != shape else x
    y = lax.broadcast_in_dim(y, shape, tuple(range(y.ndim))) if y.shape != shape else y
    from ..prng import bitcast_convert_type
    ux = bitcast_convert_type(x, udt) if dt != udt else x
    uy = bitcast_convert_type(y, udt) if dt != udt else y
    h = udt.type(bits // 2)
    mask = udt.type((1 << (bits // 2)) - 1)
    xl, xh = lax.bitwise_and(ux, mask), lax.shift_right_logical(ux, h)
    yl, yh = lax.bitwise_and(uy, mask), lax.shift_right_logical(uy, h)
    ll, lh, hl, hh = lax.mul(xl, yl), lax.mul(xl, yh), lax.mul(xh, yl), lax.mul(xh, yh)
    cross = lax.add(lax.add(lax.shift_right_logical(ll, h), lax.bitwise_and(lh, mask)),
                    lax.bitwise_and(hl, mask))
    hi = lax.add(lax.add(hh, lax.shift_right_logical(lh, h)),
                 lax.add(lax.shift_right_logical(hl, h), lax.shift_right_logical(cross, h)))
    if dt == udt:
        return hi
    zero = lax.full(shape, 0, udt)
    hi = lax.sub(hi, lax.select(lax.lt(x, lax.full(shape, 0, dt)), uy, zero))
    hi = lax.sub(hi, lax.select(lax.lt(y, lax.full(shape, 0, dt)), ux, zero))
    return bitcast_convert_type(hi, dt)


mulhi_p = naryop("mulhi", 2, naryop_eval("mulhi", INT), lower_fun(_mulhi_impl))
defjvp_zero(mulhi_p)


def mulhi(x, y, /):
    """The high half of the product of two integers of the same type."""
    return mulhi_p.bind(x, y)


def _reduce_precision_eval(x, *, exponent_bits, mantissa_bits):
    _check_unary("reduce_precision", x, FLOAT)
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got "
                         f"{mantissa_bits}")
    return x


def _reduce_precision_lower(ctx, ai, ao, x, *, exponent_bits, mantissa_bits):
    return ctx.op("stablehlo.reduce_precision", [x], [ttype(ai[0])], ttype(ao[0]),
                  attrs=f"exponent_bits = {exponent_bits} : i32, "
                        f"mantissa_bits = {mantissa_bits} : i32")


reduce_precision_p = naryop("reduce_precision", 1, _reduce_precision_eval,
                            _reduce_precision_lower)
ad.deflinear(reduce_precision_p, lambda ct, **p: [reduce_precision_p.bind(ct, **p)])


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """Round ``operand`` to a float format with the given exponent and
    mantissa widths (keeping its dtype)."""
    return reduce_precision_p.bind(lax.asarray_device(operand),
                                   exponent_bits=operator.index(exponent_bits),
                                   mantissa_bits=operator.index(mantissa_bits))
