"""``xjit.scipy.cluster.vq``, as ``jax.scipy.cluster.vq``."""
from xjit._src.scipy.cluster_vq import vq  # noqa: F401
