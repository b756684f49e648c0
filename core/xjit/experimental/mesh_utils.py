"""``xjit.experimental.mesh_utils``: device meshes laid out for a mesh shape, as
``jax.experimental.mesh_utils``. Devices are placed in their listed order
(one CPU or GPU process has no physical topology to follow)."""
from __future__ import annotations

import math

import numpy as np

from xjit._src import xla_bridge

device_kind_handler_dict: dict = {}  # per-device-kind layout hooks (none needed here)


def create_device_mesh(mesh_shape, devices=None, *, contiguous_submeshes=False,
                       allow_split_physical_axes=False) -> np.ndarray:
    """An array of ``devices`` (default: all) of shape ``mesh_shape``."""
    devices = list(xla_bridge.devices() if devices is None else devices)
    mesh_shape = tuple(mesh_shape)
    if math.prod(mesh_shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product of "
                         f"mesh_shape {mesh_shape}")
    grid = np.empty(len(devices), dtype=object)
    grid[:] = devices
    return grid.reshape(mesh_shape)


def create_hybrid_device_mesh(mesh_shape, dcn_mesh_shape, devices=None, *,
                              process_is_granule=False, should_sort_granules_by_key=True,
                              allow_split_physical_axes=False) -> np.ndarray:
    """A mesh spanning several slices (``dcn_mesh_shape``) of ``mesh_shape`` each."""
    devices = list(xla_bridge.devices() if devices is None else devices)
    attr = "process_index" if process_is_granule else "slice_index"
    if not all(hasattr(d, attr) for d in devices):
        raise ValueError(f"Device {devices[0]} does not have attribute {attr}. See "
                         "`process_is_granule` option.")
    granules = {}
    for d in devices:
        granules.setdefault(getattr(d, attr), []).append(d)
    per = [create_device_mesh(mesh_shape, g) for _, g in sorted(granules.items())]
    blocks = np.empty(len(per), dtype=object)
    blocks[:] = per
    blocks = blocks.reshape(tuple(dcn_mesh_shape))
    return np.block(blocks.tolist())
