"""JAX's dtype rules: x64 canonicalization, weak types and type promotion.

Every value the engine sees is classified as a ``(dtype, weak_type)`` pair.
Python scalars are *weak*: they adopt the precision of whatever strongly typed
value they meet, so ``uint8_array + 1`` stays ``uint8``. Binary promotion is a
least-upper-bound search on a fixed lattice (the one pictured in JAX's "Type
promotion semantics" page) in which the Python types ``int``, ``float`` and
``complex`` stand for the weak kinds. With ``jax_enable_x64`` off, 64-bit
types are narrowed to their 32-bit counterparts after promotion.
"""
from __future__ import annotations

import abc
import functools
import sys
import warnings

import ml_dtypes
import numpy as np

from xjit._src.config import NumpyDtypePromotion as _Promotion
from xjit._src.config import config as _config
from xjit._src.config import enable_x64 as _enable_x64

__all__ = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "bfloat16", "float32", "float64", "complex64",
    "complex128", "float0", "TypePromotionError", "canonicalize_dtype",
    "check_user_dtype_supported", "default_int_dtype", "default_uint_dtype",
    "default_float_dtype", "default_complex_dtype", "python_scalar_dtypes",
    "is_weakly_typed", "dtype", "result_type", "promote_types", "issubdtype",
    "is_float", "is_int", "is_complex", "is_inexact", "finfo", "iinfo",
    "short_name", "to_inexact_dtype", "to_complex_dtype", "isdtype",
]

