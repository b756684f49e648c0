"""``jax.sharding``: shardings, meshes and partition specs (one device), the mesh
in context, and the sharding operations of explicit-sharding code."""
from xjit._src.mesh import (  # noqa: F401
    AbstractDevice, AbstractMesh, AxisType, Mesh, get_abstract_mesh, get_mesh, set_mesh,
    use_abstract_mesh)
from xjit._src.sharding import (  # noqa: F401
    NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding, auto_axes, explicit_axes,
    make_single_device_sharding, reshard)

__all__ = ["AbstractDevice", "AbstractMesh", "AxisType", "Mesh", "NamedSharding",
           "PartitionSpec", "Sharding", "SingleDeviceSharding", "auto_axes", "explicit_axes",
           "get_abstract_mesh", "get_mesh", "make_single_device_sharding", "reshard",
           "set_mesh", "use_abstract_mesh"]
