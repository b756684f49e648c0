"""The ``xjit.lax`` functions: thin wrappers that validate, convert Python
scalars to the operand dtype (weakly typed) and bind primitives."""
from __future__ import annotations

import builtins
import cmath
import math
import operator
from typing import Union

import numpy as np

from xjit._src import core, dtypes, tree_util
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero
from xjit._src.interpreters.mlir import ttype
from xjit._src.array import ArrayImpl
from xjit._src.sharded_array import ShardedArrayImpl
from xjit._src.sharding import place
from xjit._src.core import Tracer
from xjit._src.lax import dot_general as dg
from xjit._src.lax import elementwise as ew
from xjit._src.lax import gather_scatter as gs
from xjit._src.lax import reductions as red
from xjit._src.lax import slicing as sl
from xjit._src.lax import structural as st
from xjit._src.lax.tile import tile_p
from xjit._src.sharding import canonicalize_sharding


def is_host_const(x):
    return not isinstance(x, (Tracer, ArrayImpl))


class WeakScalar:
    """A host scalar of a non-default dtype that stays weakly typed (e.g. a
    Python ``2`` promoted against a weak bfloat16 value)."""

    __slots__ = ("val", "aval")

    def __init__(self, val, dtype):
        self.val = np.asarray(val, dtype)[()]
        self.aval = core.ShapedArray((), dtype, True)

    shape = property(lambda self: ())
    dtype = property(lambda self: self.aval.dtype)
    weak_type = True

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.val, dtype)

    def __str__(self):
        return str(self.val)

    __repr__ = __str__


_PY_OF_KIND = {"f": float, "c": complex, "i": int}
_PY_SCALAR_TYPES = frozenset((int, float, complex, bool))


def host_convert(x, dtype, weak_type):
    """Convert a host constant. Weakly typed results stay Python scalars when
    the dtype is their kind's default (so they print and promote as weak
    literals), else become ``WeakScalar``s."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and type(x) is not int and dtypes.is_inexact(np.asarray(x).dtype) and (
            weak_type or not isinstance(x, np.generic)
            or (isinstance(x, np.inexact) and not np.isfinite(x))):
        x = saturating_to_int(x, dtype)
    if weak_type and np.ndim(x) == 0:
        py = _PY_OF_KIND.get(dtype.kind)
        if py is not None and dtypes.dtype(py, canonicalize=True) == dtype:
            if type(x) is py:
                return x
            if type(x) in (int, float, bool) or (py is complex and type(x) is complex):
                return py(x)
        return WeakScalar(x, dtype)
    if type(x) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python int {x} too large to convert to {dtype.name}")
    py = type(x) in _PY_SCALAR_TYPES
    if py:
        key = (type(x), x, dtype)
        out = _strong_scalars.get(key)
        if out is not None:
            return out
    with np.errstate(all="ignore"):
        out = np.asarray(x).astype(dtype)[()] if np.ndim(x) == 0 else np.asarray(x).astype(dtype)
    # Signed zeros share a key (-0.0 == 0.0) and NaN keys never match: floats
    # that are zero or NaN, and complex values, are not cached.
    if py and (type(x) is int or type(x) is bool or (type(x) is float and x == x and x != 0)):
        if len(_strong_scalars) >= 512:
            _strong_scalars.clear()
        _strong_scalars[key] = out
    return out


def saturating_to_int(x, dtype):
    """Float (or complex: its real part) to integer as XLA converts on the
    device, where JAX sends all but finite NumPy scalars (those NumPy casts,
    wrapping): NaN is 0 and values past the dtype's range clamp to its ends."""
    a = np.real(np.asarray(x)).astype(np.float64)
    info = np.iinfo(dtype)
    high, low = a >= float(info.max) + 1.0, a < float(info.min)
    keep = np.isnan(a) | high | low
    out = np.where(keep, 0.0, a).astype(dtype)
    out = np.where(high, info.max, np.where(low, info.min, out)).astype(dtype)
    return out[()] if out.ndim == 0 and not isinstance(x, np.ndarray) else out


_strong_scalars: dict = {}  # (type, value, dtype) -> NumPy scalar: conversions are slow


