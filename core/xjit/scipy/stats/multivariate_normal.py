"""``xjit.scipy.stats.multivariate_normal``, as in JAX."""
from xjit._src.scipy.stats_multi import mvn_logpdf as logpdf, mvn_pdf as pdf  # noqa: F401
