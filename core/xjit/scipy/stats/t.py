"""``xjit.scipy.stats.t``, as ``jax.scipy.stats.t``."""
from xjit._src.scipy.stats_continuous import (  # noqa: F401
    t_logpdf as logpdf, t_pdf as pdf)
