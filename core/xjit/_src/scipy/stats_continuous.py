"""Densities and distribution functions of the continuous distributions in
``xjit.scipy.stats`` (standardised by loc/scale, as SciPy does)."""
from __future__ import annotations

import numpy as np

from xjit._src.scipy.special import (
    _const, betainc, betaln, expit, gammainc, gammaincc, gammaln, logit, xlog1py, xlogy)
from xjit._src.scipy.special import promote_args_inexact as _promote
from xjit._src.scipy.special_ndtr import log_ndtr, ndtr, ndtri
from xjit._src.lax import lax
from xjit._src.lax import special as lax_special
from xjit._src.nn.functions import log1mexp, logsumexp
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import manipulation
from xjit._src.numpy import shape_ops
from xjit._src.numpy import ufuncs_api
from xjit._src.pjit import jit_named


def _z(x, loc, scale):
    return lax.div(lax.sub(x, loc), scale)


# -- norm

def norm_logpdf(x, loc=0, scale=1):
    x, loc, scale = _promote("norm.logpdf", x, loc, scale)
    var = lax.square(scale)
    log_norm = lax.log(lax.mul(_const(x, 2 * np.pi), var))
    quad = lax.div(lax.square(lax.sub(x, loc)), var)
    return lax.div(lax.add(log_norm, quad), _const(x, -2))


def norm_pdf(x, loc=0, scale=1):
    return lax.exp(norm_logpdf(x, loc, scale))


def norm_cdf(x, loc=0, scale=1):
    x, loc, scale = _promote("norm.cdf", x, loc, scale)
    return ndtr(_z(x, loc, scale))


def norm_logcdf(x, loc=0, scale=1):
    x, loc, scale = _promote("norm.logcdf", x, loc, scale)
    return log_ndtr(_z(x, loc, scale))


def norm_ppf(q, loc=0, scale=1):
    return jnp.asarray(ndtri(q) * scale + loc, float)


def norm_sf(x, loc=0, scale=1):
    x, loc, scale = _promote("norm.sf", x, loc, scale)
    return norm_cdf(-x, -loc, scale)


def norm_logsf(x, loc=0, scale=1):
    x, loc, scale = _promote("norm.logsf", x, loc, scale)
    return norm_logcdf(-x, -loc, scale)


def norm_isf(q, loc=0, scale=1):
    return norm_ppf(lax.sub(_const(q, 1), q), loc, scale)


# -- uniform

def uniform_logpdf(x, loc=0, scale=1):
    x, loc, scale = _promote("uniform.logpdf", x, loc, scale)
    outside = ufuncs_api.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    return jnp.where(outside, -np.inf, lax.neg(lax.log(scale)))


def uniform_pdf(x, loc=0, scale=1):
    return lax.exp(uniform_logpdf(x, loc, scale))


def uniform_cdf(x, loc=0, scale=1):
    x, loc, scale = _promote("uniform.cdf", x, loc, scale)
    hi = lax.add(loc, scale)
    conds = [lax.lt(x, loc), lax.gt(x, hi), lax.ge(x, loc) & lax.le(x, hi)]
    return manipulation.select(conds, [jnp.array(0, x.dtype), jnp.array(1, x.dtype), _z(x, loc, scale)])


def uniform_ppf(q, loc=0, scale=1):
    q, loc, scale = _promote("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, lax.add(loc, lax.mul(scale, q)))


# -- expon

def expon_logpdf(x, loc=0, scale=1):
    x, loc, scale = _promote("expon.logpdf", x, loc, scale)
    log_scale = lax.log(scale)
    lp = lax.neg(lax.add(_z(x, loc, scale), log_scale))
    return jnp.where(lax.lt(x, loc), -np.inf, lp)


def expon_pdf(x, loc=0, scale=1):
    return lax.exp(expon_logpdf(x, loc, scale))


def expon_cdf(x, loc=0, scale=1):
    x, loc, scale = _promote("expon.cdf", x, loc, scale)
    t = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(t), lax.neg(lax.expm1(t)))


def expon_logsf(x, loc=0, scale=1):
    x, loc, scale = _promote("expon.sf", x, loc, scale)
    t = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(t), t)


def expon_sf(x, loc=0, scale=1):
    return lax.exp(expon_logsf(x, loc, scale))


def expon_logcdf(x, loc=0, scale=1):
    return lax.log1p(lax.neg(expon_sf(x, loc, scale)))


def expon_ppf(q, loc=0, scale=1):
    q, loc, scale = _promote("expon.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan,
                     lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))


