"""Construction from functions and host data, axis-wise application and
NumPy passthroughs of ``xjit.numpy``: ``fromfunction``, ``frombuffer``,
``fromstring``, ``fromiter``/``fromfile`` (refused, as in JAX), ``from_dlpack``,
``apply_along_axis``, ``apply_over_axes``, ``array_repr``/``array_str`` and
``load``/``save``/``savez``.

Host-data constructors parse with NumPy and transfer the result, which is
what JAX does too; the printing and saving helpers are NumPy's own."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray

array_repr = np.array_repr
array_str = np.array_str
save = np.save
savez = np.savez


def load(file, *args, **kwargs):
    """``numpy.load``, with arrays (not archives) returned as xjit arrays;
    NumPy saves bfloat16 as the void type 'V2', so that is read back as
    bfloat16, and an array of a dtype JAX lacks stays a NumPy array."""
    out = np.load(file, *args, **kwargs)
    if not isinstance(out, np.ndarray):
        return out
    if out.dtype == "V2":
        out = out.view(dtypes.bfloat16)
    try:
        return asarray(out)
    except TypeError:
        return out


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function`` vmapped over one index range per axis of ``shape`` (so
    outputs are always full-shaped)."""
    from xjit._src.interpreters.batching import vmap
    shape = core.canonicalize_shape(shape)
    dt = dtypes.canonicalize_dtype(dtype)
    nd = len(shape)

    def fn(*idx):
        return function(*idx, **kwargs)
    for i in reversed(range(nd)):
        fn = vmap(fn, in_axes=tuple(0 if k == i else None for k in range(nd)))
    return fn(*(lax.iota(dt, n) for n in shape))


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def _impure(name, consumed):
    def refuse(*args, **kwargs):
        raise NotImplementedError(
            f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for "
            f"use with JIT and other JAX transformations. Consider using "
            f"jnp.asarray(np.{name}(...)) instead, although care should be taken if np.{name} "
            f"is used within a jax transformations because of its potential side-effect of "
            f"consuming the {consumed}; for more information see "
            "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")
    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"Refused, as in JAX: reading with ``np.{name}`` has side effects."
    return refuse


fromiter = _impure("fromiter", "iterable object")
fromfile = _impure("fromfile", "file object")


def from_dlpack(x, /, *, device=None, copy=None):
    """An array from any DLPack producer, read through NumPy on the host
    (xjit arrays are already arrays)."""
    from ..array import ArrayImpl
    return asarray(x) if isinstance(x, ArrayImpl) else asarray(np.from_dlpack(x))


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to every 1-D slice along ``axis``, by vmapping it
    over the other axes (outputs replace ``axis`` in place)."""
    from xjit._src.interpreters.batching import vmap
    util.check_arraylike("apply_along_axis", arr)
    arr = asarray(arr)
    nd = arr.ndim
    axis = util.canonicalize_axis(axis, nd)

    def fn(v):
        return func1d(v, *args, **kwargs)
    for i in range(1, nd - axis):
        fn = vmap(fn, in_axes=i, out_axes=-1)
    for _ in range(axis):
        fn = vmap(fn, in_axes=0, out_axes=0)
    return fn(arr)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` for each axis in turn, keeping the rank."""
    util.check_arraylike("apply_over_axes", a)
    a = asarray(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim - 1:
            b = lax.expand_dims(b, (util.canonicalize_axis(axis, a.ndim),))
        elif b.ndim != a.ndim:
            raise ValueError("function is not returning an array of the correct shape")
        a = b
    return a
