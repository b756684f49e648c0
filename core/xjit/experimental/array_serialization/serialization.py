"""Checkpointing jax.Arrays with TensorStore (as
``jax.experimental.array_serialization.serialization``).

:class:`GlobalAsyncCheckpointManager` writes a list of arrays in the
background: ``serialize`` returns once the shards have been copied off the
devices, a thread waits for the writes to commit (and, with several
processes, for every process at a barrier), and then process 0 runs the
commit callback. ``wait_until_finished`` joins that thread and re-raises
what it raised.
"""
from __future__ import annotations

import abc
import asyncio
import functools
import itertools
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import tensorstore as ts  # noqa: F401  (part of the module's namespace in JAX)
from jaxlib import _jax

from xjit._src import distributed, monitoring, tree_util
from xjit._src.api import process_count, process_index
from xjit.experimental.array_serialization import tensorstore_impl as ts_impl
from xjit.experimental.array_serialization.tensorstore_impl import (  # noqa: F401
    _DEFAULT_BASE_DRIVER as _DEFAULT_DRIVER,
    _LimitInFlightBytes,
    _run_deserialization as run_deserialization,
    _run_serialization as run_serialization,
    _TS_CONTEXT as TS_CONTEXT,
    async_deserialize,
    async_serialize,
)

# The zarr (v2) layout of older checkpoints, kept under the old names.
_get_metadata = functools.partial(ts_impl._get_tensorstore_metadata, driver="zarr")
get_tensorstore_spec = functools.partial(ts_impl.get_tensorstore_spec, driver="zarr",
                                         ocdbt=False)

_CHECKPOINT_SUCCESS = "checkpoint_write_success"
_module_unique_count = itertools.count()
_DISTRIBUTED_SYSTEM_MSG = ("Please initialize the distributed system via "
                           "`jax.distributed.initialize()` at the start of your program.")
_REMOTE_URL_PREFIXES = ["gs://", "s3://"]
_REMOTE_DRIVER_VALIDATIONS = [{"driver": "gcs", "path_regex": None},
                              {"driver": "s3", "path_regex": None}]
_BARRIER_TIMED_OUT_MSG = (
    "Suggestions for possible fixes:\n"
    "* Check the logs to see if one or more processes failed.\n"
    "* Make sure the training and checkpointing endpoints are close geographically.\n"
    "* Try increasing the timeout you pass to GlobalAsyncCheckpointManager.")

logger = logging.getLogger(__name__)


class BarrierTimeoutError(Exception):
    pass


def is_remote_storage(tspec: dict[str, Any] | str) -> bool:
    """Whether a spec (or kvstore URL) points at cloud storage (GCS, S3). Paths
    that only look local (a gcsfuse mount) are not detected."""
    if isinstance(tspec, str):
        return re.match(rf'^({"|".join(_REMOTE_URL_PREFIXES)})', tspec) is not None
    for key in ("base", "kvstore"):
        if key in tspec:
            return is_remote_storage(tspec[key])
    for rule in _REMOTE_DRIVER_VALIDATIONS:
        if tspec.get("driver") == rule["driver"] and (
                rule["path_regex"] is None or re.match(rule["path_regex"], tspec["path"])):
            return True
    return False


def _get_key(key: int) -> str:
    return f"tensorstore_checkpoint_{key}"


class _StrictABCMeta(abc.ABCMeta):
    """An ABC without virtual subclasses (as JAX's ``util.StrictABC``): the
    instance and subclass checks stay the plain, fast ``type`` ones."""

    def register(cls, subclass):
        raise NotImplementedError(f"{cls} does not support virtual subclasses")

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__


class GlobalAsyncCheckpointManagerBase(metaclass=_StrictABCMeta):
    """What an asynchronous array checkpointer offers: start writing a
    checkpoint while training goes on, check for errors without blocking, and
    wait for the write (a new ``serialize`` first waits for the previous)."""

    __slots__ = ()

    @abc.abstractmethod
    def check_for_errors(self):
        """Raises what the background writing raised (non-blocking)."""

    @abc.abstractmethod
    def wait_until_finished(self):
        """Blocks until the writing has finished."""

    @abc.abstractmethod
    def serialize(self, arrays, tensorstore_specs, *, on_commit_callback: Callable[[], None]):
        """Starts writing arrays to TensorStore."""

    @abc.abstractmethod
    def deserialize(self, shardings, tensorstore_specs, global_shapes=None, dtypes=None):
        """Reads arrays from TensorStore."""


