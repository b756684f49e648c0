"""``xjit.scipy.stats.betabinom``, as ``jax.scipy.stats.betabinom``."""
from xjit._src.scipy.stats_discrete import (  # noqa: F401
    betabinom_logpmf as logpmf, betabinom_pmf as pmf)
