"""``xjit.scipy.stats``: one module per distribution, as ``jax.scipy.stats``."""
from xjit.scipy.stats import (  # noqa: F401
    bernoulli, beta, cauchy, chi2, expon, gamma, geom, laplace, logistic, norm, poisson, t,
    uniform)
