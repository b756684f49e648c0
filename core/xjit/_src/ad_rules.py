"""JVP and transpose rules for the lax primitives and ``jit``.

Each tangent formula is written as JAX writes it (same operations in the same
order), so differentiated jaxprs print the same equations. Known (primal)
subexpressions of a formula are computed when linearizing, the rest goes into
the linear jaxpr; see ``ad.py``.
"""
from __future__ import annotations

import numpy as np

from xjit._src.interpreters import ad
from xjit._src import core
from xjit._src.interpreters.ad import (
    Zero,
    add_any_p,
    defjvp,
    defjvp2,
    defjvp_zero,
    deflinear,
    is_undefined_primal,
)
from xjit._src.interpreters.ad import jvp_rules, transpose_rules
from xjit._src.lax import lax
from .lax import elementwise as ew
from .lax import structural as st


def _aval(x):
    return core.aval_of(x)


def _shape(x):
    return _aval(x).shape


def _c(x, v):
    """A weakly typed scalar ``v`` rounded to ``x``'s dtype (printed as JAX
    prints its constants, e.g. ``0.3333333432674408:f32[]``)."""
    dt = _aval(x).dtype
    val = np.asarray(v, dt)[()]
    py = complex(val) if dt.kind == "c" else float(val) if dt.kind == "f" else val
    return lax.host_convert(py, dt, True)


def _full_like(x, v):
    a = _aval(x)
    return lax.full(a.shape, v, a.dtype)


def _maybe_broadcast(shape, x):
    """A tangent of a broadcast (rank-0 or size-1) operand at the output shape."""
    xs = _shape(x)
    if xs == tuple(shape):
        return x
    if not xs:
        return lax.broadcast_in_dim(x, shape, ())
    dims = [i for i, (a, b) in enumerate(zip(xs, shape)) if a == b]
    return lax.broadcast_in_dim(lax.reshape(x, [xs[i] for i in dims]), shape, dims)


def _unbroadcast(aval, x):
    """Sum a cotangent back down to a broadcast operand's shape."""
    xs = _shape(x)
    if xs == aval.shape:
        return x
    if not aval.shape:
        return lax.reduce_sum(x, tuple(range(len(xs))))
    dims = tuple(i for i, (a, b) in enumerate(zip(xs, aval.shape)) if a != b)
    return lax.reshape(lax.reduce_sum(x, dims), aval.shape)


def _operand_aval(x):
    return x.aval if is_undefined_primal(x) else _aval(x)


# --------------------------------------------------------------------------
# Elementwise


for _p in (ew.sign_p, ew.floor_p, ew.ceil_p, ew.round_p, ew.is_finite_p, ew.not_p,
           ew.population_count_p, ew.clz_p, ew.and_p, ew.or_p, ew.xor_p, ew.shift_left_p,
           ew.shift_right_arithmetic_p, ew.shift_right_logical_p, ew.nextafter_p,
           ew.eq_p, ew.ne_p, ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p,
           st.argmax_p, st.argmin_p, st.reduce_and_p, st.reduce_or_p, st.reduce_xor_p, st.iota_p):
    defjvp_zero(_p)

deflinear(ew.neg_p, lambda ct: [lax.neg(ct)])
defjvp2(ew.exp_p, lambda g, ans, x: lax.mul(g, ans))
defjvp2(ew.exp2_p, lambda g, ans, x: lax.mul(lax.log(_c(x, 2)), lax.mul(g, ans)))
defjvp(ew.log_p, lambda g, x: lax.div(g, x))
defjvp(ew.log1p_p, lambda g, x: lax.div(g, lax.add(x, 1)))
defjvp2(ew.expm1_p, lambda g, ans, x: lax.mul(g, lax.add(ans, 1)))
defjvp2(ew.tanh_p, lambda g, ans, x: lax.mul(lax.add(g, lax.mul(g, ans)), lax.sub(1, ans)))
defjvp2(ew.logistic_p, lambda g, ans, x: lax.mul(g, lax.mul(ans, lax.sub(1, ans))))
defjvp(ew.sin_p, lambda g, x: lax.mul(g, lax.cos(x)))
defjvp(ew.cos_p, lambda g, x: lax.neg(lax.mul(g, lax.sin(x))))
defjvp2(ew.tan_p, lambda g, ans, x: lax.mul(g, lax.add(1, lax.square(ans))))
defjvp(ew.asin_p, lambda g, x: lax.mul(g, lax.rsqrt(lax.sub(1, lax.square(x)))))
defjvp(ew.acos_p, lambda g, x: lax.mul(g, lax.neg(lax.rsqrt(lax.sub(1, lax.square(x))))))
defjvp(ew.atan_p, lambda g, x: lax.div(g, lax.add(1, lax.square(x))))
defjvp(ew.sinh_p, lambda g, x: lax.mul(g, lax.cosh(x)))
defjvp(ew.cosh_p, lambda g, x: lax.mul(g, lax.sinh(x)))
defjvp(ew.asinh_p, lambda g, x: lax.mul(g, lax.rsqrt(lax.add(lax.square(x), 1))))
defjvp(ew.acosh_p, lambda g, x: lax.mul(g, lax.rsqrt(lax.sub(lax.square(x), 1))))
defjvp(ew.atanh_p, lambda g, x: lax.mul(lax.integer_pow(lax.add(1, x), -1),
                                        lax.div(g, lax.sub(1, x))))
