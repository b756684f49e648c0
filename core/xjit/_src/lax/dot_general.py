"""``dot_general``: its abstract eval, lowering, JVP/transpose and batching
rules. Under vmap the mapped axis becomes a batch dimension (both operands
batched) or a free dimension (one operand batched), never a loop."""
from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np

from xjit._src import core, dtypes
from xjit._src.config import config
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero, add_any_p, is_undefined_primal
from xjit._src.interpreters.batching import not_mapped
from xjit._src.core import ShapedArray
from xjit._src.interpreters.mlir import ttype
from xjit._src import sharding_in_types as sit
from xjit._src.sharding_in_types import with_param_sharding
from . import sharding_rules

_prim = lowering.define_primitive


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
    batch = [lhs.shape[i] for i in lb]
    lfree = [d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]
    rfree = [d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb]
    dt = _result_dtype(lhs.dtype, rhs.dtype, preferred_element_type,
                       isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)))
    return with_param_sharding(ShapedArray(batch + lfree + rfree, dt,
                                           lhs.weak_type and rhs.weak_type), out_sharding)


def _type_rank(dtype):
    """How XLA orders operand types to pick a mixed product's type: complex
    first, then exponent range, mantissa, bit width, and signed over unsigned."""
    real = dtypes.finfo(dtype).dtype if dtype.kind == "c" else dtype
    floating = dtypes.issubdtype(real, np.floating)
    info = dtypes.finfo(real) if floating else None
    return (dtype.kind == "c", info.maxexp if floating else -1, info.nmant if floating else -1,
            _bit_width(real), real.kind != "u")


def _bit_width(dtype):
    if dtype.kind == "b":
        return 1
    return (dtypes.finfo if dtypes.issubdtype(dtype, np.inexact) else dtypes.iinfo)(dtype).bits


def _result_dtype(lhs, rhs, preferred, algorithm):
    """The higher-ranked operand type (equal ranks but different types, such
    as float8_e5m2 and float8_e5m2fnuz, have no product type), replaced by
    ``preferred``, which may not be narrower for an integer or bool product
    unless an algorithm decides the types."""
    lr, rr = _type_rank(lhs), _type_rank(rhs)
    if lr == rr and lhs != rhs:
        raise TypeError(f"lax.dot_general argument type error: {lhs}, {rhs}")
    out = lhs if lr >= rr else rhs
    if preferred is None or preferred == out:
        return out
    if not algorithm and not dtypes.issubdtype(out, np.floating) and \
            _bit_width(np.dtype(preferred)) < _bit_width(out):
        raise TypeError("`preferred_element_type` must not be narrower than the original type, "
                        f"got preferred_element_type of {preferred} for result type of {out}.")
    return preferred


