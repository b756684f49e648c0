"""``xjit.scipy.stats.beta``, as ``jax.scipy.stats.beta``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    beta_cdf as cdf, beta_logcdf as logcdf, beta_logpdf as logpdf, beta_logsf as logsf,
    beta_pdf as pdf, beta_sf as sf)
