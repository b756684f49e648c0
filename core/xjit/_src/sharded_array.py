"""Arrays on a mesh: one jaxlib array made of one buffer per device, laid
out by a ``NamedSharding`` (a mesh of one device too, whose arrays keep the
sharding and its type as JAX's do).

``ShardedArrayImpl`` is an ``ArrayImpl`` whose buffer spans a mesh's devices.
It is its own class so that the one-device dispatch paths, which test
``type(x) is ArrayImpl``, never take it: jit sends it down the multi-device
path (``pxla``), and an eager primitive reads it as a host value.
Reading the value (``np.asarray``, printing) gathers the shards.
"""
from __future__ import annotations

import numpy as np
from jaxlib import _jax

from xjit._src import core, dtypes, xla_bridge as backend
from xjit._src.array import ArrayImpl, _NoJaxImport, host_copy
from xjit._src.config import config
from xjit._src.mesh import Mesh


class Shard:
    """One device's piece of an array: where it sits in the global array
    (``index``, a tuple of slices), and its data as a one-device array."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


def _block_key(index):
    return tuple((s.start, s.stop) for s in index)


def typed_aval(aval, sharding):
    """``aval`` as an array laid out by ``sharding`` has it: carrying the
    sharding (over its abstract mesh, naming Explicit axes only) when the
    mesh has Explicit axes, as ``jax.typeof`` shows it."""
    mesh = getattr(sharding, "mesh", None)
    if mesh is None or not mesh._any_axis_explicit:
        return aval if aval.spec is None else aval.update(sharding=None)
    from xjit._src.sharding_in_types import type_sharding
    if getattr(aval.dtype, "extended", False):  # a key array: its key data's trailing dims
        spec = sharding.spec
        sharding = sharding.update(spec=spec.update(partitions=spec.partitions[:aval.ndim]))
    return aval.update(sharding=type_sharding(sharding))


def concrete_mesh(abstract, mesh):
    """A mesh of ``mesh``'s devices with ``abstract``'s axes (the same mesh
    when they agree)."""
    if abstract.axis_names == mesh.axis_names and abstract.axis_sizes == mesh.axis_sizes \
            and abstract.axis_types == mesh.axis_types:
        return mesh
    if abstract.size != mesh.size:
        raise ValueError(f"The mesh of the type, {abstract}, has {abstract.size} devices but "
                         f"the computation runs on {mesh.size}")
    key = (abstract, mesh)
    got = _concrete_meshes.get(key)
    if got is None:
        got = _concrete_meshes[key] = Mesh(
            mesh.devices.reshape(abstract.axis_sizes), abstract.axis_names, abstract.axis_types)
    return got


_concrete_meshes: dict = {}


def _regroup(mesh, onto):
    """Each axis of ``mesh`` as the run of ``onto``'s axes (same devices in
    the same order) whose sizes multiply to its size; None if none does."""
    out, names, k = {}, list(onto.axis_names), 0
    sizes = dict(onto.shape_tuple)
    for name, size in mesh.shape_tuple:
        group, n = [], 1
        while n < size and k < len(names):
            group.append(names[k])
            n *= sizes[names[k]]
            k += 1
        if n != size:
            return None
        out[name] = tuple(group)
    return out


def _physical(aval):
    return aval.dtype.physical_aval(aval) if getattr(aval.dtype, "extended", False) else aval


class ShardedArrayImpl(ArrayImpl):
    """A concrete array whose buffer is split over (or replicated on) a
    mesh's devices."""

    __slots__ = ()

    @property
    def device(self):
        devices = self.sharding.device_set  # a one-device mesh has its device, as in JAX
        if len(devices) == 1:
            return next(iter(devices))
        raise ValueError("Length of devices is greater than 1. Please use `.devices()`.")

    def devices(self):
        self._check_alive()
        return set(self.sharding._device_assignment)

    is_fully_replicated = property(lambda self: self.sharding.is_fully_replicated)
    is_fully_addressable = property(lambda self: self.sharding.is_fully_addressable)

    def _shard_buffers(self):
        """One-device jaxlib arrays of this process's devices, in the
        sharding's device order."""
        self._check_alive()
        with _NoJaxImport():  # jaxlib imports jax.core and sharding_impls to make them
            return self._buf._arrays

    @property
    def addressable_shards(self):
        sharding = self.sharding
        indices = sharding.devices_indices_map(self.aval.shape)
        shard_aval = self.aval.update(shape=sharding.shard_shape(self.aval.shape))
        physical = _physical(shard_aval)
        replicas: dict = {}  # block -> devices holding it, in the mesh's order
        for device in sharding._device_assignment:
            replicas.setdefault(_block_key(indices[device]), []).append(device)
        shards = []
        for device, buf in zip(sharding._addressable_device_assignment, self._shard_buffers()):
            index = indices[device]
            replica = replicas[_block_key(index)].index(device)
            single = _jax.ArrayImpl(physical, backend.sharding_for(device), [buf],
                                    committed=True, _skip_checks=True)
            shards.append(Shard(device, index, replica, ArrayImpl(single, shard_aval)))
        return shards

    @property
    def global_shards(self):
        if not self.is_fully_addressable:
            raise NotImplementedError("xjit lists the shards of this process's devices only "
                                      "(addressable_shards)")
        return self.addressable_shards

    def addressable_data(self, index):
        return self.addressable_shards[index].data

    @property
    def _value(self) -> np.ndarray:
        npy = self._npy
        if npy is None:
            sharding = self.sharding
            if not (sharding.is_fully_addressable or sharding.is_fully_replicated):
                raise RuntimeError(
                    "Fetching value for `jax.Array` that spans non-addressable (non process "
                    "local) devices is not possible. You can use "
                    "`jax.experimental.multihost_utils.process_allgather` to print the global "
                    "array or use `.addressable_shards` method of jax.Array to inspect the "
                    "addressable (process local) shards.")
            indices = sharding.devices_indices_map(self.aval.shape)
            npy = None
            for device, buf in zip(sharding._addressable_device_assignment,
                                   self._shard_buffers()):
                piece = host_copy(buf)
                if npy is None:  # a key array's value is its key data
                    npy = np.empty(_physical(self.aval).shape, piece.dtype)
                npy[indices[device]] = piece
            npy.flags.writeable = False
            self._npy = npy
        return npy

    def copy_to_host_async(self):
        self._check_alive()

    def on_device_size_in_bytes(self):
        return sum(b.on_device_size_in_bytes() for b in self._shard_buffers())

    def unsafe_buffer_pointer(self):
        raise ValueError("unsafe_buffer_pointer() is supported only for unsharded arrays.")


