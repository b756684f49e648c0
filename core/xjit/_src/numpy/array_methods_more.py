"""The rest of JAX's ``Array`` methods: the NumPy-style ones that forward to
``jnp`` functions (``x.sort()``, ``x.take(i)``, ``x.view(dt)``...) and the
single-device answers to the distributed-array queries."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, errors
from xjit._src.lax import lax
from ..prng import bitcast_convert_type
from . import advanced_indexing as ai, indexing, manipulation as mp, more_math, more_ops
from . import sorting


def _view(self, dtype=None, type=None):
    """Reinterpret the bytes; a different item size changes the last axis."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    old, new = self.dtype, dtypes.canonicalize_dtype(dtype)
    if old == new:
        return self
    x = lax._convert(self, np.uint8, False) if old == np.bool_ else self
    src = np.dtype(np.uint8) if old == np.bool_ else old
    if new.itemsize == src.itemsize:
        out = bitcast_convert_type(x, np.uint8 if new == np.bool_ else new)
    elif new.itemsize < src.itemsize:
        if not self.shape:
            raise ValueError("Changing the dtype of a 0d array is only supported if the "
                             "itemsize is unchanged")
        out = bitcast_convert_type(x, new)
        out = lax.reshape(out, (*self.shape[:-1], self.shape[-1] * (src.itemsize // new.itemsize)))
    else:
        k = new.itemsize // src.itemsize
        if not self.shape or (self.shape[-1] * src.itemsize) % new.itemsize:
            raise ValueError("When changing to a larger dtype, its size must be a divisor of "
                             "the total size in bytes of the last axis of the array.")
        out = bitcast_convert_type(lax.reshape(x, (*self.shape[:-1], self.shape[-1] // k, k)),
                                   new)
    return lax.ne(out, lax._convert(0, np.uint8, False)) if new == np.bool_ else out


def _contains(self, value):
    if self.ndim != 1:
        raise ValueError("Array.__contains__: search array must be one-dimensional, got "
                         f"arr.shape={self.shape}.")
    from .lax_numpy import equal
    from .reductions import any as any_
    return any_(equal(self, value))


def _round(self, ndigits=None):
    from .lax_numpy import round as round_
    if ndigits is None:
        return lax._convert(round_(self), dtypes.default_int_dtype(), False)
    return round_(self, ndigits)


def _flat(self):
    raise NotImplementedError("JAX Arrays do not implement the arr.flat property: consider "
                              "arr.flatten() instead.")


def _deprecated(name, instead):
    def prop(self):
        raise AttributeError(f"arr.{name} has been deprecated. Use {instead}")
    return prop


def _to_device(self, device, *, stream=None):
    from ..dispatch import device_put
    return device_put(self, device)


def _alive(x):
    if isinstance(x, core.Tracer):
        raise errors.ConcretizationTypeError(x, "The tobytes() method was called on traced array")
    return x


METHODS = {
    "__contains__": _contains,
    "__round__": _round,
    "argpartition": lambda self, kth, axis=-1: mp.argpartition(self, kth, axis),
    "argsort": lambda self, axis=-1, *, kind=None, order=None, stable=True, descending=False:
        sorting.argsort(self, axis, kind=kind, order=order, stable=stable, descending=descending),
    "byteswap": lambda self: _byteswap(self),
    "choose": lambda self, choices, out=None, mode="raise": mp.choose(self, choices, out, mode),
    "clone": lambda self: more_ops.copy(self),
    "compress": lambda self, condition, axis=None, *, size=None, fill_value=0, out=None:
        mp.compress(condition, self, axis, size=size, fill_value=fill_value, out=out),
    "copy": lambda self: more_ops.copy(self),
    "cumprod": lambda self, axis=None, dtype=None, out=None: sorting.cumprod(self, axis, dtype,
                                                                             out),
    "cumsum": lambda self, axis=None, dtype=None, out=None: sorting.cumsum(self, axis, dtype, out),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: more_ops.diagonal(self, offset, axis1,
                                                                           axis2),
    "nonzero": lambda self, *, size=None, fill_value=None: indexing.nonzero(
        self, size=size, fill_value=fill_value),
    "ptp": lambda self, axis=None, out=None, keepdims=False: more_math.ptp(self, axis, out,
                                                                           keepdims),
    "repeat": lambda self, repeats, axis=None, *, total_repeat_length=None: more_ops.repeat(
        self, repeats, axis, total_repeat_length=total_repeat_length),
    "searchsorted": lambda self, v, side="left", sorter=None, *, method="scan":
        sorting.searchsorted(self, v, side, sorter, method=method),
    "sort": lambda self, axis=-1, *, kind=None, order=None, stable=True, descending=False:
        sorting.sort(self, axis, kind=kind, order=order, stable=stable, descending=descending),
    "take": lambda self, indices, axis=None, out=None, mode=None, unique_indices=False,
    indices_are_sorted=False, fill_value=None: ai.take(
        self, indices, axis, out, mode, unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted, fill_value=fill_value),
    "to_device": _to_device,
    "tobytes": lambda self, order="C": np.asarray(_alive(self)).tobytes(order),
    "trace": lambda self, offset=0, axis1=0, axis2=1, dtype=None, out=None: more_ops.trace(
        self, offset, axis1, axis2, dtype, out),
    "view": _view,
    "addressable_data": lambda self, index: self,  # one device holds the whole array
    "platform": lambda self: next(iter(self.devices())).platform,
}
PROPERTIES = {
    "flat": _flat,
    "device_buffer": _deprecated("device_buffer", "arr.addressable_data(0)"),
    "device_buffers": _deprecated("device_buffers",
                                  "[x.data for x in arr.addressable_shards]"),
    "is_fully_addressable": lambda self: True,
    "is_fully_replicated": lambda self: True,
}


def _byteswap(self):
    if self.dtype.itemsize == 1:
        return self
    u = np.dtype(f"uint{8 * self.dtype.itemsize}")
    x = _view(self, u)
    out = lax._convert(0, u, False)
    for i in range(self.dtype.itemsize):
        byte = lax.bitwise_and(lax.shift_right_logical(x, lax._convert(8 * i, u, False)),
                               lax._convert(0xFF, u, False))
        shift = lax._convert(8 * (self.dtype.itemsize - 1 - i), u, False)
        out = lax.bitwise_or(out, lax.shift_left(byte, shift))
    return _view(out, self.dtype)

