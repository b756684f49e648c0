"""JAX's ``jax._src.sharding_impls``: the concrete shardings, which xjit keeps
in ``sharding.py``. jaxlib's C++ imports this module by JAX's name each time it
makes a one-device sharding (splitting an array into its shards, one import
per shard): under the takeover that import must find a module, or each one
searches the whole path and fails."""
from xjit._src.sharding import (  # noqa: F401
    NamedSharding, PartitionSpec, SingleDeviceSharding, make_single_device_sharding)
