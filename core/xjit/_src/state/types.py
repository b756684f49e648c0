"""Mutable array references: their abstract type and their concrete value.

A ``Ref`` names a buffer that ``ref[idx] = x`` replaces. Outside ``jit`` a
``Ref`` holds an immutable array and the state primitives swap in a new one;
under a trace a ref is a tracer whose aval is an ``AbstractRef``, the state
primitives stage equations, and ``discharge`` turns them into ordinary values
threaded through the jaxpr before it is lowered.
"""
from __future__ import annotations

from xjit._src import core


ref_ops: dict = {}  # "get"/"set"/"swap"/"addupdate" -> the state primitives' functions


class AbstractRef(core.AbstractValue):
    """The type of a mutable reference to an array of type ``inner_aval``
    (printed ``Ref{f32[3]}``)."""

    __slots__ = ("inner_aval", "memory_space", "kind")

    def __init__(self, inner_aval, memory_space=None, kind=None):
        self.inner_aval, self.memory_space, self.kind = inner_aval, memory_space, kind

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: len(self.inner_aval.shape))
    size = property(lambda self: self.inner_aval.size)
    weak_type = property(lambda self: self.inner_aval.weak_type)

    def __eq__(self, other):
        return (type(other) is AbstractRef and self.inner_aval == other.inner_aval
                and self.memory_space == other.memory_space and self.kind == other.kind)

    def __hash__(self):
        return hash((AbstractRef, self.inner_aval, self.memory_space, self.kind))

    def update(self, inner_aval=None, **changes):
        """A ref type like this one; ``shape=``/``dtype=``/``weak_type=`` change
        the array it holds (as transformations map avals)."""
        inner = self.inner_aval if inner_aval is None else inner_aval
        return AbstractRef(inner.update(**changes) if changes else inner,
                           self.memory_space, self.kind)

    def strip_weak_type(self):
        return self.update(self.inner_aval.strip_weak_type())

    def str_short(self, short_dtypes=True):
        inner = self.inner_aval.str_short(short_dtypes)
        if self.memory_space is not None:
            return f"Ref<{self.memory_space}>{{{inner}}}"
        return f"Ref{{{inner}}}"

    def __repr__(self):
        return self.str_short(False)

    __str__ = __repr__

    # The operations a Ref and a ref tracer share (``ref[idx]``, ``ref[idx] = x``),
    # through ``ref_ops``, which state.primitives (a layer up) fills on import.
    def _getitem(self, ref, idx):
        return ref_ops["get"](ref, idx)

    def _setitem(self, ref, idx, value):
        return ref_ops["set"](ref, idx, value)

    def _addupdate(self, ref, idx, value):
        return ref_ops["addupdate"](ref, idx, value)

    # ``ref.get(idx)``, ``ref.set(x, idx)``, ``ref.swap(x, idx)``, ``ref.addupdate(x, idx)``
    # on a ref's tracer (a concrete ``Ref`` has only ``addupdate``, as in JAX).
    tracer_methods = {
        "get": lambda ref, idx=(): ref_ops["get"](ref, idx),
        "set": lambda ref, x, idx=(): ref_ops["set"](ref, idx, x),
        "swap": lambda ref, x, idx=(): ref_ops["swap"](ref, idx, x),
        "addupdate": lambda ref, x, idx=(): ref_ops["addupdate"](ref, idx, x),
    }

    def _len(self, ref):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]


class _RefMeta(type):
    """``isinstance(x, Ref)`` also holds for tracers of a ref, as in JAX."""

    def __instancecheck__(cls, inst):
        return (type.__instancecheck__(cls, inst)
                or isinstance(inst, core.Tracer) and type(inst.aval) is AbstractRef)


class Ref(metaclass=_RefMeta):
    """A mutable array reference (made by ``new_ref``). It holds the current
    array; writes replace it, so arrays read earlier never change."""

    __slots__ = ("_aval", "_value", "__weakref__")

    def __init__(self, aval: AbstractRef, value):
        self._aval, self._value = aval, value

    aval = property(lambda self: self._aval)
    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)
    ndim = property(lambda self: self._aval.ndim)
    size = property(lambda self: self._aval.size)

    def __repr__(self):
        return "Ref" + repr(self._value)[len("Array"):]

    def __getitem__(self, idx):
        return self._aval._getitem(self, idx)

    def __setitem__(self, idx, value):
        self._aval._setitem(self, idx, value)

    def __len__(self):
        return self._aval._len(self)

    def __array__(self, *args, **kwargs):
        raise TypeError(
            "A Ref (mutable array reference) is not an array: read it with ref[...]. xjit "
            "supports Refs in jitted functions, nested jits, loops and conditionals, not inside "
            "custom derivative rules yet.")

    def addupdate(self, x, idx=()):
        self._aval._addupdate(self, idx, x)
