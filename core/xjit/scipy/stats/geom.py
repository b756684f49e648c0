"""``xjit.scipy.stats.geom``, as ``jax.scipy.stats.geom``."""
from xjit._src.scipy.stats_discrete import (  # noqa: F401
    geom_logpmf as logpmf, geom_pmf as pmf)
