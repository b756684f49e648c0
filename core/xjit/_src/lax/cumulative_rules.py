"""JVP rules for ``cumprod``, ``cummax``, ``cummin`` and ``cumlogsumexp``.

As in JAX, the derivative of a cumulative reduction is the JVP of a
parallel prefix scan (``associative_scan``) of the same combining function:
the scan is built from slices, pads and elementwise ops, all of which are
differentiable to any order, unlike the primitive's lowering. The scan's
shape (which slices, pads and concatenations it emits) follows JAX's so the
printed jaxprs agree. ``cumsum``'s own (linear) rules live with the other
cumulative rules in ``slicing_rules``.
"""
from __future__ import annotations

import numpy as np

from .. import ad
from . import api as lax
from . import sorting as so


def _slice_axis(x, start, limit, stride, axis):
    """``x[start:limit:stride]`` along ``axis``, strides always explicit (as
    JAX's ``slice_in_dim`` prints them)."""
    n = x.shape[axis]
    start = start + n if start < 0 else start
    limit = n if limit is None else (limit + n if limit < 0 else limit)
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], strides[axis] = start, max(limit, start), stride
    return lax.slice(x, starts, limits, strides)


def _interleave(a, b, axis):
    """Alternate the entries of ``a`` (even positions) and ``b`` (odd) along
    ``axis``, by interior padding each with zeros and adding."""
    same = a.shape[axis] == b.shape[axis]
    cfg_a, cfg_b = [(0, 0, 0)] * a.ndim, [(0, 0, 0)] * b.ndim
    cfg_a[axis] = (0, 1 if same else 0, 1)
    cfg_b[axis] = (1, 0 if same else 1, 1)
    zero = np.zeros((), a.dtype)
    op = lax.bitwise_or if a.dtype == np.bool_ else lax.add
    return op(lax.pad(a, zero, cfg_a), lax.pad(b, zero, cfg_b))


def associative_scan(fn, elems, reverse=False, axis=0):
    """Inclusive scan of the list of arrays ``elems`` with the associative
    ``fn(list_a, list_b) -> list`` along ``axis``: pairwise combine the
    neighbours, scan the half-length result recursively (those are the odd
    outputs), then combine it with the remaining even inputs."""
    if reverse:
        elems = [lax.rev(e, (axis,)) for e in elems]

    def scan(xs):
        n = xs[0].shape[axis]
        if n < 2:
            return xs
        pairs = fn([_slice_axis(x, 0, -1, 2, axis) for x in xs],
                   [_slice_axis(x, 1, None, 2, axis) for x in xs])
        odd = scan(pairs)
        if n % 2 == 0:
            odd_head = [_slice_axis(o, 0, -1, 1, axis) for o in odd]
        else:
            odd_head = odd
        even = fn(odd_head, [_slice_axis(x, 2, None, 2, axis) for x in xs])
        even = [lax.concatenate([_slice_axis(x, 0, 1, 1, axis), e], axis)
                for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = scan(list(elems))
    return [lax.rev(o, (axis,)) for o in out] if reverse else out


def _logaddexp(a, b):
    from ..numpy.more_math import logaddexp  # jnp's, a custom_jvp function as in JAX
    return logaddexp(a, b)


_COMBINE = {
    so.cumprod_p: lax.mul,
    so.cummax_p: lax.max,
    so.cummin_p: lax.min,
}


def _scan_jvp(prim):
    def rule(primals, tangents, *, axis, reverse):
        combine = _COMBINE.get(prim) or _logaddexp

        def scan(x):
            return associative_scan(lambda a, b: [combine(a[0], b[0])], [x], reverse, axis)
        (out,), (t,) = ad.jvp_flat(scan, primals, [ad.instantiate_zeros(tangents[0])])
        return out, t
    return rule


for _p in (so.cumprod_p, so.cummax_p, so.cummin_p, so.cumlogsumexp_p):
    ad.jvp_rules[_p] = _scan_jvp(_p)
del _p
