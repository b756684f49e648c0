"""Shape, dtype and data-movement primitives (convert, broadcast, reshape,
transpose, slice, pad, concatenate/split, stack/unstack, select_n, clamp,
iota, empty, copy), each with its abstract eval, lowering, JVP/transpose and batching
rules. Linear ones are transposed as JAX transposes them, so differentiated
jaxprs print the same equations."""
from __future__ import annotations

import numpy as np

from xjit._src import core, dtypes
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import (
    Zero, defjvp, defjvp_zero, deflinear, deflinear2, is_undefined_primal)
from xjit._src.interpreters.batching import bdim_at_front, moveaxis, not_mapped
from ..core import ShapedArray
from xjit._src.interpreters.mlir import i64_array, ttype
from .elementwise import NUM, _check_unary
from xjit._src import sharding_in_types as sit
from xjit._src.sharding_in_types import with_param_sharding
from . import sharding_rules as rules


_prim = lowering.define_primitive


def _op1(op, attrs=None):
    """Lowering for a one-operand op with attributes computed from params."""
    def rule(ctx, ai, ao, x, **params):
        return ctx.op(op, [x], [ttype(ai[0])], ttype(ao[0]),
                      attrs=attrs(ai[0], ao[0], **params) if attrs else None)
    return rule


# -- convert_element_type
def _convert_eval(x, new_dtype, weak_type, sharding=None):
    return with_param_sharding(ShapedArray(x.shape, new_dtype, weak_type), sharding)


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
    return with_param_sharding(ShapedArray(shape, x.dtype, x.weak_type), sharding)


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
    return with_param_sharding(ShapedArray(new_sizes, x.dtype, x.weak_type), sharding)


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
    return with_param_sharding(ShapedArray(shape, dtype, False), sharding)


iota_p = _prim("iota", _iota_eval, lambda ctx, ai, ao, *, dtype, shape, dimension, sharding=None:
               ctx.op("stablehlo.iota", [], [], ttype(ao[0]), attrs=f"iota_dimension = {dimension} : i64"))


# -- copy
copy_p = _prim("copy", lambda x: x, lambda ctx, ai, ao, x: x)


# -- unstack (transposed with stack)
def _unstack_eval(x, *, axis):
    shape = x.shape[:axis] + x.shape[axis + 1:]
    return [x.update(shape=shape) for _ in range(x.shape[axis])]


def _unstack_lower(ctx, ai, ao, x, *, axis):
    a = ai[0]
    outs = []
    for i, o in enumerate(ao):
        lo = [0] * a.ndim
        hi = list(a.shape)
        lo[axis], hi[axis] = i, i + 1
        one = a.update(shape=tuple(hi[k] - lo[k] for k in range(a.ndim)))
        s = ctx.op("stablehlo.slice", [x], [ttype(a)], ttype(one),
                   attrs=f"start_indices = {i64_array(lo)}, limit_indices = {i64_array(hi)}, "
                         f"strides = {i64_array([1] * a.ndim)}")
        outs.append(ctx.op("stablehlo.reshape", [s], [ttype(one)], ttype(o)))
    return outs


unstack_p = _prim("unstack", _unstack_eval, _unstack_lower, multiple_results=True)


# -- empty: an uninitialised buffer (zeros here, as in JAX's lowering)
def _empty_eval(*, shape, dtype, out_sharding=None):
    return with_param_sharding(ShapedArray(shape, dtype, False), out_sharding)


empty_p = _prim("empty", _empty_eval, lambda ctx, ai, ao, **p: ctx.constant(
    np.zeros(ao[0].shape, ao[0].dtype), ao[0]))


# -- sharding rules (JAX 0.10.2's): how each output is laid out over the mesh
sit.register([rev_p, copy_p], sit.unary_rule)
sit.sharding_rules[clamp_p] = sit.same_as(1)
sit.sharding_rules[convert_element_type_p] = rules.convert_element_type
sit.sharding_rules[broadcast_in_dim_p] = rules.broadcast_in_dim
sit.sharding_rules[reshape_p] = rules.reshape
sit.sharding_rules[transpose_p] = rules.transpose
sit.sharding_rules[squeeze_p] = rules.squeeze
sit.sharding_rules[slice_p] = lambda x, **p: rules.varying_out_shape(
    x, _slice_eval(x, **p).shape, "slicing")
