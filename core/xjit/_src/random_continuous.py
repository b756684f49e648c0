"""Continuous samplers built from the basic ones (uniform, normal,
exponential, gamma): heavy tails, norms of normals, and the multivariate
normal and random orthogonal matrices (through ``linalg``). Each keeps
JAX's order of key splits and float operations, so values are bit-identical.
"""
from __future__ import annotations

import operator
from functools import partial

import numpy as np

from . import core, dtypes
from xjit._src.pjit import jit
from xjit._src.lax import lax
from . import random as R
from .random_gamma import check_all_safe_to_cast, check_broadcast_shapes, gamma, loggamma


def _jnp():
    from .. import numpy
    return numpy


def _const(x, v):
    return np.array(v, core.aval_of(x).dtype)[()]


def _checked(name, key, dtype):
    key, _ = R._check_key(name, key)
    return key, R._float_dtype(name, dtype)


# --------------------------------------------------------------------------
# One-parameter families with a shape broadcast against the parameter


def pareto(key, b, shape=None, dtype=None):
    """Pareto(b) samples: exp(Exponential / b)."""
    key, dtype = _checked("pareto", key, dtype)
    shape = check_broadcast_shapes("pareto", shape, b)
    check_all_safe_to_cast("pareto", dtype, b)
    return _pareto(key, b, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    e = R.exponential(key, shape, dtype)
    return lax.exp(e / b)


def t(key, df, shape=None, dtype=None):
    """Student's t(df) samples: normal / sqrt(Gamma(df / 2) / (df / 2))."""
    key, dtype = _checked("t", key, dtype)
    shape = check_broadcast_shapes("t", shape, df)
    check_all_safe_to_cast("t", dtype, df)
    return _t(key, df, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _t(key, df, shape, dtype):
    R._check_shape("t", shape, np.shape(df))
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = R._split(key)
    n = R.normal(key_n, shape, dtype)
    half_df = lax.div(df, _const(n, 2))
    g = gamma(key_g, half_df, shape, dtype)
    return n * _jnp().sqrt(half_df / g)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square(df) samples: 2 Gamma(df / 2), drawn in log space."""
    key, dtype = _checked("chisquare", key, dtype)
    shape = check_broadcast_shapes("chisquare", shape, df)
    check_all_safe_to_cast("chisquare", dtype, df)
    return _chisquare(key, df, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _chisquare(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    two = _const(df, 2)
    log_g = loggamma(key, a=lax.div(df, two), shape=shape, dtype=dtype)
    return lax.mul(_jnp().exp(log_g), two)


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F(dfnum, dfden) samples: a ratio of scaled chi-squares."""
    key, dtype = _checked("f", key, dtype)
    shape = check_broadcast_shapes("f", shape, dfnum, dfden)
    check_all_safe_to_cast("f", dtype, dfnum, dfden)
    return _f(key, dfnum, dfden, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _f(key, dfnum, dfden, shape, dtype):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = R._split(key)
    chi2_dfn = chisquare(key_dfn, dfnum, shape, dtype)
    chi2_dfd = chisquare(key_dfd, dfden, shape, dtype)
    return lax.div(lax.div(chi2_dfn, dfnum), lax.div(chi2_dfd, dfden))


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh(scale) samples: scale * sqrt(-2 log U)."""
    key, dtype = _checked("rayleigh", key, dtype)
    shape = check_broadcast_shapes("rayleigh", shape, scale)
    check_all_safe_to_cast("rayleigh", dtype, scale)
    return _rayleigh(key, scale, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
    u = R.uniform(key, shape, dtype)
    scale = _jnp().broadcast_to(scale.astype(dtype), shape)
    sqrt_u = lax.sqrt(lax.mul(lax.log(u), _const(scale, -2)))
    return lax.mul(scale, sqrt_u)


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) samples with the given mean and unit shape."""
    key, dtype = _checked("wald", key, dtype)
    shape = check_broadcast_shapes("wald", shape, mean)
    check_all_safe_to_cast("wald", dtype, mean)
    return _wald(key, mean, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _wald(key, mean, shape, dtype):
    k1, k2 = R._split(key, 2)
    mean = _jnp().broadcast_to(mean.astype(dtype), shape)
    v = R.normal(k1, shape, dtype)
    z = R.uniform(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular(left, mode, right) samples by inverting the CDF."""
    key, dtype = _checked("triangular", key, dtype)
    shape = check_broadcast_shapes("triangular", shape, left, mode, right)
    check_all_safe_to_cast("triangular", dtype, left, mode, right)
    return _triangular(key, left, mode, right, shape, dtype)


@partial(jit, static_argnums=(4, 5), inline=True)
def _triangular(key, left, mode, right, shape, dtype):
    jnp = _jnp()
    left = jnp.broadcast_to(lax.convert_element_type(left, dtype), shape)
    right = jnp.broadcast_to(lax.convert_element_type(right, dtype), shape)
    mode = jnp.broadcast_to(lax.convert_element_type(mode, dtype), shape)
    fc = (mode - left) / (right - left)
    u = R.uniform(key, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
    """exp(sigma * normal) samples (complex dtypes allowed, as in JAX)."""
    key, _ = R._check_key("lognormal", key)
    dtype = R._user_dtype(dtype, float)
    if not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"dtype argument to `lognormal` must be a float or complex dtype, "
                         f"got {dtype}")
    shape = check_broadcast_shapes("lognormal", shape, sigma)
    check_all_safe_to_cast("lognormal", dtype, sigma)
    return _lognormal(key, sigma, shape, dtype)


@partial(jit, static_argnums=(2, 3), inline=True)
def _lognormal(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(R.normal(key, shape, dtype) * sigma)


# --------------------------------------------------------------------------
# Fixed-shape families


def maxwell(key, shape=(), dtype=None):
    """Maxwell samples: the norm of three standard normals."""
    key, dtype = _checked("maxwell", key, dtype)
    return _maxwell(key, R._shape_arg(shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _maxwell(key, shape, dtype):
    return _jnp().linalg.norm(R.normal(key, shape + (3,), dtype), axis=-1)


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell samples with a random sign, scaled and shifted; the
    parameters' broadcast shape is appended to ``shape`` (as in JAX)."""
    key, dtype = _checked("double_sided_maxwell", key, dtype)
    return _double_sided_maxwell(key, loc, scale, R._shape_arg(shape), dtype)


@partial(jit, static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params_shape = R._broadcast_shapes(np.shape(loc), np.shape(scale))
    if not shape:
        shape = params_shape
    shape = shape + params_shape
    maxwell_key, sign_key = R._split(key)
    rvs = maxwell(maxwell_key, shape=shape, dtype=dtype)
    sign = R.rademacher(sign_key, shape=shape, dtype=dtype)
    return sign * rvs * scale + loc


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull samples by inverting the CDF."""
    key, dtype = _checked("weibull_min", key, dtype)
    return _weibull_min(key, scale, concentration, R._shape_arg(shape), dtype)


@partial(jit, static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
    jnp = _jnp()
    u = R.uniform(key, shape=shape, minval=0, maxval=1, dtype=dtype)
    return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal samples of power ``p``: a signed Gamma(1/p) ** (1/p)."""
    shape = R._shape_arg(shape)
    key, _ = R._check_key("generalized_normal", key)
    dtype = R._user_dtype(dtype, float)
    R._check_shape("generalized_normal", shape)
    return _generalized_normal(key, p, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dtype):
    keys = R.split(key)
    g = gamma(keys[0], 1 / p, shape, dtype)
    r = R.rademacher(keys[1], shape, dtype)
    return r * g ** (1 / p)


def ball(key, d, p=2, shape=(), dtype=None):
    """Uniform samples from the unit ``p``-norm ball in ``d`` dimensions."""
    shape = R._shape_arg(shape, (d,) if isinstance(d, int) else ())
    key, _ = R._check_key("ball", key)
    dtype = R._user_dtype(dtype, float)
    R._check_shape("ball", shape)
    d = core.concrete_or_error(operator.index, d, "The error occurred in jax.random.ball()")
    return _ball(key, p, d, shape, dtype)


@partial(jit, static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dtype):
    jnp = _jnp()
    k1, k2 = R.split(key)
    g = generalized_normal(k1, p, (*shape, d), dtype)
    e = R.exponential(k2, shape, dtype)
    return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


# --------------------------------------------------------------------------
# Matrix-valued samplers


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Haar-random ``n x m`` matrices with orthonormal columns (or rows):
    QR of a normal matrix, with R's diagonal signs folded into Q."""
    m_ = n if m is None else m
    shape = R._shape_arg(shape)
    key, _ = R._check_key("orthogonal", key)
    dtype = R._user_dtype(dtype, float)
    R._check_shape("orthogonal", shape)
    msg = "The error occurred in jax.random.orthogonal()"
    n = core.concrete_or_error(operator.index, n, msg)
    m_ = core.concrete_or_error(operator.index, m_, msg)
    return _orthogonal(key, n, m_, shape, dtype)


@partial(jit, static_argnums=(1, 2, 3, 4))
def _orthogonal(key, n, m, shape, dtype):
    jnp = _jnp()
    z = R.normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = jnp.linalg.qr(z)
    d = jnp.diagonal(r, axis1=-2, axis2=-1)
    x = q * jnp.expand_dims(jnp.sign(d), -2)
    return x.mT if n < m else x


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Normal vectors with the given mean and covariance: mean + factor @ z,
    the factor from a Cholesky, SVD or eigen decomposition of ``cov``."""
    from .numpy.util import promote_dtypes_inexact
    key, _ = R._check_key("multivariate_normal", key)
    mean, cov = promote_dtypes_inexact(mean, cov)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = mean.dtype if dtype is None else R._user_dtype(dtype, None)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, "
                         f"got {dtype}")
    if shape is not None:
        shape = R._shape_arg(shape)
    return _multivariate_normal(key, mean, cov, shape, dtype, method)


@partial(jit, static_argnums=(3, 4, 5))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    jnp = _jnp()
    if np.ndim(mean) < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                         f"{np.ndim(mean)}")
    if np.ndim(cov) < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                         f"{np.ndim(cov)}")
    n = mean.shape[-1]
    if np.shape(cov)[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {np.shape(cov)}.")
    if shape is None:
        shape = R._broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    else:
        R._check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = jnp.linalg.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jnp.linalg.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = jnp.linalg.cholesky(cov)
    z = R.normal(key, shape + mean.shape[-1:], dtype)
    return mean + jnp.einsum("...ij,...j->...i", factor, z)
