"""``xjit.scipy.cluster``, as ``jax.scipy.cluster``."""
from xjit.scipy.cluster import vq  # noqa: F401
