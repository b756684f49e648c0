"""``split`` (one operand, several slices along an axis) and ``tile``
(repeat the whole operand along each axis): the two structural primitives
``jnp.split``/``jnp.tile`` bind, as JAX's jaxprs show them."""
from __future__ import annotations

import operator

from .. import core, lowering
from ..core import Primitive
from ..lowering import i64_array, ttype


def _split_eval(x, *, sizes, axis):
    if not 0 <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                         f"operand shape {list(x.shape)}")
    return [x.update(shape=x.shape[:axis] + (int(s),) + x.shape[axis + 1:]) for s in sizes]


def _split_lower(ctx, ai, ao, x, *, sizes, axis):
    a = ai[0]
    outs, start = [], 0
    for o in ao:
        lo = [0] * a.ndim
        hi = list(a.shape)
        lo[axis], hi[axis] = start, start + o.shape[axis]
        start = hi[axis]
        outs.append(ctx.op("stablehlo.slice", [x], [ttype(a)], ttype(o),
                           attrs=f"start_indices = {i64_array(lo)}, limit_indices = {i64_array(hi)}, "
                                 f"strides = {i64_array([1] * a.ndim)}"))
    return outs


split_p = Primitive("split")
split_p.multiple_results = True
core.abstract_eval_rules[split_p] = _split_eval
lowering.rules[split_p] = _split_lower


def split(operand, sizes, axis=0):
    """Split ``operand`` along ``axis`` into pieces of the given sizes."""
    from .api import asarray_device
    operand = asarray_device(operand)
    axis = operator.index(axis)
    axis = axis + operand.ndim if axis < 0 else axis
    return split_p.bind(operand, sizes=tuple(sizes), axis=axis)


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


def tile(operand, reps):
    return tile_p.bind(operand, reps=tuple(map(operator.index, reps)))