# --- dtype constants ---------------------------------------------------------

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = map(np.dtype, ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = map(np.dtype, ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = map(np.dtype, ("float16", "float32", "float64"))
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float8_e3m4 = np.dtype(ml_dtypes.float8_e3m4)
float8_e4m3 = np.dtype(ml_dtypes.float8_e4m3)
float8_e8m0fnu = np.dtype(ml_dtypes.float8_e8m0fnu)
float8_e4m3b11fnuz = np.dtype(ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = np.dtype(ml_dtypes.float8_e4m3fnuz)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)
float8_e5m2fnuz = np.dtype(ml_dtypes.float8_e5m2fnuz)
float6_e2m3fn = np.dtype(ml_dtypes.float6_e2m3fn)
float6_e3m2fn = np.dtype(ml_dtypes.float6_e3m2fn)
float4_e2m1fn = np.dtype(ml_dtypes.float4_e2m1fn)
int1, int2, int4 = (np.dtype(ml_dtypes.int1), np.dtype(ml_dtypes.int2),
                    np.dtype(ml_dtypes.int4))
uint1, uint2, uint4 = (np.dtype(ml_dtypes.uint1), np.dtype(ml_dtypes.uint2),
                       np.dtype(ml_dtypes.uint4))
# Tangent dtype of integer/boolean primals: a zero-size record, so it carries
# no data and supports no arithmetic.
float0 = np.dtype([("float0", np.void, 0)])
string_dtype = np.dtypes.StringDType()

_FLOAT8 = (float8_e3m4, float8_e4m3, float8_e8m0fnu, float8_e4m3b11fnuz,
           float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz)
_FLOAT6 = (float6_e2m3fn, float6_e3m2fn)
_FLOAT4 = (float4_e2m1fn,)
_NARROW_FLOATS = _FLOAT4 + _FLOAT6 + _FLOAT8
# ml_dtypes floats: their scalar types sit outside NumPy's np.floating tree.
_CUSTOM_FLOATS = frozenset(_NARROW_FLOATS + (bfloat16,))
_NARROW_SIGNED = (int1, int2, int4)
_NARROW_UNSIGNED = (uint1, uint2, uint4)
_NARROW_INTS = frozenset(_NARROW_SIGNED + _NARROW_UNSIGNED)

_NUMERIC = frozenset({
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, complex64, complex128, *_CUSTOM_FLOATS,
    *_NARROW_INTS})
_VALID = _NUMERIC | {float0, string_dtype}

_TO_32BIT = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


class TypePromotionError(ValueError):
    """Raised when two dtypes have no implicit promotion path."""


# --- defaults and canonicalization --------------------------------------------

def default_int_dtype() -> np.dtype:
    return int64 if _enable_x64.value else int32


def default_uint_dtype() -> np.dtype:
    return uint64 if _enable_x64.value else uint32


def default_float_dtype() -> np.dtype:
    return float64 if _enable_x64.value else float32


def default_complex_dtype() -> np.dtype:
    return complex128 if _enable_x64.value else complex64


# NumPy's (x64) dtypes for Python scalar types, before canonicalization.
python_scalar_dtypes = {bool: bool_, int: int64, float: float64, complex: complex128}

_PY_DEFAULTS = {bool: lambda: bool_, int: default_int_dtype,
                float: default_float_dtype, complex: default_complex_dtype}
_WEAK_PY_TYPES = (int, float, complex)

_canonical_cache: tuple[dict, dict] = ({}, {})  # indexed by the x64 flag


def canonicalize_dtype(dtype) -> np.dtype:
    """The dtype JAX actually uses for ``dtype``: with x64 off, 64-bit types
    become 32-bit. Cached per x64 mode because eager dispatch calls it per op."""
    x64 = _enable_x64.value
    cache = _canonical_cache[x64]
    try:
        return cache[dtype]
    except KeyError:
        out = cache[dtype] = _canonicalize(dtype, x64)
        return out
    except TypeError:  # unhashable dtype spec, e.g. a record description list
        return _canonicalize(dtype, x64)


def _canonicalize(dtype, x64: bool) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"dtype {dtype!r} not understood") from e
    return dt if x64 else _TO_32BIT.get(dt, dt)


def _narrow_requested(dt: np.dtype, fun_name: str, stacklevel: int) -> np.dtype:
    """Canonicalize a dtype the user asked for by name, warning when a 64-bit
    request is narrowed because x64 is off. ``stacklevel`` counts from the
    caller of this helper."""
    if _enable_x64.value or dt not in _TO_32BIT:
        return dt
    narrow = _TO_32BIT[dt]
    where = f" requested in {fun_name}" if fun_name else ""
    warnings.warn(
        f"Explicitly requested dtype {dt}{where} is not available, and will be "
        f"truncated to dtype {narrow.name}. To enable more dtypes, set the "
        "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell "
        "environment variable. See https://github.com/jax-ml/jax#current-gotchas "
        "for more.", UserWarning, stacklevel=stacklevel + 1)
    return narrow


def check_user_dtype_supported(dtype, fun_name=None, stacklevel=3):
    """Validate a user's ``dtype=`` argument and return its canonical form.

    Python types map to the default dtypes without a warning; explicit 64-bit
    dtypes warn (naming ``fun_name``) when x64 is off; non-numeric dtypes raise
    TypeError. ``None`` (no dtype requested) is returned unchanged.
    ``stacklevel`` counts from this function: the default blames the caller of
    the API function that called it.
    """
    if dtype is None:
        return None
    if not isinstance(dtype, (type, np.dtype)) and hasattr(dtype, "weak_type"):
        raise ValueError("Passing an array as a dtype argument is no longer "
                         "supported; instead of dtype=arr use dtype=arr.dtype.")
    if isinstance(dtype, type) and dtype in _PY_DEFAULTS:
        return _PY_DEFAULTS[dtype]()
    dt = np.dtype(dtype)
    if dt not in _VALID:
        where = f" in {fun_name}" if fun_name else ""
        raise TypeError("JAX only supports number, bool, and string dtypes, "
                        f"got dtype {dtype}{where}")
    return _narrow_requested(dt, fun_name or "", stacklevel)


# --- classifying values -------------------------------------------------------

def is_weakly_typed(x) -> bool:
    """Python int/float/complex scalars are weak (bool is not); engine values
    carry a ``weak_type`` flag; NumPy arrays and scalars are strong."""
    if type(x) in _WEAK_PY_TYPES:
        return True
    return not isinstance(x, type) and bool(getattr(x, "weak_type", False))


def _check_valid(x, dt: np.dtype) -> None:
    if dt not in _VALID:
        raise TypeError(f"Value '{x}' with dtype {dt} is not a valid JAX array "
                        "type. Only arrays of numeric types are supported by JAX.")


def dtype(x, canonicalize=False) -> np.dtype:
    """The dtype of a value, a scalar type or a dtype spec.

    Python scalars and types give the (x64-aware) default dtype. With
    ``canonicalize=True`` this is ``jax.dtypes.dtype``: NumPy values are
    narrowed under x32, and explicitly named 64-bit dtypes warn while being
    narrowed. Engine values (anything with ``weak_type``) keep their dtype:
    an x64 array made earlier stays x64.
    """
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type):
        default = _PY_DEFAULTS.get(x)
        if default is not None:
            return default()
        if issubclass(x, np.generic):
            dt = np.dtype(x)
            return _narrow_requested(dt, "dtype", 2) if canonicalize else dt
    else:
        default = _PY_DEFAULTS.get(type(x))
        if default is not None:
            return default()
        if hasattr(x, "weak_type"):
            return x.dtype
    if isinstance(x, (str, np.dtype)):
        dt = np.dtype(x)
        _check_valid(x, dt)
        return _narrow_requested(dt, "dtype", 2) if canonicalize else dt
    dt = getattr(x, "dtype", None)
    if not isinstance(dt, np.dtype):
        try:
            dt = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    _check_valid(x, dt)
    return canonicalize_dtype(dt) if canonicalize else dt


