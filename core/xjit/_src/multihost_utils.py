"""``jax.experimental.multihost_utils`` for a program run by one process (what
orbax's checkpointing calls at import and around each save): gathers and
broadcasts between processes are then host copies, and barriers pass at once.
Several processes (``jax.distributed``) are refused rather than half-served."""
from __future__ import annotations

import zlib

import numpy as np

from xjit._src import tree_util, xla_bridge


def _one_process(api):
    n = 1 + max(d.process_index for d in xla_bridge.devices())
    if n != 1:
        raise NotImplementedError(f"multihost_utils.{api} across {n} processes is not supported "
                                  "by xjit yet; it runs for a single process")


def broadcast_one_to_all(in_tree, is_source=None):
    """``in_tree`` as host arrays: with one process the source is this one."""
    _one_process("broadcast_one_to_all")
    return tree_util.tree_map(np.asarray, in_tree)


def process_allgather(in_tree, tiled=False):
    """Each leaf as a host array from every process: stacked on a new axis 0,
    or (``tiled``) concatenated along axis 0, which for one process is the leaf."""
    _one_process("process_allgather")

    def gather(x):
        x = np.asarray(x)
        return x if tiled else np.expand_dims(x, 0)
    return tree_util.tree_map(gather, in_tree)


def assert_equal(in_tree, fail_message=""):
    """Every process holds the same values: trivially, with one."""
    _one_process("assert_equal")


def sync_global_devices(name):
    """A barrier over the processes (``name`` must agree between them)."""
    assert_equal(np.uint32(zlib.crc32(name.encode())), f"sync_global_devices name mismatch "
                                                       f"('{name}')")


def reached_preemption_sync_point(step_id):
    """False: no preemption notice reaches a process outside ``jax.distributed``."""
    _one_process("reached_preemption_sync_point")
    return False
