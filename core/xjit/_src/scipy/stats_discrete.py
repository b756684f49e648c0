"""Mass and distribution functions of the discrete distributions in
``xjit.scipy.stats``; non-integral or out-of-support k has log mass -inf."""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.pjit import jit_named
from xjit._src.scipy.special import _const, betaln, entr, gammaincc, gammaln, xlog1py, xlogy
from xjit._src.scipy.special import promote_args_inexact as _promote
from xjit._src.numpy.util import (
    check_arraylike, promote_args_numeric, promote_dtypes_inexact)
from xjit._src.lax import lax
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import manipulation
from xjit._src.numpy import reductions
from xjit._src.numpy import shape_ops
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


def _truncated_entropy(mu, kmax, upper):
    """Sum of -p log p over k < ``upper`` (per mu), for k up to the static
    ``kmax`` so one graph serves every mu of the regime."""
    k = lax.broadcast_in_dim(jnp.arange(kmax, dtype=mu.dtype), (kmax, 1), (0,))
    p = poisson_pmf(k, mu, 0)
    kept = lax.lt(k, lax.convert_element_type(jnp.ceil(upper), k.dtype)[None, :])
    return reductions.sum(entr(jnp.where(kept, p, 0.0)), axis=0)


def poisson_entropy(mu, loc=0):
    """Entropy by summing the mass for mu < 100 and by the Stirling series
    0.5 log(2 pi e mu) - 1/(12 mu) beyond; loc shifts nothing."""
    check_arraylike("poisson.entropy", mu, loc)
    mu, loc = promote_dtypes_inexact(jnp.asarray(mu), jnp.asarray(loc))
    shape = shape_ops.broadcast_shapes(mu.shape, loc.shape)
    m = shape_ops.ravel(mu)
    small = _truncated_entropy(m, 35, m + 20)
    medium = _truncated_entropy(m, 250, m + 10 * jnp.sqrt(m) + 20)
    large = 0.5 * jnp.log(2 * np.pi * np.e * m) - 1.0 / (12 * m)
    h = jnp.where(m == 0, jnp.zeros_like(m),
                  jnp.where(m < 10, small, jnp.where(m < 100, medium, large)))
    return shape_ops.broadcast_to(shape_ops.reshape(h, mu.shape), shape)


# -- binom, nbinom, betabinom: log mass from log-gamma/log-beta terms

def binom_logpmf(k, n, p, loc=0):
    """Non-integral k in [loc, loc + n] keeps its gamma-interpolated mass, as
    JAX's; a zero linear term (p at 0 or 1 on its own edge) gives log mass 0."""
    k, n, p, loc = _promote("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    zero = _const(y, 0)
    # Python-scalar arithmetic here, as JAX's, so weak types survive
    log_choose = lax.sub(gammaln(n + 1), lax.add(gammaln(y + 1), gammaln(n - y + 1)))
    lin = lax.add(xlogy(y, p), xlog1py(lax.sub(n, y), lax.neg(p)))
    lp = lax.add(log_choose, lin)
    certain = (lax.eq(y, zero) & lax.eq(n, zero)) | lax.eq(lin, zero)
    lp = jnp.where(certain, 0.0, lp)
    return jnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), lp, -np.inf)


def binom_pmf(k, n, p, loc=0):
    return lax.exp(binom_logpmf(k, n, p, loc))


def nbinom_logpmf(k, n, p, loc=0):
    k, n, p, loc = _promote("nbinom.logpmf", k, n, p, loc)
    one = _const(k, 1)
    y = lax.sub(k, loc)
    log_choose = lax.sub(lax.sub(gammaln(lax.add(y, n)), gammaln(n)), gammaln(lax.add(y, one)))
    lp = lax.add(log_choose, lax.add(xlogy(n, p), xlogy(y, lax.sub(one, p))))
    return jnp.where(lax.lt(k, loc), -np.inf, lp)


def nbinom_pmf(k, n, p, loc=0):
    return lax.exp(nbinom_logpmf(k, n, p, loc))


@jit_named("logpmf")
def betabinom_logpmf(k, n, a, b, loc=0):
    """k is floored first; n < 0 or a, b <= 0 are invalid (nan)."""
    k, n, a, b, loc = _promote("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = _const(y, 1), _const(y, 0)
    rest = lax.sub(n, y)
    log_choose = lax.neg(lax.add(lax.log1p(n), betaln(lax.add(rest, one), lax.add(y, one))))
    log_beta_ratio = lax.sub(betaln(lax.add(y, a), lax.add(rest, b)), betaln(a, b))
    lp = jnp.where(lax.eq(y, zero) & lax.eq(n, zero), 0.0, lax.add(log_choose, log_beta_ratio))
    off = lax.lt(y, lax.neg(loc)) | lax.gt(y, n) | lax.le(lax.add(y, a), zero)
    lp = jnp.where(off, -np.inf, lp)
    return jnp.where(lax.lt(n, zero) | lax.le(a, zero) | lax.le(b, zero), np.nan, lp)


def betabinom_pmf(k, n, a, b, loc=0):
    return lax.exp(betabinom_logpmf(k, n, a, b, loc))


# -- multinomial

def multinomial_logpmf(x, n, p):
    """Counts x (last axis) and n must be integers; the mass is zero unless
    the counts add up to n (JAX sums all of x here, not per row)."""
    p, = _promote("multinomial.logpmf", p)
    x, n = promote_args_numeric("multinomial.logpmf", x, n)
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, "
                         f"n.dtype={n.dtype}")
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    terms = lax.sub(xlogy(x, p), gammaln(lax.add(x, _const(x, 1))))
    lp = gammaln(lax.add(n, _const(n, 1))) + reductions.sum(terms, axis=-1)
    return jnp.where(lax.eq(reductions.sum(x), n), lp, -np.inf)


def multinomial_pmf(x, n, p):
    return lax.exp(multinomial_logpmf(x, n, p))