def _host_value(x, aval):
    from xjit._src.dispatch import host_value
    if isinstance(x, ArrayImpl):
        if getattr(aval.dtype, "extended", False):  # a key array: its key data
            return x._value if type(x) is ShardedArrayImpl else host_copy(x._buf)
        return x._value
    return host_value(x, aval.dtype)


def _assemble(aval, sharding, pieces):
    """An array of ``aval`` from one host value per device of ``sharding``."""
    buf = _jax.batched_device_put(_physical(aval), sharding, pieces,
                                  list(sharding._addressable_device_assignment), committed=True,
                                  enable_x64=config.jax_enable_x64)
    return ShardedArrayImpl(buf, typed_aval(aval, sharding))


def place_sharded(x, sharding):
    """``device_put(x, sharding)`` for a sharding over a mesh."""
    if isinstance(x, core.Tracer):  # placement inside a trace is its jit's business
        return x
    if type(x) is ShardedArrayImpl and x.sharding == sharding:
        return x
    aval = core.aval_of(x)
    if type(x) is ShardedArrayImpl and not getattr(sharding.spec, "unreduced", None) and \
            not x.sharding.spec.unreduced and x.sharding.is_equivalent_to(sharding, aval.ndim):
        # the same blocks on the same devices (a mesh's axes retyped): no copy
        aval = aval.update(sharding=None)
        buf = _jax.ArrayImpl(_physical(aval), sharding, x._shard_buffers(), committed=True,
                             _skip_checks=True)
        return ShardedArrayImpl(buf, typed_aval(aval, sharding))
    try:
        sharding.check_compatible_aval(aval.shape)
    except ValueError as e:
        raise ValueError("One of device_put args is incompatible with its sharding annotation "
                         f"{sharding}: {e}") from None
    indices = sharding.devices_indices_map(aval.shape)
    value = _host_value(x, aval)
    pieces = [value[indices[d]] for d in sharding._addressable_device_assignment]
    unreduced = getattr(getattr(sharding, "spec", None), "unreduced", None)
    if unreduced:
        pieces = _unreduced_pieces(x, sharding, unreduced, indices, pieces)
    return _assemble(aval, sharding, pieces)