# --- the promotion lattice -----------------------------------------------------

def _lattice_edges(x64: bool) -> dict:
    """Each node's immediate supertypes. ``int``/``float``/``complex`` are the
    weak kinds; narrow ints and floats have no supertypes, so they never
    promote implicitly. Without x64, u32 x i32 joins at i32 rather than i64,
    the one place the lattice would otherwise create a 64-bit type."""
    edges = {
        bool_: [int],
        int: [*_NARROW_UNSIGNED, uint8, *_NARROW_SIGNED, int8],
        uint8: [uint16, int16],
        uint16: [uint32, int32],
        uint32: [uint64, int64 if x64 else int32],
        uint64: [float],
        int8: [int16],
        int16: [int32],
        int32: [int64],
        int64: [float],
        float: [*_NARROW_FLOATS, bfloat16, float16, complex],
        bfloat16: [float32],
        float16: [float32],
        float32: [float64, complex64],
        float64: [complex128],
        complex: [complex64],
        complex64: [complex128],
        complex128: [],
    }
    for leaf in (*_NARROW_FLOATS, *_NARROW_INTS):
        edges[leaf] = []
    return edges


def _upper_bounds(edges: dict) -> dict:
    """Map each node to the frozenset of nodes at or above it."""
    bounds: dict = {}

    def visit(node):
        if node not in bounds:
            above = {node}
            for parent in edges[node]:
                above |= visit(parent)
            bounds[node] = frozenset(above)
        return bounds[node]

    for node in edges:
        visit(node)
    return bounds


_UPPER = {x64: _upper_bounds(_lattice_edges(x64)) for x64 in (False, True)}
# jax_numpy_dtype_promotion='strict': distinct dtypes never meet; a weak
# Python type rises only into its own kind (int -> float -> complex).
_INT_TYPES = (*_NARROW_INTS, uint8, uint16, uint32, uint64, int8, int16, int32, int64)
_FLOAT_TYPES = (*_NARROW_FLOATS, bfloat16, float16, float32, float64)
_STRICT_UPPER = _upper_bounds({
    int: [float, *_INT_TYPES], float: [complex, *_FLOAT_TYPES], complex: [complex64, complex128],
    **{t: [] for t in (bool_, *_INT_TYPES, *_FLOAT_TYPES, complex64, complex128)}})
_flags = _config._values


