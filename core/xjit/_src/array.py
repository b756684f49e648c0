"""``xjit.Array``: an immutable array living in a device buffer.

The buffer is jaxlib's ``ArrayImpl`` (made by the PJRT client); we wrap it so
our array owns its abstract value and methods without patching jaxlib's class.
Execution is asynchronous: an Array may not be ready until
``block_until_ready()`` or a host read waits for it.
"""
from __future__ import annotations

import sys

import numpy as np

from xjit._src import xla_bridge as backend, core, dtypes, errors
from xjit._src.lib import _fastpath


# NumPy's DLPack import knows these dtypes; others (bfloat16, float8, int4)
# take jaxlib's own host copy.
_DLPACK_KINDS = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128))


class _Capsule:
    """Hands a DLPack capsule to ``np.from_dlpack`` (which wants an object)."""
    __slots__ = ("capsule",)

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **_):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


class _NoJaxImport:
    """jaxlib's own host-copy methods import the ``jax`` package when one is
    installed (and carry on when it is not). Nothing xjit does may import the
    real jax, so while they run, ``import jax`` fails as if it were absent."""

    def find_spec(self, name, path=None, target=None):
        if name == "jax" or name.startswith("jax."):
            raise ImportError(f"xjit does not import the real jax ({name})")
        return None

    def __enter__(self):
        self._armed = "jax" not in sys.modules  # already there (taken over or real): harmless
        if self._armed:
            sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc):
        if self._armed:
            sys.meta_path.remove(self)


_ZERO_COPY_BYTES = 1 << 22


def host_copy(buf) -> np.ndarray:
    """The host value of one device buffer. A small CPU buffer is copied
    through DLPack (a quarter of the cost of jaxlib's method, whose import
    attempt dominates); a large one is read in place by jaxlib, as JAX does.
    (A DLPack view in place would pin the buffer: deleting it then aborts.)"""
    aval = buf.aval  # seen None on a 1-device shard in one suite run (cause not pinned down)
    if (aval is not None and buf.platform() == "cpu" and aval.dtype in _DLPACK_KINDS
            and buf.on_device_size_in_bytes() < _ZERO_COPY_BYTES):
        from jaxlib import _jax
        return np.from_dlpack(_Capsule(_jax.buffer_to_dlpack_managed_tensor(buf))).copy()
    with _NoJaxImport():
        return np.asarray(buf._single_device_array_to_np_array_did_copy()[0])


def copy_to_host_async(buf):
    """Starts the host copy where it is a real transfer (a CPU buffer is host memory)."""
    if buf.platform() != "cpu":
        with _NoJaxImport():
            buf._copy_single_device_array_to_host_async()


class _ArrayMeta(type):
    """``isinstance(x, Array)`` as one tuple check. Libraries ask it of every
    leaf (equinox's ``is_array`` on each call of a ``filter_jit`` function),
    and an ABC's check through ``ABCMeta.__instancecheck__`` costs twice as
    much. A subclass of ``Array`` joins the tuple and checks as usual."""

    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        if bases:
            global _ARRAY_TYPES
            _ARRAY_TYPES += (cls,)

    def __instancecheck__(cls, x):
        if cls is Array:
            return isinstance(x, _ARRAY_TYPES)
        return type.__instancecheck__(cls, x)

    def __subclasscheck__(cls, sub):
        if cls is Array:
            return sub is Array or issubclass(sub, _ARRAY_TYPES)
        return type.__subclasscheck__(cls, sub)


class Array(metaclass=_ArrayMeta):
    """The public array type: concrete arrays and tracers are both instances."""

    __slots__ = ()


_ARRAY_TYPES = (core.Tracer,)  # ArrayImpl joins below


