"""Sorting and cumulative reductions: ``sort`` (several operands sorted by
their first ``num_keys``), ``top_k`` and ``cumsum``/``cumprod``/``cummax``/
``cummin``/``cumlogsumexp``.

Sort lowers to ``stablehlo.sort`` with a comparator that orders NaNs last
(as NumPy does). Cumulative reductions lower to one ``reduce_window`` over
the whole axis, as JAX's do (XLA rewrites it to a parallel scan).
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from xjit._src import core, dtypes, sharding_in_types as sit
from xjit._src.interpreters import mlir as lowering
from ..core import Primitive, ShapedArray
from xjit._src.interpreters.mlir import i64_array, ttype
from . import reductions as red, sharding_rules
from xjit._src.interpreters import ad, batching
from xjit._src.interpreters.ad import Zero
from xjit._src.interpreters.batching import bdim_at_front, moveaxis, not_mapped
from .gather_scatter import GatherDimensionNumbers, GatherScatterMode, gather
from .slicing import lower_fun

# --------------------------------------------------------------------------
# sort


def _sort_eval(*operands, dimension, is_stable, num_keys):
    shape = operands[0].shape
    for o in operands[1:]:
        if o.shape != shape:
            raise TypeError(f"sort arguments must all have the same shape, got "
                            f"{', '.join(str(o.shape) for o in operands)}")
    if not 0 <= dimension < max(len(shape), 1):
        raise ValueError(f"dimension {dimension} is out of bounds for array of dimension "
                         f"{len(shape)}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"num_keys={num_keys} must be between 1 and the number of operands "
                         f"{len(operands)}")
    return list(operands)


def _cmp(ctx, direction, a, b, dtype):
    kind = "FLOAT" if dtypes.issubdtype(dtype, np.inexact) else (
        "UNSIGNED" if dtype.kind in "ub" else "SIGNED")
    st, sb = ShapedArray((), dtype), ShapedArray((), np.bool_)
    return ctx.op("stablehlo.compare", [a, b], [ttype(st)] * 2, ttype(sb),
                  attrs=f"comparison_direction = #stablehlo<comparison_direction {direction}>, "
                        f"compare_type = #stablehlo<comparison_type {kind}>")


def _bool_op(ctx, op, *xs):
    tb = ttype(ShapedArray((), np.bool_))
    return ctx.op(f"stablehlo.{op}", list(xs), [tb] * len(xs), tb)


def _key_lt_eq(ctx, a, b, dtype):
    """(a < b, a == b) in NumPy's sort order: NaNs after everything, equal to
    each other; complex numbers compare lexicographically."""
    if dtype.kind == "c":
        part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        ts, tp = ttype(ShapedArray((), dtype)), ttype(ShapedArray((), part))
        ar, br = (ctx.op("stablehlo.real", [x], [ts], tp) for x in (a, b))
        ai, bi = (ctx.op("stablehlo.imag", [x], [ts], tp) for x in (a, b))
        lt_r, eq_r = _key_lt_eq(ctx, ar, br, part)
        lt_i, eq_i = _key_lt_eq(ctx, ai, bi, part)
        return (_bool_op(ctx, "or", lt_r, _bool_op(ctx, "and", eq_r, lt_i)),
                _bool_op(ctx, "and", eq_r, eq_i))
    lt = _cmp(ctx, "LT", a, b, dtype)
    eq = _cmp(ctx, "EQ", a, b, dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        return lt, eq
    nan_a = _cmp(ctx, "NE", a, a, dtype)
    nan_b = _cmp(ctx, "NE", b, b, dtype)
    not_nan_a = _bool_op(ctx, "not", nan_a)
    lt = _bool_op(ctx, "or", lt, _bool_op(ctx, "and", nan_b, not_nan_a))
    eq = _bool_op(ctx, "or", eq, _bool_op(ctx, "and", nan_a, nan_b))
    return lt, eq


def _sort_lower(ctx, avals_in, avals_out, *operands, dimension, is_stable, num_keys):
    scalars = [ShapedArray((), a.dtype) for a in avals_in]
    arg_avals = [s for s in scalars for _ in range(2)]

    def comparator(*args):
        result = None
        for k in reversed(range(num_keys)):  # lexicographic over the keys
            lt, eq = _key_lt_eq(ctx, args[2 * k], args[2 * k + 1], scalars[k].dtype)
            result = lt if result is None else \
                _bool_op(ctx, "or", lt, _bool_op(ctx, "and", eq, result))
        return [(result, ShapedArray((), np.bool_))]

    region = ctx.region(arg_avals, comparator)
    return ctx.op("stablehlo.sort", list(operands), [ttype(a) for a in avals_in],
                  [ttype(a) for a in avals_out],
                  attrs=f"dimension = {dimension} : i64, "
                        f"is_stable = {'true' if is_stable else 'false'}",
                  regions=[region])


sort_p = Primitive("sort")
sort_p.multiple_results = True
core.abstract_eval_rules[sort_p] = _sort_eval
lowering.rules[sort_p] = _sort_lower


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sort one array, or a sequence of arrays by their first ``num_keys``."""
    single = not isinstance(operand, (list, tuple))
    ops = [operand] if single else list(operand)
    nd = len(core.aval_of(ops[0]).shape)
    dimension = operator.index(dimension)
    if not -nd <= dimension < max(nd, 1):
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension {nd}")
    dimension = dimension % max(nd, 1)
    if not 1 <= num_keys <= len(ops):
        raise ValueError(f"{num_keys=} must be between 1 and {len(ops)=}")
    outs = sort_p.bind(*ops, dimension=dimension, is_stable=bool(is_stable),
                       num_keys=operator.index(num_keys))
    return outs[0] if single else tuple(outs)


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    k, v = sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)
    return k, v


