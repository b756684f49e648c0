"""Pseudo-random numbers, bit-identical to ``jax.random`` (threefry2x32)."""
from xjit._src.random import (  # noqa: F401
    PRNGKey, bernoulli, bits, categorical, cauchy, choice, exponential, fold_in, gumbel, key,
    key_data, key_dtype, key_impl, laplace, logistic, normal, permutation, rademacher, randint,
    split, truncated_normal, uniform, wrap_key_data)
from xjit._src.random import clone  # noqa: F401
from xjit._src.random_gamma import (  # noqa: F401
    beta, dirichlet, gamma, loggamma, random_gamma_p)
from xjit._src.random_discrete import (  # noqa: F401
    binomial, geometric, multinomial, poisson)
from xjit._src.random_continuous import (  # noqa: F401
    ball, chisquare, double_sided_maxwell, f, generalized_normal, lognormal, maxwell,
    multivariate_normal, orthogonal, pareto, rayleigh, t, triangular, wald, weibull_min)
from xjit._src.random_sharding import install as _install  # noqa: E402

_install(globals())  # out_sharding= on the samplers that take it in JAX
del _install