defjvp2(ew.sqrt_p, lambda g, ans, x: lax.mul(g, lax.div(_c(x, 0.5), ans)))
defjvp2(ew.rsqrt_p, lambda g, ans, x: lax.mul(g, lax.mul(_c(x, -0.5), lax.div(ans, x))))
defjvp2(ew.cbrt_p, lambda g, ans, x: lax.mul(g, lax.mul(_c(x, 1 / 3), lax.integer_pow(ans, -2))))
defjvp(ew.erf_p, lambda g, x: lax.mul(_c(x, 2 / np.sqrt(np.pi)),
                                      lax.mul(g, lax.exp(lax.neg(lax.square(x))))))
defjvp(ew.erfc_p, lambda g, x: lax.mul(_c(x, -2 / np.sqrt(np.pi)),
                                       lax.mul(g, lax.exp(lax.neg(lax.square(x))))))
defjvp2(ew.erf_inv_p, lambda g, ans, x: lax.mul(_c(x, np.sqrt(np.pi) / 2),
                                                lax.mul(g, lax.exp(lax.square(ans)))))
defjvp(ew.lgamma_p, lambda g, x: lax.mul(g, lax.digamma(x)))
defjvp(ew.square_p, lambda g, x: lax.mul(g, lax.mul(_c(x, 2), x)))

# digamma's rule (polygamma) lives with the special functions, lax/special.py


def _abs_jvp(g, ans, x):
    if _aval(x).dtype.kind == "c":
        safe = lax.select(lax.eq(ans, _c(ans, 0)), _full_like(ans, 1), ans)
        return lax.real(lax.mul(g, lax.div(lax.conj(x), lax.convert_element_type(
            safe, _aval(x).dtype))))
    return lax.select(lax.ge(x, _c(x, 0)), g, lax.neg(g))


defjvp2(ew.abs_p, _abs_jvp)


def _integer_pow_jvp(g, x, *, y):
    if y == 0:
        return _full_like(g, 0)
    if y == 1:
        return g
    return lax.mul(g, lax.mul(_c(x, y), x if y == 2 else lax.integer_pow(x, y - 1)))


defjvp(ew.integer_pow_p, _integer_pow_jvp)


# -- complex parts
deflinear(ew.real_p, lambda ct: [lax.complex(ct, _full_like(ct, 0))])
deflinear(ew.imag_p, lambda ct: [lax.complex(_full_like(ct, 0), lax.neg(ct))])
deflinear(ew.complex_p, lambda ct: [lax.real(ct), lax.neg(lax.imag(ct))])


def _conj_transpose(ct, x, *, input_dtype):
    if np.dtype(input_dtype).kind == "c":
        return [lax.conj(ct)]
    return [lax.real(ct)]


deflinear(ew.conj_p, None)
transpose_rules[ew.conj_p] = _conj_transpose


# -- binary
def _add_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = ew.add_p.bind(x, y)
    shape = _shape(out)
    if type(tx) is Zero:
        return out, _maybe_broadcast(shape, ty)
    if type(ty) is Zero:
        return out, _maybe_broadcast(shape, tx)
    return out, lax.add(tx, ty)


def _sub_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = ew.sub_p.bind(x, y)
    shape = _shape(out)
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


jvp_rules[ew.add_p] = _add_jvp
jvp_rules[ew.sub_p] = _sub_jvp
transpose_rules[ew.add_p] = _add_transpose
transpose_rules[ew.sub_p] = _sub_transpose


