"""Shape, dtype and data-movement primitives, dot_general and reductions."""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.interpreters import mlir as lowering
from ..core import ShapedArray
from xjit._src.interpreters.mlir import i64_array, ttype
from .elementwise import NUM, _check_unary


_prim = lowering.define_primitive


def _op1(op, attrs=None):
    """Lowering for a one-operand op with attributes computed from params."""
    def rule(ctx, ai, ao, x, **params):
        return ctx.op(op, [x], [ttype(ai[0])], ttype(ao[0]),
                      attrs=attrs(ai[0], ao[0], **params) if attrs else None)
    return rule


# -- convert_element_type
def _convert_eval(x, new_dtype, weak_type, sharding=None):
    return ShapedArray(x.shape, new_dtype, weak_type)


def _convert_lower(ctx, ai, ao, x, new_dtype, weak_type, sharding=None):
    a, o = ai[0], ao[0]
    if a.dtype == o.dtype:
        return x
    if a.dtype.kind == "c" and o.dtype.kind != "c":
        x = ctx.op("stablehlo.real", [x], [ttype(a)], ttype(a.update(dtype=_real_of(a.dtype))))
        a = a.update(dtype=_real_of(a.dtype))
    if o.dtype == np.bool_ and a.dtype != np.bool_:
        zero = ctx.constant(np.zeros(a.shape, a.dtype), a)
        kind = "FLOAT" if a.dtype.kind == "f" or dtypes.is_float(a.dtype) else \
            "UNSIGNED" if a.dtype.kind == "u" else "SIGNED"
        attrs = (f"comparison_direction = #stablehlo<comparison_direction NE>, "
                 f"compare_type = #stablehlo<comparison_type {kind}>")
        return ctx.op("stablehlo.compare", [x, zero], [ttype(a)] * 2, ttype(o), attrs=attrs)
    return ctx.op("stablehlo.convert", [x], [ttype(a)], ttype(o))


def _real_of(dt):
    return np.dtype(np.float32 if dt == np.complex64 else np.float64)


convert_element_type_p = _prim(
    "convert_element_type", _convert_eval, _convert_lower,
    pp=lambda p: {"new_dtype": p["new_dtype"], "weak_type": p["weak_type"]})


# -- broadcast_in_dim
def _bid_eval(x, shape, broadcast_dimensions, sharding=None):
    shape = tuple(shape)
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError("broadcast_in_dim broadcast_dimensions must have length equal to operand "
                        f"ndim; got broadcast_dimensions {broadcast_dimensions} for operand ndim "
                        f"{x.ndim}.")
    for i, d in enumerate(broadcast_dimensions):
        if not 0 <= d < len(shape) or x.shape[i] not in (1, shape[d]):
            raise TypeError("broadcast_in_dim operand dimension sizes must either be 1, or be "
                            "equal to their corresponding dimensions in the target broadcast shape; "
                            f"got operand of shape {x.shape}, target broadcast shape {shape}, "
                            f"broadcast_dimensions {broadcast_dimensions} ")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _bid_pp(p):
    return {"broadcast_dimensions": p["broadcast_dimensions"]} if p["broadcast_dimensions"] else {}


broadcast_in_dim_p = _prim(
    "broadcast_in_dim", _bid_eval,
    _op1("stablehlo.broadcast_in_dim",
         lambda a, o, shape, broadcast_dimensions, sharding=None:
         f"broadcast_dimensions = {i64_array(broadcast_dimensions)}"),
    pp=_bid_pp)


# -- reshape
def _reshape_eval(x, new_sizes, dimensions=None, sharding=None):
    if dimensions is not None and sorted(dimensions) != list(range(x.ndim)):
        raise TypeError("reshape dimensions must be a permutation of operand dimensions, got "
                        f"dimensions {tuple(dimensions)} for shape {x.shape}.")
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {tuple(new_sizes)} "
                        f"(of total size {int(np.prod(new_sizes, dtype=np.int64))}) for shape "
                        f"{x.shape} (of total size {x.size}).")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _reshape_lower(ctx, ai, ao, x, new_sizes, dimensions=None, sharding=None):
    """``dimensions`` is the order the operand's elements are read in: a
    transpose first, then the row-major reshape."""
    a = ai[0]
    if dimensions is not None:
        perm = a.update(shape=tuple(a.shape[d] for d in dimensions))
        x = ctx.op("stablehlo.transpose", [x], [ttype(a)], ttype(perm),
                   attrs=f"permutation = {i64_array(dimensions)}")
        a = perm
    return ctx.op("stablehlo.reshape", [x], [ttype(a)], ttype(ao[0]))


