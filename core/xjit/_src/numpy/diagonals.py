"""Triangles and diagonals of matrices: ``tril``/``triu`` (masking below or
above a diagonal), ``diagonal``, ``diag``/``diagflat`` (a diagonal in and
out of a vector) and ``trace``, on the last two or any two axes."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from xjit._src.lax import lax
from . import util
from .array_creation import _tri_mask
from .lax_numpy import asarray, util_dtype
from .reductions import sum as _sum
from .shape_ops import ravel
from xjit._src.pjit import jit_named


def _tril_impl(m, k, lower):
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError(f"Argument to jax.numpy.{'tril' if lower else 'triu'} must be at least 2D")
    n, c = m.shape[-2:]
    mask = _tri_mask(n, c, k if lower else k - 1)
    if not lower:
        mask = lax.bitwise_not(mask)
    layout = m.aval._sharding  # the mask is laid out as m, as JAX broadcasts it
    if m.ndim > 2 or layout is not None:
        mask = lax.broadcast_in_dim(mask, m.shape, (m.ndim - 2, m.ndim - 1), out_sharding=layout)
    return lax.select(mask, m, lax.full_like(m, 0))


_tril = jit_named("tril", static_argnames=("k",))(lambda m, k: _tril_impl(m, k, True))


_triu = jit_named("triu", static_argnames=("k",))(lambda m, k: _tril_impl(m, k, False))


def tril(m, k=0):
    return _tril(m, k=operator.index(k))


def triu(m, k=0):
    return _triu(m, k=operator.index(k))


def _diagonal_2d(a, offset):
    """The ``offset`` diagonal of the last two axes, by a strided slice of
    the flattened matrix (no gather needed)."""
    n, m = a.shape[-2:]
    lead = a.shape[:-2]
    if offset >= 0:
        size = builtins.max(0, builtins.min(n, m - offset))
        start = offset
    else:
        size = builtins.max(0, builtins.min(n + offset, m))
        start = -offset * m
    if size == 0:
        return lax.full(lead + (0,), 0, util_dtype(a))
    flat = lax.reshape(a, lead + (n * m,))
    nd = len(lead)
    limit = start + (size - 1) * (m + 1) + 1
    return lax.slice(flat, (0,) * nd + (start,), lead + (limit,), (1,) * nd + (m + 1,))


def diagonal(a, offset=0, axis1=0, axis2=1):
    util.check_arraylike("diagonal", a)
    return _diagonal(a, offset=operator.index(offset), axis1=axis1, axis2=axis2)


@jit_named("diagonal", static_argnames=("offset", "axis1", "axis2"))
def _diagonal(a, offset, axis1, axis2):
    if a.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    i, j = util.canonicalize_axis(axis1, a.ndim), util.canonicalize_axis(axis2, a.ndim)
    perm = [d for d in range(a.ndim) if d not in (i, j)] + [i, j]
    return _diagonal_2d(lax.transpose(a, perm), offset)


@jit_named("_diag", static_argnames=("k",))
def _diag(v, k):
    v = asarray(v)
    if v.ndim == 1:
        n = v.shape[0] + builtins.abs(k)
        vals = lax.pad(v, lax._convert(0, util_dtype(v), v.weak_type), [(0, builtins.abs(k), 0)])
        mask = lax.eq(lax.add(lax.broadcasted_iota(np.int32, (n, n), 0), np.int32(k)),
                      lax.broadcasted_iota(np.int32, (n, n), 1))
        vals = lax.broadcast_in_dim(vals, (n, n), (0,) if k >= 0 else (1,))
        return lax.select(mask, vals, lax.full_like(vals, 0))
    if v.ndim == 2:
        return _diagonal_2d(v, k)
    raise ValueError("diag input must be 1d or 2d")


def diag(v, k=0):
    util.check_arraylike("diag", v)
    return _diag(v, k=operator.index(k))


def diagflat(v, k=0):
    return diag(ravel(v), k)


@jit_named("trace", static_argnames=("offset", "axis1", "axis2", "dtype"))
def _trace(a, offset, axis1, axis2, dtype):
    return _sum(_diagonal(a, offset=offset, axis1=axis1, axis2=axis2), axis=-1, dtype=dtype)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    util.check_arraylike("trace", a)
    nd = np.ndim(a)
    if nd >= 2 and util.canonicalize_axis(axis1, nd) == util.canonicalize_axis(axis2, nd):
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    return _trace(a, offset=operator.index(offset), axis1=axis1, axis2=axis2, dtype=dtype)
