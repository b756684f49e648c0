"""``xjit.scipy.stats``: one module per distribution, as ``jax.scipy.stats``,
plus the sample statistics (mode, rankdata, sem) and ``gaussian_kde``."""
from xjit.scipy.stats import (  # noqa: F401
    bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma, gennorm, geom,
    gumbel_l, gumbel_r, laplace, logistic, multinomial, multivariate_normal, nbinom, norm,
    pareto, poisson, t, truncnorm, uniform, vonmises, wrapcauchy)
from xjit._src.scipy.stats_sample import (  # noqa: F401
    gaussian_kde, mode, rankdata, sem)