def _mul_transpose(ct, x, y):
    if is_undefined_primal(x):
        return [_unbroadcast(x.aval, lax.mul(ct, y)), None]
    return [None, _unbroadcast(y.aval, lax.mul(x, ct))]


defjvp(ew.mul_p, lambda g, x, y: lax.mul(g, y), lambda g, x, y: lax.mul(x, g))
transpose_rules[ew.mul_p] = _mul_transpose
defjvp(ew.div_p, lambda g, x, y: lax.div(g, y),
       lambda g, x, y: lax.mul(lax.mul(lax.neg(g), x), lax.integer_pow(y, -2)))
transpose_rules[ew.div_p] = lambda ct, x, y: [_unbroadcast(x.aval, lax.div(ct, y)), None]
defjvp(ew.rem_p, lambda g, x, y: _maybe_broadcast(np.broadcast_shapes(_shape(x), _shape(y)), g),
       lambda g, x, y: lax.mul(lax.neg(g), lax.mul(lax.sign(lax.div(x, y)),
                                                  lax.floor(lax.abs(lax.div(x, y))))))


def _pow_jvp_lhs(g, ans, x, y):
    y_int = _aval(y).dtype.kind in "iu"
    dt = _aval(x).dtype  # both at the base's dtype, strongly typed
    x, y = lax.convert_element_type(x, dt), lax.convert_element_type(y, dt)
    if y_int:
        if _shape(x) != _shape(y):
            shape = np.broadcast_shapes(_shape(x), _shape(y))
            x, y = _maybe_broadcast(shape, x), _maybe_broadcast(shape, y)
        is_zero, zeros = lax.eq(y, _c(y, 0)), _full_like(y, 0)
        nonzero_y = lax.select(lax.eq(y, _c(y, 0)), _full_like(y, 1), y)
        jac = lax.select(is_zero, zeros, lax.mul(nonzero_y, lax.pow(x, lax.sub(y, _full_like(y, 1)))))
    else:
        jac = lax.mul(y, lax.pow(x, lax.sub(y, _full_like(y, 1))))
    return lax.mul(g, jac)


def _pow_jvp_rhs(g, ans, x, y):
    safe_x = lax.select(lax.eq(x, _c(x, 0)), _full_like(x, 1), x)
    return lax.mul(g, lax.mul(lax.log(safe_x), ans))


defjvp2(ew.pow_p, _pow_jvp_lhs, _pow_jvp_rhs)


def _balanced_eq(x, z, y):
    return lax.div(lax.select(lax.eq(x, z), _full_like(z, 1), _full_like(z, 0)),
                   lax.select(lax.eq(y, z), _full_like(z, 2), _full_like(z, 1)))


defjvp2(ew.max_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
        lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
defjvp2(ew.min_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
        lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
defjvp(ew.atan2_p,
       lambda g, x, y: lax.mul(g, lax.div(y, lax.add(lax.square(x), lax.square(y)))),
       lambda g, x, y: lax.mul(g, lax.div(lax.neg(x), lax.add(lax.square(x), lax.square(y)))))


# --------------------------------------------------------------------------
# Dtype and shape


def _convert_jvp(primals, tangents, *, new_dtype, weak_type, sharding=None):
    (x,), (t,) = primals, tangents
    out = st.convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type,
                                         sharding=sharding)
    if type(t) is Zero or np.dtype(new_dtype).kind in "iub":
        return out, Zero.from_primal_value(out)
    return out, st.convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type,
                                               sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding=None):
    a = x.aval
    if a.dtype.kind not in "fc" and not a.dtype.name.startswith(("bfloat", "float")):
        return [Zero(ad.tangent_aval(a))]
    return [st.convert_element_type_p.bind(ct, new_dtype=a.dtype, weak_type=a.weak_type,
                                           sharding=sharding)]


jvp_rules[st.convert_element_type_p] = _convert_jvp
transpose_rules[st.convert_element_type_p] = _convert_transpose


def _bid_transpose(ct, x, *, shape, broadcast_dimensions, sharding=None):
    in_shape = x.aval.shape
    unit = [i for i, s in enumerate(in_shape) if s == 1 and shape[broadcast_dimensions[i]] != 1]
    bdims = [d for i, d in enumerate(broadcast_dimensions) if i not in unit]
    axes = tuple(i for i in range(len(shape)) if i not in bdims)
    out = lax.reduce_sum(ct, axes) if axes else ct
    return [lax.expand_dims(out, unit) if unit else out]