# --------------------------------------------------------------------------
# top_k


def _top_k_eval(operand, *, k, axis):
    if operand.dtype.kind == "c":
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if not operand.shape:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {operand.shape}")
    if not 0 <= axis < operand.ndim:
        raise ValueError(f"axis argument out of range: {axis=} for {operand.shape=}")
    if operand.shape[axis] < k:
        raise ValueError(f"k argument to top_k must be no larger than size along axis; got "
                         f"k={k} with shape={list(operand.shape)} and axis={axis}")
    shape = list(operand.shape)
    shape[axis] = k
    return [operand.update(shape=shape), ShapedArray(shape, np.int32)]


def _top_k_impl(operand, *, k, axis):
    """The first k of a descending sort that keeps equal values in index order
    (reverse, stable ascending sort, reverse)."""
    from xjit._src.lax import lax
    nd = operand.ndim
    idx = lax.broadcasted_iota(np.int32, operand.shape, axis)
    rev_x, rev_i = lax.rev(operand, (axis,)), lax.rev(idx, (axis,))
    vals, inds = sort_p.bind(rev_x, rev_i, dimension=axis, is_stable=True, num_keys=1)
    vals, inds = lax.rev(vals, (axis,)), lax.rev(inds, (axis,))
    start, limit = [0] * nd, list(operand.shape)
    limit[axis] = k
    return [lax.slice(vals, start, limit), lax.slice(inds, start, limit)]


top_k_p = Primitive("top_k")
top_k_p.multiple_results = True
core.abstract_eval_rules[top_k_p] = _top_k_eval
lowering.rules[top_k_p] = lower_fun(_top_k_impl, multiple_results=True)