def _dot_general_lower(ctx, ai, ao, lhs, rhs, dimension_numbers, precision=None,
                       preferred_element_type=None, out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    o = ao[0]
    lt, rt, acc = ai[0].dtype, ai[1].dtype, o.dtype
    attrs = ""
    algorithm = isinstance(precision, (DotAlgorithm, DotAlgorithmPreset))
    if algorithm:
        platform = ctx.module_ctx.platforms[0]
        if platform == "cpu" and precision not in _CPU_PRESETS:
            raise ValueError(f"The precision '{precision}' is not supported by dot_general on CPU")
        lt, rt, acc = algorithm_types(precision, lt, rt, o.dtype)
        if precision != DotAlgorithmPreset.DEFAULT:
            attrs = f", algorithm = {_algorithm_attr(precision, lt, rt)}"
    # XLA's CPU and GPU code generators take one operand type (mixed float8s
    # aside): without an algorithm JAX converts both mixed operands to the
    # result's, even one already of it
    mixed = not algorithm and lt != rt and not (_is_fp8(lt) and _is_fp8(rt))
    if mixed:
        lt = rt = o.dtype
    if mixed or ai[0].dtype != lt:
        lhs = ctx.op("stablehlo.convert", [lhs], [ttype(ai[0])], ttype(ai[0].update(dtype=lt)))
    if mixed or ai[1].dtype != rt:
        rhs = ctx.op("stablehlo.convert", [rhs], [ttype(ai[1])], ttype(ai[1].update(dtype=rt)))
    dn = (f"#stablehlo.dot<lhs_batching_dimensions = [{', '.join(map(str, lb))}], "
          f"rhs_batching_dimensions = [{', '.join(map(str, rb))}], "
          f"lhs_contracting_dimensions = [{', '.join(map(str, lc))}], "
          f"rhs_contracting_dimensions = [{', '.join(map(str, rc))}]>")
    attrs = f"dot_dimension_numbers = {dn}, {precision_config_attr(precision)}{attrs}"
    acc_aval = o.update(dtype=acc)
    out = ctx.op("stablehlo.dot_general", [lhs, rhs],
                 [ttype(ai[0].update(dtype=lt)), ttype(ai[1].update(dtype=rt))],
                 ttype(acc_aval), attrs=attrs)
    if acc != o.dtype:
        out = ctx.op("stablehlo.convert", [out], [ttype(acc_aval)], ttype(o))
    return out


def precision_config_attr(precision):
    """The ``precision_config`` of a product (dot_general, convolution): its
    pair of precisions, DEFAULT for none or for an algorithm (which says it
    with its own attribute)."""
    pair = precision if isinstance(precision, tuple) else (Precision.DEFAULT,) * 2
    return ("precision_config = [" +
            ", ".join(f"#stablehlo<precision {p.name}>" for p in pair) + "]")


def _dot_general_pp(p):
    (lc, rc), (lb, rb) = p["dimension_numbers"]
    out = {"dimension_numbers": f"(({list(lc)}, {list(rc)}), ({list(lb)}, {list(rb)}))"}
    if p.get("precision") is not None:
        out["precision"] = p["precision"]
    if p.get("preferred_element_type") is not None:
        out["preferred_element_type"] = p["preferred_element_type"]
    return out


dot_general_p = _prim("dot_general", _dot_general_eval, _dot_general_lower, pp=_dot_general_pp)
sit.sharding_rules[dot_general_p] = sharding_rules.dot_general


# -- dot-product types and algorithm enums

DotDimensionNumbers = tuple  # ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))


class Precision(enum.Enum):
    """How many passes an f32 product takes on an accelerator (DEFAULT: one
    bf16 or tf32 pass; HIGHEST: full f32); CPUs always compute in full."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_NAMES.get(value)

    def __repr__(self):
        return f"Precision.{self.name}"

    def __str__(self):
        return self.name


_PRECISION_NAMES = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
    None: Precision.DEFAULT}


class DotAlgorithmPreset(enum.Enum):
    """Named dot_general algorithms: ``LHS_RHS_ACCUMULATION`` types, and for
    ``_Xn`` the number of products that emulate the higher precision."""
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
        return f"DotAlgorithmPreset.{self.name}"

    def __str__(self):
        return self.name

    @property
    def supported_lhs_types(self):
        """The operand types the algorithm reads without converting (None: any)."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16_"):
            return (np.dtype(np.float16),)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):  # f32 storage is read as is
            return (np.dtype(dtypes.bfloat16), np.dtype(np.float32))
        if name == "F64_F64_F64":
            return (np.dtype(np.float64),)
        return (np.dtype(np.float32),)

    supported_rhs_types = supported_lhs_types

    @property
    def accumulation_type(self):
        name = self.name
        if name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
            return None
        return np.dtype({"F16_F16_F16": np.float16, "BF16_BF16_BF16": dtypes.bfloat16,
                         "F64_F64_F64": np.float64}.get(name, np.float32))

    def supported_output_types(self, lhs_dtype, rhs_dtype):
        name = self.name
        if name.startswith("ANY_F8_ANY_F8_F32"):
            return tuple(np.dtype(t) for t in (np.float32, np.float16, dtypes.bfloat16)) + \
                tuple(d for d in _FP8 if d.name not in ("float8_e3m4", "float8_e4m3",
                                                         "float8_e8m0fnu"))
        narrow = {"F16_F16_F32": np.dtype(np.float16), "BF16_BF16_F32": np.dtype(dtypes.bfloat16)}
        if name in narrow:
            both = np.promote_types(lhs_dtype, rhs_dtype)
            return (np.dtype(np.float32),) + ((narrow[name],) if both == narrow[name] else ())
        acc = self.accumulation_type
        return None if acc is None else (acc,)


