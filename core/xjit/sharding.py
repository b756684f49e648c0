"""``jax.sharding``: single-device shardings, meshes and partition specs."""
from xjit._src.sharding import (  # noqa: F401
    AxisType, Mesh, NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding)

__all__ = ["AxisType", "Mesh", "NamedSharding", "PartitionSpec", "Sharding",
           "SingleDeviceSharding"]
