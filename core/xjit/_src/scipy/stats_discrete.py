"""Mass and distribution functions of the discrete distributions in
``xjit.scipy.stats``; non-integral or out-of-support k has log mass -inf."""
from __future__ import annotations

import numpy as np

from xjit._src.scipy.special import _const, gammaincc, gammaln, xlog1py, xlogy
from xjit._src.scipy.special import promote_args_inexact as _promote
from xjit._src.lax import lax
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import manipulation
from xjit._src.numpy import ufuncs_api


def poisson_logpmf(k, mu, loc=0):
    k, mu, loc = _promote("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    lp = xlogy(x, mu) - gammaln(x + 1) - mu
    off = ufuncs_api.logical_or(lax.lt(x, _const(k, 0)), lax.ne(jnp.round(k), k))
    return jnp.where(off, -np.inf, lp)


def poisson_pmf(k, mu, loc=0):
    return jnp.exp(poisson_logpmf(k, mu, loc))


def poisson_cdf(k, mu, loc=0):
    k, mu, loc = _promote("poisson.logpmf", k, mu, loc)  # sic: JAX names it so
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    return jnp.where(lax.lt(x, zero), zero, gammaincc(jnp.floor(1 + x), mu))


def bernoulli_logpmf(k, p, loc=0):
    k, p, loc = _promote("bernoulli.logpmf", k, p, loc)
    zero, one = _const(k, 0), _const(k, 1)
    x = lax.sub(k, loc)
    lp = xlogy(x, p) + xlog1py(lax.sub(one, x), -p)
    return jnp.where(ufuncs_api.logical_or(lax.lt(x, zero), lax.gt(x, one)), -np.inf, lp)


def bernoulli_pmf(k, p, loc=0):
    return jnp.exp(bernoulli_logpmf(k, p, loc))


def bernoulli_cdf(k, p):
    k, p = _promote("bernoulli.cdf", k, p)
    zero, one = _const(k, 0), _const(k, 1)
    conds = [jnp.isnan(k) | jnp.isnan(p) | (p < zero) | (p > one), lax.lt(k, zero),
             ufuncs_api.logical_and(lax.ge(k, zero), lax.lt(k, one)), lax.ge(k, one)]
    return manipulation.select(conds, [jnp.nan, zero, one - p, one])


def bernoulli_ppf(q, p):
    q, p = _promote("bernoulli.ppf", q, p)
    zero, one = _const(q, 0), _const(q, 1)
    bad = jnp.isnan(q) | jnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return jnp.where(bad, jnp.nan, jnp.where(lax.le(q, one - p), zero, one))


def geom_logpmf(k, p, loc=0):
    k, p, loc = _promote("geom.logpmf", k, p, loc)
    x = lax.sub(k, loc)
    lp = xlog1py(lax.sub(x, _const(k, 1)), -p) + lax.log(p)
    return jnp.where(lax.le(x, _const(k, 0)), -np.inf, lp)


def geom_pmf(k, p, loc=0):
    return jnp.exp(geom_logpmf(k, p, loc))
