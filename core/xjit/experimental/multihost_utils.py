"""``xjit.experimental.multihost_utils``, as ``jax.experimental.multihost_utils``
(one process)."""
from xjit._src.multihost_utils import (  # noqa: F401
    assert_equal, broadcast_one_to_all, process_allgather, reached_preemption_sync_point,
    sync_global_devices)
