"""Operators and NumPy-style methods shared by concrete arrays and tracers.

Installed on both ``ArrayImpl`` and ``Tracer`` so that traced code and eager
code read alike (``x.sum()``, ``x @ y``, ``x.T``, ``x[1:]``)."""
from __future__ import annotations

from .. import core
from ..array import ArrayImpl
from . import indexing, lax_numpy as ln, reductions as red, shape_ops as so
from .array_api_metadata import __array_namespace__


def _swap(f):
    def g(self, other):
        return f(other, self)
    return g


def _defer(f):
    """Binary operators return NotImplemented for types JAX doesn't accept,
    so Python can try the other operand."""
    def op(self, other):
        if not _accepts(other):
            return NotImplemented
        return f(self, other)
    return op


def _accepts(x):
    import numpy as np
    return isinstance(x, (core.Tracer, ArrayImpl, np.ndarray, np.generic, int, float, complex, bool))


_BINOPS = {
    "add": ln.add, "sub": ln.subtract, "mul": ln.multiply, "truediv": ln.true_divide,
    "floordiv": ln.floor_divide, "mod": ln.remainder, "pow": ln.power, "matmul": so.matmul,
    "and": ln.bitwise_and, "or": ln.bitwise_or, "xor": ln.bitwise_xor,
    "lshift": ln.left_shift, "rshift": ln.right_shift, "divmod": ln.divmod,
}
_CMPS = {"eq": ln.equal, "ne": ln.not_equal, "lt": ln.less, "le": ln.less_equal,
         "gt": ln.greater, "ge": ln.greater_equal}


def _astype(self, dtype, copy=False, device=None):
    return ln.astype(self, dtype)


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


_METHODS = {
    "__array_namespace__": __array_namespace__,
    "__getitem__": indexing.getitem,
    "__neg__": ln.negative, "__pos__": ln.positive, "__abs__": ln.absolute,
    "__invert__": ln.invert,
    "astype": _astype, "reshape": _reshape, "transpose": _transpose,
    "ravel": so.ravel, "flatten": so.ravel, "squeeze": so.squeeze, "swapaxes": so.swapaxes,
    "sum": red.sum, "prod": red.prod, "mean": red.mean, "max": red.max, "min": red.min,
    "var": red.var, "std": red.std, "all": red.all, "any": red.any,
    "argmax": red.argmax, "argmin": red.argmin, "dot": so.dot, "clip": ln.clip,
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
    from .array_methods_more import METHODS, PROPERTIES
    _METHODS.update({k: v for k, v in METHODS.items() if k not in _METHODS})
    _PROPERTIES.update({k: v for k, v in PROPERTIES.items() if k not in _PROPERTIES})
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
