"""``xjit.scipy.stats.dirichlet``, as in JAX."""
from xjit._src.scipy.stats_multi import (  # noqa: F401
    dirichlet_logpdf as logpdf, dirichlet_pdf as pdf)
