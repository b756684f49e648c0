"""The smaller ``xjit.lax`` functions: shape helpers and convenience wrappers
over existing primitives, plus the few primitives of their own that JAX
has (``mulhi``, ``optimization_barrier``, ``reduce_precision``, ``unstack``,
``empty``, ``rng_bit_generator``, ``rng_uniform``)."""
from __future__ import annotations

import enum
import math
import operator
from typing import Union

import numpy as np

from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src import core, dtypes, tree_util
from xjit._src.interpreters.ad import Zero, instantiate_zeros
from xjit._src.interpreters.batching import moveaxis
from ..core import ShapedArray
from xjit._src.interpreters.mlir import ttype
from xjit._src.lax import lax
from . import elementwise as ew
from . import structural as st
from .slicing import GatherDimensionNumbers, gather, lower_fun
from .special import naryop_eval
from .tile import tile as _tile


def _canon_axis(axis, nd):
    axis = operator.index(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    return axis % nd if nd else axis


# --------------------------------------------------------------------------
# Shape helpers


def broadcast_shapes(*shapes):
    """The NumPy broadcast of shapes given as tuples of ints."""
    shapes = [tuple(map(operator.index, s)) for s in shapes]
    if not shapes:
        return ()
    nd = max(len(s) for s in shapes)
    padded = [(1,) * (nd - len(s)) + s for s in shapes]
    out = []
    for dims in zip(*padded):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def broadcast_to_rank(x, rank):
    """``x`` with leading unit axes added up to ``rank``."""
    nd = np.ndim(x) if lax.is_host_const(x) else x.ndim
    if nd == rank:
        return lax.asarray_device(x)
    return lax.broadcast(x, (1,) * (rank - nd))


def broadcast_like(arr, like_arr):
    """``arr`` broadcast (leading axes) to the shape of ``like_arr``."""
    shape = np.shape(like_arr) if lax.is_host_const(like_arr) else like_arr.shape
    nd = np.ndim(arr) if lax.is_host_const(arr) else arr.ndim
    return lax.broadcast_in_dim(arr, shape, tuple(range(len(shape) - nd, len(shape))))


def collapse(operand, start_dimension, stop_dimension=None):
    """Merge the axes ``[start_dimension, stop_dimension)`` into one."""
    shape = tuple(operand.shape)
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    return lax.reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def dtype(x):
    """The canonical dtype of a value, dtype or dtype name."""
    return dtypes.dtype(x, canonicalize=True)


def reciprocal(x):
    """1 / x, as ``integer_pow(x, -1)``."""
    return lax.integer_pow(x, -1)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over matching leading batch axes."""
    if min(lhs.ndim, rhs.ndim) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {lhs.ndim}, "
                         f"{rhs.ndim}")
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {lhs.ndim}, "
                         f"{rhs.ndim}")
    batch = tuple(range(lhs.ndim - 2))
    return lax.dot_general(lhs, rhs, (((lhs.ndim - 1,), (rhs.ndim - 2,)), (batch, batch)),
                           precision=precision)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                         allow_negative_indices=True):
    """One index along ``axis`` taken with a dynamic start."""
    out = lax.dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else lax.squeeze(out, (axis,))


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """``operand`` with the slice at ``index`` along ``axis`` replaced."""
    axis = operator.index(axis)
    if np.ndim(update) != operand.ndim:
        update = lax.expand_dims(update, (axis,))
    return lax.dynamic_update_slice_in_dim(operand, update, index, axis)


def index_take(src, idxs, axes):
    """``src[idx0, idx1, ...]`` over ``axes`` (indices wrap around), as one gather."""
    axes = tuple(axes)
    idx = lax.concatenate([lax.expand_dims(i, (1,)) for i in idxs], 1)
    sizes = np.array([src.shape[a] for a in axes], idx.dtype)
    idx = lax.rem(lax.add(lax.rem(idx, sizes[None]), sizes[None]), sizes[None])
    slice_sizes = tuple(1 if i in axes else d for i, d in enumerate(src.shape))
    dn = GatherDimensionNumbers(offset_dims=tuple(range(1, src.ndim - len(axes) + 1)),
                                collapsed_slice_dims=axes, start_index_map=axes)
    return gather(src, idx, dimension_numbers=dn, slice_sizes=slice_sizes)


def stack(operands, axis=0):
    """Join equal-shaped arrays along a new axis."""
    arrays = [lax.asarray_device(x) for x in operands]
    if not arrays:
        raise IndexError("list index out of range")
    if len({x.dtype for x in arrays}) > 1:
        raise TypeError("lax.stack requires arguments to have the same dtypes, got "
                        f"{', '.join(x.dtype.name for x in arrays)}.")
    if len({x.shape for x in arrays}) > 1:
        raise ValueError("All input arrays must have the same shape. Got "
                         f"{', '.join(str(x.shape) for x in arrays)}.")
    axis = _canon_axis(axis, arrays[0].ndim + 1)
    return st.stack_p.bind(*arrays, axis=axis)


def tile(operand, reps):
    """``operand`` repeated ``reps[i]`` times along each axis i."""
    operand = lax.asarray_device(operand)
    reps = tuple(map(operator.index, reps))
    if len(reps) != operand.ndim:
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                        f"and x.ndim={operand.ndim}.")
    if any(r < 0 for r in reps):
        raise ValueError(f"reps must be nonnegative, got {reps}")
    return _tile(operand, reps)


def with_sharding_constraint(x, shardings):
    """Identity: with one device every value already has its only sharding."""
    return x


def platform_dependent(*args, default=None, **per_platform):
    """Call the function registered for the platform this runs on."""
    from xjit._src import xla_bridge as backend
    platform = backend.default_backend()
    aliases = {"cuda": ("cuda", "gpu"), "rocm": ("rocm", "gpu"), "cpu": ("cpu",),
               "tpu": ("tpu",)}.get(platform, (platform,))
    for name in aliases:
        if name in per_platform:
            return per_platform[name](*args)
    if default is None:
        raise NotImplementedError(f"Function is not lowered for platform {platform}; pass a "
                                  "`default` or an implementation for it")
    return default(*args)


def composite(decomposition, name, version=0):
    """A function marked as a named composite; xjit runs its decomposition."""
    if not callable(decomposition):
        raise TypeError(f"Expected a callable value, got {decomposition}")

    def call(*args, **kwargs):
        return decomposition(*args, **kwargs)
    call.__name__ = getattr(decomposition, "__name__", name)
    call.composite_name, call.composite_version = name, version
    return call


# --------------------------------------------------------------------------
# Dot-product types and algorithm enums

DotDimensionNumbers = tuple  # ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))


class DotAlgorithmPreset(enum.Enum):
    """Named dot_general algorithms (operand, accumulation and output types)."""
    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self):
        return self.name

    __str__ = __repr__


class DotAlgorithm:
    """An explicit dot_general algorithm: operand and accumulation types."""

    __slots__ = ("lhs_precision_type", "rhs_precision_type", "accumulation_type",
                 "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                 "allow_imprecise_accumulation")

    def __init__(self, lhs_precision_type, rhs_precision_type, accumulation_type,
                 lhs_component_count=1, rhs_component_count=1, num_primitive_operations=1,
                 allow_imprecise_accumulation=False):
        self.lhs_precision_type = np.dtype(lhs_precision_type)
        self.rhs_precision_type = np.dtype(rhs_precision_type)
        self.accumulation_type = np.dtype(accumulation_type)
        self.lhs_component_count = lhs_component_count
        self.rhs_component_count = rhs_component_count
        self.num_primitive_operations = num_primitive_operations
        self.allow_imprecise_accumulation = allow_imprecise_accumulation

    def _key(self):
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other):
        return isinstance(other, DotAlgorithm) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"DotAlgorithm(lhs_precision_type={self.lhs_precision_type.name}, "
                f"rhs_precision_type={self.rhs_precision_type.name}, "
                f"accumulation_type={self.accumulation_type.name})")


PrecisionLike = Union[None, str, lax.Precision, tuple, DotAlgorithm, DotAlgorithmPreset]


class RandomAlgorithm(enum.IntEnum):
    """The bit generator algorithm of ``rng_bit_generator``."""
    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self):
        return self.name


# --------------------------------------------------------------------------
# Primitives


_define = lowering.define_primitive


# -- mulhi: the high half of the double-width product


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


mulhi_p = _define("mulhi", naryop_eval("mulhi", ew.INT), lower_fun(_mulhi_impl))
ad.defjvp_zero(mulhi_p)


def mulhi(x, y, /):
    """The high half of the product of two integers of the same type."""
    return mulhi_p.bind(x, y)


# -- optimization_barrier


def _barrier_lower(ctx, ai, ao, *xs):
    return ctx.op("stablehlo.optimization_barrier", list(xs), [ttype(a) for a in ai],
                  [ttype(a) for a in ao])


optimization_barrier_p = _define("optimization_barrier", lambda *xs: list(xs), _barrier_lower,
                                 multiple_results=True)


def _barrier_jvp(primals, tangents):
    n = len(primals)
    nz = [type(t) is not Zero for t in tangents]
    ts = [t for t in tangents if type(t) is not Zero]
    outs = optimization_barrier_p.bind(*primals, *ts)
    it = iter(outs[n:])
    return outs[:n], [next(it) if z else t for z, t in zip(nz, tangents)]


ad.jvp_rules[optimization_barrier_p] = _barrier_jvp
ad.transpose_rules[optimization_barrier_p] = lambda cts, *xs: [
    instantiate_zeros(c) if ad.is_undefined_primal(x) else None for c, x in zip(cts, xs)]
batching.batch_rules[optimization_barrier_p] = lambda args, dims: (
    optimization_barrier_p.bind(*args), list(dims))


def optimization_barrier(operand, /):
    """Values the compiler may not move computations across (a pytree)."""
    leaves, tree = tree_util.tree_flatten(operand)
    outs = optimization_barrier_p.bind(*[lax.asarray_device(x) for x in leaves])
    return tree_util.tree_unflatten(tree, list(outs))


# -- reduce_precision


def _reduce_precision_eval(x, *, exponent_bits, mantissa_bits):
    ew._check_unary("reduce_precision", x, ew.FLOAT)
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


reduce_precision_p = _define("reduce_precision", _reduce_precision_eval, _reduce_precision_lower)
ad.deflinear(reduce_precision_p, lambda ct, **p: [reduce_precision_p.bind(ct, **p)])


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """Round ``operand`` to a float format with the given exponent and
    mantissa widths (keeping its dtype)."""
    return reduce_precision_p.bind(lax.asarray_device(operand),
                                   exponent_bits=operator.index(exponent_bits),
                                   mantissa_bits=operator.index(mantissa_bits))


# -- unstack


def _unstack_eval(x, *, axis):
    shape = x.shape[:axis] + x.shape[axis + 1:]
    return [x.update(shape=shape) for _ in range(x.shape[axis])]


def _unstack_lower(ctx, ai, ao, x, *, axis):
    from xjit._src.interpreters.mlir import i64_array
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


unstack_p = _define("unstack", _unstack_eval, _unstack_lower, multiple_results=True)
ad.deflinear(unstack_p, lambda cts, *, axis: [st.stack_p.bind(
    *[instantiate_zeros(c) for c in cts], axis=axis)])


def _unstack_batch(args, dims, *, axis):
    (x,), (d,) = args, dims
    ax = axis + (d <= axis)
    outs = unstack_p.bind(x, axis=ax)
    return outs, [d if d < ax else d - 1] * len(outs)


batching.batch_rules[unstack_p] = _unstack_batch


def unstack(x, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    x = lax.asarray_device(x)
    return tuple(unstack_p.bind(x, axis=_canon_axis(axis, x.ndim)))


# -- empty: an uninitialised buffer (zeros here, as in JAX's lowering)


def _empty_eval(*, shape, dtype, out_sharding=None):
    return ShapedArray(shape, dtype, False)


empty_p = _define("empty", _empty_eval, lambda ctx, ai, ao, **p: ctx.constant(
    np.zeros(ao[0].shape, ao[0].dtype), ao[0]))
ad.defjvp_zero(empty_p)


def empty(shape, dtype, *, out_sharding=None):
    """An array of the given shape and dtype whose contents do not matter."""
    lax._check_dtype_arg(dtype, "empty")
    shape = core.canonicalize_shape(shape, "empty shape must have every element be nonnegative")
    return empty_p.bind(shape=shape, dtype=dtypes.canonicalize_dtype(dtype), out_sharding=None)


# -- rng_bit_generator / rng_uniform: XLA's own stateless generators

_RNG_ALGO = {0: "DEFAULT", 1: "THREE_FRY", 2: "PHILOX"}


def _rbg_eval(key, *, shape, dtype, algorithm, out_sharding=None):
    if not ((key.shape == (4,) and key.dtype == np.uint32)
            or (key.shape == (2,) and key.dtype == np.uint64)):
        raise TypeError("rng_bit_generator: the key must be a uint32[4] (or uint64[2]) array, "
                        f"got {key.str_short(False)}")
    return [key, ShapedArray(shape, dtype, False)]


def _rbg_lower(ctx, ai, ao, key, *, shape, dtype, algorithm, out_sharding=None):
    """The generator's state is u64[2]: a u32[4] key is reinterpreted."""
    k = ai[0]
    k64 = ShapedArray((2,), np.uint64)
    if k.dtype == np.uint32:
        pairs = ShapedArray((2, 2), np.uint32)
        key = ctx.op("stablehlo.reshape", [key], [ttype(k)], ttype(pairs))
        key = ctx.op("stablehlo.bitcast_convert", [key], [ttype(pairs)], ttype(k64))
    new_key, bits = ctx.op("stablehlo.rng_bit_generator", [key], [ttype(k64)],
                           [ttype(k64), ttype(ao[1])],
                           attrs=f"rng_algorithm = #stablehlo<rng_algorithm "
                                 f"{_RNG_ALGO[int(algorithm)]}>")
    if k.dtype == np.uint32:
        pairs = ShapedArray((2, 2), np.uint32)
        new_key = ctx.op("stablehlo.bitcast_convert", [new_key], [ttype(k64)], ttype(pairs))
        new_key = ctx.op("stablehlo.reshape", [new_key], [ttype(pairs)], ttype(k))
    return [new_key, bits]


rng_bit_generator_p = _define("rng_bit_generator", _rbg_eval, _rbg_lower, multiple_results=True)
ad.defjvp_zero(rng_bit_generator_p)


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """XLA's stateless bit generator: (new key, random bits of ``shape``)."""
    shape = core.canonicalize_shape(shape, "rng_bit_generator shape must be nonnegative")
    lax._check_dtype_arg(dtype, "rng_bit_generator")
    dtype = dtypes.canonicalize_dtype(dtype)
    if dtype not in (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32),
                     np.dtype(np.uint64)):
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    return tuple(rng_bit_generator_p.bind(lax.asarray_device(key), shape=shape, dtype=dtype,
                                          algorithm=RandomAlgorithm(algorithm),
                                          out_sharding=None))