sit.sharding_rules[pad_p] = lambda x, v, **p: rules.varying_out_shape(
    x, _pad_eval(x, v, **p).shape, "padding")
sit.sharding_rules[concatenate_p] = lambda *xs, **_: rules.same_layout(*xs, what="concatenate")
sit.sharding_rules[stack_p] = rules.stack
sit.sharding_rules[unstack_p] = lambda x, *, axis: [
    sit.P(*(p for i, p in enumerate(sit.parts(x)) if i != axis))] * x.shape[axis]
sit.sharding_rules[select_n_p] = rules.select_n
sit.sharding_rules[iota_p] = lambda **p: p.get("sharding")
sit.sharding_rules[empty_p] = lambda **p: p.get("out_sharding")


# --------------------------------------------------------------------------
# JVP and transpose rules (they call the lax API, which imports this module)

from xjit._src.lax import lax  # noqa: E402


def _shape(x):
    return core.aval_of(x).shape


def _ndim(x):
    return len(core.aval_of(x).shape)


def _size_of(args, dims):
    return next(_shape(x)[d] for x, d in zip(args, dims) if d is not not_mapped)


defjvp_zero(iota_p)
defjvp_zero(empty_p)
ad.deflinear(unstack_p, lambda cts, *, axis: [stack_p.bind(
    *[ad.instantiate_zeros(c) for c in cts], axis=axis)])
def _convert_jvp(primals, tangents, *, new_dtype, weak_type, sharding=None):
    (x,), (t,) = primals, tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type,
                                         sharding=sharding)
    if type(t) is Zero or np.dtype(new_dtype).kind in "iub":
        return out, Zero.from_primal_value(out)
    return out, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type,
                                               sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding=None):
    a = x.aval
    if a.dtype.kind not in "fc" and not a.dtype.name.startswith(("bfloat", "float")):
        return [Zero(ad.tangent_aval(a))]
    return [convert_element_type_p.bind(ct, new_dtype=a.dtype, weak_type=a.weak_type,
                                           sharding=sharding)]


ad.jvp_rules[convert_element_type_p] = _convert_jvp
ad.transpose_rules[convert_element_type_p] = _convert_transpose


def _bid_transpose(ct, x, *, shape, broadcast_dimensions, sharding=None):
    in_shape = x.aval.shape
    unit = [i for i, s in enumerate(in_shape) if s == 1 and shape[broadcast_dimensions[i]] != 1]
    bdims = [d for i, d in enumerate(broadcast_dimensions) if i not in unit]
    axes = tuple(i for i in range(len(shape)) if i not in bdims)
    out = lax.reduce_sum(ct, axes) if axes else ct
    return [lax.expand_dims(out, unit) if unit else out]


deflinear2(broadcast_in_dim_p, _bid_transpose)


def _reshape_transpose(ct, x, *, new_sizes, dimensions=None, sharding=None):
    if dimensions is None:  # laid out as the primal, as JAX's transpose does
        return [lax.reshape(ct, x.aval.shape, out_sharding=sit.primal_sharding(
            x.aval, core.aval_of(ct)))]
    read_order = tuple(x.aval.shape[d] for d in dimensions)
    return [lax.transpose(lax.reshape(ct, read_order), tuple(np.argsort(dimensions)))]


deflinear2(reshape_p, _reshape_transpose)
deflinear2(transpose_p, lambda ct, x, *, permutation: [
    lax.transpose(ct, tuple(int(i) for i in np.argsort(permutation)))])
deflinear2(squeeze_p, lambda ct, x, *, dimensions: [lax.expand_dims(ct, dimensions)])
deflinear(rev_p, lambda ct, *, dimensions: [lax.rev(ct, dimensions)])
deflinear(copy_p, lambda ct: [copy_p.bind(ct)])


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides=None):
    shape = x.aval.shape
    zero = np.zeros((), x.aval.dtype)
    if strides is None or np.all(np.equal(strides, 1)):
        pads = tuple(zip(start_indices, np.subtract(shape, limit_indices), (0,) * len(shape)))
    else:
        ct_shape = np.array(_shape(ct))
        real_limits = np.add(start_indices, np.where(
            ct_shape == 0, 0, np.add(1, np.multiply(np.subtract(ct_shape, 1), strides))))
        pads = tuple(zip(start_indices, np.subtract(shape, real_limits), np.subtract(strides, 1)))
    return [pad_p.bind(ct, zero, padding_config=pads)]


