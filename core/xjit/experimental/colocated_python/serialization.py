"""Pickling of functions and specs for colocated Python (as
``jax.experimental.colocated_python.serialization``).

A colocated function travels to the host of its devices as bytes. Devices,
meshes and single-device shardings are written as device ids and looked up
again among the receiving side's CPU devices, so what was captured on the
controller names the executor's devices. A mesh or sharding that a pickle
mentions many times is written once and referred to by number after that.

The reducers and ``_get_cpu_device_map`` are read from this module's globals
each time a pickle is made or read, so a library that replaces them (orbax's
Pathways patch does) changes what is written and read.
"""
from __future__ import annotations

import base64
import collections
import functools
import io
import threading
from typing import Any

import numpy as np

try:
    import cloudpickle
except ImportError:  # the same ModuleNotFoundError as JAX's when it is used
    cloudpickle = None

from xjit._src import xla_bridge as xb  # noqa: F401  (orbax reads serialization.xb)
from xjit._src.api import ShapeDtypeStruct
from xjit._src.lib import xla_client as xc
from xjit._src.mesh import Mesh
from xjit._src.prng import PRNG_IMPLS, PRNGImpl
from xjit._src.sharding import NamedSharding, PartitionSpec, SingleDeviceSharding

DeviceList = xc.DeviceList


class _SharedObjects(threading.local):
    """Per-thread state of the pickle being written (object -> number) or
    read (number -> object)."""

    def __init__(self):
        self.index: dict[Any, int] | None = None
        self.seen: list[Any] | None = None


_shared = _SharedObjects()


def _first_occurrence(number, rebuild, rebuild_args):
    obj = rebuild(*rebuild_args)
    if _shared.seen is None or len(_shared.seen) != number:
        raise ValueError("colocated_python: shared objects were read in a different order "
                         "than they were written")
    _shared.seen.append(obj)
    return obj


def _repeat_occurrence(number):
    return _shared.seen[number]


def _written_once(reduce):
    """Wraps a reducer so that equal objects after the first are pickled as a
    back reference."""

    @functools.wraps(reduce)
    def wrapper(obj):
        index = _shared.index
        if index is None:  # called outside _serialize (e.g. by a patch): plain reduction
            return reduce(obj)
        number = index.get(obj)
        if number is not None:
            return _repeat_occurrence, (number,)
        rebuild, rebuild_args = reduce(obj)
        number = index[obj] = len(index)
        return _first_occurrence, (number, rebuild, rebuild_args)

    return wrapper


@functools.cache
def _get_cpu_device_map() -> dict:
    """Device id -> CPU device, from the default backend's client, else from
    every backend's."""
    def collect(devices, into):
        for d in devices:
            if d.device_kind == "cpu":
                if d.id in into:
                    raise ValueError(f"Multiple CPU devices with id {d.id} found: "
                                     f"{into[d.id]} and {d}")
                into[d.id] = d
        return into

    found = collect(xb.local_devices()[0].client._get_all_devices(), {})
    if not found:
        for client in xb.backends().values():
            collect(client._get_all_devices(), found)
    return found


def _lookup_cpu_device(cpu_device_map, device_id):
    device = cpu_device_map.get(device_id)
    if device is None:
        raise ValueError(f"Invalid device ID {device_id}. Device list must contain only CPU "
                         "devices.")
    return device


def _device_ids(devices) -> np.ndarray:
    return np.vectorize(lambda d: d.id, otypes=[int])(np.asarray(devices, dtype=object))


def _devices_from_ids(ids) -> np.ndarray:
    table = _get_cpu_device_map()
    ids = np.asarray(ids)
    out = np.empty(ids.shape, dtype=object)
    for pos, i in np.ndenumerate(ids):
        out[pos] = _lookup_cpu_device(table, int(i))
    return out


@_written_once
def _reduce_mesh(mesh):
    return _unreduce_mesh, (_device_ids(mesh.devices), mesh.axis_names, mesh.axis_types)


def _unreduce_mesh(device_ids, axis_names, axis_types):
    return Mesh(_devices_from_ids(device_ids), axis_names, axis_types=axis_types)