def _rng_uniform_eval(a, b, *, shape):
    if a.dtype != b.dtype:
        raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got {a.dtype} "
                         f"and {b.dtype}.")
    if a.shape or b.shape:
        raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and "
                         f"{b.shape}.")
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def _rng_uniform_lower(ctx, ai, ao, a, b, *, shape):
    sa = ShapedArray((len(shape),), np.int64)
    dims = ctx.constant(np.array(shape, np.int64), sa)
    return ctx.op("stablehlo.rng", [a, b, dims], [ttype(ai[0]), ttype(ai[1]), ttype(sa)],
                  ttype(ao[0]), attrs="rng_distribution = #stablehlo<rng_distribution UNIFORM>")


rng_uniform_p = _define("rng_uniform", _rng_uniform_eval, _rng_uniform_lower)
ad.defjvp_zero(rng_uniform_p)


def rng_uniform(a, b, shape):
    """Stateful uniform samples in [a, b) from XLA's RNG (not reproducible)."""
    a, b = lax._binary_operands(a, b)
    return rng_uniform_p.bind(a, b, shape=tuple(map(operator.index, shape)))


batching.defbroadcasting(mulhi_p)
batching.defvectorized(reduce_precision_p)


# -- approximate top-k: one primitive, computed exactly (as JAX does on CPU
# and GPU) with top_k