deflinear(st.broadcast_in_dim_p, None)
transpose_rules[st.broadcast_in_dim_p] = lambda ct, x, **p: _bid_transpose(ct, x, **p)
deflinear(st.reshape_p, None)


def _reshape_transpose(ct, x, *, new_sizes, dimensions=None, sharding=None):
    if dimensions is None:
        return [lax.reshape(ct, x.aval.shape)]
    read_order = tuple(x.aval.shape[d] for d in dimensions)
    return [lax.transpose(lax.reshape(ct, read_order), tuple(np.argsort(dimensions)))]


transpose_rules[st.reshape_p] = _reshape_transpose
deflinear(st.transpose_p, None)
transpose_rules[st.transpose_p] = lambda ct, x, *, permutation: [
    lax.transpose(ct, tuple(int(i) for i in np.argsort(permutation)))]
deflinear(st.squeeze_p, None)
transpose_rules[st.squeeze_p] = lambda ct, x, *, dimensions: [
    lax.expand_dims(ct, dimensions)]
deflinear(st.rev_p, lambda ct, *, dimensions: [lax.rev(ct, dimensions)])
deflinear(st.copy_p, lambda ct: [st.copy_p.bind(ct)])


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
    return [st.pad_p.bind(ct, zero, padding_config=pads)]


deflinear(st.slice_p, None)
transpose_rules[st.slice_p] = _slice_transpose


def _pad_transpose(ct, x, pv, *, padding_config):
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    nd = len(_shape(ct))
    t_operand = None
    if is_undefined_primal(x):
        unpad = tuple(zip(np.negative(lo), np.negative(hi), np.zeros_like(interior)))
        unpadded = st.pad_p.bind(ct, np.zeros((), _aval(ct).dtype), padding_config=unpad)
        t_operand = st.slice_p.bind(unpadded, start_indices=tuple(np.zeros_like(lo)),
                                    limit_indices=tuple(int(d) for d in _shape(unpadded)),
                                    strides=tuple(np.add(interior, 1)))
    t_pv = None
    if is_undefined_primal(pv):
        total = lax.reduce_sum(ct, tuple(range(nd)))
        t_pv = total if t_operand is None else lax.sub(
            total, lax.reduce_sum(t_operand, tuple(range(nd))))
    return [t_operand, t_pv]


def _pad_jvp(primals, tangents, *, padding_config):
    out = st.pad_p.bind(*primals, padding_config=padding_config)
    ts = [ad.instantiate_zeros(t) for t in tangents]
    return out, st.pad_p.bind(*ts, padding_config=padding_config)


jvp_rules[st.pad_p] = _pad_jvp
transpose_rules[st.pad_p] = _pad_transpose


# -- concatenate (transposed with ``split``) and stack
split_p = core.Primitive("split")
split_p.multiple_results = True


def _split_eval(x, *, sizes, axis):
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                         f"operand shape {x.shape}")
    return [x.update(shape=x.shape[:axis] + (s,) + x.shape[axis + 1:]) for s in sizes]


def _split_lower(ctx, ai, ao, x, *, sizes, axis):
    from xjit._src.interpreters.mlir import i64_array, ttype
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


core.abstract_eval_rules[split_p] = _split_eval
ad.lowering.rules[split_p] = _split_lower
core.pp_param_rules[split_p] = lambda p: {"axis": p["axis"], "sizes": p["sizes"]}


def split(operand, sizes, axis=0):
    """``lax.split``: pieces of ``operand`` along ``axis`` with the given sizes."""
    return split_p.bind(operand, sizes=tuple(int(s) for s in sizes), axis=int(axis))


deflinear(split_p, lambda cts, *, sizes, axis: [lax.concatenate(
    [ad.instantiate_zeros(c) for c in cts], axis)])


def _concat_transpose(ct, *xs, dimension):
    sizes = [_operand_aval(x).shape[dimension] for x in xs]
    pieces = split(ct, sizes, dimension)
    return [p if is_undefined_primal(x) else None for p, x in zip(pieces, xs)]


deflinear(st.concatenate_p, None)
transpose_rules[st.concatenate_p] = _concat_transpose


def _stack_transpose(ct, *xs, axis):
    return [lax.squeeze(lax.slice_along(ct, i, i + 1, 1, axis), (axis,))
            if is_undefined_primal(x) else None for i, x in enumerate(xs)]


deflinear(st.stack_p, None)
transpose_rules[st.stack_p] = _stack_transpose