def _const(example, val):
    """A weakly typed scalar ``val`` rounded to ``example``'s dtype, as JAX
    writes the constants of its rules (printed e.g. ``0.3333333432674408:f32[]``)."""
    dt = core.aval_of(example).dtype
    val = np.asarray(val, dt)[()]
    py = builtins.complex(val) if dt.kind == "c" else float(val) if dt.kind == "f" else val
    return host_convert(py, dt, True)


def rule_const(x, v):
    """``v`` as JAX's rules write constants (its ``lax._const``): a Python
    scalar (weak) beside a weakly typed 0-d ``x`` of the Python type's default
    dtype, else a strongly typed scalar of ``x``'s dtype."""
    aval = core.aval_of(x)
    if aval.weak_type and not aval.shape:
        py = {"f": float, "c": builtins.complex, "b": bool}.get(aval.dtype.kind, int)(v)
        if dtypes.canonicalize_dtype(dtypes.python_scalar_dtypes[type(py)]) == aval.dtype:
            return py
    return np.array(v, aval.dtype)[()]


def _convert(x, new_dtype, weak_type=False):
    """convert_element_type that leaves host constants on the host."""
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    if is_host_const(x):
        return host_convert(x, new_dtype, weak_type)
    aval = x.aval
    if aval.dtype == new_dtype and aval.weak_type == weak_type:
        return x
    return st.convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=bool(weak_type),
                                          sharding=None)


def _check_dtype_arg(dtype, name):
    """JAX's errors for a ``dtype`` argument that names no dtype, or a non-JAX one."""
    if dtype is not None and np.dtype(dtype) not in dtypes._VALID:
        raise TypeError("JAX only supports number, bool, and string dtypes, "
                        f"got dtype {dtype} in {name}")


def convert_element_type(operand, new_dtype):
    _check_dtype_arg(new_dtype, "convert_element_type")
    dtypes.check_user_dtype_supported(new_dtype, "convert_element_type")
    if (type(operand) is builtins.complex and np.dtype(new_dtype).kind in "iu"
            and cmath.isfinite(operand)):
        # JAX casts a finite Python scalar with NumPy, which refuses a complex
        raise TypeError("int() argument must be a string, a bytes-like object or a real "
                        "number, not 'complex'")
    out = _convert(operand, new_dtype, False)
    return asarray_device(out)


def asarray_device(x):
    if is_host_const(x):
        from xjit._src.dispatch import device_put
        return device_put(x)
    return x


def jit_output(x):
    """``x`` as a jnp function that JAX jits returns it: on the device, and
    under vmap with the batched host value on the device too (a NumPy int64
    input comes out int32, where lax's pass-throughs keep it as it is)."""
    if isinstance(x, batching.BatchTracer):
        val = jit_output(x.val)
        return x if val is x.val else batching.BatchTracer(x._trace, val, x.batch_dim)
    return asarray_device(x)


def _dtype_of(x):
    return x.aval.dtype if isinstance(x, (Tracer, ArrayImpl)) else None


def _binary_operands(x, y):
    """lax's rule for Python scalars: they take the other operand's dtype."""
    dx, dy = _dtype_of(x), _dtype_of(y)
    if dx is None and dy is not None and type(x) in (int, float, complex, bool):
        x = host_convert(x, dy, True)
    elif dy is None and dx is not None and type(y) in (int, float, complex, bool):
        y = host_convert(y, dx, True)
    return x, y


def _binop(prim):
    def fn(x, y):
        if type(x) in _PY_SCALAR_TYPES or type(y) in _PY_SCALAR_TYPES:
            x, y = _binary_operands(x, y)
        return prim.bind(x, y)
    fn.__name__ = prim.name
    return fn


def _unop(prim):
    def fn(x):
        return prim.bind(x)
    fn.__name__ = prim.name
    return fn


add, sub, mul, div, rem = map(_binop, (ew.add_p, ew.sub_p, ew.mul_p, ew.div_p, ew.rem_p))
max, min, atan2, nextafter = map(_binop, (ew.max_p, ew.min_p, ew.atan2_p, ew.nextafter_p))
bitwise_and, bitwise_or, bitwise_xor = map(_binop, (ew.and_p, ew.or_p, ew.xor_p))
shift_left, shift_right_arithmetic, shift_right_logical = map(
    _binop, (ew.shift_left_p, ew.shift_right_arithmetic_p, ew.shift_right_logical_p))
