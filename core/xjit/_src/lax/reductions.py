"""Reductions along axes (reduce_sum/prod/max/min/and/or/xor) and
argmax/argmin, with their abstract eval, lowering, JVP/transpose and
batching rules."""
from __future__ import annotations

import numpy as np

from xjit._src import core, dtypes
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import defjvp2, defjvp_zero, deflinear2
from xjit._src.core import ShapedArray
from xjit._src.interpreters.mlir import i64_array, ttype
from .structural import broadcast_in_dim_p
from xjit._src import sharding_in_types as sit
from xjit._src.sharding_in_types import with_param_sharding

_prim = lowering.define_primitive


# -- reductions
def _reduce_eval(name, bool_only=False):
    def rule(x, axes, out_sharding=None):
        for a in axes:
            if not 0 <= a < x.ndim:
                raise ValueError(f"reduction axes {tuple(axes)} contains out-of-bounds indices "
                                 f"for {x.str_short(False)}.")
        if len(set(axes)) != len(axes):
            raise ValueError(f"duplicate value in 'axes' of reduction: {tuple(axes)}")
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return with_param_sharding(ShapedArray(shape, x.dtype, x.weak_type), out_sharding)
    return rule


def _init_value(name, dtype):
    if name == "reduce_sum" or name == "reduce_or" or name == "reduce_xor":
        return np.zeros((), dtype)
    if name == "reduce_prod":
        return np.ones((), dtype)
    if name == "reduce_and":  # all bits set
        return np.array(-1).astype(dtype)
    if dtype == np.bool_:
        return np.array(name == "reduce_min")
    if dtype.kind in "iu" or dtypes.is_int(dtype):
        info = dtypes.iinfo(dtype)  # ml_dtypes' also knows int4 and friends
        return np.array(info.min if name == "reduce_max" else info.max, dtype)
    return np.array(-np.inf if name == "reduce_max" else np.inf, dtype)


_REDUCE_OPS = {"reduce_sum": "stablehlo.add", "reduce_prod": "stablehlo.multiply",
               "reduce_max": "stablehlo.maximum", "reduce_min": "stablehlo.minimum",
               "reduce_and": "stablehlo.and", "reduce_or": "stablehlo.or",
               "reduce_xor": "stablehlo.xor"}


def reduce_region(ctx, op, dtype):
    sa = ShapedArray((), dtype)
    t = ttype(sa)
    return ctx.region([sa, sa], lambda a, b: [(ctx.op(op, [a, b], [t, t], t), sa)])


def _reduce_lower(name):
    def rule(ctx, ai, ao, x, axes, out_sharding=None):
        a = ai[0]
        init = ctx.constant(_init_value(name, a.dtype), a.update(shape=()))
        region = reduce_region(ctx, _REDUCE_OPS[name], a.dtype)
        return ctx.op("stablehlo.reduce", [x, init], [ttype(a), ttype(a.update(shape=()))],
                      ttype(ao[0]), attrs=f"dimensions = {i64_array(axes)}", regions=[region])
    return rule


def _reduce_prim(name, with_sharding):
    pp = (lambda p: {"axes": p["axes"], "out_sharding": p.get("out_sharding")}) if with_sharding \
        else (lambda p: {"axes": p["axes"]})
    return _prim(name, _reduce_eval(name), _reduce_lower(name), pp=pp)


reduce_sum_p = _reduce_prim("reduce_sum", True)
reduce_prod_p = _reduce_prim("reduce_prod", False)
reduce_max_p = _reduce_prim("reduce_max", False)
reduce_min_p = _reduce_prim("reduce_min", False)
reduce_and_p = _reduce_prim("reduce_and", False)
reduce_or_p = _reduce_prim("reduce_or", False)
reduce_xor_p = _reduce_prim("reduce_xor", False)


