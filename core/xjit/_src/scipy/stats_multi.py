"""Multivariate and heavy-tailed densities of ``xjit.scipy.stats``:
multivariate_normal (Cholesky-whitened), dirichlet and pareto."""
from __future__ import annotations

import numpy as np

from xjit._src.lax import linalg as _lax_linalg
from xjit._src.numpy.util import promote_dtypes_inexact
from xjit._src.numpy.vectorize import vectorize
from xjit._src.scipy.special import _const, gammaln, promote_args_inexact as _promote, xlogy
from xjit._src.lax import lax
from xjit._src.numpy import diagonals
from xjit._src.numpy import einsum
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import reductions
from xjit._src.numpy import shape_ops


def mvn_logpdf(x, mean, cov, allow_singular=None):
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes_inexact(x, mean, cov)
    x, mean, cov = jnp.asarray(x), jnp.asarray(mean), jnp.asarray(cov)
    if not mean.shape:
        return -1 / 2 * jnp.square(x - mean) / cov - 1 / 2 * (jnp.log(2 * np.pi) + jnp.log(cov))
    n = mean.shape[-1]
    if not np.shape(cov):
        y = x - mean
        return (-1 / 2 * einsum.einsum("...i,...i->...", y, y) / cov
                - n / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    chol = _lax_linalg.cholesky(cov)

    def whiten(c, v):  # v as a row: v L^-T, i.e. L^-1 v
        out = _lax_linalg.triangular_solve(c, lax.expand_dims(v, (v.ndim - 1,)), lower=True,
                                           transpose_a=True)
        return out[..., 0, :]

    y = vectorize(whiten, signature="(n,n),(n)->(n)")(chol, x - mean)
    return (-1 / 2 * einsum.einsum("...i,...i->...", y, y) - n / 2 * jnp.log(2 * np.pi)
            - jnp.log(diagonals.diagonal(chol, axis1=-1, axis2=-2)).sum(-1))


def mvn_pdf(x, mean, cov):
    return lax.exp(mvn_logpdf(x, mean, cov))


def _is_simplex(x):
    return reductions.all(x > 0, axis=0) & (abs(reductions.sum(x, axis=0) - 1) < 1e-06)


def dirichlet_logpdf(x, alpha):
    x, alpha = (jnp.asarray(a) for a in promote_dtypes_inexact(x, alpha))
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one "
                         f"entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
    one = _const(x, 1)
    if x.shape[0] != alpha.shape[0]:  # the last coordinate is implied by the others
        x = shape_ops.concatenate([x, lax.sub(one, x.sum(0, keepdims=True))], axis=0)
    norm = reductions.sum(gammaln(alpha)) - gammaln(reductions.sum(alpha))
    if x.ndim > 1:
        alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
    lp = lax.sub(reductions.sum(xlogy(lax.sub(alpha, one), x), axis=0), norm)
    return jnp.where(_is_simplex(x), lp, -np.inf)


def dirichlet_pdf(x, alpha):
    return lax.exp(dirichlet_logpdf(x, alpha))


def _pareto_args(name, x, b, loc, scale):
    x, b, loc, scale = _promote(name, x, b, loc, scale)
    return x, b, loc, scale, lax.div(lax.sub(x, loc), scale)


def _below(x, loc, scale):
    return lax.lt(x, lax.add(loc, scale))


def pareto_logpdf(x, b, loc=0, scale=1):
    x, b, loc, scale, y = _pareto_args("pareto.logpdf", x, b, loc, scale)
    lp = lax.neg(lax.add(lax.log(lax.div(scale, b)), lax.mul(lax.add(b, _const(x, 1)), lax.log(y))))
    return jnp.where(_below(x, loc, scale), -np.inf, lp)


def pareto_pdf(x, b, loc=0, scale=1):
    return lax.exp(pareto_logpdf(x, b, loc, scale))


def pareto_cdf(x, b, loc=0, scale=1):
    x, b, loc, scale = _promote("pareto.cdf", x, b, loc, scale)
    one, zero = _const(x, 1), _const(x, 0)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_below(x, loc, scale), zero, lax.sub(one, lax.pow(y, lax.neg(b))))


def pareto_logcdf(x, b, loc=0, scale=1):
    x, b, loc, scale, y = _pareto_args("pareto.logcdf", x, b, loc, scale)
    return jnp.where(_below(x, loc, scale), -np.inf, lax.log1p(lax.neg(lax.pow(y, lax.neg(b)))))


def pareto_logsf(x, b, loc=0, scale=1):
    x, b, loc, scale = _promote("pareto.logsf", x, b, loc, scale)
    zero = _const(x, 0)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_below(x, loc, scale), zero, lax.neg(lax.mul(b, lax.log(y))))


def pareto_sf(x, b, loc=0, scale=1):
    return lax.exp(pareto_logsf(x, b, loc, scale))


def pareto_ppf(q, b, loc=0, scale=1):
    q, b, loc, scale = _promote("pareto.ppf", q, b, loc, scale)
    one = _const(q, 1)
    val = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, val)

