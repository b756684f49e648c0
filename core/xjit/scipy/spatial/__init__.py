"""``xjit.scipy.spatial``, as ``jax.scipy.spatial``: ``transform`` is imported
on demand (``import xjit.scipy.spatial.transform``), as in JAX."""