def _forget_promotions(name, value):
    """Promotions cached outside this module do not key on the promotion mode:
    drop them whenever it changes (jnp's array-and-scalar cache)."""
    if name == "jax_numpy_dtype_promotion":
        util = sys.modules.get("xjit._src.numpy.util")
        if util is not None:
            util._scalar_promotions.clear()


_config.add_listener(_forget_promotions)


def _no_path_error(nodes: tuple) -> TypePromotionError:
    names = tuple(str(n) for n in nodes)
    head = (f"Input dtypes {names} have no available implicit dtype promotion "
            "path. To avoid unintended promotion, ")
    if any(n in _FLOAT8 for n in nodes):
        kind, target = "8-bit floats do not", "float32"
    elif any(n in _FLOAT6 for n in nodes):
        kind, target = "6-bit floats do not", "float32"
    elif any(n in _FLOAT4 for n in nodes):
        kind, target = "4-bit floats do not", "float32"
    else:
        kind, target = "1-bit, 2-bit and 4-bit integers do not", "int32"
    return TypePromotionError(
        f"{head}{kind} support implicit promotion. If you'd like your inputs to "
        "be promoted to another type, you can do so explicitly using e.g. "
        f"x.astype('{target}')")


@functools.lru_cache(maxsize=1024)
def _join(nodes: tuple, x64: bool, strict: bool = False):
    """Least upper bound of lattice nodes (dtypes or weak Python types)."""
    upper = _STRICT_UPPER if strict else _UPPER[x64]
    distinct = set(nodes)
    for n in distinct:
        if n not in upper:
            raise ValueError(f"dtype={n!r} is not a valid dtype for JAX type promotion.")
    common = frozenset.intersection(*(upper[n] for n in distinct))
    for candidate in common:
        if common <= upper[candidate]:
            return candidate
    if strict:
        raise TypePromotionError(
            f"Input dtypes {tuple(str(n) for n in nodes)} have no available implicit dtype "
            "promotion path when jax_numpy_dtype_promotion=strict. Try explicitly casting "
            "inputs to the desired output type, or set jax_numpy_dtype_promotion=standard.")
    raise _no_path_error(nodes)


_DEFAULT_BY_KIND = {x64: {"i": int64 if x64 else int32, "u": uint64 if x64 else uint32,
                          "f": float64 if x64 else float32,
                          "c": complex128 if x64 else complex64}
                    for x64 in (False, True)}
_PY_KIND = {int: "i", float: "f", complex: "c"}
_KIND_TO_PY = {"i": int, "u": int, "f": float, "c": complex}


def _kind(dt: np.dtype) -> str:
    """NumPy's kind letter, with ml_dtypes types (kind 'V') put in their family."""
    if dt in _CUSTOM_FLOATS:
        return "f"
    if dt in _NARROW_INTS:
        return "i" if dt in _NARROW_SIGNED else "u"
    return dt.kind


def _arg_info(x) -> tuple[np.dtype, bool]:
    """``(dtype, weak_type)`` of one ``result_type`` argument."""
    t = type(x)
    if t in _PY_DEFAULTS:
        return _PY_DEFAULTS[t](), t is not bool
    if x is None:
        return default_float_dtype(), False
    if x is int or x is float or x is complex:
        return _PY_DEFAULTS[x](), True
    if t is not type:
        weak = getattr(x, "weak_type", None)
        if weak is not None:  # an engine value: its dtype is kept as is
            return x.dtype, bool(weak)
    return dtype(x, canonicalize=True), False