# -- select_n and clamp
def _select_n_jvp(primals, tangents):
    which, *cases = primals
    out = st.select_n_p.bind(which, *cases)
    cts = tangents[1:]
    nz = [t for t in cts if type(t) is not Zero]
    if not nz:
        return out, Zero.from_primal_value(out)
    z = _full_like(nz[0], 0)
    return out, st.select_n_p.bind(which, *[z if type(t) is Zero else t for t in cts])


def _select_n_transpose(ct, which, *cases):
    if type(ct) is Zero:
        return [None] + [Zero(c.aval) if is_undefined_primal(c) else None for c in cases]
    z = _full_like(ct, 0)
    n = len(cases)
    return [None] + [st.select_n_p.bind(which, *[ct if j == i else z for j in range(n)])
                     if is_undefined_primal(c) else None for i, c in enumerate(cases)]


jvp_rules[st.select_n_p] = _select_n_jvp
transpose_rules[st.select_n_p] = _select_n_transpose

defjvp(st.clamp_p,
       lambda g, lo, x, hi: lax.select(lax.bitwise_and(lax.gt(lo, x), lax.lt(lo, hi)), g,
                                       _full_like(x, 0)),
       lambda g, lo, x, hi: lax.select(lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi)), g,
                                       _full_like(x, 0)),
       lambda g, lo, x, hi: lax.select(lax.lt(hi, x), g, _full_like(x, 0)))


# --------------------------------------------------------------------------
# dot_general


def _ranges_like(*xs):
    start = 0
    for x in xs:
        yield list(range(start, start + len(x)))
        start += len(x)


def _dot_transpose_lhs(g, x_aval, y, dimension_numbers, precision, preferred_element_type,
                       swap_ans=False):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = [i for i in range(x_aval.ndim) if i not in x_contract and i not in x_batch]
    y_nd = len(_operand_aval(y).shape)
    y_kept = [i for i in range(y_nd) if i not in y_contract and i not in y_batch]
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((ans_y, y_kept), (ans_batch, list(y_batch)))
    x_contract_by_y = [int(i) for i in np.take(x_contract, np.argsort(y_contract))] \
        if x_contract else []
    out_axes = np.argsort(list(x_batch) + x_kept + x_contract_by_y)
    pet = preferred_element_type
    out = lax.dot_general(g, y, dims, precision=precision, preferred_element_type=pet)
    out = lax.transpose(out, tuple(int(i) for i in out_axes))
    if out.dtype != x_aval.dtype:
        out = lax._convert(out, x_aval.dtype, x_aval.weak_type)
    return out


def _dot_general_transpose(ct, x, y, *, dimension_numbers, precision=None,
                           preferred_element_type=None, out_sharding=None):
    (xc, yc), (xb, yb) = dimension_numbers
    if is_undefined_primal(x):
        return [_dot_transpose_lhs(ct, x.aval, y, dimension_numbers, precision,
                                   preferred_element_type), None]
    swapped = ((yc, xc), (yb, xb))
    return [None, _dot_transpose_lhs(ct, y.aval, x, swapped, precision,
                                     preferred_element_type, swap_ans=True)]


def _dot_bind(params):
    return lambda a, b: st.dot_general_p.bind(a, b, **params)


def _dot_general_jvp(primals, tangents, **params):
    x, y = primals
    tx, ty = tangents
    dot = _dot_bind(params)
    out = dot(x, y)
    acc = None
    if type(tx) is not Zero:
        acc = dot(tx, y)
    if type(ty) is not Zero:
        c = dot(x, ty)
        acc = c if acc is None else add_any_p.bind(acc, c)
    return out, acc


jvp_rules[st.dot_general_p] = _dot_general_jvp
transpose_rules[st.dot_general_p] = _dot_general_transpose


# --------------------------------------------------------------------------
# Reductions


def _reduce_sum_transpose(ct, x, *, axes, out_sharding=None):
    shape = x.aval.shape
    dims = tuple(np.delete(np.arange(len(shape)), axes))
    return [st.broadcast_in_dim_p.bind(ct, shape=shape, broadcast_dimensions=dims, sharding=None)]


deflinear(st.reduce_sum_p, None)
transpose_rules[st.reduce_sum_p] = _reduce_sum_transpose


def _reduce_chooser_jvp(g, ans, x, *, axes):
    shape = [1 if i in axes else d for i, d in enumerate(_shape(x))]
    loc = lax.convert_element_type(lax.eq(x, lax.reshape(ans, shape)), _aval(g).dtype)
    counts = lax.reduce_sum(loc, axes)
    return lax.div(lax.reduce_sum(lax.mul(g, loc), axes), counts)


