"""XLA's own random generators: ``rng_bit_generator`` (stateless, keyed) and
``rng_uniform`` (stateful, not reproducible), with their rules."""
from __future__ import annotations

import enum
import operator

import numpy as np

from xjit._src import sharding_in_types as sit
from xjit._src.sharding import canonicalize_sharding
from xjit._src.sharding_in_types import with_param_sharding
from xjit._src import core, dtypes
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.batching import moveaxis
from xjit._src.core import ShapedArray
from xjit._src.interpreters.mlir import ttype
from xjit._src.lax import lax

_define = lowering.define_primitive


class RandomAlgorithm(enum.IntEnum):
    """The bit generator algorithm of ``rng_bit_generator``."""
    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self):
        return self.name


_RNG_ALGO = {0: "DEFAULT", 1: "THREE_FRY", 2: "PHILOX"}


def _rbg_eval(key, *, shape, dtype, algorithm, out_sharding=None):
    if not ((key.shape == (4,) and key.dtype == np.uint32)
            or (key.shape == (2,) and key.dtype == np.uint64)):
        raise TypeError("rng_bit_generator: the key must be a uint32[4] (or uint64[2]) array, "
                        f"got {key.str_short(False)}")
    return [key, with_param_sharding(ShapedArray(shape, dtype, False), out_sharding)]


def _rbg_lower(ctx, ai, ao, key, *, shape, dtype, algorithm, out_sharding=None):
    """The generator's state is u64[2]: a u32[4] key is reinterpreted."""
    k = ai[0]
    k64 = ShapedArray((2,), np.uint64)
    if k.dtype == np.uint32:
        pairs = ShapedArray((2, 2), np.uint32)
        key = ctx.op("stablehlo.reshape", [key], [ttype(k)], ttype(pairs))
        key = ctx.op("stablehlo.bitcast_convert", [key], [ttype(pairs)], ttype(k64))
    new_key, bits = ctx.op("stablehlo.rng_bit_generator", [key], [ttype(k64)],
                           [ttype(k64), ttype(ao[1])],
                           attrs=f"rng_algorithm = #stablehlo<rng_algorithm "
                                 f"{_RNG_ALGO[int(algorithm)]}>")
    if k.dtype == np.uint32:
        pairs = ShapedArray((2, 2), np.uint32)
        new_key = ctx.op("stablehlo.bitcast_convert", [new_key], [ttype(k64)], ttype(pairs))
        new_key = ctx.op("stablehlo.reshape", [new_key], [ttype(pairs)], ttype(k))
    return [new_key, bits]


rng_bit_generator_p = _define("rng_bit_generator", _rbg_eval, _rbg_lower, multiple_results=True)
sit.sharding_rules[rng_bit_generator_p] = lambda key, *, out_sharding=None, **_: [
    sit.P(*sit.parts(key)), out_sharding]  # the bits as out_sharding names (or unsplit)
ad.defjvp_zero(rng_bit_generator_p)


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """XLA's stateless bit generator: (new key, random bits of ``shape``)."""
    shape = core.canonicalize_shape(shape, "rng_bit_generator shape must be nonnegative")
    lax._check_dtype_arg(dtype, "rng_bit_generator")
    dtype = dtypes.canonicalize_dtype(dtype)
    if dtype not in (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32),
                     np.dtype(np.uint64)):
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    return tuple(rng_bit_generator_p.bind(lax.asarray_device(key), shape=shape, dtype=dtype,
                                          algorithm=RandomAlgorithm(algorithm),
                                          out_sharding=canonicalize_sharding(
                                              out_sharding, "rng_bit_generator")))


def _rng_uniform_eval(a, b, *, shape):
    if a.dtype != b.dtype:
        raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got {a.dtype} "
                         f"and {b.dtype}.")
    if a.shape or b.shape:
        raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and "
                         f"{b.shape}.")
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def _rng_uniform_lower(ctx, ai, ao, a, b, *, shape):
    sa = ShapedArray((len(shape),), np.int64)
    dims = ctx.constant(np.array(shape, np.int64), sa)
    return ctx.op("stablehlo.rng", [a, b, dims], [ttype(ai[0]), ttype(ai[1]), ttype(sa)],
                  ttype(ao[0]), attrs="rng_distribution = #stablehlo<rng_distribution UNIFORM>")


rng_uniform_p = _define("rng_uniform", _rng_uniform_eval, _rng_uniform_lower)
ad.defjvp_zero(rng_uniform_p)


def rng_uniform(a, b, shape):
    """Stateful uniform samples in [a, b) from XLA's RNG (not reproducible)."""
    a, b = lax._binary_operands(a, b)
    return rng_uniform_p.bind(a, b, shape=tuple(map(operator.index, shape)))


def _rbg_batch(axis_data, args, dims, *, shape, dtype, algorithm, out_sharding=None):
    """As JAX batches it: the first key of the batch draws the bits for the
    whole batch, and only that key is advanced."""
    keys = moveaxis(args[0], dims[0], 0)
    new_key, bits = rng_bit_generator_p.bind(
        lax.squeeze(lax.slice_along(keys, 0, 1), (0,)), shape=(axis_data.size,) + tuple(shape),
        dtype=dtype, algorithm=algorithm, out_sharding=out_sharding)
    return [lax.dynamic_update_index_in_dim(keys, new_key, 0, 0), bits], [0, 0]


batching.axis_batch_rules[rng_bit_generator_p] = _rbg_batch
