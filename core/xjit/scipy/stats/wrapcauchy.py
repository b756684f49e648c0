"""``xjit.scipy.stats.wrapcauchy``, as ``jax.scipy.stats.wrapcauchy``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    wrapcauchy_logpdf as logpdf, wrapcauchy_pdf as pdf)