class AsyncManager:
    """The background commit: a thread that awaits the writes, meets the other
    processes at a barrier and runs the commit callback on process 0."""

    def __init__(self, timeout_secs=300):
        self._timeout_secs = timeout_secs
        self._timeout_in_ms = self._timeout_secs * 1000
        self._commit_futures = None
        self._thread = None
        self._exception = None
        self._on_commit_callback = None
        if process_count() > 1 and distributed._state.client is None:
            raise ValueError(_DISTRIBUTED_SYSTEM_MSG)
        self._client = distributed._state.client
        self._count: int | None = None

    def __del__(self):
        thread = getattr(self, "_thread", None)
        if thread is not None and thread.is_alive():
            logger.warning("Please add `.wait_until_finished()` in the main thread before your "
                           "program finishes because there is a possibility of losing errors "
                           "raised if the this class is deleted before writing is completed.")

    def _thread_func(self):
        try:
            me, n = process_index(), process_count()
            start = time.time()
            logger.info("Starting commit to storage layer by process: %s", me)
            for future in self._commit_futures or ():
                future.result()
            logger.info("Finished committing to storage layer by process: %s", me)
            barrier = None
            if n > 1:
                barrier = _get_key(self._count)
                self._client.wait_at_barrier(barrier, self._timeout_in_ms)
            if me == 0:
                if self._on_commit_callback is not None:
                    self._on_commit_callback()
                    logger.info("on_commit_callback successfully ran!")
                if n > 1:
                    self._client.key_value_set(barrier, _CHECKPOINT_SUCCESS)
            monitoring.record_event_duration_secs(
                "/jax/checkpoint/write/async/thread_duration_sec", time.time() - start)
        except Exception as e:  # handed to the main thread by check_for_errors
            self._exception = e

    def _start_async_commit(self, on_commit_callback):
        self._count = next(_module_unique_count)
        self._on_commit_callback = on_commit_callback
        self._thread = threading.Thread(target=self._thread_func)
        self._thread.start()

    def check_for_errors(self):
        if self._exception is not None:
            exception, self._exception = self._exception, None  # raised once
            if (isinstance(exception, _jax.JaxRuntimeError)
                    and "DEADLINE_EXCEEDED: Barrier timed out" in str(exception)):
                raise BarrierTimeoutError("\n".join([str(exception), _BARRIER_TIMED_OUT_MSG]))
            raise exception

    def wait_until_finished(self):
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            logger.info("Thread joined successfully")
        self.check_for_errors()
        if process_count() > 1 and self._count is not None:
            # Process 0 sets the key once everyone's writes are committed.
            self._client.blocking_key_value_get(_get_key(self._count), self._timeout_in_ms)

    def _add_futures(self, futures):
        self._commit_futures = futures


class GlobalAsyncCheckpointManager(AsyncManager, GlobalAsyncCheckpointManagerBase):
    """Writes and reads jax.Arrays with TensorStore, writes in the background."""

    def serialize(self, arrays, tensorstore_specs, *,
                  on_commit_callback: Callable[[], None] | None = None,
                  transaction: ts_impl.Transaction | None = None):
        """Starts writing ``arrays`` to ``tensorstore_specs``: returns once every
        shard has been copied off its device; the commit (and then
        ``on_commit_callback``, on process 0, e.g. renaming a temporary
        directory into place) happens in the background."""
        logger.info("Waiting for previous serialization to finish.")
        self.wait_until_finished()
        commit_futures: list = []

        async def copy_out():
            return await asyncio.gather(*tree_util.tree_map(
                lambda arr, spec: ts_impl.async_serialize(
                    arr, spec, commit_future=commit_futures, transaction=transaction),
                arrays, tensorstore_specs))
        asyncio.run(copy_out())
        self._add_futures(commit_futures)
        self._start_async_commit(on_commit_callback)

    def serialize_with_paths(self, arrays, paths: Sequence[str], *,
                             on_commit_callback: Callable[[], None] | None = None,
                             transaction: ts_impl.Transaction | None = None):
        specs = tree_util.tree_map(get_tensorstore_spec, paths)
        return self.serialize(arrays, specs, on_commit_callback=on_commit_callback,
                              transaction=transaction)

    def deserialize(self, shardings, tensorstore_specs, global_shapes=None, dtypes=None,
                    concurrent_gb: int = 32):
        self.wait_until_finished()
        return ts_impl._run_deserialization(shardings, tensorstore_specs, global_shapes, dtypes,
                                            concurrent_gb)

    def deserialize_with_paths(self, shardings, paths: Sequence[str], global_shapes=None,
                               dtypes=None, concurrent_gb: int = 32):
        specs = tree_util.tree_map(get_tensorstore_spec, paths)
        return self.deserialize(shardings, specs, global_shapes, dtypes, concurrent_gb)
