"""Shardings for the single-device case (``jax.sharding``).

xjit runs every computation on one device, so every sharding here places the
whole array on one device; ``Mesh``/``NamedSharding``/``PartitionSpec`` exist
so tutorial code that names a one-device mesh runs and reprs as in JAX. The
classes derive from jaxlib's C++ single-device sharding so a PJRT buffer can
carry them (``x.sharding`` after ``device_put(x, sharding)``).
"""
from __future__ import annotations

import collections
import enum
import math

import numpy as np
from jaxlib import _jax

from xjit._src import xla_bridge as backend

Sharding = _jax.Sharding


class AxisType(enum.Enum):
    """How a mesh axis is partitioned: by the compiler, explicitly, or by hand."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


class _Unconstrained:
    def __repr__(self):
        return "UNCONSTRAINED"


class PartitionSpec:
    """Per-dimension mesh axis names (None: not partitioned)."""
    UNCONSTRAINED = _Unconstrained()

    __slots__ = ("_parts",)

    def __init__(self, *parts):
        self._parts = tuple(tuple(p) if isinstance(p, list) else p for p in parts)

    def __len__(self):
        return len(self._parts)

    def __getitem__(self, i):
        return self._parts[i]

    def __iter__(self):
        return iter(self._parts)

    def __eq__(self, other):
        return isinstance(other, PartitionSpec) and self._parts == other._parts

    def __hash__(self):
        return hash(self._parts)

    def __repr__(self):
        return "P(" + "".join(f"{p!r}, " for p in self._parts)[:-2] + \
            ("," if len(self._parts) == 1 else "") + ")"

    __str__ = __repr__

    def _axis_names(self):
        for p in self._parts:
            if isinstance(p, tuple):
                yield from p
            elif p is not None and p is not PartitionSpec.UNCONSTRAINED:
                yield p


class Mesh:
    """A named-axis array of devices."""

    def __init__(self, devices, axis_names, axis_types=None):
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        self.devices = np.asarray(devices, dtype=object)
        self.axis_names = tuple(axis_names)
        if self.devices.ndim != len(self.axis_names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length "
                "of its second argument (`axis_names`), but got "
                f"devices.ndim == {self.devices.ndim} and len(axis_names) == "
                f"{len(self.axis_names)}.")
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(self.axis_names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(self.axis_names)
        self.axis_types = tuple(axis_types)
        if len(self.axis_types) != len(self.axis_names):
            raise ValueError("Number of axis names should match the number of axis_types. Got "
                             f"axis_names={self.axis_names} and axis_types={self.axis_types}")

    shape = property(lambda self: collections.OrderedDict(self.shape_tuple))
    shape_tuple = property(lambda self: tuple(zip(self.axis_names, self.devices.shape)))
    axis_sizes = property(lambda self: tuple(self.devices.shape))
    size = property(lambda self: self.devices.size)
    empty = property(lambda self: self.devices.size == 0)
    device_ids = property(lambda self: np.vectorize(lambda d: d.id, otypes=[int])(self.devices))
    is_multi_process = property(lambda self: False)
    local_mesh = property(lambda self: self)

    def _key(self):
        return (self.axis_names, self.axis_types, self.devices.shape,
                tuple(d.id for d in self.devices.flat))

    def __eq__(self, other):
        return isinstance(other, Mesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
                f"axis_types={self.axis_types})")

    def __str__(self):
        sizes = ", ".join(f"{n!r}: {s}" for n, s in self.shape_tuple)
        return f"Mesh({sizes}, axis_types={self.axis_types})"


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None):
    """A mesh of the first ``prod(axis_shapes)`` devices (axes Explicit by default)."""
    axis_shapes = tuple(axis_shapes)
    devices = list(backend.devices() if devices is None else devices)
    need = math.prod(axis_shapes)
    if len(devices) < need:
        raise ValueError(f"Number of devices {len(devices)} must be >= the product of "
                         f"mesh_shape {axis_shapes}")
    if isinstance(axis_names, str):
        axis_names = (axis_names,)
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(tuple(axis_names))
    grid = np.empty(need, dtype=object)
    grid[:] = devices[:need]
    return Mesh(grid.reshape(axis_shapes), axis_names, axis_types)


class DuplicateSpecError(Exception):
    pass


def _device_map(sharding, shape):
    return {d: (slice(None),) * len(shape) for d in sharding.device_set}


class SingleDeviceSharding(backend.Sharding):
    """The whole array on one device."""

    def __init__(self, device, *, memory_kind=None):
        super().__init__(device)

    memory_kind = property(lambda self: "device")
    num_devices = property(lambda self: 1)
    is_fully_replicated = property(lambda self: True)
    is_fully_addressable = property(lambda self: True)
    addressable_devices = property(lambda self: {self._device})
    _device_assignment = property(lambda self: (self._device,))

    def __eq__(self, other):
        return (isinstance(other, backend.Sharding) and not isinstance(other, NamedSharding)
                and other._device == self._device)

    def __hash__(self):
        return hash(self._device)

    def devices_indices_map(self, global_shape):
        return _device_map(self, global_shape)

    addressable_devices_indices_map = devices_indices_map

    def shard_shape(self, global_shape):
        return tuple(global_shape)

    def check_compatible_aval(self, shape):
        pass


class NamedSharding(backend.Sharding):
    """An array laid out over a mesh by a PartitionSpec (one device here)."""

    def __init__(self, mesh, spec, *, memory_kind=None):
        if not isinstance(spec, PartitionSpec):
            raise TypeError("spec of NamedSharding must be a PartitionSpec, got "
                            f"{type(spec).__name__}")
        seen = set()
        for name in spec._axis_names():
            if name not in mesh.axis_names:
                raise ValueError(f"Resource axis: {name} of {spec} is not found in mesh: "
                                 f"{mesh.axis_names}.")
            if name in seen:
                raise DuplicateSpecError(
                    "A single NamedSharding spec specification can map every mesh axis to at "
                    f"most one positional dimension, but {spec} has duplicate entries for "
                    f"`{name}`")
            seen.add(name)
        super().__init__(mesh.devices.flat[0])
        self.mesh = mesh
        self.spec = spec

    memory_kind = property(lambda self: "device")
    num_devices = property(lambda self: self.mesh.size)
    device_set = property(lambda self: set(self.mesh.devices.flat))
    addressable_devices = device_set
    _device_assignment = property(lambda self: tuple(self.mesh.devices.flat))
    is_fully_addressable = property(lambda self: True)

    @property
    def is_fully_replicated(self):
        return all(self.mesh.shape[n] == 1 for n in self.spec._axis_names())

    def __eq__(self, other):
        return (isinstance(other, NamedSharding) and self.spec == other.spec
                and self.mesh == other.mesh)

    def __hash__(self):
        return hash((self.mesh, self.spec))

    def __repr__(self):
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec}, memory_kind=device)"

    def check_compatible_aval(self, shape):
        if len(shape) < len(self.spec):
            extra = " For scalars the PartitionSpec should be P()" if len(shape) == 0 else ""
            raise ValueError(f"Sharding {self} is only valid for values of rank at least "
                             f"{len(self.spec)}, but was applied to a value of rank "
                             f"{len(shape)}.{extra}")

    def devices_indices_map(self, global_shape):
        return _device_map(self, global_shape)

    addressable_devices_indices_map = devices_indices_map

    def shard_shape(self, global_shape):
        return tuple(global_shape)


def place(x, sharding):
    """``device_put(x, sharding)``: the array on the sharding's device, carrying
    ``sharding`` as its ``.sharding``."""
    from .array import ArrayImpl
    from .dispatch import device_put
    if getattr(sharding, "num_devices", 1) != 1:
        raise ValueError(f"xjit runs on one device; {sharding} spans "
                         f"{sharding.num_devices} devices")
    arr = device_put(x, sharding._device)
    try:
        getattr(sharding, "check_compatible_aval", lambda shape: None)(arr.shape)
    except ValueError as e:
        raise ValueError("One of device_put args is incompatible with its sharding annotation "
                         f"{sharding}: {e}") from None
    if type(arr) is not ArrayImpl:  # a tracer: placement is the caller's jit's business
        return arr
    aval = arr.aval
    if getattr(aval.dtype, "extended", False):  # key arrays hold their physical data
        aval = aval.dtype.physical_aval(aval)
    buf = _jax.ArrayImpl(aval, sharding, [arr._buf], committed=True, _skip_checks=True)
    return ArrayImpl(buf, arr.aval)