# -- argmin / argmax
def _arg_eval(x, axes, index_dtype):
    if not axes or not 0 <= axes[0] < x.ndim:
        raise ValueError(f"Invalid axis {axes[0]} for operand shape {x.shape}")
    if index_dtype.kind not in "iu":
        raise TypeError(f"index_dtype must be an integer type, but got {index_dtype.name}")
    if x.shape[axes[0]] == 0:
        raise ValueError("attempt to get argmax of an empty sequence")
    return ShapedArray(tuple(d for i, d in enumerate(x.shape) if i != axes[0]), index_dtype)


def _arg_lower(is_max):
    def rule(ctx, ai, ao, x, axes, index_dtype):
        a, o = ai[0], ao[0]
        if a.dtype.kind == "c":  # JAX's comparator is lax.gt/lt, which rejects complex
            name = "gt" if is_max else "lt"
            raise TypeError(f"{name} does not accept dtype {a.dtype.name} at position 0. Accepted "
                            "dtypes at position 0 are subtypes of integer, floating, bool.")
        axis = axes[0]
        ia = a.update(dtype=index_dtype)
        idx = ctx.op("stablehlo.iota", [], [], ttype(ia), attrs=f"iota_dimension = {axis} : i64")
        sv, si = ShapedArray((), a.dtype), ShapedArray((), index_dtype)
        tv, ti, tb = ttype(sv), ttype(si), ttype(ShapedArray((), np.bool_))
        direction = "GT" if is_max else "LT"
        ctype = "FLOAT" if a.dtype.kind == "f" or dtypes.is_float(a.dtype) else (
            "UNSIGNED" if a.dtype.kind in "ub" or a.dtype in dtypes._UNSIGNED else "SIGNED")

        def body(v1, i1, v2, i2):
            cmp = ctx.op("stablehlo.compare", [v1, v2], [tv, tv], tb,
                         attrs=f"comparison_direction = #stablehlo<comparison_direction {direction}>, "
                               f"compare_type = #stablehlo<comparison_type {ctype}>")
            eq = ctx.op("stablehlo.compare", [v1, v2], [tv, tv], tb,
                        attrs=f"comparison_direction = #stablehlo<comparison_direction EQ>, "
                              f"compare_type = #stablehlo<comparison_type {ctype}>")
            lt_i = ctx.op("stablehlo.compare", [i1, i2], [ti, ti], tb,
                          attrs="comparison_direction = #stablehlo<comparison_direction LT>, "
                                "compare_type = #stablehlo<comparison_type SIGNED>")
            tie = ctx.op("stablehlo.and", [eq, lt_i], [tb, tb], tb)
            pick1 = ctx.op("stablehlo.or", [cmp, tie], [tb, tb], tb)
            if ctype == "FLOAT":  # NaN wins, as in NumPy
                nan1 = ctx.op("stablehlo.compare", [v1, v1], [tv, tv], tb,
                              attrs="comparison_direction = #stablehlo<comparison_direction NE>, "
                                    "compare_type = #stablehlo<comparison_type FLOAT>")
                nan2 = ctx.op("stablehlo.compare", [v2, v2], [tv, tv], tb,
                              attrs="comparison_direction = #stablehlo<comparison_direction NE>, "
                                    "compare_type = #stablehlo<comparison_type FLOAT>")
                not2 = ctx.op("stablehlo.not", [nan2], [tb], tb)
                only1 = ctx.op("stablehlo.and", [nan1, not2], [tb, tb], tb)
                both = ctx.op("stablehlo.and", [nan1, nan2], [tb, tb], tb)
                both_first = ctx.op("stablehlo.and", [both, lt_i], [tb, tb], tb)
                not_nan2 = ctx.op("stablehlo.and", [pick1, not2], [tb, tb], tb)
                pick1 = ctx.op("stablehlo.or", [only1, not_nan2], [tb, tb], tb)
                pick1 = ctx.op("stablehlo.or", [pick1, both_first], [tb, tb], tb)
            v = ctx.op("stablehlo.select", [pick1, v1, v2], [tb, tv, tv], tv)
            i = ctx.op("stablehlo.select", [pick1, i1, i2], [tb, ti, ti], ti)
            return [(v, sv), (i, si)]

        region = ctx.region([sv, si, sv, si], body)
        init_v = ctx.constant(_init_value("reduce_max" if is_max else "reduce_min", a.dtype), sv)
        init_i = ctx.constant(np.zeros((), index_dtype), si)
        outs = ctx.op("stablehlo.reduce", [x, idx, init_v, init_i],
                      [ttype(a), ttype(ia), tv, ti], [ttype(o.update(dtype=a.dtype)), ttype(o)],
                      attrs=f"dimensions = {i64_array(axes)}", regions=[region])
        return outs[1]
    return rule