# -- gamma

def gamma_logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = _promote("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = _const(x, 1)
    y = jnp.where(ok, _z(x, loc, scale), one)
    lin = lax.sub(xlogy(lax.sub(a, one), y), y)
    lp = lax.sub(lin, lax.add(gammaln(a), lax.log(scale)))
    return jnp.where(ok, lp, -np.inf)


def gamma_pdf(x, a, loc=0, scale=1):
    return lax.exp(gamma_logpdf(x, a, loc, scale))


def gamma_cdf(x, a, loc=0, scale=1):
    x, a, loc, scale = _promote("gamma.cdf", x, a, loc, scale)
    return gammainc(a, lax.clamp(_const(x, 0), _z(x, loc, scale), _const(x, np.inf)))


def gamma_logcdf(x, a, loc=0, scale=1):
    return lax.log(gamma_cdf(x, a, loc, scale))


def gamma_sf(x, a, loc=0, scale=1):
    x, a, loc, scale = _promote("gamma.sf", x, a, loc, scale)
    y = _z(x, loc, scale)
    return jnp.where(lax.lt(y, _const(y, 0)), 1, gammaincc(a, y))


def gamma_logsf(x, a, loc=0, scale=1):
    return lax.log(gamma_sf(x, a, loc, scale))


# -- chi2

def chi2_logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = _promote("chi2.logpdf", x, df, loc, scale)
    one, two = _const(x, 1), _const(x, 2)
    y = _z(x, loc, scale)
    half_df = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(half_df, one), lax.log(y)), lax.div(y, two))
    norm = lax.neg(lax.add(lax.lgamma(half_df), lax.div(lax.mul(lax.log(two), df), two)))
    lp = lax.add(lax.sub(norm, lax.log(scale)), kernel)
    return jnp.where(lax.lt(x, loc), -np.inf, lp)


def chi2_pdf(x, df, loc=0, scale=1):
    return lax.exp(chi2_logpdf(x, df, loc, scale))


def _chi2_args(name, x, df, loc, scale):
    x, df, loc, scale = _promote(name, x, df, loc, scale)
    two = _const(scale, 2)
    y = lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), lax.mul(scale, two)), _const(x, np.inf))
    return lax.div(df, two), y


def chi2_cdf(x, df, loc=0, scale=1):
    return gammainc(*_chi2_args("chi2.cdf", x, df, loc, scale))


def chi2_logcdf(x, df, loc=0, scale=1):
    return lax.log(chi2_cdf(x, df, loc, scale))


def chi2_sf(x, df, loc=0, scale=1):
    return gammaincc(*_chi2_args("chi2.sf", x, df, loc, scale))


def chi2_logsf(x, df, loc=0, scale=1):
    return lax.log(chi2_sf(x, df, loc, scale))


# -- beta

def beta_logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = _promote("beta.logpdf", x, a, b, loc, scale)
    one, zero = _const(x, 1), _const(a, 0)
    shape_term = lax.neg(betaln(a, b))
    y = _z(x, loc, scale)
    lin = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
    lp = lax.sub(lax.add(shape_term, lin), lax.log(scale))
    out = jnp.where(ufuncs_api.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc)), -np.inf, lp)
    bad = ufuncs_api.logical_or(ufuncs_api.logical_or(lax.le(a, zero), lax.le(b, zero)), lax.le(scale, zero))
    return jnp.where(bad, np.nan, out)


def beta_pdf(x, a, b, loc=0, scale=1):
    return lax.exp(beta_logpdf(x, a, b, loc, scale))


