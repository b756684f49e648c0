"""``xjit.scipy.stats.pareto``, as ``jax.scipy.stats.pareto``."""
from xjit._src.scipy.stats_multi import (  # noqa: F401
    pareto_cdf as cdf, pareto_logcdf as logcdf, pareto_logpdf as logpdf, pareto_logsf as logsf,
    pareto_pdf as pdf, pareto_ppf as ppf, pareto_sf as sf)
