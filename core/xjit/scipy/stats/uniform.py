"""``xjit.scipy.stats.uniform``, as ``jax.scipy.stats.uniform``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    uniform_cdf as cdf, uniform_logpdf as logpdf, uniform_pdf as pdf, uniform_ppf as ppf)
