"""``xjit.scipy.stats.bernoulli``, as ``jax.scipy.stats.bernoulli``."""
from xjit._src.scipy.stats_discrete import (  # noqa: F401
    bernoulli_cdf as cdf, bernoulli_logpmf as logpmf, bernoulli_pmf as pmf, bernoulli_ppf as ppf)