@_written_once
def _reduce_named_sharding(sharding):
    if not isinstance(sharding.mesh, Mesh):
        raise TypeError("colocated_python can only send a NamedSharding over a concrete Mesh, "
                        f"got {type(sharding.mesh).__name__}")
    return _unreduce_named_sharding, (_reduce_mesh(sharding.mesh), sharding.spec,
                                      sharding.memory_kind)


def _unreduce_named_sharding(reduced_mesh, spec, memory_kind):
    rebuild, args = reduced_mesh
    return NamedSharding(rebuild(*args), spec, memory_kind=memory_kind)


@_written_once
def _reduce_device_list(device_list):
    return _unreduce_device_list, ([d.id for d in device_list],)


def _unreduce_device_list(device_ids):
    return DeviceList(tuple(_devices_from_ids(list(device_ids)).tolist()))


@_written_once
def _reduce_single_device_sharding(sharding):
    (device,) = tuple(sharding.device_set)
    return _unreduce_single_device_sharding, (device.id, sharding.memory_kind)


def _unreduce_single_device_sharding(device_id, memory_kind):
    device = _lookup_cpu_device(_get_cpu_device_map(), device_id)
    return SingleDeviceSharding(device, memory_kind=memory_kind)


def _reduce_prng_impl(impl):
    # Key dtypes compare their implementation by identity: name the registered one.
    return _registered_prng_impl, (impl.name,)


def _registered_prng_impl(name):
    return PRNG_IMPLS[name]


def _serialize(obj: Any) -> bytes:
    """Pickles a colocated function, its specs or its results' specs.

    For colocated_python's own use: the bytes are read back at once by the
    same program on hosts of the same tenant, never stored.
    """
    if cloudpickle is None:
        raise ModuleNotFoundError('No module named "cloudpickle"')
    module = globals()

    class _Pickler(cloudpickle.Pickler):
        dispatch_table = collections.ChainMap(
            {Mesh: module["_reduce_mesh"],
             NamedSharding: module["_reduce_named_sharding"],
             DeviceList: module["_reduce_device_list"],
             SingleDeviceSharding: module["_reduce_single_device_sharding"],
             PRNGImpl: _reduce_prng_impl},
            cloudpickle.CloudPickler.dispatch_table)

    if _shared.index is not None:
        raise RuntimeError("colocated_python: _serialize() does not nest")
    _shared.index = {}
    try:
        with io.BytesIO() as buf:
            _Pickler(buf).dump(obj)
            return buf.getvalue()
    finally:
        _shared.index = None


def _deserialize(serialized: bytes) -> Any:
    """Reads what :func:`_serialize` wrote."""
    if cloudpickle is None:
        raise ModuleNotFoundError('No module named "cloudpickle"')
    if _shared.seen is not None:
        raise RuntimeError("colocated_python: _deserialize() does not nest")
    _shared.seen = []
    try:
        return cloudpickle.loads(serialized)
    finally:
        _shared.seen = None


def _replicated_over(devices) -> NamedSharding:
    return NamedSharding(Mesh(np.array(tuple(devices), dtype=object), ("x",)), PartitionSpec())


def _make_specs_for_serialized_specs(devices) -> ShapeDtypeStruct:
    """The spec of the scalar string array that carries pickled specs."""
    return ShapeDtypeStruct(shape=(), dtype=np.dtypes.StringDType(),
                            sharding=_replicated_over(devices))


def _serialize_specs(specs_treedef, specs_leaves, devices) -> np.ndarray:
    """Pickled output specs as a base64 string scalar. (JAX ships it as a string
    jax.Array between hosts; in one process the host value is what is passed.)"""
    if not hasattr(np.dtypes, "StringDType"):
        raise TypeError("Serializing Colocated Python requires StringDType. Please use numpy "
                        "2.0.0 or later, or explicitly provide an output spec function.")
    text = base64.b64encode(_serialize((specs_treedef, specs_leaves))).decode("ascii")
    return np.array(text, dtype=np.dtypes.StringDType())


def _deserialize_specs(serialized_specs):
    """Reads :func:`_serialize_specs`' value: ``(treedef, leaves)``."""
    shards = getattr(serialized_specs, "addressable_shards", None)
    value = np.asarray(shards[0].data if shards else serialized_specs)
    return _deserialize(base64.b64decode(str(value.item()).encode("ascii")))