eq, ne, lt, le, gt, ge = map(_binop, (ew.eq_p, ew.ne_p, ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p))
complex = _binop(ew.complex_p)

neg, sign, floor, ceil, is_finite = map(_unop, (ew.neg_p, ew.sign_p, ew.floor_p, ew.ceil_p, ew.is_finite_p))
exp, exp2, log, log1p, expm1 = map(_unop, (ew.exp_p, ew.exp2_p, ew.log_p, ew.log1p_p, ew.expm1_p))
tanh, logistic, sin, cos, tan = map(_unop, (ew.tanh_p, ew.logistic_p, ew.sin_p, ew.cos_p, ew.tan_p))
asin, acos, atan, sinh, cosh = map(_unop, (ew.asin_p, ew.acos_p, ew.atan_p, ew.sinh_p, ew.cosh_p))
asinh, acosh, atanh = map(_unop, (ew.asinh_p, ew.acosh_p, ew.atanh_p))
sqrt, rsqrt, cbrt, square = map(_unop, (ew.sqrt_p, ew.rsqrt_p, ew.cbrt_p, ew.square_p))
erf, erfc, erf_inv, lgamma, digamma = map(_unop, (ew.erf_p, ew.erfc_p, ew.erf_inv_p, ew.lgamma_p, ew.digamma_p))
bitwise_not, population_count, clz = map(_unop, (ew.not_p, ew.population_count_p, ew.clz_p))
abs, real, imag = map(_unop, (ew.abs_p, ew.real_p, ew.imag_p))


def conj(x):
    return ew.conj_p.bind(x, input_dtype=x.dtype if not is_host_const(x) else np.result_type(x))


def pow(x, y):
    """No scalar rule here: a Python int exponent stays an integer (JAX's)."""
    return ew.pow_p.bind(x, y)


def integer_pow(x, y):
    return ew.integer_pow_p.bind(x, y=operator.index(y))


class RoundingMethod:
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    return ew.round_p.bind(x, rounding_method=int(rounding_method))


# -- structural
_BCAST_NEGATIVE = "broadcast_in_dim shape must have every element be nonnegative"


def broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding=None):
    shape = core.canonicalize_shape(shape, _BCAST_NEGATIVE)
    if out_sharding is not None:
        out_sharding = canonicalize_sharding(out_sharding, "broadcast_in_dim")
    if not is_host_const(operand) and operand.aval.shape == shape and out_sharding is None \
            and tuple(broadcast_dimensions) == tuple(range(len(shape))):
        return operand
    return st.broadcast_in_dim_p.bind(operand, shape=shape, sharding=out_sharding,
                                      broadcast_dimensions=tuple(broadcast_dimensions))


def broadcast(operand, sizes):
    nd = np.ndim(operand) if is_host_const(operand) else operand.ndim
    shape = tuple(sizes) + tuple(np.shape(operand) if is_host_const(operand) else operand.shape)
    return broadcast_in_dim(operand, shape, tuple(range(len(sizes), len(sizes) + nd)))


def reshape(operand, new_sizes, dimensions=None, out_sharding=None):
    new_sizes = core.canonicalize_shape(new_sizes, "reshape new_sizes must all be positive")
    if dimensions is not None:
        dimensions = tuple(map(operator.index, dimensions))
        if dimensions == tuple(range(np.ndim(operand))):
            dimensions = None
    if out_sharding is not None:
        out_sharding = canonicalize_sharding(out_sharding, "reshape")
    if not is_host_const(operand) and operand.aval.shape == new_sizes and dimensions is None \
            and out_sharding is None:
        return operand
    return st.reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dimensions,
                             sharding=out_sharding)


def transpose(operand, permutation):
    permutation = tuple(operator.index(p) for p in permutation)
    if permutation == tuple(range(np.ndim(operand))) and not is_host_const(operand):
        return operand
    return st.transpose_p.bind(operand, permutation=permutation)


def squeeze(array, dimensions):
    nd = np.ndim(array) if is_host_const(array) else array.ndim
    dims = tuple(sorted(batching.canonicalize_axis(d, nd) for d in dimensions))
    if not dims:
        return array
    return st.squeeze_p.bind(array, dimensions=dims)


