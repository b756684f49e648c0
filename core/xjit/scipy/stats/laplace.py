"""``xjit.scipy.stats.laplace``, as ``jax.scipy.stats.laplace``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    laplace_cdf as cdf, laplace_logpdf as logpdf, laplace_pdf as pdf)
