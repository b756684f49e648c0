"""Array creation beyond ``zeros``/``arange``/``linspace``: log- and
geometrically spaced ranges, coordinate grids (``meshgrid``), the lower-
triangle mask ``tri`` and ``copy``."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray, linspace, power, util_dtype
from xjit._src.pjit import jit_named


@jit_named("_logspace", static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start, stop, num, endpoint, base, dtype, axis):
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    return lax.convert_element_type(power(base, lin), dtype)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    dtypes.check_user_dtype_supported(dtype, "logspace")
    dt = dtypes.canonicalize_dtype(dtype or dtypes.to_inexact_dtype(dtypes.result_type(start, stop)))
    return _logspace(start, stop, num=operator.index(num), endpoint=builtins.bool(endpoint),
                     base=base, dtype=dt, axis=axis)


@jit_named("_geomspace", static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start, stop, num, endpoint, dtype, axis):
    start, stop = asarray(start, dtype), asarray(stop, dtype)
    sign = lax.sign(start)
    res = lax.mul(sign, logspace(_log10(lax.div(start, sign)), _log10(lax.div(stop, sign)),
                                 num, endpoint=endpoint, base=10.0, dtype=dtype))
    return lax.convert_element_type(res, dtype)


def _log10(x):
    return lax.div(lax.log(x), lax._convert(np.log(10), util_dtype(x), False))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    dtypes.check_user_dtype_supported(dtype, "geomspace")
    dt = dtypes.canonicalize_dtype(dtype or dtypes.to_inexact_dtype(dtypes.result_type(start, stop)))
    return _geomspace(start, stop, num=operator.index(num), endpoint=builtins.bool(endpoint),
                      dtype=dt, axis=axis)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    util.check_arraylike("meshgrid", *xi)
    args = [asarray(x) for x in xi]
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if any(a.ndim != 1 for a in args):
        raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[a.shape for a in args]}")
    if indexing == "xy" and len(args) >= 2:
        args[0], args[1] = args[1], args[0]
    shape = [1 if sparse else a.shape[0] for a in args]
    out = []
    for i, a in enumerate(args):
        s = list(shape)
        s[i] = a.shape[0]
        out.append(lax.broadcast_in_dim(a, s, (i,)))
    if indexing == "xy" and len(args) >= 2:
        out[0], out[1] = out[1], out[0]
    return out


def _tri_mask(n, m, k):
    rows = lax.add(lax.broadcasted_iota(np.int32, (n, m), 0), np.int32(k))
    return lax.ge(rows, lax.broadcasted_iota(np.int32, (n, m), 1))


def tri(N, M=None, k=0, dtype=None):
    dtypes.check_user_dtype_supported(dtype, "tri")
    M = N if M is None else M
    dt = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    return lax._convert(_tri_mask(operator.index(N), operator.index(M), operator.index(k)), dt, False)


def copy(a, order=None):
    util.check_arraylike("copy", a)
    from ..lax.structural import copy_p
    return copy_p.bind(asarray(a))
