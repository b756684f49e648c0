"""Python array API metadata: ``jnp.__array_api_version__``,
``jnp.__array_namespace_info__()`` and ``Array.__array_namespace__``, so
array-API-generic libraries can find ``xjit.numpy`` from an array."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..config import config

__array_api_version__ = "2024.12"

_SIGNED = ("int8", "int16", "int32", "int64")
_UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
_REAL = ("float32", "float64")
_COMPLEX = ("complex64", "complex128")
_KINDS = {
    "bool": ("bool",),
    "signed integer": _SIGNED,
    "unsigned integer": _UNSIGNED,
    "integral": _SIGNED + _UNSIGNED,
    "real floating": _REAL,
    "complex floating": _COMPLEX,
    "numeric": _SIGNED + _UNSIGNED + _REAL + _COMPLEX,
}
_X64_ONLY = {"int64", "uint64", "float64", "complex128"}


def __array_namespace__(self, *, api_version=None):
    if api_version is not None and api_version != __array_api_version__:
        raise ValueError(f"api_version={api_version!r} is not available; available versions "
                         f"are: {[__array_api_version__]}")
    from ... import numpy
    return numpy


def __array_namespace_info__():
    return ArrayNamespaceInfo()


class ArrayNamespaceInfo:
    """What the array API asks a namespace to report about itself."""

    def capabilities(self):
        # inside transformations shapes must be static, so neither is supported
        return {"boolean indexing": False, "data-dependent shapes": False,
                "max dimensions": 64}

    def default_device(self):
        return None  # arrays start uncommitted

    def devices(self):
        from xjit._src import xla_bridge as backend
        return [None, *backend.devices()]

    def default_dtypes(self, *, device=None):
        return {"real floating": dtypes.default_float_dtype(),
                "complex floating": dtypes.default_complex_dtype(),
                "integral": dtypes.default_int_dtype(),
                "indexing": dtypes.default_int_dtype()}

    def dtypes(self, *, device=None, kind=None):
        kinds = ("numeric", "bool") if kind is None else kind if isinstance(kind, tuple) \
            else (kind,)
        x64 = config._values["jax_enable_x64"]
        out = {}
        for k in kinds:
            for name in _KINDS[k]:
                if x64 or name not in _X64_ONLY:
                    out[name] = np.dtype(name)
        return out
