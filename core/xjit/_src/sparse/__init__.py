"""xjit's ``jax.experimental.sparse``: the BCOO format (util, bcoo_prims and
bcoo_dot hold the primitives; bcoo the array type and its functions; api the
format-generic ``todense``, ``empty`` and ``eye``)."""
