"""``jax.distributed``: one program run by several processes, each with its
own devices, through jaxlib's distributed runtime.

Process 0 runs the coordination service at ``coordinator_address``; every
process connects a client to it, and the CPU client is then made knowing
the other processes (their devices become ``jax.devices()``, this process's
are ``jax.local_devices()``) with gloo collectives between them. This must
happen before the first computation makes the clients.
"""
from __future__ import annotations

import os

from jaxlib import _jax

from xjit._src import xla_bridge


class _State:
    service = None
    client = None
    process_id = 0
    num_processes = 1


_state = _State()
global_state = _state  # JAX's name for it (orbax reads global_state.client / .process_id)


def initialize(coordinator_address=None, num_processes=None, process_id=None,
               local_device_ids=None, cluster_detection_method=None, initialization_timeout=300,
               coordinator_bind_address=None, heartbeat_timeout_seconds=100, **_):
    """Join the run of ``num_processes`` processes as ``process_id``."""
    if _state.client is not None:
        raise RuntimeError("distributed.initialize should only be called once.")
    if xla_bridge._backends is not None:
        raise RuntimeError("jax.distributed.initialize() must be called before any JAX "
                           "computations are executed.")
    coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
    if coordinator_address is None or num_processes is None or process_id is None:
        raise ValueError("coordinator_address, num_processes and process_id should be "
                         "defined (xjit detects no cluster environment).")
    if not 0 <= process_id < num_processes:
        raise ValueError(f"process_id {process_id} is out of range for {num_processes} "
                         "processes")
    if process_id == 0:
        bind = coordinator_bind_address or "[::]:" + coordinator_address.rsplit(":", 1)[1]
        _state.service = _jax.get_distributed_runtime_service(
            bind, num_processes, heartbeat_timeout=heartbeat_timeout_seconds)
    client = _jax.get_distributed_runtime_client(
        coordinator_address, process_id, init_timeout=initialization_timeout,
        heartbeat_timeout=heartbeat_timeout_seconds)
    client.connect()
    _state.client, _state.process_id, _state.num_processes = client, process_id, num_processes
    options = dict(distributed_client=client, node_id=process_id, num_nodes=num_processes,
                   collectives=_jax.make_gloo_tcp_collectives(distributed_client=client))
    if local_device_ids is not None:
        ids = [local_device_ids] if isinstance(local_device_ids, int) else local_device_ids
        options["num_devices"] = len(ids)
    xla_bridge.distributed_cpu_options.clear()
    xla_bridge.distributed_cpu_options.update(options)


def is_initialized():
    return _state.client is not None


def shutdown():
    """Leave the run (process 0 also stops the coordination service)."""
    if _state.client is not None:
        _state.client.shutdown()
        _state.client = None
    if _state.service is not None:
        _state.service.shutdown()
        _state.service = None
    xla_bridge.distributed_cpu_options.clear()
