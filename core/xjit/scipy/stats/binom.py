"""``xjit.scipy.stats.binom``, as ``jax.scipy.stats.binom``."""
from xjit._src.scipy.stats_discrete import (  # noqa: F401
    binom_logpmf as logpmf, binom_pmf as pmf)
