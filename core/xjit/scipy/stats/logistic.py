"""``xjit.scipy.stats.logistic``, as ``jax.scipy.stats.logistic``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    logistic_cdf as cdf, logistic_isf as isf, logistic_logpdf as logpdf, logistic_pdf as pdf,
    logistic_ppf as ppf, logistic_sf as sf)
