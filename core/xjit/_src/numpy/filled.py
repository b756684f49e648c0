"""Filled arrays in ``xjit.numpy``: ``zeros``/``ones``/``empty``/``full``
and their ``*_like`` forms. ``out_sharding=`` gives the result's type (its
layout over the mesh's Explicit axes); a ``*_like`` result is laid out as
its model is when it keeps the model's shape, as in JAX."""
from __future__ import annotations

import builtins

import numpy as np

from .. import core, dtypes
from ..core import Tracer
from xjit._src.lax import lax
from xjit._src.sharding import canonicalize_sharding
from . import util


def _check_device(device, out_sharding):
    if device is not None and out_sharding is not None:
        raise ValueError("Only one of `device` or `out_sharding` can be set. Got "
                         f"device={device} and out_sharding={out_sharding}")


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    return _full(shape, 0, dtype, "zeros", device, out_sharding)


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    return _full(shape, 1, dtype, "ones", device, out_sharding)


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    return _full(shape, 0, dtype, "empty", device, out_sharding)


def _full(shape, fill, dtype, name, device=None, out_sharding=None):
    _check_device(device, out_sharding)
    if isinstance(shape, Tracer):
        shape = (shape,)
    if isinstance(shape, (list, tuple)) and builtins.any(isinstance(s, Tracer) for s in shape):
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{tuple(shape)}.")
    shape = core.canonicalize_shape(shape, lax._BCAST_NEGATIVE)
    dtypes.check_user_dtype_supported(dtype, name)
    dt = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    out = lax.full(shape, fill, dt, sharding=canonicalize_sharding(out_sharding, name))
    return util.on_device(out, device)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    from .lax_numpy import asarray
    _check_device(device, out_sharding)
    dtypes.check_user_dtype_supported(dtype, "full")
    sharding = canonicalize_sharding(out_sharding, "full")
    if util.ndim_of(fill_value) == 0:
        return util.on_device(lax.full(shape, fill_value, dtype, sharding=sharding), device)
    return util.on_device(util.broadcast_to(asarray(fill_value, dtype=dtype), shape, sharding),
                          device)


def _full_like(x, fill_value, dtype, shape, out_sharding=None):
    """``lax.full_like`` as JAX defines it: with no dtype asked for, a weakly
    typed ``x`` gives a weakly typed result, and a scalar result is the
    converted fill value itself (a literal in jaxprs, not a broadcast)."""
    x = util.jax_array_of(x)
    aval = core.aval_of(x)
    dt = dtypes.canonicalize_dtype(dtype or aval.dtype)
    weak = dtype is None and aval.weak_type
    shape = aval.shape if shape is None else core.canonicalize_shape(shape, lax._BCAST_NEGATIVE)
    if np.ndim(fill_value) != 0:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    fill = lax._convert(fill_value, dt, weak)
    sharding = canonicalize_sharding(out_sharding, "full_like")
    if sharding is None and shape == aval.shape:  # laid out as the model
        sharding = getattr(aval, "_sharding", None)
    out = lax.full(shape, fill, sharding=sharding) if shape else lax.asarray_device(fill)
    return lax.lend_layout(out, x, aval, shape, weak) if sharding is None else out


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    _check_device(device, out_sharding)
    return util.on_device(_full_like(a, 0, dtype, shape, out_sharding), device)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    _check_device(device, out_sharding)
    return util.on_device(_full_like(a, 1, dtype, shape, out_sharding), device)


def empty_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    _check_device(device, out_sharding)
    return util.on_device(_full_like(a, 0, dtype, shape, out_sharding), device)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    from .lax_numpy import asarray, util_dtype
    _check_device(device, out_sharding)
    dtypes.check_user_dtype_supported(dtype, "full_like")
    if util.ndim_of(fill_value):  # an array fill is broadcast to the shape
        return util.on_device(util.broadcast_to(
            asarray(fill_value, dtype=dtype or util_dtype(a)),
            util.shape_of(a) if shape is None else shape,
            canonicalize_sharding(out_sharding, "full_like")), device)
    return util.on_device(_full_like(a, fill_value, dtype, shape, out_sharding), device)


