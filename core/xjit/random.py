"""Pseudo-random numbers, bit-identical to ``jax.random`` (threefry2x32)."""
from xjit._src.random import (  # noqa: F401
    PRNGKey, bernoulli, bits, categorical, cauchy, choice, exponential, fold_in, gumbel, key,
    key_data, key_dtype, key_impl, laplace, logistic, normal, permutation, rademacher, randint,
    split, truncated_normal, uniform, wrap_key_data)