@functools.lru_cache(maxsize=4096)
def _promote(infos: tuple, x64: bool, strict: bool = False):
    """Promote ``(dtype, weak)`` pairs. Returns ``(dtype, weak, wide)`` where
    ``wide`` is a 64-bit join result that x32 mode narrowed (the caller warns,
    so that caching never swallows the warning)."""
    wide = None
    if len(infos) == 1:
        dt, weak = infos[0]
    else:
        dtypes = {d for d, _ in infos}
        all_weak = all(w for _, w in infos)
        if len(dtypes) == 1 and not all_weak:
            return infos[0][0], False, None
        if all_weak and not strict:  # join the strong counterparts, then re-weaken
            top = _join(tuple(dtypes), x64)
        else:  # weak values enter the lattice as their kind's Python type
            top = _join(tuple({_KIND_TO_PY.get(_kind(d), d) if w and d != bool_ else d
                               for d, w in infos}), x64, strict)
        weak = all_weak or isinstance(top, type)
        if isinstance(top, type):
            dt = _DEFAULT_BY_KIND[x64][_PY_KIND[top]]
        elif not x64 and top in _TO_32BIT:
            wide, dt = top, _TO_32BIT[top]
        else:
            dt = top
    weak = weak and dt != bool_
    if weak:  # a weakly typed result always has its kind's default precision
        dt = _DEFAULT_BY_KIND[x64][_kind(dt)]
    return dt, weak, wide