def _approx_eval(x, *, k, reduction_dimension, is_max_k, **_):
    if not ew._kind_ok(x.dtype, ew.FLOAT):
        raise ValueError("operand must be a floating type")
    dim = reduction_dimension % x.ndim
    if k > x.shape[dim]:
        raise ValueError(f"k must be smaller than the size of reduction_dim {x.shape[dim]}, "
                         f"got {k}")
    shape = x.shape[:dim] + (k,) + x.shape[dim + 1:]
    return [x.update(shape=shape), ShapedArray(shape, np.int32)]


def _approx_impl(x, *, k, reduction_dimension, is_max_k, **_):
    from .sorting import top_k
    dim = reduction_dimension % x.ndim
    vals, idx = top_k(x if is_max_k else lax.neg(x), k, axis=dim)
    return [vals if is_max_k else lax.neg(vals), idx]


approx_top_k_p = _define("approx_top_k", _approx_eval, lower_fun(_approx_impl, True),
                         multiple_results=True)


def _approx_jvp(primals, tangents, **params):
    from xjit.numpy import take_along_axis
    vals, idx = approx_top_k_p.bind(primals[0], **params)
    if type(tangents[0]) is Zero:
        return [vals, idx], [Zero.from_primal_value(vals), Zero.from_primal_value(idx)]
    dim = params["reduction_dimension"] % vals.ndim
    return [vals, idx], [take_along_axis(tangents[0], idx, axis=dim),
                         Zero.from_primal_value(idx)]