def beta_cdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = _promote("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, lax.clamp(_const(x, 0), _z(x, loc, scale), _const(x, 1)))


def beta_logcdf(x, a, b, loc=0, scale=1):
    return lax.log(beta_cdf(x, a, b, loc, scale))


def beta_sf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = _promote("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - lax.clamp(_const(x, 0), _z(x, loc, scale), _const(x, 1)))


def beta_logsf(x, a, b, loc=0, scale=1):
    return lax.log(beta_sf(x, a, b, loc, scale))


# -- t

def t_logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = _promote("t.logpdf", x, df, loc, scale)
    two = _const(x, 2)
    y = _z(x, loc, scale)
    half_df = lax.div(df, two)
    half_df1 = lax.add(half_df, _const(x, 0.5))
    c = lax.mul(lax.mul(scale, scale), _const(x, np.pi))
    log_c = lax.div(lax.log(lax.mul(c, df)), two)
    norm = lax.sub(lax.add(lax.lgamma(half_df), log_c), lax.lgamma(half_df1))
    quad = lax.div(lax.mul(y, y), df)
    return lax.neg(lax.add(norm, lax.mul(half_df1, lax.log1p(quad))))


def t_pdf(x, df, loc=0, scale=1):
    return lax.exp(t_logpdf(x, df, loc, scale))


# -- laplace

def laplace_logpdf(x, loc=0, scale=1):
    x, loc, scale = _promote("laplace.logpdf", x, loc, scale)
    lin = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(lin, lax.log(lax.mul(_const(x, 2), scale))))


def laplace_pdf(x, loc=0, scale=1):
    return lax.exp(laplace_logpdf(x, loc, scale))


def laplace_cdf(x, loc=0, scale=1):
    x, loc, scale = _promote("laplace.cdf", x, loc, scale)
    half, one, zero = _const(x, 0.5), _const(x, 1), _const(x, 0)
    d = _z(x, loc, scale)
    return lax.select(lax.le(d, zero), lax.mul(half, lax.exp(d)),
                      lax.sub(one, lax.mul(half, lax.exp(lax.neg(d)))))


# -- logistic

def logistic_logpdf(x, loc=0, scale=1):
    x, loc, scale = _promote("logistic.logpdf", x, loc, scale)
    x = _z(x, loc, scale)
    two = _const(x, 2)
    h = lax.div(x, two)
    return lax.sub(lax.mul(lax.neg(two), ufuncs_api.logaddexp(h, lax.neg(h))), lax.log(scale))


def logistic_pdf(x, loc=0, scale=1):
    return lax.exp(logistic_logpdf(x, loc, scale))


def logistic_cdf(x, loc=0, scale=1):
    x, loc, scale = _promote("logistic.cdf", x, loc, scale)
    return expit(_z(x, loc, scale))


def logistic_sf(x, loc=0, scale=1):
    x, loc, scale = _promote("logistic.sf", x, loc, scale)
    return expit(lax.neg(_z(x, loc, scale)))


def logistic_ppf(x, loc=0, scale=1):
    x, loc, scale = _promote("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(logit(x), scale), loc)


def logistic_isf(x, loc=0, scale=1):
    x, loc, scale = _promote("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(logit(x)), scale), loc)


# -- cauchy

def cauchy_logpdf(x, loc=0, scale=1):
    x, loc, scale = _promote("cauchy.logpdf", x, loc, scale)
    y = _z(x, loc, scale)
    return lax.neg(lax.add(lax.log(lax.mul(_const(x, np.pi), scale)), lax.log1p(lax.mul(y, y))))


def cauchy_pdf(x, loc=0, scale=1):
    return lax.exp(cauchy_logpdf(x, loc, scale))


def cauchy_cdf(x, loc=0, scale=1):
    x, loc, scale = _promote("cauchy.cdf", x, loc, scale)
    y = _z(x, loc, scale)
    inv_pi = lax.div(_const(x, 1.0), _const(x, np.pi))
    return lax.add(_const(x, 0.5), lax.mul(inv_pi, jnp.arctan(y)))


def cauchy_logcdf(x, loc=0, scale=1):
    return lax.log(cauchy_cdf(x, loc, scale))


def cauchy_sf(x, loc=0, scale=1):
    x, loc, scale = _promote("cauchy.sf", x, loc, scale)
    return cauchy_cdf(-x, -loc, scale)


def cauchy_logsf(x, loc=0, scale=1):
    x, loc, scale = _promote("cauchy.logsf", x, loc, scale)
    return cauchy_logcdf(-x, -loc, scale)


def _cauchy_tan(name, q, loc, scale, flip):
    q, loc, scale = _promote(name, q, loc, scale)
    pi_q, half_pi = lax.mul(_const(q, np.pi), q), _const(q, np.pi / 2)
    u = lax.tan(lax.sub(half_pi, pi_q) if flip else lax.sub(pi_q, half_pi))
    return lax.add(lax.mul(u, scale), loc)


def cauchy_ppf(q, loc=0, scale=1):
    return _cauchy_tan("cauchy.ppf", q, loc, scale, False)


def cauchy_isf(q, loc=0, scale=1):
    return _cauchy_tan("cauchy.isf", q, loc, scale, True)


# -- gennorm (standard form only, as JAX's)

def gennorm_logpdf(x, beta):
    """Python-scalar arithmetic, as JAX's, so weak types survive."""
    x, beta = _promote("gennorm.logpdf", x, beta)
    return lax.log(0.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def gennorm_pdf(x, beta):
    return lax.exp(gennorm_logpdf(x, beta))


def gennorm_cdf(x, beta):
    """Half plus or minus half the regularised gamma of |x|**beta."""
    x, beta = _promote("gennorm.cdf", x, beta)
    return 0.5 * (1 + lax.sign(x) * lax_special.igamma(1 / beta, lax.abs(x) ** beta))


# -- gumbel_l, gumbel_r: a non-positive scale gives nan everywhere

def _gumbel_args(name, x, loc, scale):
    x, loc, scale = _promote(name, x, loc, scale)
    return x, loc, scale, lax.gt(scale, _const(scale, 0))


def gumbel_l_logpdf(x, loc=0, scale=1):
    x, loc, scale, ok = _gumbel_args("gumbel_l.logpdf", x, loc, scale)
    z = _z(x, loc, scale)
    return jnp.where(ok, lax.add(xlogy(-1, scale), lax.sub(z, lax.exp(z))), np.nan)


def gumbel_l_pdf(x, loc=0, scale=1):
    return lax.exp(gumbel_l_logpdf(x, loc, scale))


def gumbel_l_logcdf(x, loc=0, scale=1):
    """log(1 - exp(-e^z)) through expm1, which stays accurate in both tails."""
    x, loc, scale, ok = _gumbel_args("gumbel_l.logcdf", x, loc, scale)
    e = lax.exp(_z(x, loc, scale))
    return jnp.where(ok, lax.log(lax.neg(lax.expm1(lax.neg(e)))), np.nan)


def gumbel_l_cdf(x, loc=0, scale=1):
    return lax.exp(gumbel_l_logcdf(x, loc, scale))


def gumbel_l_logsf(x, loc=0, scale=1):
    x, loc, scale, ok = _gumbel_args("gumbel_l.logsf", x, loc, scale)
    return jnp.where(ok, lax.neg(lax.exp(_z(x, loc, scale))), np.nan)


def gumbel_l_sf(x, loc=0, scale=1):
    return jnp.exp(gumbel_l_logsf(x, loc, scale))


def gumbel_l_ppf(p, loc=0, scale=1):
    p, loc, scale = _promote("gumbel_l.ppf", p, loc, scale)
    inside = lax.gt(p, _const(p, 0)) & lax.lt(p, _const(p, 1))
    q = lax.add(loc, lax.mul(scale, lax.log(xlog1py(-1, lax.neg(p)))))
    return jnp.where(inside, q, np.nan)


def gumbel_r_logpdf(x, loc=0, scale=1):
    x, loc, scale, ok = _gumbel_args("gumbel_r.logpdf", x, loc, scale)
    z = _z(x, loc, scale)
    lp = lax.add(xlogy(-1, scale), lax.neg(lax.add(z, lax.exp(lax.neg(z)))))
    return jnp.where(ok, lp, np.nan)


def gumbel_r_pdf(x, loc=0, scale=1):
    return lax.exp(gumbel_r_logpdf(x, loc, scale))


def gumbel_r_logcdf(x, loc=0, scale=1):
    x, loc, scale, ok = _gumbel_args("gumbel_r.logcdf", x, loc, scale)
    return jnp.where(ok, lax.neg(lax.exp(lax.neg(_z(x, loc, scale)))), np.nan)


def gumbel_r_cdf(x, loc=0, scale=1):
    return lax.exp(gumbel_r_logcdf(x, loc, scale))


def gumbel_r_sf(x, loc=0, scale=1):
    x, loc, scale, ok = _gumbel_args("gumbel_r.sf", x, loc, scale)
    e = lax.exp(lax.div(lax.sub(loc, x), scale))
    return jnp.where(ok, lax.sub(_const(x, 1), lax.exp(lax.neg(e))), np.nan)


def gumbel_r_logsf(x, loc=0, scale=1):
    x, loc, scale, ok = _gumbel_args("gumbel_r.logsf", x, loc, scale)
    return jnp.where(ok, log1mexp(lax.exp(lax.div(lax.sub(loc, x), scale))), np.nan)


def gumbel_r_ppf(p, loc=0, scale=1):
    p, loc, scale = _promote("gumbel_r.ppf", p, loc, scale)
    inside = lax.gt(p, _const(p, 0)) & lax.lt(p, _const(p, 1))
    q = lax.sub(loc, lax.mul(scale, lax.log(xlogy(-1, p))))
    return jnp.where(inside, q, np.nan)


# -- vonmises, wrapcauchy (circular)

def vonmises_logpdf(x, kappa):
    """Normalised by the scaled Bessel i0e, so large kappa does not overflow;
    kappa <= 0 is nan."""
    x, kappa = _promote("vonmises.logpdf", x, kappa)
    lp = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax_special.bessel_i0e(kappa))
    return jnp.where(lax.gt(kappa, _const(kappa, 0)), lp, np.nan)


def vonmises_pdf(x, kappa):
    return lax.exp(vonmises_logpdf(x, kappa))


def wrapcauchy_logpdf(x, c):
    """Support [0, 2 pi]; c outside (0, 1) is nan."""
    x, c = _promote("wrapcauchy.logpdf", x, c)
    lp = (jnp.log(1 - c * c) - jnp.log(2 * np.pi)
          - jnp.log(1 + c * c - 2 * c * jnp.cos(x)))
    on_circle = lax.ge(x, _const(x, 0)) & lax.le(x, _const(x, 2 * np.pi))
    valid = lax.gt(c, _const(c, 0)) & lax.lt(c, _const(c, 1))
    return jnp.where(valid, jnp.where(on_circle, lp, -np.inf), np.nan)


def wrapcauchy_pdf(x, c):
    return lax.exp(wrapcauchy_logpdf(x, c))


# -- truncnorm: a standard normal cut to [a, b], then loc/scale

def _log_sub_exp(u, v):
    """log(e^u - e^v) by a signed logsumexp: nan where v > u, -inf at u == v."""
    w = jnp.asarray([jnp.ones_like(u), lax.neg(jnp.ones_like(v))])
    return logsumexp(jnp.asarray([u, v]), b=w, axis=0)


def _log_gauss_mass(a, b):
    """log(Phi(b) - Phi(a)). A right-tail interval is mirrored into the left
    tail, where log_ndtr is exact; an interval around zero uses
    log1p(-Phi(a) - Phi(-b)), which keeps a mass near one accurate."""
    a, b = shape_ops.broadcast_arrays(jnp.array(a), jnp.array(b))
    right = a > 0
    central = ~((b <= 0) | right)
    lo, hi = jnp.where(right, -b, a), jnp.where(right, -a, b)
    tail = _log_sub_exp(log_ndtr(hi), log_ndtr(lo))
    return jnp.where(central, jnp.log1p(-ndtr(a) - ndtr(-b)), tail)


@jit_named("logpdf")
def truncnorm_logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = _promote("truncnorm.logpdf", x, a, b, loc, scale)
    lp = lax.sub(norm_logpdf(x, loc, scale), _log_gauss_mass(a, b))
    z = _z(x, loc, scale)
    lp = jnp.where((z < a) | (z > b), -np.inf, lp)
    return jnp.where(a >= b, np.nan, lp)


def truncnorm_pdf(x, a, b, loc=0, scale=1):
    return lax.exp(truncnorm_logpdf(x, a, b, loc, scale))


@jit_named("logcdf")
def truncnorm_logcdf(x, a, b, loc=0, scale=1):
    """Near log cdf = 0 it is taken as log1p(-sf), which keeps its precision."""
    x, a, b, loc, scale = _promote("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = shape_ops.broadcast_arrays(x, a, b)
    z = _z(x, loc, scale)
    total = _log_gauss_mass(a, b)
    lcdf = _log_gauss_mass(a, z) - total
    lsf = _log_gauss_mass(z, b) - total
    out = manipulation.select([z >= b, z <= a, lcdf > -0.1, z > a],
                              [0, -np.inf, jnp.log1p(-jnp.exp(lsf)), lcdf])
    return jnp.where(a >= b, np.nan, out)


@jit_named("cdf")
def truncnorm_cdf(x, a, b, loc=0, scale=1):
    return lax.exp(truncnorm_logcdf(x, a, b, loc, scale))


@jit_named("logsf")
def truncnorm_logsf(x, a, b, loc=0, scale=1):
    """The upper tail is the lower tail of the mirrored distribution."""
    x, a, b, loc, scale = _promote("truncnorm.logsf", x, a, b, loc, scale)
    return truncnorm_logcdf(-x, -b, -a, -loc, scale)


@jit_named("sf")
def truncnorm_sf(x, a, b, loc=0, scale=1):
    return lax.exp(truncnorm_logsf(x, a, b, loc, scale))
