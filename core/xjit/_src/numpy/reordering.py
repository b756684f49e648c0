"""Reordering elements along axes: ``flip`` (``fliplr``/``flipud``), ``roll``
(static shifts as slices and a concatenate, traced shifts through
``dynamic_slice`` of the doubled array) and ``rot90``."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from ..core import Tracer
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray
from .shape_ops import ravel, reshape
from xjit._src.pjit import jit_named


@jit_named("_flip", static_argnames=("axis",))
def _flip(m, axis):
    return lax.rev(m, axis)


def flip(m, axis=None):
    util.check_arraylike("flip", m)
    m = asarray(m)
    if axis is None:
        axes = tuple(range(m.ndim))
    else:
        axes = tuple(util.canonicalize_axis(a, m.ndim) for a in ((axis,) if np.ndim(axis) == 0 else axis))
    return _flip(m, axis=axes)


def fliplr(m):
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d")
    return _flip(m, axis=(1,))


def flipud(m):
    m = asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d")
    return _flip(m, axis=(0,))


def _unit_slice(a, axis, start, stop):
    """A slice along one axis with explicit unit strides (as JAX's roll)."""
    lo = [0] * a.ndim
    hi = list(a.shape)
    lo[axis], hi[axis] = start, stop
    return lax.slice(a, lo, hi, (1,) * a.ndim)


@jit_named("_roll_static", static_argnames=("shift", "axis"))
def _roll_static(a, shift, axis):
    for s, ax in zip(shift, axis):
        n = a.shape[ax]
        if n == 0:
            continue
        s %= n
        if s:
            a = lax.concatenate([_unit_slice(a, ax, n - s, n), _unit_slice(a, ax, 0, n - s)], ax)
    return a


@jit_named("_roll_dynamic", static_argnames=("axis",))
def _roll_dynamic(a, shift, axis):
    """Roll by traced shifts: slice the array doubled along each axis."""
    from .lax_numpy import remainder
    shifts = util.broadcast_to(shift, (len(axis),))
    for i, ax in enumerate(axis):
        n = a.shape[ax]
        s = lax.squeeze(lax.slice(shifts, (i,), (i + 1,), (1,)), (0,))
        s = remainder(lax._convert(s, np.int32, False), lax.max(np.int32(n), np.int32(1)))
        doubled = lax.concatenate([a, a], ax)
        a = lax.dynamic_slice_in_dim(doubled, lax.sub(np.int32(n), s), n, ax)
    return a


def roll(a, shift, axis=None):
    util.check_arraylike("roll", a)
    a = asarray(a)
    if isinstance(shift, Tracer):
        if axis is None:
            return reshape(_roll_dynamic(ravel(a), shift, axis=(0,)), a.shape)
        axes = tuple(util.canonicalize_axis(x, a.ndim) for x in np.atleast_1d(axis))
        return _roll_dynamic(a, shift, axis=axes)
    shifts = tuple(int(s) for s in np.atleast_1d(shift))
    if axis is None:
        shape = a.shape
        return reshape(_roll_static(ravel(a), shift=(builtins.sum(shifts),), axis=(0,)), shape)
    axes = tuple(util.canonicalize_axis(x, a.ndim) for x in np.atleast_1d(axis))
    shifts, axes = zip(*np.broadcast(shifts, axes)) if len(shifts) != len(axes) else (shifts, axes)
    return _roll_static(a, shift=tuple(map(int, shifts)), axis=tuple(map(int, axes)))


def rot90(m, k=1, axes=(0, 1)):
    util.check_arraylike("rot90", m)
    return _rot90(m, k=operator.index(k), axes=tuple(axes))


@jit_named("rot90", static_argnames=("k", "axes"))
def _rot90(m, k, axes):
    ax1, ax2 = (util.canonicalize_axis(x, m.ndim) for x in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return lax.rev(m, (ax1, ax2))
    perm = list(range(m.ndim))
    perm[ax1], perm[ax2] = ax2, ax1
    return lax.transpose(lax.rev(m, (ax2,)), perm) if k == 1 else \
        lax.rev(lax.transpose(m, perm), (ax2,))
