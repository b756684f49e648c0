"""``xjit.scipy.stats.gamma``, as ``jax.scipy.stats.gamma``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    gamma_cdf as cdf, gamma_logcdf as logcdf, gamma_logpdf as logpdf, gamma_logsf as logsf,
    gamma_pdf as pdf, gamma_sf as sf)
