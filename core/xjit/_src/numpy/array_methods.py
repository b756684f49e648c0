"""Operators and NumPy-style methods shared by concrete arrays and tracers.

Installed on both ``ArrayImpl`` and ``Tracer`` so that traced code and eager
code read alike (``x.sum()``, ``x @ y``, ``x.T``, ``x[1:]``). The methods that
forward to ``jnp`` functions (``x.sort()``, ``x.take(i)``, ``x.view(dt)``...)
sit beside the single-device answers to the distributed-array queries."""
from __future__ import annotations

from .. import core
from ..array import ArrayImpl
import numpy as np

from .. import dtypes, errors
from xjit._src.lax import lax
from ..prng import bitcast_convert_type
from . import advanced_indexing as ai, array_creation, diagonals, indexing, lax_numpy as ln
from . import manipulation as mp, reductions as red, repetition, shape_ops as so, sorting
from . import tensor_contractions as tc
from .array_api_metadata import __array_namespace__


def _swap(f):
    def g(self, other):
        return f(other, self)
    return g


def _defer(f):
    """Binary operators return NotImplemented for types JAX doesn't accept,
    so Python can try the other operand; an object with ``__jax_array__``
    (e.g. a flax Variable) is first replaced by the array it returns."""
    def op(self, other):
        if not _accepts(other):
            m = getattr(other, "__jax_array__", None)
            if m is None:
                return NotImplemented
            other = m()
            if not _accepts(other):
                return NotImplemented
        return f(self, other)
    return op


def _accepts(x):
    return isinstance(x, (core.Tracer, ArrayImpl, np.ndarray, np.generic, int, float, complex, bool))


_BINOPS = {
    "add": ln.add, "sub": ln.subtract, "mul": ln.multiply, "truediv": ln.true_divide,
    "floordiv": ln.floor_divide, "mod": ln.remainder, "pow": ln.power, "matmul": tc.matmul,
    "and": ln.bitwise_and, "or": ln.bitwise_or, "xor": ln.bitwise_xor,
    "lshift": ln.left_shift, "rshift": ln.right_shift, "divmod": ln.divmod,
}
_CMPS = {"eq": ln.equal, "ne": ln.not_equal, "lt": ln.less, "le": ln.less_equal,
         "gt": ln.greater, "ge": ln.greater_equal}


def _astype(self, dtype, copy=False, device=None):
    return ln.astype(self, dtype, device=device)


def _reshape(self, *args, order="C", **kw):
    shape = args[0] if len(args) == 1 else args
    if "shape" in kw:
        shape = kw["shape"]
    return so.reshape(self, shape, order)


def _transpose(self, *args):
    axes = args[0] if len(args) == 1 and not isinstance(args[0], int) else (args or None)
    return so.transpose(self, axes)


def _at(self):
    from .scatter import _IndexUpdateHelper
    return _IndexUpdateHelper(self)


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


_FORWARDED_METHODS = {
    "__contains__": _contains,
    "__round__": _round,
    "argpartition": lambda self, kth, axis=-1: mp.argpartition(self, kth, axis),
    "argsort": lambda self, axis=-1, *, kind=None, order=None, stable=True, descending=False:
        sorting.argsort(self, axis, kind=kind, order=order, stable=stable, descending=descending),
    "byteswap": lambda self: _byteswap(self),
    "choose": lambda self, choices, out=None, mode="raise": mp.choose(self, choices, out, mode),
    "clone": lambda self: array_creation.copy(self),
    "compress": lambda self, condition, axis=None, *, size=None, fill_value=0, out=None:
        mp.compress(condition, self, axis, size=size, fill_value=fill_value, out=out),
    "copy": lambda self: array_creation.copy(self),
    "cumprod": lambda self, axis=None, dtype=None, out=None: sorting.cumprod(self, axis, dtype,
                                                                             out),
    "cumsum": lambda self, axis=None, dtype=None, out=None: sorting.cumsum(self, axis, dtype, out),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: diagonals.diagonal(
        self, offset, axis1, axis2),
    "nonzero": lambda self, *, size=None, fill_value=None: indexing.nonzero(
        self, size=size, fill_value=fill_value),
    "ptp": lambda self, axis=None, out=None, keepdims=False: red.ptp(self, axis, out, keepdims),
    "repeat": lambda self, repeats, axis=None, *, total_repeat_length=None: repetition.repeat(
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
    "trace": lambda self, offset=0, axis1=0, axis2=1, dtype=None, out=None: diagonals.trace(
        self, offset, axis1, axis2, dtype, out),
    "view": _view,
    "addressable_data": lambda self, index: self,  # one device holds the whole array
    "platform": lambda self: next(iter(self.devices())).platform,
}
_FORWARDED_PROPERTIES = {
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


_METHODS = {
    "__array_namespace__": __array_namespace__,
    "__getitem__": indexing.getitem,
    "__neg__": ln.negative, "__pos__": ln.positive, "__abs__": ln.absolute,
    "__invert__": ln.invert,
    "astype": _astype, "reshape": _reshape, "transpose": _transpose,
    "ravel": so.ravel, "flatten": so.ravel, "squeeze": so.squeeze, "swapaxes": so.swapaxes,
    "sum": red.sum, "prod": red.prod, "mean": red.mean, "max": red.max, "min": red.min,
    "var": red.var, "std": red.std, "all": red.all, "any": red.any,
    "argmax": red.argmax, "argmin": red.argmin, "dot": tc.dot, "clip": ln.clip,
    "conj": lambda self: ln.lax.conj(self) if self.dtype.kind == "c" else self,
    "conjugate": lambda self: ln.lax.conj(self) if self.dtype.kind == "c" else self,
    "round": lambda self, decimals=0: ln.round(self, decimals),
}
_PROPERTIES = {
    "T": lambda self: so.transpose(self),
    "mT": so.matrix_transpose,
    "real": lambda self: ln.real(self),
    "imag": lambda self: ln.imag(self),
    "at": _at,
}


def install(cls):
    _METHODS.update({k: v for k, v in _FORWARDED_METHODS.items() if k not in _METHODS})
    _PROPERTIES.update({k: v for k, v in _FORWARDED_PROPERTIES.items() if k not in _PROPERTIES})
    for name, f in _BINOPS.items():
        setattr(cls, f"__{name}__", _defer(f))
        setattr(cls, f"__r{name}__", _defer(_swap(f)))
    for name, f in _CMPS.items():
        setattr(cls, f"__{name}__", _defer(f))
    for name, f in _METHODS.items():
        setattr(cls, name, f)
    for name, f in _PROPERTIES.items():
        setattr(cls, name, property(f))
    cls.__hash__ = cls.__dict__.get("__hash__") or cls.__hash__


def install_all():
    for cls in (ArrayImpl, core.Tracer):
        saved_hash = cls.__hash__
        install(cls)
        cls.__hash__ = saved_hash