def _unreduced_pieces(x, sharding, unreduced, indices, pieces):
    """The per-device values of an array unreduced over mesh axes: they sum
    to the value over those axes. Each device keeps what ``x``'s own layout
    put there (zeros elsewhere), as JAX's reshard leaves it; a value from
    elsewhere sits on the devices first along those axes."""
    mesh = sharding.mesh
    own = x.sharding.devices_indices_map(x.shape) if type(x) is ShardedArrayImpl and \
        x.sharding.mesh == mesh else None
    coords = dict(zip(sharding._device_assignment, np.ndindex(*mesh.axis_sizes)))
    at = [mesh.axis_names.index(a) for a in unreduced]
    out = []
    for d, piece in zip(sharding._addressable_device_assignment, pieces):
        block = np.zeros_like(piece)
        if own is not None:  # the part of this device's block that it held before
            lo = [s.start or 0 for s in indices[d]]
            sel = tuple(slice(max(a.start or 0, l) - l, min(a.stop if a.stop is not None else n,
                                                            l + m) - l)
                        for a, l, m, n in zip(own[d], lo, piece.shape, x.shape))
            block[sel] = piece[sel]
        elif all(coords[d][i] == 0 for i in at):
            block = piece
        out.append(block)
    return out


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """An array of ``shape`` laid out by ``sharding`` whose shard at ``index``
    is ``data_callback(index)``."""
    shape = tuple(shape)
    indices = sharding.devices_indices_map(shape)
    pieces = [data_callback(indices[d]) for d in sharding._addressable_device_assignment]
    first = pieces[0]
    aval = core.ShapedArray(shape, dtype if dtype is not None else dtypes.canonicalize_dtype(
        first.dtype if hasattr(first, "dtype") else core.aval_of(first).dtype))
    pieces = [np.asarray(p, aval.dtype) for p in pieces]
    if not hasattr(sharding, "mesh"):  # a one-device sharding
        from .sharding import place
        return place(pieces[0], sharding)
    return _assemble(aval, sharding, pieces)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """An array laid out by ``sharding`` from this process's part of it:
    ``local_data`` is the block of the global array this process's devices
    hold (all of it in a run of one process)."""
    local = np.asarray(local_data)
    if global_shape is None:  # each dimension as many times larger as it has blocks elsewhere
        everywhere = sharding.devices_indices_map(local.shape)
        here = sharding.addressable_devices_indices_map(local.shape)
        global_shape = tuple(
            n * len({_block_key(i)[d] for i in everywhere.values()})
            // len({_block_key(i)[d] for i in here.values()})
            for d, n in enumerate(local.shape))
    global_shape = tuple(global_shape)
    here = sharding.addressable_devices_indices_map(global_shape)
    starts = [min(i[d].start or 0 for i in here.values()) for d in range(len(global_shape))]

    def piece(index):
        return local[tuple(slice((s.start or 0) - o, (s.stop if s.stop is not None else n) - o)
                           for s, o, n in zip(index, starts, global_shape))]
    return make_array_from_callback(global_shape, sharding, piece, dtype=local.dtype)


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None):
    """An array of ``shape`` laid out by ``sharding`` from its shards, one
    one-device array per device (in any order)."""
    shape = tuple(shape)
    arrays = list(arrays)
    if not arrays:
        raise ValueError("make_array_from_single_device_arrays requires a list of concrete "
                         "arrays as input, but got an empty list.")
    by_device = {}
    for a in arrays:
        if not isinstance(a, ArrayImpl) or type(a) is ShardedArrayImpl:
            raise TypeError("make_array_from_single_device_arrays requires a list of concrete "
                            f"one-device arrays as input, got {type(a)}")
        by_device[a.device] = a
    want = sharding.shard_shape(shape)
    for a in arrays:
        if a.shape != want:
            raise ValueError(f"Expected shard shape {want} doesn't match the single device "
                             f"array shape {a.shape}. Shape of Array is {a.aval.str_short()} "
                             f"with sharding {sharding}")
    missing = [d for d in sharding._addressable_device_assignment if d not in by_device]
    if missing:
        raise ValueError(f"Sharding {sharding} needs an array on each of its devices; none "
                         f"was given for {missing}")
    aval = arrays[0].aval.update(shape=shape, weak_type=False)
    if not hasattr(sharding, "mesh"):  # a one-device sharding
        from .sharding import place
        return place(arrays[0], sharding)
    bufs = [by_device[d]._buf for d in sharding._addressable_device_assignment]
    buf = _jax.ArrayImpl(_physical(aval), sharding, bufs, committed=True, _skip_checks=True)
    return ShardedArrayImpl(buf, typed_aval(aval, sharding))


def _single_device_shards(arr):
    """A one-device array's one shard: all of it."""
    index = (slice(None),) * arr.ndim
    return [Shard(arr.device, index, 0, arr)]


# A one-device array has its shards too (jax.Array's API on every array).
ArrayImpl.addressable_shards = property(_single_device_shards)
ArrayImpl.global_shards = property(_single_device_shards)
