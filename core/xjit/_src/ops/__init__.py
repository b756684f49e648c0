"""``jax._src.ops``: segment reductions (``jax.ops``)."""
