"""``xjit.scipy.stats``: one module per distribution, as ``jax.scipy.stats``."""
from xjit.scipy.stats import (  # noqa: F401
    bernoulli, beta, cauchy, chi2, dirichlet, expon, gamma, geom, laplace, logistic,
    multivariate_normal, norm, pareto, poisson, t, uniform)