reshape_p = _prim("reshape", _reshape_eval, _reshape_lower)


# -- transpose
def _transpose_eval(x, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {tuple(permutation)} for operand shape {x.shape}.")
    return ShapedArray(tuple(x.shape[i] for i in permutation), x.dtype, x.weak_type)


transpose_p = _prim("transpose", _transpose_eval, _op1(
    "stablehlo.transpose", lambda a, o, permutation: f"permutation = {i64_array(permutation)}"))


# -- squeeze
def _squeeze_eval(x, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal to "
                             f"one, got shape={x.shape} and dimensions={tuple(dimensions)}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions),
                       x.dtype, x.weak_type)


squeeze_p = _prim("squeeze", _squeeze_eval, _op1("stablehlo.reshape"))

# -- rev
def _rev_eval(x, dimensions):
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if dimensions and not all(0 <= d < x.ndim for d in dimensions):
        raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions "
                        f"{dimensions} for operand ndim {x.ndim}.")
    return x


rev_p = _prim("rev", _rev_eval, _op1(
    "stablehlo.reverse", lambda a, o, dimensions: f"dimensions = {i64_array(dimensions)}"))


# -- slice
def _slice_eval(x, start_indices, limit_indices, strides=None):
    if len(start_indices) != x.ndim or len(limit_indices) != x.ndim:
        raise TypeError(f"slice start_indices must have length equal to the number of dimensions "
                        f"of the operand, got indices {tuple(start_indices)} for operand shape {x.shape}.")
    strides = strides or (1,) * x.ndim
    for s, l, d in zip(start_indices, limit_indices, x.shape):
        if not 0 <= s <= l <= d:
            raise TypeError(f"slice start_indices/limit_indices out of bounds: start_indices "
                            f"{tuple(start_indices)}, limit_indices {tuple(limit_indices)}, "
                            f"operand shape {x.shape}.")
    shape = tuple((l - s + st - 1) // st for s, l, st in zip(start_indices, limit_indices, strides))
    return ShapedArray(shape, x.dtype, x.weak_type)


slice_p = _prim("slice", _slice_eval, _op1(
    "stablehlo.slice", lambda a, o, start_indices, limit_indices, strides=None:
    f"start_indices = {i64_array(start_indices)}, limit_indices = {i64_array(limit_indices)}, "
    f"strides = {i64_array(strides or (1,) * a.ndim)}"))


# -- concatenate / stack
def _concat_eval(*xs, dimension):
    x0 = xs[0]
    for x in xs[1:]:
        if x.dtype != x0.dtype:
            raise TypeError("lax.concatenate requires arguments to have the same dtypes, got "
                            f"{', '.join(a.dtype.name for a in xs)}. (Tip: jnp.concatenate is a "
                            "similar function that does automatic type promotion on inputs).")
        if x.ndim != x0.ndim:
            raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                            f"{', '.join(str(a.shape) for a in xs)}.")
        if x.ndim != x0.ndim or any(a != b for i, (a, b) in enumerate(zip(x.shape, x0.shape))
                                    if i != dimension):
            raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other "
                            f"than the one being concatenated: concatenating along dimension "
                            f"{dimension} for shapes {', '.join(str(a.shape) for a in xs)}.")
    shape = list(x0.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(shape, x0.dtype, all(x.weak_type for x in xs))


def _concat_lower(ctx, ai, ao, *xs, dimension):
    return ctx.op("stablehlo.concatenate", list(xs), [ttype(a) for a in ai], ttype(ao[0]),
                  attrs=f"dimension = {dimension} : i64")


concatenate_p = _prim("concatenate", _concat_eval, _concat_lower)


def _stack_eval(*xs, axis):
    x0 = xs[0]
    for x in xs[1:]:
        if x.shape != x0.shape:
            raise ValueError("All input arrays must have the same shape.")
    shape = list(x0.shape)
    shape.insert(axis, len(xs))
    return ShapedArray(shape, x0.dtype, all(x.weak_type for x in xs))


def _stack_lower(ctx, ai, ao, *xs, axis):
    one = list(ai[0].shape)
    one.insert(axis, 1)
    t1 = ttype(ai[0].update(shape=one))
    parts = [ctx.op("stablehlo.reshape", [x], [ttype(a)], t1) for x, a in zip(xs, ai)]
    return ctx.op("stablehlo.concatenate", parts, [t1] * len(parts), ttype(ao[0]),
                  attrs=f"dimension = {axis} : i64")


stack_p = _prim("stack", _stack_eval, _stack_lower)


# -- pad
def _pad_eval(x, padding_value, padding_config):
    if x.dtype != padding_value.dtype:
        raise TypeError("pad operand and padding_value must be same dtype: got "
                        f"{x.dtype.name} and {padding_value.dtype.name}.")
    if len(padding_config) != x.ndim:
        raise ValueError("length of padding_config must equal the number of axes of operand, got "
                         f"padding_config {padding_config} for operand shape {x.shape}")
    shape = []
    for d, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise ValueError(f"interior padding in padding_config must be nonnegative, got "
                             f"padding_config {padding_config}")
        shape.append(lo + hi + d + max(d - 1, 0) * interior)
    if any(d < 0 for d in shape):
        raise ValueError(f"Dimension size after padding is not at least 0, got result shape "
                         f"{tuple(shape)}, for padding_config {padding_config} and operand shape "
                         f"{x.shape}")
    return ShapedArray(shape, x.dtype, x.weak_type and padding_value.weak_type)


def _pad_lower(ctx, ai, ao, x, pv, padding_config):
    lo, hi, it = zip(*padding_config) if padding_config else ((), (), ())
    return ctx.op("stablehlo.pad", [x, pv], [ttype(ai[0]), ttype(ai[1])], ttype(ao[0]),
                  attrs=f"edge_padding_low = {i64_array(lo)}, edge_padding_high = {i64_array(hi)}, "
                        f"interior_padding = {i64_array(it)}")


pad_p = _prim("pad", _pad_eval, _pad_lower)


# -- select_n / clamp
def _select_n_eval(which, *cases):
    if which.dtype != np.bool_ and which.dtype.kind not in "iu":
        raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype.name}.")
    c0 = cases[0]
    if any(c.shape != c0.shape for c in cases):
        raise TypeError(f"select cases must have the same shapes, got "
                        f"[{', '.join(str(c.shape) for c in cases)}].")
    if any(c.dtype != c0.dtype for c in cases):
        raise TypeError(f"lax.select requires arguments to have the same dtypes, got "
                        f"{', '.join(c.dtype.name for c in cases)}. (Tip: jnp.where is a similar "
                        "function that does automatic type promotion on inputs).")
    if which.shape and which.shape != c0.shape:
        raise TypeError("select `which` must be scalar or have the same shape as cases, got "
                        f"`which` shape {which.shape} but case shape {c0.shape}.")
    return ShapedArray(c0.shape, c0.dtype, all(c.weak_type for c in cases))