deflinear2(slice_p, _slice_transpose)


def _pad_transpose(ct, x, pv, *, padding_config):
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    nd = len(_shape(ct))
    t_operand = None
    if is_undefined_primal(x):
        unpad = tuple(zip(np.negative(lo), np.negative(hi), np.zeros_like(interior)))
        unpadded = pad_p.bind(ct, np.zeros((), core.aval_of(ct).dtype), padding_config=unpad)
        t_operand = slice_p.bind(unpadded, start_indices=tuple(np.zeros_like(lo)),
                                    limit_indices=tuple(int(d) for d in _shape(unpadded)),
                                    strides=tuple(np.add(interior, 1)))
    t_pv = None
    if is_undefined_primal(pv):
        total = lax.reduce_sum(ct, tuple(range(nd)))
        t_pv = total if t_operand is None else lax.sub(
            total, lax.reduce_sum(t_operand, tuple(range(nd))))
    return [t_operand, t_pv]


def _pad_jvp(primals, tangents, *, padding_config):
    out = pad_p.bind(*primals, padding_config=padding_config)
    ts = [ad.instantiate_zeros(t) for t in tangents]
    return out, pad_p.bind(*ts, padding_config=padding_config)


ad.jvp_rules[pad_p] = _pad_jvp
ad.transpose_rules[pad_p] = _pad_transpose


# -- concatenate (transposed with ``split``) and stack
def _split_eval(x, *, sizes, axis):
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                         f"operand shape {x.shape}")
    return [x.update(shape=x.shape[:axis] + (s,) + x.shape[axis + 1:]) for s in sizes]


def _split_lower(ctx, ai, ao, x, *, sizes, axis):
    outs, start = [], 0
    nd = ai[0].ndim
    for o, s in zip(ao, sizes):
        lo = [0] * nd
        hi = list(ai[0].shape)
        lo[axis], hi[axis] = start, start + s
        outs.append(ctx.op("stablehlo.slice", [x], [ttype(ai[0])], ttype(o),
                           attrs=f"start_indices = {i64_array(lo)}, limit_indices = "
                                 f"{i64_array(hi)}, strides = {i64_array([1] * nd)}"))
        start += s
    return outs


split_p = _prim("split", _split_eval, _split_lower, multiple_results=True,
                pp=lambda p: {"axis": p["axis"], "sizes": p["sizes"]})


def split(operand, sizes, axis=0):
    """``lax.split``: pieces of ``operand`` along ``axis`` with the given sizes."""
    return split_p.bind(operand, sizes=tuple(int(s) for s in sizes), axis=int(axis))


sit.sharding_rules[split_p] = lambda x, *, sizes, axis: [rules.varying_out_shape(
    x, x.shape[:axis] + (n,) + x.shape[axis + 1:], "split") for n in sizes]
deflinear(split_p, lambda cts, *, sizes, axis: [lax.concatenate(
    [ad.instantiate_zeros(c) for c in cts], axis)])


def _concat_transpose(ct, *xs, dimension):
    sizes = [(x.aval if is_undefined_primal(x) else core.aval_of(x)).shape[dimension] for x in xs]
    pieces = split(ct, sizes, dimension)
    return [p if is_undefined_primal(x) else None for p, x in zip(pieces, xs)]


deflinear2(concatenate_p, _concat_transpose)


def _stack_transpose(ct, *xs, axis):
    return [lax.squeeze(lax.slice_along(ct, i, i + 1, 1, axis), (axis,))
            if is_undefined_primal(x) else None for i, x in enumerate(xs)]


deflinear2(stack_p, _stack_transpose)


# -- select_n and clamp
def _select_n_jvp(primals, tangents):
    which, *cases = primals
    out = select_n_p.bind(which, *cases)
    cts = tangents[1:]
    nz = [t for t in cts if type(t) is not Zero]
    if not nz:
        return out, Zero.from_primal_value(out)
    z = lax.full_like(nz[0], 0)
    return out, select_n_p.bind(which, *[z if type(t) is Zero else t for t in cts])