defjvp2(st.reduce_max_p, _reduce_chooser_jvp)
defjvp2(st.reduce_min_p, _reduce_chooser_jvp)


def _prod_tree(x, axes):
    """reduce_prod as a tree of pairwise products (its JVP is then exact at
    zeros): reduced axes flattened to the front, halved until one is left."""
    shape = _shape(x)
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
            b = lax.pad(b, _c(b, 1), ((0, 1, 0),) + ((0, 0, 0),) * (nd - 1))
        x = lax.mul(a, b)
    if x.shape[0] == 0:
        return lax.full(x.shape[1:], 1, x.dtype)
    return lax.squeeze(x, (0,))


def _reduce_prod_jvp(primals, tangents, *, axes):
    outs, touts = ad.jvp_flat(lambda x: [_prod_tree(x, axes)], primals, tangents)
    return outs[0], touts[0]


jvp_rules[st.reduce_prod_p] = _reduce_prod_jvp


# --------------------------------------------------------------------------
# Dynamic slicing


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    x, *idx = primals
    if type(tangents[0]) is Zero:
        out = st.dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes)
        return out, Zero.from_primal_value(out)
    t = st.dynamic_slice_p.bind(tangents[0], *idx, slice_sizes=slice_sizes)
    return st.dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes), t


def _dynamic_slice_transpose(ct, x, *idx, slice_sizes):
    a = x.aval
    zeros = lax.full(a.shape, 0, a.dtype)
    return [st.dynamic_update_slice_p.bind(zeros, ct, *idx)] + [None] * len(idx)


def _dus_jvp(primals, tangents):
    x, u, *idx = primals
    tx, tu = tangents[:2]
    out = st.dynamic_update_slice_p.bind(x, u, *idx)
    if type(tx) is Zero and type(tu) is Zero:
        return out, Zero.from_primal_value(out)
    return out, st.dynamic_update_slice_p.bind(ad.instantiate_zeros(tx), ad.instantiate_zeros(tu),
                                               *idx)


def _dus_transpose(ct, x, u, *idx):
    ua = _operand_aval(u)
    t_x = t_u = None
    if is_undefined_primal(x):
        t_x = st.dynamic_update_slice_p.bind(ct, lax.full(ua.shape, 0, ua.dtype), *idx)
    if is_undefined_primal(u):
        t_u = st.dynamic_slice_p.bind(ct, *idx, slice_sizes=ua.shape)
    return [t_x, t_u] + [None] * len(idx)


jvp_rules[st.dynamic_slice_p] = _dynamic_slice_jvp
transpose_rules[st.dynamic_slice_p] = _dynamic_slice_transpose
jvp_rules[st.dynamic_update_slice_p] = _dus_jvp
transpose_rules[st.dynamic_update_slice_p] = _dus_transpose


# --------------------------------------------------------------------------
# add_any and stop_gradient

deflinear(add_any_p, None)
transpose_rules[add_any_p] = lambda ct, x, y: [ct, ct]

stop_gradient_p = core.Primitive("stop_gradient")
core.abstract_eval_rules[stop_gradient_p] = lambda x: x
core.impl_rules[stop_gradient_p] = lambda x: x
ad.lowering.rules[stop_gradient_p] = lambda ctx, ai, ao, x: x
defjvp_zero(stop_gradient_p)


def _register_batching():
    from xjit._src.interpreters import batching

    def add_any_rule(args, dims):
        # add_any does not broadcast: an unbatched operand is broadcast to the full batch
        (x, y), (dx, dy) = args, dims
        if dx == dy:
            return add_any_p.bind(x, y), dx
        size = next(_shape(a)[d] for a, d in zip(args, dims) if d is not None)
        return add_any_p.bind(batching.bdim_at_front(x, dx, size),
                              batching.bdim_at_front(y, dy, size)), 0
    batching.batch_rules[add_any_p] = add_any_rule
    batching.batch_rules[stop_gradient_p] = lambda args, dims: (stop_gradient_p.bind(args[0]),
                                                                dims[0])

    def split_rule(args, dims, *, sizes, axis):
        (x,), (d,) = args, dims
        ax = axis + (d <= axis)
        return split_p.bind(x, sizes=sizes, axis=ax), [d] * len(sizes)
    batching.batch_rules[split_p] = split_rule


_register_batching()

from . import ad_jit  # noqa: E402,F401  (jit's rules)
