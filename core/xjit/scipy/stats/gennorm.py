"""``xjit.scipy.stats.gennorm``, as ``jax.scipy.stats.gennorm``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    gennorm_cdf as cdf, gennorm_logpdf as logpdf, gennorm_pdf as pdf)