class DotAlgorithm(NamedTuple):
    """An explicit dot_general algorithm: operand and accumulation types, how
    many components each operand is split into, and how many products emulate it."""
    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


def canonicalize_precision(precision):
    """A pair of ``Precision``s, an algorithm, or None, from what the API takes
    (None: the ``jax_default_matmul_precision`` setting)."""
    if precision is None:
        default = config.jax_default_matmul_precision
        if default is None:
            return None
        try:
            return canonicalize_precision(default)
        except ValueError:
            raise ValueError(
                "jax_default_matmul_precision flag must be set to None, a value in "
                f"{list(_PRECISION_NAMES)}, or the name of a lax.DotAlgorithmPreset, "
                f"but got {default}") from None
    if isinstance(precision, str):
        if precision in _PRECISION_NAMES:
            return Precision(precision), Precision(precision)
        if precision in DotAlgorithmPreset.__members__:
            return DotAlgorithmPreset[precision]
    elif isinstance(precision, Precision):
        return precision, precision
    elif isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision
    elif isinstance(precision, (list, tuple)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(p, str) for p in precision):
            return tuple(canonicalize_precision(p)[0] for p in precision)
    raise ValueError(
        "Precision argument must be one of:\n- None,\n"
        f"- a string in {list(_PRECISION_NAMES)},\n- a lax.Precision value,\n"
        "- a tuple of two lax.Precision values or strings,\n"
        "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
        f"- a lax.DotAlgorithm value;\nbut got {precision}.")


_FP8 = tuple(np.dtype(getattr(dtypes, n)) for n in (
    "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e3m4", "float8_e4m3", "float8_e8m0fnu"))

# XLA's CPU backend ignores an algorithm it cannot run, so the others are refused
_CPU_PRESETS = {DotAlgorithmPreset[n] for n in (
    "DEFAULT", "F16_F16_F16", "F32_F32_F32", "F64_F64_F64", "BF16_BF16_F32", "BF16_BF16_F32_X3",
    "BF16_BF16_F32_X6")}


def _is_fp8(dtype):
    return np.dtype(dtype) in _FP8


def algorithm_types(algorithm, lhs_dtype, rhs_dtype, out_dtype):
    """(lhs, rhs, accumulation) types the product computes in under ``algorithm``."""
    if isinstance(algorithm, DotAlgorithm):
        return tuple(np.dtype(t) for t in (algorithm.lhs_precision_type,
                                           algorithm.rhs_precision_type,
                                           algorithm.accumulation_type))

    def pick(dtype, allowed):
        return dtype if allowed is None or dtype in allowed else allowed[0]
    lhs_dtype = pick(lhs_dtype, algorithm.supported_lhs_types)
    rhs_dtype = pick(rhs_dtype, algorithm.supported_rhs_types)
    return lhs_dtype, rhs_dtype, pick(out_dtype, algorithm.supported_output_types(lhs_dtype,
                                                                                  rhs_dtype))


