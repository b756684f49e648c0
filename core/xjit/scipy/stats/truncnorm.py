"""``xjit.scipy.stats.truncnorm``, as ``jax.scipy.stats.truncnorm``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    truncnorm_cdf as cdf, truncnorm_logcdf as logcdf, truncnorm_logpdf as logpdf,
    truncnorm_logsf as logsf, truncnorm_pdf as pdf, truncnorm_sf as sf)
