"""Repetition along axes: ``tile`` (whole-array copies) and ``repeat``
(element copies, with ``total_repeat_length`` for traced repeat counts)."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import core
from ..core import Tracer
from xjit._src.lax import lax
from ..lax import tile as lax_tile
from . import util
from .lax_numpy import asarray, util_dtype
from .shape_ops import ravel


def tile(A, reps):
    util.check_arraylike("tile", A)
    A = asarray(A)
    reps = (operator.index(reps),) if np.ndim(reps) == 0 else tuple(map(operator.index, reps))
    nd = builtins.max(len(reps), A.ndim)
    if A.ndim < nd:
        A = lax.broadcast_in_dim(A, (1,) * (nd - A.ndim) + A.shape, tuple(range(nd - A.ndim, nd)))
    reps = (1,) * (nd - len(reps)) + reps
    return lax_tile.tile(A, reps)


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    util.check_arraylike("repeat", a)
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    if a.ndim == 0 and total_repeat_length is None:  # as JAX: the axis goes unchecked
        reps = np.ravel(util.concrete_arg(repeats, "jnp.repeat repeats"))
        if reps.shape != (1,):
            raise ValueError("`repeat` with a scalar parameter `a` is only implemented for "
                             "scalar values of the parameter `repeats`.")
        return lax.broadcast_in_dim(a, (int(reps[0]),), ())
    axis = util.canonicalize_axis(axis, a.ndim)
    if total_repeat_length is not None:
        total = operator.index(total_repeat_length)
        if isinstance(repeats, Tracer) or np.ndim(repeats) or \
                total != a.shape[axis] * int(repeats):
            return _repeat_to_length(a, repeats, axis, total)
    reps = np.asarray(core.concrete_or_error(
        None, repeats, "When jit-compiling jnp.repeat, the total number of repeats must be "
                       "static. To fix this, either specify a static value for `repeats`, or "
                       "pass a static value to `total_repeat_length`."))
    if reps.ndim == 0:
        r = int(reps)
        shape = a.shape[:axis + 1] + (r,) + a.shape[axis + 1:]
        b = lax.broadcast_in_dim(a, shape, tuple(d for d in range(a.ndim + 1) if d != axis + 1))
        return lax.reshape(b, a.shape[:axis] + (a.shape[axis] * r,) + a.shape[axis + 1:])
    if reps.shape != (a.shape[axis],):
        raise ValueError(f"repeats shape {reps.shape} does not match the dimension on axis "
                         f"{axis}: {a.shape[axis]}")
    pieces = [repeat(lax.slice_along(a, i, i + 1, axis=axis), int(r), axis)
              for i, r in enumerate(reps) if r]
    if not pieces:
        return lax.full(a.shape[:axis] + (0,) + a.shape[axis + 1:], 0, util_dtype(a))
    return lax.concatenate(pieces, axis)


def _repeat_to_length(a, repeats, axis, total):
    """Repeat with (possibly traced) counts into exactly ``total`` slots:
    mark where each element's run starts, and a running count of the marks
    names the element each slot takes (cut short, or padded with the last
    element)."""
    from .advanced_indexing import take
    from .sorting import cumsum
    n = a.shape[axis]
    reps = util.broadcast_to(asarray(repeats), (n,))
    if reps.dtype.kind not in "iu":
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{reps.dtype.name}")
    if n == 0 or total == 0:
        return lax.full(a.shape[:axis] + (total,) + a.shape[axis + 1:], 0, util_dtype(a))
    starts = cumsum(lax.concatenate([lax.full((1,), 0, reps.dtype),
                                     lax.slice(reps, (0,), (n - 1,))], 0))
    marks = lax.full((total,), 0, starts.dtype).at[starts].add(
        lax._convert(1, starts.dtype, False), mode="drop")
    which = lax.sub(cumsum(marks), lax._convert(1, marks.dtype, False))
    return take(a, which, axis=axis)