def _select_n_transpose(ct, which, *cases):
    if type(ct) is Zero:
        return [None] + [Zero(c.aval) if is_undefined_primal(c) else None for c in cases]
    z = lax.full_like(ct, 0)
    n = len(cases)
    return [None] + [select_n_p.bind(which, *[ct if j == i else z for j in range(n)])
                     if is_undefined_primal(c) else None for i, c in enumerate(cases)]


ad.jvp_rules[select_n_p] = _select_n_jvp
ad.transpose_rules[select_n_p] = _select_n_transpose

defjvp(clamp_p,
       lambda g, lo, x, hi: lax.select(lax.bitwise_and(lax.gt(lo, x), lax.lt(lo, hi)), g,
                                       lax.full_like(x, 0)),
       lambda g, lo, x, hi: lax.select(lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi)), g,
                                       lax.full_like(x, 0)),
       lambda g, lo, x, hi: lax.select(lax.lt(hi, x), g, lax.full_like(x, 0)))


# --------------------------------------------------------------------------
# Batching rules

batching.defvectorized(convert_element_type_p)
batching.defvectorized(copy_p)


def _broadcast_in_dim_rule(args, dims, *, shape, broadcast_dimensions, sharding=None):
    x, = args
    x = moveaxis(x, dims[0], 0)
    new_shape = (_shape(x)[0],) + tuple(shape)
    new_dims = (0,) + tuple(np.add(1, broadcast_dimensions))
    return lax.broadcast_in_dim(x, new_shape, new_dims, out_sharding=sit.batched_sharding(
        sharding, 0, sit.batch_entry(x, 0))), 0


def _reshape_rule(args, dims, *, new_sizes, dimensions=None, sharding=None):
    x = moveaxis(args[0], dims[0], 0)
    if dimensions is not None:  # the batch axis stays first in the read order
        dimensions = (0,) + tuple(d + 1 for d in dimensions)
    return lax.reshape(x, _shape(x)[:1] + tuple(new_sizes), dimensions,
                       out_sharding=sit.batched_sharding(sharding, 0, sit.batch_entry(x, 0))), 0


def _transpose_rule(args, dims, *, permutation):
    bdim = dims[0]
    perm = (bdim,) + tuple(i if i < bdim else i + 1 for i in permutation)
    return lax.transpose(args[0], perm), 0


def _squeeze_rule(args, dims, *, dimensions):
    x = moveaxis(args[0], dims[0], 0)
    return lax.squeeze(x, tuple(int(d) + 1 for d in dimensions)), 0


def _rev_rule(args, dims, *, dimensions):
    bdim = dims[0]
    return lax.rev(args[0], [i + 1 if i >= bdim else i for i in dimensions]), bdim


def _slice_rule(args, dims, *, start_indices, limit_indices, strides=None):
    x, = args
    bdim = dims[0]
    start, limit = list(start_indices), list(limit_indices)
    start.insert(bdim, 0)
    limit.insert(bdim, _shape(x)[bdim])
    if strides is not None:
        strides = list(strides)
        strides.insert(bdim, 1)
    return lax.slice(x, start, limit, strides), bdim


def _concatenate_rule(args, dims, *, dimension):
    size = _size_of(args, dims)
    args = [moveaxis(x, d, 0) if d is not not_mapped else lax.broadcast(x, (size,))
            for x, d in zip(args, dims)]
    return lax.concatenate(args, dimension + 1), 0


def _stack_rule(args, dims, *, axis):
    size = _size_of(args, dims)
    args = [moveaxis(x, d, 0) if d is not not_mapped else lax.broadcast(x, (size,))
            for x, d in zip(args, dims)]
    return stack_p.bind(*args, axis=axis + 1), 0


def _pad_rule(args, dims, *, padding_config):
    x, pv = args
    xd, pd = dims
    if xd is not_mapped:
        xd = 0
        x = lax.broadcast(x, (_shape(pv)[pd],))
    config = list(padding_config)
    config.insert(xd, (0, 0, 0))
    if pd is not_mapped:
        return lax.pad(x, pv, config), xd
    padded = lax.pad(x, np.zeros((), core.aval_of(x).dtype)[()], config)
    mask = lax.pad(lax.full(_shape(x), True, np.bool_), False, config)
    fill = lax.broadcast_in_dim(moveaxis(pv, pd, 0), _shape(padded), (xd,))
    return lax.select(mask, padded, fill), xd