def result_type(*args, return_weak_type_flag=False):
    """JAX's promotion of arrays, scalars and dtypes, canonicalized for x64.

    Returns a dtype, or ``(dtype, weak_type)`` when ``return_weak_type_flag``.
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    dt, weak, wide = _promote(tuple(map(_arg_info, args)), _flags["jax_enable_x64"],
                              _flags["jax_numpy_dtype_promotion"] is _Promotion.STRICT)
    if wide is not None:
        _narrow_requested(wide, "dtype", 2)
    return (dt, weak) if return_weak_type_flag else dt


def promote_types(a, b) -> np.dtype:
    """``jnp.promote_types``: no canonicalization of the inputs, and the
    Python types ``int``/``float``/``complex`` count as weak."""
    na = a if a is int or a is float or a is complex else np.dtype(a)
    nb = b if b is int or b is float or b is complex else np.dtype(b)
    return np.dtype(_join((na, nb), _enable_x64.value,
                          _flags["jax_numpy_dtype_promotion"] is _Promotion.STRICT))


# --- dtype hierarchy -------------------------------------------------------------

_CUSTOM_FLOAT_TYPES = frozenset(d.type for d in _CUSTOM_FLOATS)
_NARROW_SIGNED_TYPES = frozenset(d.type for d in _NARROW_SIGNED)
_NARROW_UNSIGNED_TYPES = frozenset(d.type for d in _NARROW_UNSIGNED)


def _scalar_type(x) -> type:
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    return np.dtype(x).type


# --- extended dtypes ---------------------------------------------------------


class extended(np.generic):
    """Scalar type of the extended (non-NumPy) dtypes: ``issubdtype(dt,
    extended)`` asks whether ``dt`` is one (a key type, a library's own)."""


class prng_key(extended):
    """Scalar type of the PRNG key dtypes (``key<fry>``)."""


class ExtendedDType(abc.ABC):
    """Base of the extended dtypes: an instance names its scalar ``type`` (a
    subclass of :class:`extended`) and may carry the ``_rules`` that say how
    its values are stored."""

    extended = True  # what the engine checks to tell them from NumPy dtypes
    _rules = None

    @property
    @abc.abstractmethod
    def type(self) -> type:
        ...


DType = np.dtype


def _is_extended_dtype(x) -> bool:
    return isinstance(x, ExtendedDType) or (
        not isinstance(x, type) and getattr(x, "extended", False) is True)


def supports_inf(dtype) -> bool:
    """Whether ``dtype`` has infinities (the float8 "fn"/"fnuz" types do not)."""
    if _is_extended_dtype(dtype):
        return False
    dt = np.dtype(dtype)
    if dt in _CUSTOM_FLOATS:
        return bool(np.isinf(np.array(np.inf).astype(dt)))
    return issubdtype(dt, np.inexact)


def issubdtype(a, b) -> bool:
    """``np.issubdtype`` that also places the ml_dtypes types (bfloat16,
    float8s, int4, ...) under np.floating / np.signedinteger / ..., and the
    extended dtypes under their scalar types (``key<fry>`` under
    ``prng_key`` and ``extended``)."""
    if _is_extended_dtype(a):
        if _is_extended_dtype(b):
            return a == b
        return isinstance(b, type) and issubclass(a.type, b)
    if _is_extended_dtype(b):
        return False
    return _issubtype(_scalar_type(a), _scalar_type(b))


@functools.lru_cache(maxsize=512)
def _issubtype(a: type, b: type) -> bool:
    if a in _CUSTOM_FLOAT_TYPES:
        return b in (a, np.floating, np.inexact, np.number, np.generic)
    if a in _NARROW_SIGNED_TYPES:
        return b in (a, np.signedinteger, np.integer, np.number, np.generic)
    if a in _NARROW_UNSIGNED_TYPES:
        return b in (a, np.unsignedinteger, np.integer, np.number, np.generic)
    return bool(np.issubdtype(a, b))


def is_float(dt) -> bool:
    return issubdtype(dt, np.floating)


def is_int(dt) -> bool:
    return issubdtype(dt, np.integer)


def is_complex(dt) -> bool:
    return issubdtype(dt, np.complexfloating)


def is_inexact(dt) -> bool:
    return issubdtype(dt, np.inexact)


finfo = ml_dtypes.finfo
iinfo = ml_dtypes.iinfo

_SIGNED = frozenset({int8, int16, int32, int64, *_NARROW_SIGNED})
_UNSIGNED = frozenset({uint8, uint16, uint32, uint64, *_NARROW_UNSIGNED})
_FLOATS = frozenset({float16, float32, float64, *_CUSTOM_FLOATS})
_COMPLEX = frozenset({complex64, complex128})
# The array API's dtype kinds, over the dtypes JAX supports.
_DTYPE_KINDS = {
    "bool": frozenset({bool_}), "signed integer": _SIGNED, "unsigned integer": _UNSIGNED,
    "integral": _SIGNED | _UNSIGNED, "real floating": _FLOATS, "complex floating": _COMPLEX,
    "numeric": _SIGNED | _UNSIGNED | _FLOATS | _COMPLEX,
}


def isdtype(dtype, kind) -> bool:
    """Whether ``dtype`` is of ``kind``: a kind name, a dtype, or a tuple of them."""
    the_dtype = np.dtype(dtype)
    options = set()
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _DTYPE_KINDS:
            options |= _DTYPE_KINDS[k]
            continue
        try:
            options.add(np.dtype(k))
        except TypeError as e:
            if isinstance(k, str):
                raise ValueError(f"Unrecognized kind={k!r} expected one of "
                                 f"{list(_DTYPE_KINDS)}, or a compatible input for "
                                 "jnp.dtype()") from None
            raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from e
    return the_dtype in options


# --- conversions and names ---------------------------------------------------------

# Not x64 aware, as in JAX: callers canonicalize. Narrow ints promote to
# float32; 1- and 2-bit ints are left alone, matching JAX.
_TO_INEXACT = {bool_: float32, uint4: float32, int4: float32,
               **{d: float32 for d in (uint8, int8, uint16, int16, uint32, int32)},
               uint64: float64, int64: float64}


def to_inexact_dtype(dt) -> np.dtype:
    """Dtype that inexact ops (``jnp.sin`` on ints) compute in."""
    dt = np.dtype(dt)
    return _TO_INEXACT.get(dt, dt)


def to_complex_dtype(dt) -> np.dtype:
    """Complex dtype with at least the precision of ``dt``."""
    return complex128 if to_inexact_dtype(dt) in (float64, complex128) else complex64


_NAME_PREFIXES = (("bfloat", "bf"), ("float", "f"), ("uint", "u"),
                  ("int", "i"), ("complex", "c"))


@functools.lru_cache(maxsize=None)
def short_name(dt) -> str:
    """Name used in printed jaxprs: ``f32``, ``u8``, ``bf16``, ``f8_e4m3fn``."""
    if getattr(dt, "extended", False):  # key<fry>
        return dt.name
    dt = np.dtype(dt)
    if dt == float0:
        return "float0"
    for prefix, short in _NAME_PREFIXES:
        if dt.name.startswith(prefix):
            return short + dt.name[len(prefix):]
    return dt.name
