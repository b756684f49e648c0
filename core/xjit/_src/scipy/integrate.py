"""``jax.scipy.integrate.trapezoid``: ``jnp.trapezoid`` under SciPy's name,
jitted as JAX's is (``axis`` static)."""
from __future__ import annotations

from xjit import numpy as jnp
from xjit._src.pjit import jit_named


@jit_named("trapezoid", static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Trapezoidal-rule integral of ``y`` along ``axis``, at sample points
    ``x`` or with spacing ``dx``."""
    return jnp.trapezoid(y, x, dx, axis)
