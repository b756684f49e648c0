"""Writing and reading jax.Arrays with TensorStore (as
``jax.experimental.array_serialization.tensorstore_impl``).

An array is written shard by shard: each addressable shard whose replica id
is the writer's is copied to the host and written into its index of a zarr
(v3 by default) array, optionally inside an OCDBT key-value store. Reading
opens the stored array and builds each addressable shard of the requested
sharding from the part of the store it covers; a stored array smaller than
the requested shape reads as zeros past its end.
"""
from __future__ import annotations

import asyncio
import functools
import logging
import math
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from os import PathLike
from typing import Any

import numpy as np
import tensorstore as ts

from xjit._src import dtypes as _dtypes
from xjit._src import tree_util
from xjit._src.api import device_put, process_count, process_index
from xjit._src.array import Array
from xjit._src.layout import Format
from xjit._src.sharded_array import make_array_from_single_device_arrays
from xjit._src.sharding import Sharding, make_single_device_sharding
from xjit._src.stages import ShapeDtypeStruct

_TS_ARRAY_DRIVER = "zarr3"
_TS_CONTEXT = ts.Context({
    "file_io_concurrency": {"limit": 128},
    "cache_pool": {"total_bytes_limit": 10_000_000_000},
    "cache_pool#remote": {"total_bytes_limit": 10_000_000_000},
    "data_copy_concurrency": {"limit": 128},
})
_TS_CHUNK_LAYOUT = ts.ChunkLayout(chunk=ts.ChunkLayout.Grid(elements=100_000_000))
_DEFAULT_BASE_DRIVER = "file"
_PROCESS_DIR_FORMAT = "process_{}"
_FILE_SIZE_TARGET = 2 * 1024 ** 3

Future, Transaction = ts.Future, ts.Transaction

logger = logging.getLogger(__name__)


class _LimitInFlightBytes:
    """Bounds the host memory that reads (or writes) in flight may hold at
    once; a single request larger than the bound raises the bound."""

    def __init__(self, host_memory_bytes_limit: int):
        self._max_bytes = host_memory_bytes_limit
        self._available_bytes = host_memory_bytes_limit
        self._cv = asyncio.Condition(lock=asyncio.Lock())

    async def wait_for_bytes(self, requested_bytes):
        if requested_bytes > self._max_bytes:
            logger.debug("A request of %d bytes exceeds the in-flight limit of %d; raising "
                         "the limit.", requested_bytes, self._max_bytes)
            in_use = self._max_bytes - self._available_bytes
            self._max_bytes = requested_bytes
            self._available_bytes = requested_bytes - in_use
        async with self._cv:
            await self._cv.wait_for(lambda: self._available_bytes >= requested_bytes)
            self._available_bytes -= requested_bytes

    async def release_bytes(self, requested_bytes):
        async with self._cv:
            self._available_bytes += requested_bytes
            self._cv.notify_all()


def is_tensorstore_spec_leaf(leaf: Any) -> bool:
    """Whether ``leaf`` is a TensorStore spec (or None) rather than a subtree."""
    return leaf is None or (isinstance(leaf, dict) and ("driver" in leaf or "kvstore" in leaf))


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


@functools.lru_cache(maxsize=1024)
def _compute_chunk_shape(local_shape: Sequence[int], dtype, file_size_target: int =
                         _FILE_SIZE_TARGET) -> list[int]:
    """A chunk shape dividing ``local_shape`` whose byte size is at most
    about ``file_size_target`` (110%): the smallest prime factor among the
    axes is divided out until it fits (or no axis can shrink)."""
    shape = list(local_shape)
    if not shape or math.prod(shape) == 0:
        return [max(d, 1) for d in shape]  # tensorstore wants non-zero chunks
    size = math.prod(shape) * np.dtype(dtype).itemsize
    factors = [_prime_factors(d) for d in shape]
    while size > 1.1 * file_size_target:
        candidates = [(f[0], i) for i, f in enumerate(factors) if len(f) > 1]
        if not candidates:
            break
        p, axis = min(candidates)
        factors[axis].pop(0)
        shape[axis] //= p
        size //= p
    return shape


def _get_tensorstore_metadata(arr, is_remote: bool = False,
                              file_size_target: int = _FILE_SIZE_TARGET,
                              driver: str = _TS_ARRAY_DRIVER) -> dict[str, Any]:
    """The metadata of a zarr/zarr3 array able to hold ``arr``, chunked by its
    shard shape."""
    shape = tuple(arr.shape)
    local = tuple(arr.sharding.shard_shape(shape)) if isinstance(arr, Array) else shape
    return _get_tensorstore_metadata_cached(shape, np.dtype(arr.dtype), local, is_remote,
                                            file_size_target, driver)


