"""``xjit.scipy.stats.vonmises``, as ``jax.scipy.stats.vonmises``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    vonmises_logpdf as logpdf, vonmises_pdf as pdf)