def _select_n_lower(ctx, ai, ao, which, *cases):
    o = ao[0]
    wa = ai[0]
    if wa.shape != o.shape:
        which = ctx.op("stablehlo.broadcast_in_dim", [which], [ttype(wa)],
                       ttype(o.update(dtype=wa.dtype)), attrs="broadcast_dimensions = array<i64>")
        wa = o.update(dtype=wa.dtype)
    if len(cases) == 1:
        return cases[0]
    if wa.dtype == np.bool_:
        # select(pred, on_true, on_false): case 1 when true
        return ctx.op("stablehlo.select", [which, cases[1], cases[0]],
                      [ttype(wa), ttype(o), ttype(o)], ttype(o))
    # integer which: a chain of selects on which < k
    out = cases[-1]
    for k in range(len(cases) - 2, -1, -1):
        kc = ctx.constant(np.full(wa.shape, k + 1, wa.dtype), wa)
        pa = wa.update(dtype=np.bool_)
        pred = ctx.op("stablehlo.compare", [which, kc], [ttype(wa)] * 2, ttype(pa),
                      attrs="comparison_direction = #stablehlo<comparison_direction LT>")
        out = ctx.op("stablehlo.select", [pred, cases[k], out], [ttype(pa), ttype(o), ttype(o)],
                     ttype(o))
    return out


