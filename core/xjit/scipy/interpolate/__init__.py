"""``xjit.scipy.interpolate``, as ``jax.scipy.interpolate``."""
from xjit._src.scipy.interpolate import RegularGridInterpolator  # noqa: F401
