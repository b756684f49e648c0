"""Segment reductions: ``segment_sum`` / ``_prod`` / ``_max`` / ``_min``.

Each is a scatter of ``data`` into an array of ``num_segments`` rows filled
with the reduction's identity, built on jnp's ``.at[]`` scatter path, so the
jaxprs, gradients and batching are those of ``x.at[ids].add(data)`` etc.
Out-of-range ids are dropped (``FILL_OR_DROP``) unless ``mode`` says otherwise.
With ``bucket_size`` the rows are first scattered into one partial result per
bucket of consecutive ids, then reduced across buckets (smaller rounding
error for long sums and products).
"""
from __future__ import annotations

import operator

import numpy as np

import xjit.numpy as jnp
from xjit._src import core, dtypes
from xjit._src.lax import gather_scatter as gs
from xjit._src.numpy import reductions
from xjit._src.numpy.scatter import _scatter_update
from xjit._src.numpy.util import check_arraylike
from xjit._src.sharding import auto_axes, canonicalize_sharding

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]


def _identity(scatter_fn, dtype):
    """The value an empty segment holds: the reduction's neutral element."""
    if scatter_fn is gs.scatter_add:
        return 0
    if scatter_fn is gs.scatter_mul:
        return 1
    is_min = scatter_fn is gs.scatter_min
    if dtype == np.bool_:
        return is_min
    if dtypes.issubdtype(dtype, np.integer):
        info = dtypes.iinfo(dtype)
        return info.max if is_min else info.min
    return float("inf") if is_min else -float("inf")


def _segment_update(name, data, segment_ids, scatter_fn, num_segments, indices_are_sorted,
                    unique_indices, bucket_size, reducer, mode, out_sharding):
    check_arraylike(name, data, segment_ids)
    mode = gs.GatherScatterMode.FILL_OR_DROP if mode is None else mode
    data, segment_ids = jnp.asarray(data), jnp.asarray(segment_ids)
    dtype = data.dtype
    if num_segments is None:  # a traced max under jit: the error below, as JAX's
        num_segments = np.max(segment_ids) + 1
    # the output's shape depends on it: it must be known while tracing
    num_segments = core.concrete_or_error(operator.index, num_segments,
                                          "segment_sum() `num_segments` argument.")
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    identity = _identity(scatter_fn, dtype)

    if bucket_size is None:
        out = jnp.full((num_segments,) + data.shape[1:], identity, dtype=dtype)

        def scatter(out, data, segment_ids):
            return _scatter_update(out, segment_ids, data, scatter_fn, indices_are_sorted,
                                   unique_indices, mode, False)
        if out_sharding is not None:  # scattered in auto mode, then given the asked layout
            scatter = auto_axes(scatter, out_sharding=out_sharding,
                                axes=out_sharding.mesh.explicit_axes)
        return scatter(out, data, segment_ids)

    if out_sharding is not None:
        raise NotImplementedError
    num_buckets = -(-segment_ids.size // bucket_size)
    out = jnp.full((num_buckets, num_segments) + data.shape[1:], identity, dtype=dtype)
    bucket = jnp.arange(segment_ids.shape[0]) // bucket_size
    out = _scatter_update(out, (bucket, segment_ids[None, :]), data, scatter_fn,
                          indices_are_sorted, unique_indices, mode, False)
    return reducer(out, axis=0).astype(dtype)


def _no_unreduced(out_sharding, what):
    if out_sharding is not None and out_sharding.spec.unreduced:
        raise NotImplementedError(f"unreduced for {what} is not yet supported.")


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """Sums of the rows of ``data`` (its leading axis) sharing a segment id:
    shape ``(num_segments,) + data.shape[1:]``, 0 where a segment is empty.
    ``num_segments`` defaults to ``max(segment_ids) + 1`` (so must be given
    under ``jit``)."""
    out_sharding = canonicalize_sharding(out_sharding, "segment_sum")
    return _segment_update("segment_sum", data, segment_ids, gs.scatter_add, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, reductions.sum,
                           mode, out_sharding)


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted=False,
                 unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """Products of the rows of ``data`` sharing a segment id (1 where empty);
    arguments as ``segment_sum``'s."""
    out_sharding = canonicalize_sharding(out_sharding, "segment_prod")
    _no_unreduced(out_sharding, "prod")
    return _segment_update("segment_prod", data, segment_ids, gs.scatter_mul, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, reductions.prod,
                           mode, out_sharding)


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """Maxima of the rows of ``data`` sharing a segment id (``-inf``, the
    dtype's minimum or False where empty); arguments as ``segment_sum``'s."""
    out_sharding = canonicalize_sharding(out_sharding, "segment_max")
    _no_unreduced(out_sharding, "max")
    return _segment_update("segment_max", data, segment_ids, gs.scatter_max, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, reductions.max,
                           mode, out_sharding)


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """Minima of the rows of ``data`` sharing a segment id (``inf``, the
    dtype's maximum or True where empty); arguments as ``segment_sum``'s."""
    out_sharding = canonicalize_sharding(out_sharding, "segment_min")
    _no_unreduced(out_sharding, "min")
    return _segment_update("segment_min", data, segment_ids, gs.scatter_min, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, reductions.min,
                           mode, out_sharding)