def expand_dims(array, dimensions):
    shape = list(np.shape(array) if is_host_const(array) else array.shape)
    nd = len(shape) + len(dimensions)
    for d in dimensions:
        if not -nd <= d < nd:
            raise ValueError(f"axis {d} is out of bounds for array of dimension {nd}")
    dims = sorted(d % nd for d in dimensions)
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {tuple(dimensions)}")
    for d in dims:
        shape.insert(d, 1)
    bdims = [i for i in range(nd) if i not in dims]
    return broadcast_in_dim(array, shape, bdims)


def rev(operand, dimensions):
    return st.rev_p.bind(operand, dimensions=tuple(dimensions))


def slice(operand, start_indices, limit_indices, strides=None):
    return st.slice_p.bind(operand, start_indices=tuple(map(int, start_indices)),
                           limit_indices=tuple(map(int, limit_indices)),
                           strides=None if strides is None else tuple(map(int, strides)))


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    return slice(operand, *_in_dim_bounds(operand, start_index, limit_index, stride, axis))


def slice_along(operand, start_index, limit_index, stride=1, axis=0):
    """``slice_in_dim`` as basic indexing (``x[a:b]``) stages it: JAX prints a
    unit stride there as ``strides=None``."""
    start, limit, strides = _in_dim_bounds(operand, start_index, limit_index, stride, axis)
    return slice(operand, start, limit, None if stride == 1 else strides)


def _in_dim_bounds(operand, start_index, limit_index, stride, axis):
    shape = operand.shape
    start = [0] * len(shape)
    limit = list(shape)
    strides = [1] * len(shape)
    size = shape[axis]
    s = 0 if start_index is None else start_index
    l = size if limit_index is None else limit_index
    start[axis] = s + size if s < 0 else s
    limit[axis] = l + size if l < 0 else l
    strides[axis] = stride
    return start, limit, strides


def index_in_dim(operand, index, axis=0, keepdims=True):
    size = operand.shape[axis]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    index = index + size if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def concatenate(operands, dimension):
    operands = list(operands)
    if not operands:
        raise ValueError("concatenate requires a non-empty sequences of arrays")
    if len(operands) == 1:
        return asarray_device(operands[0])
    return st.concatenate_p.bind(*operands, dimension=operator.index(dimension))


def pad(operand, padding_value, padding_config):
    padding_value = _binary_operands(operand, padding_value)[1]
    return st.pad_p.bind(operand, padding_value,
                         padding_config=tuple(tuple(map(int, c)) for c in padding_config))


def select_n(which, *cases):
    if not cases:
        raise ValueError("select_n() must have at least one case")
    return st.select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    return st.select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
    min, x = _binary_operands(min, x)
    x, max = _binary_operands(x, max)
    return st.clamp_p.bind(min, x, max)


def iota(dtype, size):
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension, out_sharding=None):
    _check_dtype_arg(dtype, "broadcasted_iota")
    dtype = dtypes.canonicalize_dtype(dtype)
    shape = core.canonicalize_shape(shape, "iota shape must have every element be nonnegative")
    return st.iota_p.bind(dtype=dtype, shape=shape, dimension=operator.index(dimension),
                          sharding=canonicalize_sharding(out_sharding, "iota"))


Precision = dg.Precision
PrecisionLike = Union[None, str, Precision, tuple, dg.DotAlgorithm, dg.DotAlgorithmPreset]


canonicalize_precision = dg.canonicalize_precision


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(map(int, lc)), tuple(map(int, rc))), (tuple(map(int, lb)), tuple(map(int, rb))))
    pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(preferred_element_type)
    return dg.dot_general_p.bind(lhs, rhs, dimension_numbers=dn,
                                 precision=canonicalize_precision(precision),
                                 preferred_element_type=pet,
                                 out_sharding=None if out_sharding is None else
                                 canonicalize_sharding(out_sharding, "dot_general"))


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    ln, rn = np.ndim(lhs), np.ndim(rhs)
    if 1 <= ln <= 2 and 1 <= rn <= 2 and np.shape(lhs)[-1] == np.shape(rhs)[0]:
        return dot_general(lhs, rhs, (((ln - 1,), (0,)), ((), ())), precision, preferred_element_type)
    raise ValueError("jax.lax.dot: dimension_numbers must be specified when not performing simple "
                     "un-batched matrix-matrix, matrix-vector, or vector-vector products; got "
                     f"lhs_shape={np.shape(lhs)} rhs_shape={np.shape(rhs)}")