def _approx_batch(args, dims, *, reduction_dimension, **params):
    x = moveaxis(args[0], dims[0], 0)
    dim = reduction_dimension % (x.ndim - 1) + 1
    return approx_top_k_p.bind(x, reduction_dimension=dim, **params), [0, 0]


ad.jvp_rules[approx_top_k_p] = _approx_jvp
batching.batch_rules[approx_top_k_p] = _approx_batch


def _approx_top_k(operand, k, reduction_dimension, recall_target, is_max_k,
                  reduction_input_size_override, aggregate_to_topk):
    operand = lax.asarray_device(operand)
    _canon_axis(reduction_dimension, operand.ndim)
    return approx_top_k_p.bind(operand, k=operator.index(k),
                               reduction_dimension=operator.index(reduction_dimension),
                               recall_target=float(recall_target), is_max_k=is_max_k,
                               reduction_input_size_override=reduction_input_size_override,
                               aggregate_to_topk=aggregate_to_topk)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` largest values along ``reduction_dimension`` and their indices."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, True,
                         reduction_input_size_override, aggregate_to_topk)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` smallest values along ``reduction_dimension`` and their indices."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, False,
                         reduction_input_size_override, aggregate_to_topk)


# -- ragged_dot: a grouped matmul, row blocks of lhs against their own rhs


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """``out[i] = lhs[i] @ rhs[g(i)]`` where consecutive runs of
    ``group_sizes[g]`` rows of ``lhs`` form group g (rows past the last group
    give zeros); computed as every product masked to its group."""
    if group_offset is not None:
        raise NotImplementedError("ragged_dot: group_offset is not supported")
    lhs, rhs = lax.asarray_device(lhs), lax.asarray_device(rhs)
    group_sizes = lax.asarray_device(group_sizes)
    if group_sizes.dtype.kind not in "iu":
        raise TypeError("ragged_dot_general requires that group_sizes.dtype is subtype of "
                        "np.integer.")
    if lhs.ndim != 2 or rhs.ndim != 3 or group_sizes.ndim != 1:
        raise TypeError(f"ragged_dot expects lhs [m, k], rhs [g, k, n] and group_sizes [g], got "
                        f"{lhs.shape}, {rhs.shape} and {group_sizes.shape}")
    if rhs.shape[0] != group_sizes.shape[0]:
        raise TypeError(f"expected rhs group dimension size to be {group_sizes.shape[0]}, got "
                        f"{rhs.shape[0]}.")
    m, g = lhs.shape[0], rhs.shape[0]
    from .sorting import cumsum
    ends = cumsum(group_sizes, axis=0)
    starts = lax.sub(ends, group_sizes)
    rows = lax.broadcasted_iota(group_sizes.dtype, (m, g), 0)
    mask = lax.bitwise_and(lax.ge(rows, lax.broadcast_in_dim(starts, (m, g), (1,))),
                           lax.lt(rows, lax.broadcast_in_dim(ends, (m, g), (1,))))
    prods = lax.dot_general(lhs, rhs, (((1,), (1,)), ((), ())), precision=precision,
                            preferred_element_type=preferred_element_type)  # [m, g, n]
    n = rhs.shape[2]
    keep = lax.broadcast_in_dim(mask, (m, g, n), (0, 1))
    zero = lax.full((m, g, n), 0, prods.dtype)
    return lax.reduce_sum(lax.select(keep, prods, zero), (1,))


def _rbg_batch(axis_data, args, dims, *, shape, dtype, algorithm, out_sharding=None):
    """As JAX batches it: the first key of the batch draws the bits for the
    whole batch, and only that key is advanced."""
    keys = moveaxis(args[0], dims[0], 0)
    new_key, bits = rng_bit_generator_p.bind(
        lax.squeeze(lax.slice_along(keys, 0, 1), (0,)), shape=(axis_data.size,) + tuple(shape),
        dtype=dtype, algorithm=algorithm, out_sharding=out_sharding)
    return [dynamic_update_index_in_dim(keys, new_key, 0, 0), bits], [0, 0]


batching.axis_batch_rules[rng_bit_generator_p] = _rbg_batch
