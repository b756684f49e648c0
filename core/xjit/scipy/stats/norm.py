"""``xjit.scipy.stats.norm``, as ``jax.scipy.stats.norm``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    norm_cdf as cdf, norm_isf as isf, norm_logcdf as logcdf, norm_logpdf as logpdf,
    norm_logsf as logsf, norm_pdf as pdf, norm_ppf as ppf, norm_sf as sf)
