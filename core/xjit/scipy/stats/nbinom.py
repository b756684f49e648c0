"""``xjit.scipy.stats.nbinom``, as ``jax.scipy.stats.nbinom``."""
from xjit._src.scipy.stats_discrete import (  # noqa: F401
    nbinom_logpmf as logpmf, nbinom_pmf as pmf)