@functools.lru_cache(maxsize=1024)
def _get_tensorstore_metadata_cached(global_shape, dtype, local_shape, is_remote=False,
                                     file_size_target=_FILE_SIZE_TARGET,
                                     driver=_TS_ARRAY_DRIVER) -> dict[str, Any]:
    if driver == "zarr3":
        chunk = _compute_chunk_shape(tuple(local_shape), dtype, file_size_target=file_size_target)
        return {"codecs": [{"name": "zstd"}] if is_remote else [],
                "shape": global_shape,
                "data_type": np.dtype(dtype).name,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}}}
    if driver == "zarr":  # zarr v2 keeps the dtype in the spec itself
        return {"compressor": {"id": "zstd"}, "shape": global_shape,
                "chunks": np.maximum(1, np.array(local_shape, dtype=np.int64)).tolist()}
    raise ValueError(f"Unsupported driver: {driver}")


def _divides(x, y) -> bool:
    return bool(np.all(np.array(x) % np.array(y) == 0))


def merge_nested_ts_specs(dict1: dict, dict2: dict | None) -> dict:
    """``dict1`` updated with ``dict2``; their ``kvstore`` entries are merged."""
    if dict2 is None:
        return dict1
    kvstore = dict1.get("kvstore", {}) | dict2.get("kvstore", {})
    return dict1 | dict(dict2, kvstore=kvstore)


def verify_tensorstore_spec(spec: dict, arr, path: str | PathLike, ocdbt: bool,
                            check_metadata: bool = True) -> None:
    """Raises ValueError unless ``spec`` writes ``arr`` at ``path``."""
    if ocdbt and spec.get("kvstore", {}).get("driver", "") != "ocdbt":
        raise ValueError(f"Expected ocdbt driver, got spec={spec!r}")
    if check_metadata:
        if arr is None:
            raise ValueError("Array is required for metadata verification.")
        metadata = spec["metadata"]
        if spec.get("driver", "") == "zarr3" and metadata["data_type"] != np.dtype(arr.dtype).name:
            raise ValueError(f"Provided dtype ({metadata['data_type']=}) doesn't match "
                             f"({arr.dtype=})")
        if "shape" in metadata and tuple(metadata["shape"]) != tuple(arr.shape):
            raise ValueError(f"Provided shape ({metadata['shape']=}) doesn't match "
                             f"({arr.shape=})")
        local = arr.sharding.shard_shape(arr.shape) if isinstance(arr, Array) else arr.shape
        if spec.get("driver", "") == "zarr3":
            chunk = metadata["chunk_grid"]["configuration"]["chunk_shape"]
            if not _divides(local, chunk):
                raise ValueError(f"Provided chunk shape {chunk} does not divide the local shape "
                                 f"of the array {local}")
    found = spec["kvstore"]["base"]["path"] if ocdbt else spec["kvstore"]["path"]
    if str(found) != str(path):
        raise ValueError(f"Provided path={path!r} does not match the spec path: "
                         f"{spec['kvstore']}")


def _spec_has_metadata(tree) -> bool:
    return isinstance(tree, dict) and (
        "metadata" in tree or any(_spec_has_metadata(v) for v in tree.values()))


def _bucket_kvstore(driver: str, scheme: str, ckpt_path: str) -> dict:
    m = re.fullmatch(f"^{scheme}://([^/]*)/(.*)$", ckpt_path, re.DOTALL)
    if m is None:
        raise ValueError("The ckpt_path should contain the bucket name and the file path inside "
                         f"the bucket. Got: {ckpt_path}")
    return {"driver": driver, "bucket": m.group(1), "path": m.group(2)}


def _get_kvstore_for_gcs(ckpt_path: str) -> dict:
    return _bucket_kvstore("gcs", "gs", ckpt_path)


def _get_kvstore_for_s3(ckpt_path: str) -> dict:
    return _bucket_kvstore("s3", "s3", ckpt_path)