def _reduce(prim, operand, axes):
    return prim.bind(operand, axes=tuple(axes), out_sharding=None) if prim is red.reduce_sum_p \
        else prim.bind(operand, axes=tuple(axes))


def reduce_sum(operand, axes):
    return _reduce(red.reduce_sum_p, operand, axes)


def reduce_prod(operand, axes):
    return _reduce(red.reduce_prod_p, operand, axes)


def reduce_max(operand, axes):
    return _reduce(red.reduce_max_p, operand, axes)


def reduce_min(operand, axes):
    return _reduce(red.reduce_min_p, operand, axes)


def reduce_and(operand, axes):
    return _reduce(red.reduce_and_p, operand, axes)


def reduce_or(operand, axes):
    return _reduce(red.reduce_or_p, operand, axes)


def reduce_xor(operand, axes):
    return _reduce(red.reduce_xor_p, operand, axes)


def argmax(operand, axis, index_dtype):
    return red.argmax_p.bind(operand, axes=(int(axis),),
                            index_dtype=dtypes.canonicalize_dtype(index_dtype))


def argmin(operand, axis, index_dtype):
    return red.argmin_p.bind(operand, axes=(int(axis),),
                            index_dtype=dtypes.canonicalize_dtype(index_dtype))


def _index_operand(i):
    """A start index as JAX binds it: a Python scalar in its default dtype
    (int32, or int64 with x64), anything else in its own; the primitive's rule
    rejects starts that are not integers of one dtype."""
    if is_host_const(i):
        dt = i.dtype if isinstance(i, (np.ndarray, np.generic)) else dtypes.dtype(i)
        return host_convert(i, dtypes.canonicalize_dtype(dt), False)
    return i


def _static_start(i, size):
    """A static start as JAX passes it on: negative signed ones count from the
    end, then the value is cast to the canonical index dtype as NumPy casts
    (wrapping; a Python int past uint64 is NumPy's OverflowError). Past int32
    it is clamped, as the slice would clamp it."""
    if not isinstance(i, np.unsignedinteger) and i < 0:
        i = int(i) + size
    if not -2 ** 63 <= i < 2 ** 64:
        raise OverflowError("Python int too large to convert to C long")
    dt = dtypes.canonicalize_dtype(np.int64 if type(i) is int else np.asarray(i).dtype)
    v = int(np.asarray(i).astype(dt))
    v = builtins.min(builtins.max(v, -2 ** 31), 2 ** 31 - 1)
    return v if type(i) is int else np.asarray(v).astype(dt)  # a NumPy start keeps its dtype


def _dynamic_starts(operand, start_indices):
    """Negative starts count from the end, as in JAX: Python ints wrap on the
    host, signed integer arrays by ``select_n(i < 0, i, i + size)``."""
    shape = np.shape(operand) if is_host_const(operand) else operand.shape
    if len(start_indices) != len(shape):
        raise ValueError(f"Length of slice indices must match number of operand dimensions "
                         f"({len(start_indices)} vs {tuple(shape)})")
    out = []
    for i, size in zip(start_indices, shape):
        if isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)):
            out.append(_index_operand(_static_start(i, size)))
            continue
        i = _index_operand(i)
        if is_host_const(i) or i.dtype.kind != "i":
            out.append(i)
            continue
        dt = i.dtype
        neg = lt(i, np.array(0, dt))  # the size in the index's dtype wraps, as XLA converts
        out.append(select_n(neg, i, add(_convert(i, dt, False), np.array(size).astype(dt))))
    return out


def _zero_start(start_index):
    """The other axes' starts of a ``*_in_dim`` slice: zeros of the start's
    dtype (a Python int's is a Python 0), so every start shares one dtype."""
    if isinstance(start_index, (int, bool)) or not hasattr(start_index, "dtype"):
        return 0
    return np.zeros((), start_index.dtype)


