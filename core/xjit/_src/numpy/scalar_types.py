"""The dtype scalar types of ``xjit.numpy`` (``jnp.float32(3)`` makes an
array, ``np.dtype(jnp.float32)`` works) and its type and shape queries."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..array import ArrayImpl
from ..core import Tracer
from . import util
from .util import shape_of


# -- dtype scalar types (jnp.float32(3) makes an array; np.dtype(jnp.float32) works)


class _ScalarMeta(type):
    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other):
        return not _ScalarMeta.__eq__(cls, other)  # cls.__eq__ would be object's

    def __call__(cls, x):
        from .lax_numpy import asarray
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)


def _scalar_type(name, np_dtype):
    return _ScalarMeta(name, (object,), {"dtype": np.dtype(np_dtype), "__module__": "xjit.numpy"})


bool_ = _scalar_type("bool", np.bool_)
int8, int16, int32, int64 = (_scalar_type(n, n) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_scalar_type(n, n) for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (_scalar_type(n, n) for n in ("float16", "float32", "float64"))
bfloat16 = _scalar_type("bfloat16", dtypes.bfloat16)
complex64, complex128 = _scalar_type("complex64", np.complex64), _scalar_type("complex128", np.complex128)
float_, int_, complex_ = float64, int64, complex128
uint = uint64
single, double = float32, float64
csingle, cdouble = complex64, complex128

(float8_e3m4, float8_e4m3, float8_e8m0fnu, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz,
 float8_e5m2, float8_e5m2fnuz, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn, int1, int2, int4,
 uint1, uint2, uint4) = (_scalar_type(n, getattr(dtypes, n)) for n in (
    "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float6_e2m3fn", "float6_e3m2fn",
    "float4_e2m1fn", "int1", "int2", "int4", "uint1", "uint2", "uint4"))
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
object_, character, flexible = np.object_, np.character, np.flexible
ComplexWarning = np.exceptions.ComplexWarning
iterable = np.iterable
complexfloating, integer, signedinteger = np.complexfloating, np.integer, np.signedinteger
unsignedinteger, bool = np.unsignedinteger, bool_
dtype = np.dtype
pi, e, inf, nan, euler_gamma = np.pi, np.e, np.inf, np.nan, np.euler_gamma
newaxis = None

def isscalar(element):
    if isinstance(element, (Tracer, ArrayImpl)):
        return element.ndim == 0
    return np.isscalar(element)


def ndim(a):
    return util.ndim_of(util.jax_array_of(a))


def shape(a):
    return tuple(shape_of(util.jax_array_of(a)))


def size(a, axis=None):
    s = shape_of(util.jax_array_of(a))
    return int(np.prod(s)) if axis is None else s[axis]


def result_type(*args):
    return dtypes.result_type(*args)


def promote_types(a, b):
    return dtypes.promote_types(a, b)


def issubdtype(arg1, arg2):
    return dtypes.issubdtype(arg1, arg2)


# Arrays print through NumPy, so NumPy's print options are the ones in force.
get_printoptions, set_printoptions = np.get_printoptions, np.set_printoptions
printoptions = np.printoptions


def can_cast(from_, to, casting="safe"):
    return np.can_cast(from_, to, casting=casting)


finfo, iinfo, isdtype = dtypes.finfo, dtypes.iinfo, dtypes.isdtype


__all__ = [n for n in dir() if not n.startswith("_") and n not in (
    "annotations", "np", "dtypes", "util", "shape_of", "ArrayImpl", "Tracer")]