select_n_p = _prim("select_n", _select_n_eval, _select_n_lower)


def _clamp_eval(lo, x, hi):
    for name, a in (("min", lo), ("max", hi)):
        if a.dtype != x.dtype:
            raise TypeError(f"lax.clamp requires arguments to have the same dtypes, got "
                            f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}.")
        if a.shape and a.shape != x.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or {name}.shape == (), "
                            f"got {name}.shape={a.shape}, operand.shape={x.shape}.")
    return x.update(weak_type=x.weak_type and lo.weak_type and hi.weak_type)


def _clamp_lower(ctx, ai, ao, lo, x, hi):
    return ctx.op("stablehlo.clamp", [lo, x, hi], [ttype(a) for a in ai], ttype(ao[0]))


clamp_p = _prim("clamp", _clamp_eval, _clamp_lower)


# -- iota
def _iota_eval(*, dtype, shape, dimension, sharding=None):
    _check_unary("iota", ShapedArray((), dtype), NUM)  # StableHLO has no boolean iota
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be between 0 and len(shape), got dimension={dimension} "
                         f"for shape={shape}")
    return ShapedArray(shape, dtype, False)


iota_p = _prim("iota", _iota_eval, lambda ctx, ai, ao, *, dtype, shape, dimension, sharding=None:
               ctx.op("stablehlo.iota", [], [], ttype(ao[0]), attrs=f"iota_dimension = {dimension} : i64"))


