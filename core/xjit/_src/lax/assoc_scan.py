"""``associative_scan``: an inclusive prefix scan with an associative
combine function, in O(log n) rounds of strided slices (the odd/even
recursion of Blelloch's parallel scan), so it vectorizes instead of looping."""
from __future__ import annotations

import numpy as np

from .. import core, tree_util
from xjit._src.lax import lax


def _slice(x, start, stop, step, axis):
    n = x.shape[axis]
    start, stop, _ = slice(start, stop).indices(n)
    lo, hi, steps = [0] * x.ndim, list(x.shape), [1] * x.ndim
    lo[axis], hi[axis], steps[axis] = start, max(stop, start), step
    return lax.slice(x, lo, hi, steps)


def _interleave(a, b, axis):
    """Elements of ``a`` at even and of ``b`` at odd positions along ``axis``
    (len(a) is len(b) or len(b) + 1), by interior padding and adding."""
    nd = a.ndim
    odd = a.shape[axis] == b.shape[axis] + 1

    def cfg(lo, hi):
        c = [(0, 0, 0)] * nd
        c[axis] = (lo, hi, 1)
        return c
    zero = np.zeros((), a.dtype)[()]
    pa = lax.pad(a, zero, cfg(0, 0 if odd else 1))
    pb = lax.pad(b, zero, cfg(1, 1 if odd else 0))
    return lax.bitwise_or(pa, pb) if a.dtype == np.bool_ else lax.add(pa, pb)


def associative_scan(fn, elems, reverse=False, axis=0):
    """Cumulative ``fn`` along ``axis`` of every leaf of ``elems``:
    ``out[i] = fn(out[i-1], elems[i])``; ``fn`` must be associative and work
    elementwise on slices (pytrees of arrays)."""
    leaves, tree = tree_util.tree_flatten(elems)
    leaves = [lax.asarray_device(x) for x in leaves]
    if not leaves:
        raise ValueError("associative_scan: elems must contain at least one array")
    axis = int(axis)
    nd = leaves[0].ndim
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    if reverse and axis < 0:  # JAX reverses before normalising the axis
        raise TypeError(f"rev dimensions must have every element be nonnegative, got ({axis},).")
    axis %= nd
    lengths = {x.shape[axis] for x in leaves}
    if len(lengths) != 1:
        raise ValueError("Array inputs to associative_scan must have the same first dimension. "
                         f"(saw: {[x.shape for x in leaves]})")
    if reverse:
        leaves = [lax.rev(x, (axis,)) for x in leaves]

    def combine(a, b):
        out = fn(tree_util.tree_unflatten(tree, a), tree_util.tree_unflatten(tree, b))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        if out_tree != tree:
            raise ValueError(f"associative_scan: fn's output structure {out_tree} differs from "
                             f"its input structure {tree}")
        if any(core.aval_of(o).shape != core.aval_of(x).shape for o, x in zip(out_leaves, a)):
            raise ValueError("associative_scan: fn must return arrays of its inputs' shapes")
        return out_leaves

    def scan(xs):
        n = xs[0].shape[axis]
        if n < 2:
            return xs
        pairs = combine([_slice(x, 0, -1, 2, axis) for x in xs],
                        [_slice(x, 1, None, 2, axis) for x in xs])
        odd = scan(pairs)
        if n % 2 == 0:
            even = combine([_slice(o, 0, -1, 1, axis) for o in odd],
                           [_slice(x, 2, None, 2, axis) for x in xs])
        else:
            even = combine(odd, [_slice(x, 2, None, 2, axis) for x in xs])
        even = [lax.concatenate([_slice(x, 0, 1, 1, axis), e], axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = scan(leaves)
    if reverse:
        out = [lax.rev(x, (axis,)) for x in out]
    return tree_util.tree_unflatten(tree, out)