def _select_n_rule(args, dims):
    which, *cases = args
    wd, *cds = dims
    size = _size_of(args, dims)
    if all(wd == d for d in cds):
        if _shape(which) == _shape(cases[0]):
            return lax.select_n(which, *cases), wd
        which = lax.broadcast_in_dim(which, _shape(cases[0]), [wd])
        return lax.select_n(which, *cases), wd
    if _ndim(which) == 0 and all(d is not not_mapped for d in cds):
        if all(cds[0] == d for d in cds[1:]):
            return lax.select_n(which, *cases), cds[0]
        if all(_shape(cases[0]) == _shape(c) for c in cases):
            rest = [moveaxis(c, d, cds[0]) for c, d in zip(cases[1:], cds[1:])]
            return lax.select_n(which, cases[0], *rest), cds[0]
    which = bdim_at_front(which, wd, size) if _shape(which) else which
    if not all(_shape(c) == () for c in cases):
        cases = [bdim_at_front(c, d, size) for c, d in zip(cases, cds)]
    if 0 < _ndim(which) < _ndim(cases[0]):
        which = lax.broadcast_in_dim(which, _shape(cases[0]), [0])
    if _ndim(which) > _ndim(cases[0]):  # unmapped scalar cases fill the whole batch
        cases = [lax.broadcast_in_dim(c, _shape(which), [0] if _ndim(c) else []) for c in cases]
    return lax.select_n(which, *cases), 0


def _clamp_rule(args, dims):
    lo, x, hi = args
    ld, xd, hd = dims
    size = _size_of(args, dims)
    if ld == xd == hd:
        if _shape(lo) == _shape(x) == _shape(hi) or _ndim(lo) == _ndim(hi) == 0:
            return lax.clamp(lo, x, hi), xd
        if _ndim(lo) == _ndim(hi) == 1:
            lo = lax.broadcast_in_dim(lo, _shape(x), [ld])
            hi = lax.broadcast_in_dim(hi, _shape(x), [hd])
            return lax.clamp(lo, x, hi), xd
    elif _ndim(lo) == 0 and _ndim(hi) == 0 and xd is not not_mapped:
        return lax.clamp(lo, x, hi), xd
    lo = bdim_at_front(lo, ld, size) if _shape(lo) else lo
    hi = bdim_at_front(hi, hd, size) if _shape(hi) else hi
    x = bdim_at_front(x, xd, size) if _shape(x) else x
    if _ndim(lo) == 0 and _ndim(x) > 0:
        lo = lax.broadcast(lo, _shape(x))
    if _ndim(hi) == 0 and _ndim(x) > 0:
        hi = lax.broadcast(hi, _shape(x))
    if 0 < _ndim(lo) < _ndim(x):
        lo = lax.broadcast_in_dim(lo, _shape(x), [0])
    if 0 < _ndim(hi) < _ndim(x):
        hi = lax.broadcast_in_dim(hi, _shape(x), [0])
    if _ndim(lo) > _ndim(x):
        x = lax.broadcast(x, _shape(lo))
    return lax.clamp(lo, x, hi), 0


batching.batch_rules[broadcast_in_dim_p] = _broadcast_in_dim_rule
batching.batch_rules[reshape_p] = _reshape_rule
batching.batch_rules[transpose_p] = _transpose_rule
batching.batch_rules[squeeze_p] = _squeeze_rule
batching.batch_rules[rev_p] = _rev_rule
batching.batch_rules[slice_p] = _slice_rule
batching.batch_rules[concatenate_p] = _concatenate_rule
batching.batch_rules[stack_p] = _stack_rule
batching.batch_rules[pad_p] = _pad_rule
batching.batch_rules[select_n_p] = _select_n_rule
batching.batch_rules[clamp_p] = _clamp_rule


def _split_rule(args, dims, *, sizes, axis):
    (x,), (d,) = args, dims
    return split_p.bind(x, sizes=sizes, axis=axis + (d <= axis)), [d] * len(sizes)


batching.batch_rules[split_p] = _split_rule


def _unstack_batch(args, dims, *, axis):
    (x,), (d,) = args, dims
    ax = axis + (d <= axis)
    outs = unstack_p.bind(x, axis=ax)
    return outs, [d if d < ax else d - 1] * len(outs)


batching.batch_rules[unstack_p] = _unstack_batch