def get_tensorstore_spec(ckpt_path: str | PathLike, ocdbt: bool = True,
                         process_idx: int | None = None, arr=None,
                         driver: str = _TS_ARRAY_DRIVER) -> dict[str, Any]:
    """The TensorStore spec of an array stored at ``ckpt_path`` (a local path,
    ``gs://`` or ``s3://``). With ``ocdbt`` the array is the entry named by the
    path's last part in an OCDBT store at its parent; with ``process_idx`` it
    goes under a per-process directory; with ``arr`` the metadata is filled."""
    ckpt_path = re.sub(r"^(gs|s3):/", r"\1://", os.path.normpath(str(ckpt_path)))
    if process_idx is not None:
        parent, name = os.path.split(ckpt_path)
        ckpt_path = os.path.join(parent, _PROCESS_DIR_FORMAT.format(process_idx), name)
    is_gcs, is_s3 = ckpt_path.startswith("gs://"), ckpt_path.startswith("s3://")
    spec: dict[str, Any] = {"driver": driver, "kvstore": {}}
    entry_key = None
    if ocdbt:
        original = ckpt_path
        ckpt_path, entry_key = os.path.split(ckpt_path)
        scheme = "gs" if is_gcs else "s3" if is_s3 else None
        if scheme and re.fullmatch(f"^{scheme}://([^/]*)/(.*)$", ckpt_path) is None:
            raise ValueError("Using OCDBT requires the bucket name, the directory name and the "
                             f"array name, your path is: {original}")
    if is_gcs:
        base = _get_kvstore_for_gcs(ckpt_path)
    elif is_s3:
        base = _get_kvstore_for_s3(ckpt_path)
    else:
        base = {"driver": _DEFAULT_BASE_DRIVER, "path": ckpt_path}
    if ocdbt:
        if not (is_gcs or is_s3) and not os.path.isabs(ckpt_path):
            raise ValueError(f"Checkpoint path should be absolute. Got {ckpt_path}")
        spec["kvstore"] = {"driver": "ocdbt", "base": base, "path": entry_key}
    else:
        spec["kvstore"] = base
    if arr is not None:
        spec["metadata"] = _get_tensorstore_metadata(arr, driver=str(spec["driver"]))
    return spec


async def _create_async_array_from_callback(
        global_shape, dtype, inp_sharding: Sharding,
        data_callback: Callable[[Any, Any], Awaitable[Array]]):
    """An array of ``inp_sharding`` whose addressable shards come from
    ``data_callback(index, device)``, awaited together."""
    index_of = inp_sharding.devices_indices_map(tuple(global_shape))
    devices = inp_sharding._addressable_device_assignment
    shards = await asyncio.gather(*(data_callback(index_of[d], d) for d in devices))
    return make_array_from_single_device_arrays(tuple(global_shape), inp_sharding, list(shards),
                                                dtype=dtype)


async def _transfer_shard_to_host(shard) -> np.ndarray:
    data = shard.data
    data.copy_to_host_async()
    await asyncio.sleep(0)  # let other shards' copies start
    return np.asarray(data)


async def combine_kvstores(combined_kvstore: dict, kvstores: list[dict],
                           context: ts.Context | None = _TS_CONTEXT) -> None:
    """Copies every key of ``kvstores`` into ``combined_kvstore`` in one
    transaction (one process only)."""
    combined, opened = await asyncio.gather(
        ts.KvStore.open(combined_kvstore, context=context),
        asyncio.gather(*(ts.KvStore.open(k, context=context) for k in kvstores)))
    txn = ts.Transaction()
    await asyncio.gather(*(k.experimental_copy_range_to(combined.with_transaction(txn))
                           for k in opened))
    await txn.commit_async()


async def async_serialize(arr_inp, tensorstore_spec, commit_future=None, context=_TS_CONTEXT,
                          chunk_layout=_TS_CHUNK_LAYOUT, primary_host: int | None = None,
                          replica_id: int = 0, transaction: ts.Transaction | None = None):
    """Writes ``arr_inp`` (a jax.Array or NumPy array) to ``tensorstore_spec``.

    With ``commit_future`` (a list), the store's creation and each shard's
    commit are appended to it for the caller to await, and this returns once
    the data has been copied out; without it, this returns once committed.
    ``primary_host`` (None: every process) creates the store; shards whose
    replica id is ``replica_id`` are written.
    """
    if isinstance(arr_inp, Array) and process_count() > 1 and arr_inp.is_fully_addressable:
        raise ValueError(
            "Passing fully addressable arrays to a multiprocess serialization is not allowed, "
            "as this may lead to a race condition between processes. Serialization have failed "
            f"for the array with the path from kvstore: \"{tensorstore_spec['kvstore']}\".")
    if not _spec_has_metadata(tensorstore_spec):
        tensorstore_spec["metadata"] = _get_tensorstore_metadata(
            arr_inp, driver=tensorstore_spec["driver"])
    if tensorstore_spec["driver"] == "zarr" and "dtype" not in tensorstore_spec:
        tensorstore_spec["dtype"] = np.dtype(arr_inp.dtype).name

    if primary_host is None or process_index() == primary_host:
        created = ts.open(ts.Spec(tensorstore_spec), create=True, open=True, context=context,
                          chunk_layout=chunk_layout, transaction=transaction)
        if commit_future is not None:
            commit_future.append(created)
        else:
            await created
    # Opened again assuming the metadata: no I/O, and the same on every process.
    store = await ts.open(ts.Spec(tensorstore_spec), open=True, assume_metadata=True,
                          context=context, chunk_layout=chunk_layout, transaction=transaction)

    async def write_shard(shard):
        if shard.replica_id != replica_id:
            return
        data = await _transfer_shard_to_host(shard)
        write = store[shard.index].write(
            data, can_reference_source_data_indefinitely=isinstance(arr_inp, Array))
        if commit_future is not None:
            commit_future.append(write.commit)
            await write.copy
        else:
            await write.commit

    shards = _addressable_shards(arr_inp)
    return await asyncio.gather(*(write_shard(s) for s in shards))