class ArrayImpl:
    """A concrete array. An ``Array`` by ``_ArrayMeta``'s check rather than
    by subclassing: a subclass would take its metaclass, and every failing
    ``isinstance(x, ArrayImpl)`` on the dispatch path would call it (as in
    JAX, the concrete class has the plain ``type`` metaclass)."""

    __slots__ = ("_buf", "aval", "_npy", "__weakref__")
    __array_priority__ = 100

    def __init__(self, buf, aval):
        self._buf = buf
        self.aval = aval
        self._npy = None

    # -- metadata
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    itemsize = property(lambda self: self.aval.dtype.itemsize)

    @property
    def device(self):
        self._check_alive()
        return self._buf._sharding._device

    def devices(self):
        return {self.device}

    @property
    def sharding(self):
        self._check_alive()
        return self._buf._sharding

    @property
    def committed(self):
        return self._buf._committed

    # -- lifetime and synchronisation
    def _check_alive(self):
        if self._buf.is_deleted():
            raise RuntimeError(f"Array has been deleted with shape={self.aval.str_short(False)}.")

    def is_deleted(self):
        return self._buf.is_deleted()

    def delete(self):
        self._buf.delete()

    def block_until_ready(self):
        try:
            self._buf.block_until_ready()
        except Exception:  # a deleted buffer: JAX's message, not PJRT's
            self._check_alive()
            raise
        return self

    def is_ready(self):
        return self._buf.is_ready()

    def copy_to_host_async(self):
        self._check_alive()
        copy_to_host_async(self._buf)

    @property
    def _value(self) -> np.ndarray:
        """The host copy (made once: arrays are immutable)."""
        npy = self._npy
        if npy is None:
            self._check_alive()
            npy = host_copy(self._buf)
            npy.flags.writeable = False
            self._npy = npy
        return npy

    def on_device_size_in_bytes(self):
        return self._buf.on_device_size_in_bytes()

    def unsafe_buffer_pointer(self):
        return self._buf.unsafe_buffer_pointer()

    # -- DLPack export (xjit._src.dlpack)
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        from .dlpack import to_capsule
        return to_capsule(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        from .dlpack import dlpack_device
        return dlpack_device(self)

    # -- host conversions
    def __array__(self, dtype=None, copy=None):
        if getattr(self.aval.dtype, "extended", False):
            raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. "
                            "Use jax.random.key_data(arr) if you wish to extract the underlying "
                            "integer array.")
        v = self._value
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        return v.copy() if copy else v

    def item(self, *args):
        return self._value.item(*args)

    def tolist(self):
        return self._value.tolist()

    def __bool__(self):
        return bool(self._value)

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __complex__(self):
        return complex(self._value)

    def __index__(self):
        if not dtypes.is_int(self.aval.dtype):
            raise TypeError(f"only integer scalar arrays can be converted to a scalar index")
        return int(self._value)

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))

    def __hash__(self):
        raise TypeError("unhashable type: 'jaxlib._jax.ArrayImpl'")

    def __setitem__(self, idx, value):
        raise TypeError(errors.IMMUTABLE_MESSAGE)

    def __format__(self, spec):
        if not self.aval.shape:
            return format(self._value[()], spec)
        return format(self._value, spec)

    def __str__(self):
        if getattr(self.aval.dtype, "extended", False):
            return self.aval.dtype.array_repr(self)
        return str(self._value)

    def __repr__(self):
        if getattr(self.aval.dtype, "extended", False):  # key arrays show their key data
            return self.aval.dtype.array_repr(self)
        prefix = "Array("
        tail = f"dtype={self.aval.dtype.name}"
        if self.aval.weak_type:
            tail += ", weak_type=True"
        tail += ")"
        if self.is_deleted():
            return f"Array(<deleted>, shape={self.aval.shape}, {tail}"
        v = self._value
        if v.size == 0:
            return f"{prefix}[], shape={v.shape}, {tail}"
        width = np.get_printoptions()["linewidth"]
        body = np.array2string(v, separator=", ", prefix=prefix, suffix=",",
                               max_line_width=width)
        # JAX measures the last line as len(body) - body.rfind("\n") + 1 and,
        # when the dtype does not fit after it, pads with spaces on the same line
        last = len(body) - body.rfind("\n") + 1
        sep = " " * len(prefix) if last + len(tail) + 1 > width else " "
        return f"{prefix}{body},{sep}{tail}"

    def __reduce__(self):
        from .dispatch import device_put
        return (device_put, (self._value,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


_ARRAY_TYPES = (ArrayImpl, *_ARRAY_TYPES)
_fastpath.init(ArrayImpl)  # jit's fast path reads and makes ArrayImpls in C


def make_array(buf, aval) -> ArrayImpl:
    return ArrayImpl(buf, aval)