def top_k(operand, k, *, axis=-1):
    """The ``k`` largest entries along ``axis`` and their indices."""
    nd = len(core.aval_of(operand).shape)
    k = core.concrete_or_error(operator.index, k, "The k argument to top_k must be static.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    axis = operator.index(axis)
    if not -nd <= axis < nd:  # a 0-d operand too, as JAX canonicalizes the axis first
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    return top_k_p.bind(operand, k=k, axis=axis % nd)


# --------------------------------------------------------------------------
# cumulative reductions


def _cum_eval(operand, *, axis, reverse, name=None):
    if operand.dtype == np.bool_:
        raise TypeError(f"{name} does not accept dtype bool. Accepted dtypes are subtypes of "
                        "number.")
    if not 0 <= axis < max(operand.ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {operand.ndim}")
    return operand


def _identity(name, dtype):
    if name == "cumsum":
        return np.zeros((), dtype)
    if name == "cumprod":
        return np.ones((), dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array(info.min if name == "cummax" else info.max, dtype)
    return np.array(np.inf if name == "cummin" else -np.inf, dtype)


def _logaddexp_jax(lax, a, b):  # JAX's window body: bit for bit its cumlogsumexp
    d = lax.sub(a, b)
    out = lax.add(lax.max(a, b), lax.log1p(lax.exp(lax.neg(lax.abs(d)))))
    return lax.select(lax.ne(d, d), lax.add(a, b), out)


_CUM_OPS = {"cumsum": "stablehlo.add", "cumprod": "stablehlo.multiply",
            "cummax": "stablehlo.maximum", "cummin": "stablehlo.minimum"}


def _cum_lower(name):
    """Each output the reduction of the window of all elements up to it (from
    it, reversed): one reduce_window, as JAX lowers the cumulative reductions
    on every platform (XLA rewrites it to a parallel scan), so sums and
    products round as JAX's do."""

    def body(ctx, scalar):
        if name in _CUM_OPS:
            return red.reduce_region(ctx, _CUM_OPS[name], scalar.dtype)
        from xjit._src.interpreters.partial_eval import trace_to_jaxpr
        from xjit._src.lax import lax
        jaxpr, consts = trace_to_jaxpr(lambda a, b: [_logaddexp_jax(lax, a, b)], [scalar, scalar])
        return ctx.region([scalar, scalar], lambda a, b: [
            (o, scalar) for o in lowering.lower_jaxpr(ctx, jaxpr, consts, [a, b])])

    def rule(ctx, ai, ao, x, *, axis, reverse):
        a = ai[0]
        n = a.shape[axis]
        if n == 0:
            return x
        scalar = a.update(shape=(), weak_type=False)
        init = ctx.constant(_identity(name, a.dtype), scalar)
        window, pads = [1] * a.ndim, [[0, 0] for _ in range(a.ndim)]
        window[axis], pads[axis] = n, ([0, n - 1] if reverse else [n - 1, 0])
        ones = [1] * a.ndim
        attrs = (f"window_dimensions = {i64_array(window)}, window_strides = {i64_array(ones)}, "
                 f"base_dilations = {i64_array(ones)}, window_dilations = {i64_array(ones)}, "
                 f"padding = dense<{pads}> : tensor<{a.ndim}x2xi64>")
        return ctx.op("stablehlo.reduce_window", [x, init], [ttype(a), ttype(scalar)],
                      ttype(ao[0]), attrs=attrs, regions=[body(ctx, scalar)])
    return rule


def _cum_prim(name):
    p = Primitive(name)
    core.abstract_eval_rules[p] = functools.partial(_cum_eval, name=name)
    lowering.rules[p] = _cum_lower(name)
    core.pp_param_rules[p] = lambda params: {"axis": params["axis"], "reverse": params["reverse"]}
    return p


cumsum_p = _cum_prim("cumsum")
cumprod_p = _cum_prim("cumprod")
cummax_p = _cum_prim("cummax")
cummin_p = _cum_prim("cummin")
cumlogsumexp_p = _cum_prim("cumlogsumexp")
sit.register([sort_p], sharding_rules.sort)
sit.register([top_k_p], sharding_rules.top_k)
sit.register([cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p], sharding_rules.cumulative)


def _cum_fn(prim):
    def fn(operand, axis=0, reverse=False):
        shape = core.aval_of(operand).shape
        axis = operator.index(axis)
        if axis < 0:  # lax takes no negative axes, as JAX
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= len(shape):
            raise ValueError(f"axis {axis} is out of bounds for array of shape {shape}")
        return prim.bind(operand, axis=axis, reverse=bool(reverse))
    fn.__name__ = prim.name
    fn.__doc__ = f"The inclusive ``{prim.name}`` of ``operand`` along ``axis``."
    return fn


cumsum = _cum_fn(cumsum_p)
cumprod = _cum_fn(cumprod_p)
cummax = _cum_fn(cummax_p)
cummin = _cum_fn(cummin_p)
cumlogsumexp = _cum_fn(cumlogsumexp_p)



# --------------------------------------------------------------------------
# JVP and batching rules (they call the lax API, which imports this module).
# The derivative of a non-linear cumulative reduction is, as in JAX, the JVP
# of a parallel prefix scan (``associative_scan``) of the same combining
# function: slices, pads and elementwise ops, differentiable to any order
# (unlike the primitive's lowering), printing the same equations as JAX's.

from xjit._src.lax import lax  # noqa: E402
from .assoc_scan import associative_scan  # noqa: E402


# --------------------------------------------------------------------------
# sort / top_k: tangents follow the permutation


def _take_along(t, perm, axis):
    nd = len(core.aval_of(t).shape)
    others = tuple(d for d in range(nd) if d != axis)
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                start_index_map=(axis,), operand_batching_dims=others,
                                start_indices_batching_dims=others)
    shape = core.aval_of(t).shape
    if shape[axis] == 0:  # nothing to permute (a unit slice would not fit)
        return lax.full(core.aval_of(perm).shape, 0, core.aval_of(t).dtype)
    sizes = tuple(0 if d != axis and shape[d] == 0 else 1 for d in range(nd))  # empty batches
    return gather(t, lax.expand_dims(perm, (nd,)), dn, sizes,
                  mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = core.aval_of(primals[0]).shape
    iota = lax.broadcasted_iota(np.int32, shape, dimension)
    *outs, perm = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                                 num_keys=num_keys)
    touts = [Zero.from_primal_value(o) if type(t) is Zero else _take_along(t, perm, dimension)
             for o, t in zip(outs, tangents)]
    return outs, touts


def _top_k_jvp(primals, tangents, *, k, axis):
    vals, idx = top_k_p.bind(primals[0], k=k, axis=axis)
    t = tangents[0]
    tv = Zero.from_primal_value(vals) if type(t) is Zero else _take_along(t, idx, axis)
    return [vals, idx], [tv, Zero.from_primal_value(idx)]


def _sort_batch(args, dims, *, dimension, **params):
    size = next(core.aval_of(a).shape[d] for a, d in zip(args, dims) if d is not not_mapped)
    args = [bdim_at_front(a, d, size) for a, d in zip(args, dims)]
    return sort_p.bind(*args, dimension=dimension + 1, **params), [0] * len(args)


def _top_k_batch(args, dims, *, k, axis):
    x = moveaxis(args[0], dims[0], 0)
    return top_k_p.bind(x, k=k, axis=axis + 1), [0, 0]


ad.jvp_rules[sort_p] = _sort_jvp
ad.jvp_rules[top_k_p] = _top_k_jvp
batching.batch_rules[sort_p] = _sort_batch
batching.batch_rules[top_k_p] = _top_k_batch


# --------------------------------------------------------------------------
# cumulative reductions


def _cumsum_transpose(ct, x, *, axis, reverse):
    if type(ct) is Zero:
        return [ct]
    return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


def _cumsum_jvp(primals, tangents, *, axis, reverse):
    out = cumsum_p.bind(primals[0], axis=axis, reverse=reverse)
    t = tangents[0]
    if type(t) is Zero:
        return out, Zero.from_primal_value(out)
    return out, cumsum_p.bind(t, axis=axis, reverse=reverse)


def _cum_batch(prim):
    def rule(args, dims, *, axis, reverse):
        (x,), (d,) = args, dims
        return prim.bind(x, axis=axis + (d <= axis), reverse=reverse), d
    return rule


ad.jvp_rules[cumsum_p] = _cumsum_jvp
ad.transpose_rules[cumsum_p] = _cumsum_transpose
for _p in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    batching.batch_rules[_p] = _cum_batch(_p)
del _p


def _logaddexp_jnp(a, b):
    return lax.numpy_ops.logaddexp(a, b)  # jnp's, a custom_jvp function as in JAX


_COMBINE = {cumprod_p: "mul", cummax_p: "max", cummin_p: "min"}  # lax functions


def _scan_jvp(prim):
    def rule(primals, tangents, *, axis, reverse):
        combine = getattr(lax, _COMBINE[prim]) if prim in _COMBINE else _logaddexp_jnp

        def scan(x):
            return [associative_scan(combine, x, reverse, axis)]
        (out,), (t,) = ad.jvp_flat(scan, primals, [ad.instantiate_zeros(tangents[0])])
        return out, t
    return rule


for _p in (cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    ad.jvp_rules[_p] = _scan_jvp(_p)
del _p
