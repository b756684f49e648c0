"""``xjit.scipy.ndimage``, as ``jax.scipy.ndimage``."""
from xjit._src.scipy.ndimage import map_coordinates  # noqa: F401