class _HostShard:
    """A NumPy array seen as the one shard of itself."""

    def __init__(self, value):
        self.data = np.asarray(value)
        self.index = tuple(slice(None) for _ in self.data.shape)
        self.replica_id = 0


def _addressable_shards(arr):
    if isinstance(arr, Array):
        return arr.addressable_shards
    return [_HostShard(arr)]


def _run_serialization(arrays, tensorstore_specs):
    """Writes each array to its spec and waits for all of them."""
    async def run():
        return await asyncio.gather(*tree_util.tree_map(async_serialize, arrays,
                                                        tensorstore_specs))
    asyncio.run(run())


def estimate_read_memory_footprint(t: ts.TensorStore, domain: ts.IndexDomain) -> int:
    """Bytes a read of ``domain`` touches: whole chunks, or the domain itself
    for an unchunked store."""
    itemsize = t.dtype.numpy_dtype.itemsize
    template = t.chunk_layout.read_chunk_template
    if domain is None:
        domain = t.domain
    if any(not template[i].finite for i in range(t.rank)):
        return domain.size * itemsize
    nbytes = itemsize
    for i in range(t.rank):
        lo = domain.origin[i] - template.origin[i]
        hi = lo + domain.shape[i]
        step = template.shape[i]
        nbytes *= (-(-hi // step) * step) - (lo // step * step)
    return nbytes


async def async_deserialize(in_type, tensorstore_spec, global_shape: Sequence[int] | None = None,
                            dtype=None, byte_limiter: _LimitInFlightBytes | None = None,
                            context=_TS_CONTEXT, chunk_layout=_TS_CHUNK_LAYOUT,
                            assume_metadata: bool = False):
    """Reads a jax.Array laid out as ``in_type`` (a Sharding, a Format or a
    ShapeDtypeStruct with a sharding) from ``tensorstore_spec``, cast to
    ``dtype`` and of ``global_shape`` when given (the store's otherwise)."""
    if isinstance(in_type, Format):
        sharding, layout = in_type.sharding, in_type.layout
    elif isinstance(in_type, ShapeDtypeStruct):
        dtype = in_type.dtype if dtype is None else dtype
        sharding = in_type.sharding
        fmt = getattr(in_type, "format", None)
        layout = getattr(fmt, "layout", None)
    else:
        sharding, layout = in_type, None
    if not isinstance(sharding, Sharding):
        raise TypeError("sharding passed to deserialization should be specified, concrete and "
                        f"an instance of `jax.sharding.Sharding`. Got {in_type}")
    t = await ts.open(tensorstore_spec, open=True, assume_metadata=assume_metadata,
                      context=context, chunk_layout=chunk_layout)
    shape = tuple(t.shape if global_shape is None else global_shape)
    stored_dtype = t.dtype.numpy_dtype
    dtype = stored_dtype if dtype is None else dtype
    shard_shape = sharding.shard_shape(shape)

    async def read_shard(index, device):
        wanted = ts.IndexTransform(input_shape=shape)[index].domain
        present = t.domain.intersect(wanted)
        nbytes = estimate_read_memory_footprint(t, present)
        if byte_limiter is not None:
            await byte_limiter.wait_for_bytes(nbytes)
        # Past the stored array's end (a larger requested shape) stays zero.
        out = np.zeros(shard_shape, dtype=stored_dtype)
        await ts.array(out)[ts.d[:].translate_to[wanted.origin]][present].write(t[present])
        out = out.astype(dtype)
        target = make_single_device_sharding(device)
        result = device_put(out, target if layout is None else Format(layout, target))
        if byte_limiter is not None:
            await byte_limiter.release_bytes(nbytes)
        return result

    return await _create_async_array_from_callback(shape, _dtypes.canonicalize_dtype(dtype),
                                                   sharding, read_shard)


def _run_deserialization(shardings, tensorstore_specs, global_shapes=None, dtypes=None,
                         concurrent_gb: int = 32):
    """Reads each spec as an array of its sharding (and shape and dtype when
    given), at most ``concurrent_gb`` GB in flight."""
    n = len(tensorstore_specs)

    async def run():
        limiter = _LimitInFlightBytes(concurrent_gb * 10 ** 9)
        reads = tree_util.tree_map(
            functools.partial(async_deserialize, byte_limiter=limiter),
            list(shardings), list(tensorstore_specs),
            [None] * n if global_shapes is None else list(global_shapes),
            [None] * n if dtypes is None else list(dtypes))
        return await asyncio.gather(*reads)
    return asyncio.run(run())
