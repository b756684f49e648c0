"""``tile``: repeat the whole operand along each axis, the structural
primitive ``jnp.tile`` binds (as JAX's jaxprs show it)."""
from __future__ import annotations

import operator

from xjit._src import sharding_in_types as sit
from xjit._src import core
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import instantiate_zeros
from xjit._src.interpreters.batching import moveaxis
from ..core import Primitive
from xjit._src.interpreters.mlir import i64_array, ttype


def _tile_eval(x, *, reps):
    if len(reps) != x.ndim:
        raise ValueError(f"len(reps) must equal the operand rank, got reps={reps} for shape {x.shape}")
    return x.update(shape=tuple(d * r for d, r in zip(x.shape, reps)))


def _tile_lower(ctx, ai, ao, x, *, reps):
    """broadcast to (r0, d0, r1, d1, ...) then merge each pair."""
    a = ai[0]
    wide = []
    for r, d in zip(reps, a.shape):
        wide += [r, d]
    wa = a.update(shape=tuple(wide))
    b = ctx.op("stablehlo.broadcast_in_dim", [x], [ttype(a)], ttype(wa),
               attrs=f"broadcast_dimensions = {i64_array(range(1, 2 * a.ndim, 2))}")
    return ctx.op("stablehlo.reshape", [b], [ttype(wa)], ttype(ao[0]))


tile_p = Primitive("tile")
core.abstract_eval_rules[tile_p] = _tile_eval
lowering.rules[tile_p] = _tile_lower


def _tile_sharding(x, *, reps):
    """As JAX's tile: a repeated dimension must be unsplit."""
    ps = sit.parts(x)
    for d, (r, p) in enumerate(zip(reps, ps)):
        if r != 1 and p is not None:
            raise sit.ShardingTypeError(
                f"Operand cannot be sharded on dimension {d} when the tiling is non-trivial. "
                f"Got input type: {x} with reps: {tuple(reps)}")
    return sit.P(*ps)


sit.sharding_rules[tile_p] = _tile_sharding


def tile(operand, reps):
    return tile_p.bind(operand, reps=tuple(map(operator.index, reps)))


# -- transformation rules: tile is linear; its transpose sums the copies

from xjit._src.lax import lax  # noqa: E402  (the rules call the API, which imports this module)


def _tile_transpose(ct, x, *, reps):
    """Sum the copies; the operand's shape comes from its aval (a zero
    repetition leaves none of it in the cotangent)."""
    ct = instantiate_zeros(ct)
    wide = []
    for r, d in zip(reps, x.aval.shape):
        wide += [r, d]
    return [lax.reduce_sum(lax.reshape(ct, wide), tuple(range(0, 2 * len(reps), 2)))]


def _tile_batch(args, dims, *, reps):
    x, d = args[0], dims[0]
    return tile_p.bind(moveaxis(x, d, 0), reps=(1,) + tuple(reps)), 0


ad.deflinear2(tile_p, _tile_transpose)
batching.batch_rules[tile_p] = _tile_batch
