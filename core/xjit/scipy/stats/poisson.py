"""``xjit.scipy.stats.poisson``, as ``jax.scipy.stats.poisson``."""
from xjit._src.scipy.stats_discrete import (  # noqa: F401
    poisson_cdf as cdf, poisson_entropy as entropy, poisson_logpmf as logpmf, poisson_pmf as pmf)