def dynamic_slice(operand, start_indices, slice_sizes):
    idx = _dynamic_starts(operand, start_indices)
    return sl.dynamic_slice_p.bind(operand, *idx, slice_sizes=tuple(map(int, slice_sizes)))


def dynamic_update_slice(operand, update, start_indices):
    idx = _dynamic_starts(operand, start_indices)
    return sl.dynamic_update_slice_p.bind(operand, update, *idx)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    starts = [_zero_start(start_index)] * operand.ndim
    starts[axis] = start_index
    sizes = list(operand.shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    starts = [_zero_start(start_index)] * operand.ndim
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


def full(shape, fill_value, dtype=None, *, sharding=None):
    shape = core.canonicalize_shape(shape, _BCAST_NEGATIVE)
    _check_dtype_arg(dtype, "full")
    if np.ndim(fill_value) != 0:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    weak = dtype is None and dtypes.is_weakly_typed(fill_value)
    dtype = dtypes.canonicalize_dtype(dtype or dtypes.dtype(fill_value, canonicalize=True))
    fill_value = _convert(fill_value, dtype, weak)
    if not shape:  # as JAX: a concrete scalar (a literal when traced), no equation
        return asarray_device(fill_value)
    return broadcast_in_dim(fill_value, shape, (), out_sharding=sharding)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """As JAX: weakly typed when ``x`` is and no dtype is given (so the zeros
    and ones of derivative rules keep a weak cotangent weak), laid out as
    ``x``'s type says when it keeps ``x``'s shape."""
    aval = core.aval_of(x)
    if sharding is None and shape is None:
        sharding = getattr(aval, "_sharding", None)
    shape = aval.shape if shape is None else core.canonicalize_shape(shape, _BCAST_NEGATIVE)
    weak = dtype is None and aval.weak_type
    value = _convert(fill_value, dtype or aval.dtype, weak)
    out = asarray_device(value) if not shape else \
        broadcast_in_dim(value, shape, (), out_sharding=sharding)
    return lend_layout(out, x, aval, shape, weak) if sharding is None else out


def lend_layout(out, model, aval, shape, weak):
    """``out`` (made like ``model``) laid out as a concrete ``model`` over
    several devices, as JAX's full_like: when it keeps the model's shape, or
    the model is replicated, and is not weakly typed (optax's zeros_like of
    sharded parameters stays sharded); committed to a committed model's device."""
    if (type(model) is ShardedArrayImpl and not weak
            and (shape == aval.shape or model.sharding.is_fully_replicated)):
        return place(out, model.sharding)
    if type(model) is ArrayImpl and not weak and model._buf._committed:  # on its device
        return place(out, model.sharding)
    return out


def zeros_like_array(x):
    return full_like(x, 0)


def _iter_leading(x):
    """Unpacking along the leading axis: slices with explicit unit strides,
    then squeezes, as JAX's iteration does."""
    shape = core.aval_of(x).shape
    nd = len(shape)
    return (squeeze(slice(x, (i,) + (0,) * (nd - 1), (i + 1,) + shape[1:], (1,) * nd), (0,))
            for i in range(shape[0]))


core.lax_ops.register(iter_leading=_iter_leading, host_convert=host_convert, full=full,
                      transpose=transpose, broadcast_in_dim=broadcast_in_dim,
                      expand_dims=expand_dims, slice=slice, squeeze=squeeze,
                      asarray_device=asarray_device, reshape=reshape, reduce_sum=reduce_sum,
                      broadcasted_iota=broadcasted_iota, add=add, eq=eq, real=real,
                      split_p=st.split_p, convert_element_type_p=st.convert_element_type_p)

# The jnp functions a few lax rules reuse, as JAX's rules do: approx_top_k's
# JVP gathers with ``take_along_axis``, cumlogsumexp combines with ``logaddexp``
# (a custom JVP). numpy registers them on import, so lax never imports numpy.
numpy_ops = core._LaxOps()


# -- shape helpers and conveniences over existing primitives


def _canon_axis(axis, nd):
    axis = operator.index(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    return axis % nd if nd else axis


def broadcast_shapes(*shapes):
    """The NumPy broadcast of shapes given as tuples of ints."""
    shapes = [tuple(map(operator.index, s)) for s in shapes]
    if not shapes:
        return ()
    nd = builtins.max(len(s) for s in shapes)
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
    nd = np.ndim(x) if is_host_const(x) else x.ndim
    if nd == rank:
        return asarray_device(x)
    return broadcast(x, (1,) * (rank - nd))


def broadcast_like(arr, like_arr):
    """``arr`` broadcast (leading axes) to the shape of ``like_arr``."""
    shape = np.shape(like_arr) if is_host_const(like_arr) else like_arr.shape
    nd = np.ndim(arr) if is_host_const(arr) else arr.ndim
    return broadcast_in_dim(arr, shape, tuple(range(len(shape) - nd, len(shape))))


def collapse(operand, start_dimension, stop_dimension=None):
    """Merge the axes ``[start_dimension, stop_dimension)`` into one."""
    shape = tuple(operand.shape)
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def dtype(x):
    """The canonical dtype of a value, dtype or dtype name."""
    return dtypes.dtype(x, canonicalize=True)


def reciprocal(x):
    """1 / x, as ``integer_pow(x, -1)``."""
    return integer_pow(x, -1)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over matching leading batch axes."""
    if builtins.min(lhs.ndim, rhs.ndim) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {lhs.ndim}, "
                         f"{rhs.ndim}")
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {lhs.ndim}, "
                         f"{rhs.ndim}")
    batch = tuple(range(lhs.ndim - 2))
    return dot_general(lhs, rhs, (((lhs.ndim - 1,), (rhs.ndim - 2,)), (batch, batch)),
                           precision=precision)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                         allow_negative_indices=True):
    """One index along ``axis`` taken with a dynamic start."""
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """``operand`` with the slice at ``index`` along ``axis`` replaced."""
    axis = operator.index(axis)
    if np.ndim(update) != operand.ndim:
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)


def index_take(src, idxs, axes):
    """``src[idx0, idx1, ...]`` over ``axes`` (indices wrap around), as one gather."""
    axes = tuple(axes)
    idx = concatenate([expand_dims(i, (1,)) for i in idxs], 1)
    sizes = np.array([src.shape[a] for a in axes], idx.dtype)
    idx = rem(add(rem(idx, sizes[None]), sizes[None]), sizes[None])
    slice_sizes = tuple(1 if i in axes else d for i, d in enumerate(src.shape))
    dn = gs.GatherDimensionNumbers(offset_dims=tuple(range(1, src.ndim - len(axes) + 1)),
                                   collapsed_slice_dims=axes, start_index_map=axes)
    return gs.gather(src, idx, dimension_numbers=dn, slice_sizes=slice_sizes)


def stack(operands, axis=0):
    """Join equal-shaped arrays along a new axis."""
    arrays = [asarray_device(x) for x in operands]
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
    operand = asarray_device(operand)
    reps = tuple(map(operator.index, reps))
    if len(reps) != operand.ndim:
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                        f"and x.ndim={operand.ndim}.")
    if any(r < 0 for r in reps):
        raise ValueError(f"reps must be nonnegative, got {reps}")
    return tile_p.bind(operand, reps=reps)


from xjit._src.lax.sharding_constraint import with_sharding_constraint  # noqa: E402,F401


def composite(decomposition, name, version=0):
    """A function marked as a named composite; xjit runs its decomposition."""
    if not callable(decomposition):
        raise TypeError(f"Expected a callable value, got {decomposition}")

    def call(*args, **kwargs):
        return decomposition(*args, **kwargs)
    call.__name__ = getattr(decomposition, "__name__", name)
    call.composite_name, call.composite_version = name, version
    return call


def unstack(x, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    x = asarray_device(x)
    return tuple(st.unstack_p.bind(x, axis=_canon_axis(axis, x.ndim)))


def empty(shape, dtype, *, out_sharding=None):
    """An array of the given shape and dtype whose contents do not matter."""
    _check_dtype_arg(dtype, "empty")
    shape = core.canonicalize_shape(shape, "empty shape must have every element be nonnegative")
    return st.empty_p.bind(shape=shape, dtype=dtypes.canonicalize_dtype(dtype), out_sharding=None)


from .barrier import optimization_barrier, optimization_barrier_p  # noqa: E402,F401