argmax_p = _prim("argmax", _arg_eval, _arg_lower(True))
argmin_p = _prim("argmin", _arg_eval, _arg_lower(False))

# sharding rules: the reduced dimensions' entries go (JAX 0.10.2's)
sit.register([reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p, reduce_or_p,
              reduce_xor_p, argmax_p, argmin_p], sit.drop_axes_rule)
sit.sharding_rules[reduce_sum_p] = lambda x, *, axes, out_sharding=None: (
    out_sharding if out_sharding is not None else sit.drop_axes_rule(x, axes=axes))


# --------------------------------------------------------------------------
# JVP, transpose and batching rules (they call the lax API, which imports
# this module)

from xjit._src.lax import lax  # noqa: E402

for _p in (argmax_p, argmin_p, reduce_and_p, reduce_or_p, reduce_xor_p):
    defjvp_zero(_p)


def _reduce_sum_transpose(ct, x, *, axes, out_sharding=None):
    shape = x.aval.shape
    dims = tuple(np.delete(np.arange(len(shape)), axes))
    return [broadcast_in_dim_p.bind(ct, shape=shape, broadcast_dimensions=dims,
                                    sharding=x.aval._sharding)]  # laid out as the primal


deflinear2(reduce_sum_p, _reduce_sum_transpose)


def _reduce_chooser_jvp(g, ans, x, *, axes):
    shape = [1 if i in axes else d for i, d in enumerate(core.aval_of(x).shape)]
    loc = lax.convert_element_type(lax.eq(x, lax.reshape(ans, shape)), core.aval_of(g).dtype)
    counts = lax.reduce_sum(loc, axes)
    return lax.div(lax.reduce_sum(lax.mul(g, loc), axes), counts)


defjvp2(reduce_max_p, _reduce_chooser_jvp)
defjvp2(reduce_min_p, _reduce_chooser_jvp)


def _prod_tree(x, axes):
    """reduce_prod as a tree of pairwise products (its JVP is then exact at
    zeros): reduced axes flattened to the front, halved until one is left."""
    shape = core.aval_of(x).shape
    rest = [i for i in range(len(shape)) if i not in axes]
    n = int(np.prod([shape[i] for i in axes], dtype=np.int64))
    x = lax.reshape(lax.transpose(x, tuple(axes) + tuple(rest)), (n,) + tuple(shape[i] for i in rest))
    while x.shape[0] > 1:
        n = x.shape[0]
        h = (n + 1) // 2
        nd = len(x.shape)
        a = lax.slice(x, (0,) * nd, (h,) + x.shape[1:], (1,) * nd)
        b = lax.slice(x, (h,) + (0,) * (nd - 1), x.shape, (1,) * nd)
        if n % 2:
            b = lax.pad(b, lax._const(b, 1), ((0, 1, 0),) + ((0, 0, 0),) * (nd - 1))
        x = lax.mul(a, b)
    if x.shape[0] == 0:
        return lax.full(x.shape[1:], 1, x.dtype)
    return lax.squeeze(x, (0,))


def _reduce_prod_jvp(primals, tangents, *, axes):
    outs, touts = ad.jvp_flat(lambda x: [_prod_tree(x, axes)], primals, tangents)
    return outs[0], touts[0]


ad.jvp_rules[reduce_prod_p] = _reduce_prod_jvp

for _p in (reduce_sum_p, reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p, reduce_or_p,
           reduce_xor_p, argmax_p, argmin_p):
    batching.defreducer(_p)