# -- dot_general
def _dot_general_eval(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                      out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    for side, val, batch, contract in (("lhs", lhs, lb, lc), ("rhs", rhs, rb, rc)):
        if not all(0 <= d < val.ndim for d in (*batch, *contract)):
            raise TypeError(f"dot_general requires {side} dimension numbers to be nonnegative and "
                            f"less than the number of axes of the {side} value, got {side}_batch "
                            f"of {tuple(batch)} and {side}_contracting of {tuple(contract)} for "
                            f"{side} of rank {val.ndim}")
    for side, batch, contract in (("lhs", lb, lc), ("rhs", rb, rc)):
        if set(batch) & set(contract):
            raise TypeError(f"dot_general requires {side} batch dimensions to be disjoint from "
                            f"contracting dimensions, got {side}_batch {tuple(batch)} and "
                            f"{side}_contracting {tuple(contract)}.")
    if len(lc) != len(rc):
        raise TypeError("dot_general requires equal numbers of lhs_contracting and "
                        f"rhs_contracting dimensions, got lhs_contracting {tuple(lc)} and "
                        f"rhs_contracting {tuple(rc)}.")
    for a, b in zip(lc, rc):
        if lhs.shape[a] != rhs.shape[b]:
            raise TypeError("dot_general requires contracting dimensions to have the same shape, "
                            f"got {tuple(lhs.shape[i] for i in lc)} and "
                            f"{tuple(rhs.shape[i] for i in rc)}.")
    for a, b in zip(lb, rb):
        if lhs.shape[a] != rhs.shape[b]:
            raise TypeError("dot_general requires lhs batch dimensions and rhs batch dimensions to "
                            f"have the same shape, got {tuple(lhs.shape[i] for i in lb)} and "
                            f"{tuple(rhs.shape[i] for i in rb)}.")
    if lhs.dtype != rhs.dtype and preferred_element_type is None:
        raise TypeError("dot_general requires operands of the same dtype, got "
                        f"{lhs.dtype.name} and {rhs.dtype.name}.")
    batch = [lhs.shape[i] for i in lb]
    lfree = [d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]
    rfree = [d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb]
    dt = preferred_element_type or lhs.dtype
    return ShapedArray(batch + lfree + rfree, dt, lhs.weak_type and rhs.weak_type)


def _dot_general_lower(ctx, ai, ao, lhs, rhs, dimension_numbers, precision=None,
                       preferred_element_type=None, out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    o = ao[0]
    if ai[0].dtype != o.dtype:
        lhs = ctx.op("stablehlo.convert", [lhs], [ttype(ai[0])], ttype(ai[0].update(dtype=o.dtype)))
    if ai[1].dtype != o.dtype:
        rhs = ctx.op("stablehlo.convert", [rhs], [ttype(ai[1])], ttype(ai[1].update(dtype=o.dtype)))
    dn = (f"#stablehlo.dot<lhs_batching_dimensions = [{', '.join(map(str, lb))}], "
          f"rhs_batching_dimensions = [{', '.join(map(str, rb))}], "
          f"lhs_contracting_dimensions = [{', '.join(map(str, lc))}], "
          f"rhs_contracting_dimensions = [{', '.join(map(str, rc))}]>")
    return ctx.op("stablehlo.dot_general", [lhs, rhs],
                  [ttype(ai[0].update(dtype=o.dtype)), ttype(ai[1].update(dtype=o.dtype))],
                  ttype(o), attrs=f"dot_dimension_numbers = {dn}")


def _dot_general_pp(p):
    (lc, rc), (lb, rb) = p["dimension_numbers"]
    out = {"dimension_numbers": f"(({list(lc)}, {list(rc)}), ({list(lb)}, {list(rb)}))"}
    if p.get("precision") is not None:
        out["precision"] = p["precision"]
    if p.get("preferred_element_type") is not None:
        out["preferred_element_type"] = p["preferred_element_type"]
    return out


dot_general_p = _prim("dot_general", _dot_general_eval, _dot_general_lower, pp=_dot_general_pp)


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
        return ShapedArray(shape, x.dtype, x.weak_type)
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


# -- dynamic_slice / dynamic_update_slice
def _dynamic_slice_eval(x, *idx, slice_sizes):
    if len(idx) != x.ndim or len(slice_sizes) != x.ndim:
        raise TypeError(f"dynamic_slice: length of start_indices ({len(idx)}) must match the number "
                        f"of dimensions of the operand ({x.ndim})")
    for s, d in zip(slice_sizes, x.shape):
        if not 0 <= s <= d:
            raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                            f"slice_sizes {tuple(slice_sizes)} for operand shape {x.shape}.")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _dynamic_slice_lower(ctx, ai, ao, x, *idx, slice_sizes):
    return ctx.op("stablehlo.dynamic_slice", [x, *idx], [ttype(a) for a in ai], ttype(ao[0]),
                  attrs=f"slice_sizes = {i64_array(slice_sizes)}")


dynamic_slice_p = _prim("dynamic_slice", _dynamic_slice_eval, _dynamic_slice_lower)


def _dus_eval(x, update, *idx):
    if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape)):
        raise TypeError("dynamic_update_slice update shape must be smaller than operand shape, got "
                        f"update shape {update.shape} for operand shape {x.shape}.")
    if update.dtype != x.dtype:
        raise TypeError("lax.dynamic_update_slice requires arguments to have the same dtypes, got "
                        f"{x.dtype.name}, {update.dtype.name}.")
    return x


def _dus_lower(ctx, ai, ao, x, update, *idx):
    return ctx.op("stablehlo.dynamic_update_slice", [x, update, *idx], [ttype(a) for a in ai],
                  ttype(ao[0]))


dynamic_update_slice_p = _prim("dynamic_update_slice", _dus_eval, _dus_lower)

# -- copy
copy_p = _prim("copy", lambda x: x, lambda ctx, ai, ao, x: x)
