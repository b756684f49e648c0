"""``xjit.dtypes``: the public dtype utilities of ``jax.dtypes``."""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes as _d
from xjit._src.dtypes import (  # noqa: F401
    TypePromotionError, extended, finfo, float0, iinfo, issubdtype, prng_key)

bfloat16 = _d.bfloat16.type


def _is_extended(dt):
    return _d._is_extended_dtype(dt)


def canonicalize_dtype(dtype, allow_extended_dtype=False):
    """The dtype JAX computes in for ``dtype`` (64-bit types narrowed unless
    x64 is enabled)."""
    if _is_extended(dtype):
        if not allow_extended_dtype:
            raise ValueError(f"Internal: canonicalize_dtype called on extended dtype {dtype} "
                             "with allow_extended_dtype=False")
        return dtype
    return _d.canonicalize_dtype(dtype)


def result_type(*args, return_weak_type_flag=False):
    """The dtype of combining ``args`` under JAX's promotion lattice."""
    return _d.result_type(*args, return_weak_type_flag=return_weak_type_flag)


_PY_SCALAR = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def scalar_type_of(x):
    """The Python scalar type (bool/int/float/complex) of ``x``'s dtype."""
    dt = _d.dtype(x)
    if _d.is_float(dt):
        return float
    try:
        return _PY_SCALAR[dt.kind]
    except KeyError:
        raise TypeError(f"Invalid scalar value {x}") from None


def itemsize_bits(dtype) -> int:
    """Bits per element of ``dtype`` (sub-byte types count their bits)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return 8
    name = dt.name
    for n in ("int2", "int4", "float4"):
        if name.startswith((n, "u" + n)):
            return int(n[-1])
    return dt.itemsize * 8
