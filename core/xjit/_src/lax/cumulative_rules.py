"""JVP rules for ``cumprod``, ``cummax``, ``cummin`` and ``cumlogsumexp``.

As in JAX, the derivative of a cumulative reduction is the JVP of a
parallel prefix scan (``associative_scan``) of the same combining function:
the scan is built from slices, pads and elementwise ops, all of which are
differentiable to any order, unlike the primitive's lowering; it emits the
same slices, pads and concatenations as JAX's, so the printed jaxprs agree.
``cumsum``'s own (linear) rules live with the other cumulative rules in
``slicing_rules``.
"""
from __future__ import annotations

from xjit._src.interpreters import ad
from xjit._src.lax import lax
from . import sorting as so
from .assoc_scan import associative_scan


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
            return [associative_scan(combine, x, reverse, axis)]
        (out,), (t,) = ad.jvp_flat(scan, primals, [ad.instantiate_zeros(tangents[0])])
        return out, t
    return rule


for _p in (so.cumprod_p, so.cummax_p, so.cummin_p, so.cumlogsumexp_p):
    ad.jvp_rules[_p] = _scan_jvp(_p)
del _p
