"""``colocated_python``, ``colocated_python_class`` and
``colocated_cpu_devices`` (as ``jax.experimental.colocated_python.api``)."""
from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from xjit._src import xla_bridge
from xjit._src.api_util import fun_signature
from xjit._src.mesh import Mesh
from xjit.experimental.colocated_python.func import make_callable
from xjit.experimental.colocated_python.obj import wrap_class


def _sourceinfo(fun) -> str | None:
    code = getattr(getattr(fun, "__init__", fun), "__code__", None) or getattr(fun, "__code__", None)
    name = getattr(fun, "__name__", type(fun).__name__)
    if code is None:
        return None
    return f"{name} at {code.co_filename}:{code.co_firstlineno}"


def colocated_cpu_devices(devices_or_mesh):
    """The CPU devices on the same hosts as the given devices (in order: the
    i-th result goes with the i-th input), or a mesh of the same shape and
    axes over them.

    A device with a ``colocation_id`` is matched to the CPU device sharing
    it; otherwise each process's inputs take that process's CPU devices in
    order, which for CPU devices of one process are the devices themselves
    when all of them are given in order.
    """
    if isinstance(devices_or_mesh, Mesh):
        return _colocated_cpu_mesh_cached(devices_or_mesh)
    devices = tuple(devices_or_mesh)
    if not devices:
        raise IndexError("colocated_cpu_devices needs at least one device, got none")
    try:
        return _colocated_cpu_devices_cached(devices)
    except (ValueError, AttributeError):
        return _colocated_cpu_devices_cached_fallback_to_cpu_backend(devices)


@functools.lru_cache(maxsize=1024)
def _colocated_cpu_devices_cached(devices: tuple) -> list:
    by_colocation = collections.defaultdict(list)
    for d in devices[0].client._get_all_devices():
        if d.device_kind == "cpu":
            by_colocation[d.colocation_id].append(d)  # AttributeError on PJRT devices
    if not by_colocation:
        raise ValueError("No CPU devices found")
    out = []
    for d in devices:
        matches = by_colocation[d.colocation_id]
        if not matches:
            raise ValueError(f"Device {d} has no colocated devices")
        if len(matches) > 1:
            raise ValueError(f"Ambiguous colocated devices; device {d} has {len(matches)} "
                             f"colocated devices: {matches}")
        out.append(matches[0])
    return out


@functools.lru_cache(maxsize=1024)
def _colocated_cpu_devices_cached_fallback_to_cpu_backend(devices: tuple) -> list:
    if devices[0].device_kind == "cpu":
        cpus = [d for d in devices[0].client._get_all_devices() if d.device_kind == "cpu"]
    else:  # an accelerator's CPU devices come from the separate CPU backend
        cpus = list(xla_bridge.devices("cpu"))
    free = collections.defaultdict(collections.deque)
    for d in cpus:
        free[d.process_index].append(d)
    out = []
    for d in devices:
        if not free[d.process_index]:
            raise ValueError(f"Process {d.process_index} does not have enough local CPU devices")
        out.append(free[d.process_index].popleft())
    return out


@functools.lru_cache(maxsize=1024)
def _colocated_cpu_mesh_cached(mesh: Mesh) -> Mesh:
    flat = colocated_cpu_devices(tuple(mesh.devices.flat))
    return Mesh(np.array(flat, dtype=object).reshape(mesh.axis_sizes), mesh.axis_names,
                axis_types=mesh.axis_types)


def colocated_python(fun: Callable[..., Any]):
    """Makes ``fun`` run as Python on the hosts of its arguments' devices.

    The result is called like ``fun`` on jax.Arrays placed on CPU devices
    (see :func:`colocated_cpu_devices`) and has ``specialize(in_specs=...,
    out_specs_fn=..., devices=...)``. Without ``out_specs_fn`` the first call
    of each input signature runs synchronously to learn the output specs.
    """
    return make_callable(fun, _sourceinfo(fun), fun_signature(fun))


def colocated_python_class(cls: type) -> type:
    """A wrapper class whose methods run on a ``cls`` object living on the
    hosts of the call's devices, made at the first method call from the
    wrapper's constructor arguments and dropped with the wrapper."""
    return wrap_class(cls, _sourceinfo(cls))
