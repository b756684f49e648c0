"""``xjit.scipy.stats.multinomial``, as ``jax.scipy.stats.multinomial``."""
from xjit._src.scipy.stats_discrete import (  # noqa: F401
    multinomial_logpmf as logpmf, multinomial_pmf as pmf)
