"""Insertion and deletion along an axis with static positions: ``append``,
``delete`` (indices, slices or a boolean mask) and ``insert``."""
from __future__ import annotations

import builtins

import numpy as np

from .. import core
from ..array import Array
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray, util_dtype
from .shape_ops import concatenate, moveaxis, ravel
from xjit._src.pjit import jit_named


def append(arr, values, axis=None):
    util.check_arraylike("append", arr, values)
    return _append(arr, values, axis=axis)


@jit_named("append", static_argnames=("axis",))
def _append(arr, values, axis):
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    util.check_arraylike("delete", arr)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = util.canonicalize_axis(axis, a.ndim)
    n = a.shape[axis]
    if isinstance(obj, (int, np.integer)) and not -n <= obj < n:
        # JAX canonicalizes a scalar position as it does an axis
        raise ValueError(f"axis {obj} is out of bounds for array of dimension {n}")
    if isinstance(obj, builtins.slice):
        drop = set(range(n)[obj])
    else:
        idx = np.atleast_1d(np.asarray(core.concrete_or_error(
            None, obj, "'obj' array argument of jnp.delete()")))
        if idx.dtype == np.bool_:
            if idx.shape != (n,):
                raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                                 "one-dimensional with length matching specified axis.")
            idx = np.flatnonzero(idx)
        for i in idx:
            if not -n <= i < n:
                raise IndexError(f"index {int(i)} is out of bounds for axis {axis} with size {n}")
        drop = {int(i) % n for i in idx}
    keep = [i for i in range(n) if i not in drop]
    runs, start = [], None
    for j, i in enumerate(keep):
        if start is None:
            start = i
        if j + 1 == len(keep) or keep[j + 1] != i + 1:
            runs.append(lax.slice_along(a, start, i + 1, axis=axis))
            start = None
    if not runs:
        return lax.slice_along(a, 0, 0, axis=axis)
    return lax.concatenate(runs, axis) if len(runs) > 1 else runs[0]


def insert(arr, obj, values, axis=None):
    """Static indices only. As in JAX, positions past either end clamp to it,
    and each value goes before position ``obj[i]`` of the original array."""
    util.check_arraylike("insert", arr, 0 if isinstance(obj, builtins.slice) else obj, values)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = util.canonicalize_axis(util.concrete_arg(axis, "jnp.insert argument `axis`"), a.ndim)
    n = a.shape[axis]
    if isinstance(obj, builtins.slice):
        idx = np.arange(*obj.indices(n))
    else:
        idx = np.asarray(util.concrete_arg(obj, "jnp.insert"))
    if idx.ndim > 1:
        raise ValueError("jnp.insert(): obj must be a slice, a one-dimensional array, or a "
                         f"scalar; got {obj}")
    if idx.dtype.kind not in "iu":
        if idx.size or isinstance(obj, Array):
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
        idx = idx.astype(int)
    vals = lax._convert(asarray(values), util_dtype(a), False)
    if vals.ndim < a.ndim:
        vals = lax.reshape(vals, (1,) * (a.ndim - vals.ndim) + vals.shape)
    if idx.size == 1:
        if idx.ndim == 0:
            vals = moveaxis(vals, 0, axis)
        idx = np.full(vals.shape[axis], idx.ravel()[0])
    count = util.broadcast_shapes(idx.shape, (vals.shape[axis],))[0]
    if count == 0:  # nothing to insert (JAX does not look at the values' other axes)
        return a
    idx = np.clip(np.where(idx < 0, idx + n, idx), 0, n) * np.ones(count, idx.dtype)
    vshape = list(a.shape)
    vshape[axis] = count
    vals = util.broadcast_to(vals, vshape)
    order = np.argsort(idx, kind="stable")
    parts, prev = [], 0
    for j in order:
        i = int(idx[j])
        if i > prev:
            parts.append(lax.slice_along(a, prev, i, axis=axis))
        parts.append(lax.slice_along(vals, int(j), int(j) + 1, axis=axis))
        prev = builtins.max(prev, i)
    if prev < n:
        parts.append(lax.slice_along(a, prev, n, axis=axis))
    return lax.concatenate(parts, axis) if len(parts) > 1 else parts[0]
