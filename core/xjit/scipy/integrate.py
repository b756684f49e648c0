"""``xjit.scipy.integrate``, as ``jax.scipy.integrate``."""
from xjit._src.scipy.integrate import trapezoid  # noqa: F401