def _algorithm_attr(algorithm, lhs_dtype, rhs_dtype):
    if isinstance(algorithm, DotAlgorithm):
        lt, rt, acc = (lowering.mlir_dtype(t) for t in algorithm[:3])
        counts = algorithm[3:6]
        imprecise = algorithm.allow_imprecise_accumulation
    else:
        name = algorithm.name
        if name.startswith("ANY_F8"):
            if not (_is_fp8(lhs_dtype) and _is_fp8(rhs_dtype)):
                raise ValueError(f"The dot algorithm '{algorithm}' requires both inputs to have "
                                 f"float8 dtypes. Got {lhs_dtype} and {rhs_dtype} instead.")
            lt, rt, acc = lowering.mlir_dtype(lhs_dtype), lowering.mlir_dtype(rhs_dtype), "f32"
        else:
            lt, rt, acc = (t.lower() for t in name.split("_")[:3])
        counts = (1, 1, int(name.rsplit("_X", 1)[1]) if "_X" in name else 1)
        imprecise = name == "ANY_F8_ANY_F8_F32_FAST_ACCUM"
    return (f"#stablehlo.dot_algorithm<lhs_precision_type = {lt}, rhs_precision_type = {rt}, "
            f"accumulation_type = {acc}, lhs_component_count = {counts[0]}, "
            f"rhs_component_count = {counts[1]}, num_primitive_operations = {counts[2]}, "
            f"allow_imprecise_accumulation = {str(bool(imprecise)).lower()}>")


# --------------------------------------------------------------------------
# JVP, transpose and batching rules (they call the lax API, which imports
# this module)

from xjit._src.lax import lax  # noqa: E402
from .sorting import cumsum  # noqa: E402


def _ranges_like(*xs):
    start = 0
    for x in xs:
        yield list(range(start, start + len(x)))
        start += len(x)


def _dot_transpose_lhs(g, x_aval, y, dimension_numbers, precision, preferred_element_type,
                       swap_ans=False):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = [i for i in range(x_aval.ndim) if i not in x_contract and i not in x_batch]
    y_nd = len((y.aval if is_undefined_primal(y) else core.aval_of(y)).shape)
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
    xs = sit.primal_sharding(x_aval, core.aval_of(g), y.aval if is_undefined_primal(y)
                             else core.aval_of(y))  # the cotangent is laid out as the primal
    if xs is not None:
        inverse = np.argsort(out_axes)
        xs = xs.update(spec=[sit.parts(x_aval)[int(i)] for i in inverse])
    out = lax.dot_general(g, y, dims, precision=precision, preferred_element_type=pet,
                          out_sharding=xs)
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
    return lambda a, b: dot_general_p.bind(a, b, **params)


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


ad.jvp_rules[dot_general_p] = _dot_general_jvp
ad.transpose_rules[dot_general_p] = _dot_general_transpose


def _bump(dims, b):
    return tuple(int(d) + (int(d) >= b) for d in dims)


def _dot_general_rule(args, dims, *, dimension_numbers, precision=None,
                      preferred_element_type=None, out_sharding=None):
    lhs, rhs = args
    lbd, rbd = dims
    (lc, rc), (lb, rb) = dimension_numbers
    entry = sit.batch_entry(lhs, lbd) if lbd is not not_mapped else sit.batch_entry(rhs, rbd)
    if lbd is not not_mapped and rbd is not not_mapped:
        lb, rb = (lbd,) + _bump(lb, lbd), (rbd,) + _bump(rb, rbd)
        lc, rc = _bump(lc, lbd), _bump(rc, rbd)
        out_dim = 0
    elif lbd is not not_mapped:
        free = [d for d in range(len(core.aval_of(lhs).shape)) if d not in lb and d not in lc]
        out_dim = len(lb) + sum(d < lbd for d in free)
        lb, lc = _bump(lb, lbd), _bump(lc, lbd)
    else:
        free = [d for d in range(len(core.aval_of(rhs).shape)) if d not in rb and d not in rc]
        out_dim = len(core.aval_of(lhs).shape) - len(lc) + sum(d < rbd for d in free)
        rb, rc = _bump(rb, rbd), _bump(rc, rbd)
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)),
                                precision=precision,
                                preferred_element_type=preferred_element_type,
                                out_sharding=sit.batched_sharding(out_sharding, out_dim, entry))
    return out, out_dim


batching.batch_rules[dot_general_p] = _dot_general_rule


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

