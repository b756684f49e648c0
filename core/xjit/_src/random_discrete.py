"""Count-valued samplers: ``poisson``, ``binomial``, ``multinomial``, ``geometric``.

Poisson and binomial pick per element between a product-of-uniforms (or
sum-of-geometrics) loop for small means and Hormann's transformed rejection
for large ones, exactly as JAX does: both branches run over the whole array
from the same key and ``select`` keeps the right one, so every element sees
the same random stream as in JAX and results are bit-identical.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from . import core, dtypes
from xjit._src.pjit import jit
from xjit._src.lax import lax
from .lax import control_flow as cf
from . import random as R
from .random_gamma import check_broadcast_shapes


def _jnp():
    from .. import numpy
    return numpy


def _isnan(x):
    return lax.ne(x, x)


# --------------------------------------------------------------------------
# Poisson


@partial(jit, static_argnums=(2, 3, 4))
def _poisson_knuth(key, lam, shape, dtype, max_iters):
    """Count uniforms until their product drops below exp(-lam)."""
    def body(carry):
        i, k, rng, log_prod = carry
        rng, sub = R._split(rng)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = R.uniform(sub, shape, np.float32)
        return i + 1, k, rng, log_prod + _jnp().log(u)

    def cond(carry):
        i, log_prod = carry[0], carry[3]
        return (log_prod > -lam).any() & (i < max_iters)

    k0 = lax.full_like(lam, 0, dtype, shape)
    log0 = lax.full_like(lam, 0, np.float32, shape)
    k = cf.while_loop(cond, body, (0, k0, key, log0))[1]
    return (k - 1).astype(dtype)


@partial(jit, static_argnums=(2, 3, 4))
def _poisson_rejection(key, lam, shape, dtype, max_iters):
    """Hormann's transformed rejection with squeeze (PTRS)."""
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, key = carry
        key, sub0, sub1 = R._split(key, 3)
        u = R.uniform(sub0, shape, lam.dtype) - 0.5
        v = R.uniform(sub1, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept2 = s <= t
        accept = accept1 | (~reject & accept2)
        k_out = lax.select(accept, k, k_out)
        accepted = accepted | accept
        return i + 1, k_out, accepted, key

    def cond(carry):
        i, _, accepted, _ = carry
        return (~accepted).any() & (i < max_iters)

    k0 = lax.full_like(lam, -1, lam.dtype, shape)
    accepted = lax.full_like(lam, False, np.dtype(bool), shape)
    k = cf.while_loop(cond, body, (0, k0, accepted, key))[1]
    return k.astype(dtype)


@partial(jit, static_argnums=(2, 3))
def _poisson(key, lam, shape, dtype):
    use_knuth = _isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    max_iters = dtype.type(np.iinfo(dtype).max)
    result = lax.select(use_knuth,
                        _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lam == 0, _jnp().zeros_like(result), result)


def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) counts."""
    key, _ = R._check_key("poisson", key)
    dtype = R._user_dtype(dtype, int)
    shape = np.shape(lam) if shape is None else core.canonicalize_shape(
        shape, "broadcast_in_dim shape must have every element be nonnegative")
    lam = _jnp().broadcast_to(lam, shape)
    lam = lax.convert_element_type(lam, np.float32)
    return _poisson(key, lam, shape, dtype)


# --------------------------------------------------------------------------
# Binomial


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_approx_tail(k):
    """log(k!) minus its Stirling approximation: tabulated for k <= 9."""
    jnp = _jnp()
    table = jnp.array(_STIRLING_TAIL, dtype=k.dtype)
    use_table = k <= 9
    k = lax.clamp(np.array(0.0, k.dtype)[()], k, np.array(9.0, k.dtype)[()])
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = jnp.floor(k)
    return lax.select(use_table, table[jnp.asarray(k, dtype="int32")], approx)


@partial(jit, static_argnums=(3, 4, 5), inline=True)
def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    """Count geometric waiting times until they sum past ``count``."""
    jnp = _jnp()
    log1minusprob = jnp.log1p(-prob)

    def body(carry):
        i, num_geom, geom_sum, key = carry
        sub, key = R.split(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = R.uniform(sub, shape, prob.dtype)
        geom = jnp.ceil(jnp.log(u) / log1minusprob)
        geom_sum = geom_sum + geom
        return i + 1, num_geom_out, geom_sum, key

    def cond(carry):
        i, geom_sum = carry[0], carry[2]
        return (geom_sum <= count).any() & (i < max_iters)

    num0 = lax.full_like(prob, 0, prob.dtype, shape)
    sum0 = lax.full_like(prob, 0, prob.dtype, shape)
    k = cf.while_loop(cond, body, (0, num0, sum0, key))[1]
    return (k - 1).astype(dtype)


@partial(jit, static_argnums=(3, 4, 5), inline=True)
def _btrs(key, count, prob, shape, dtype, max_iters):
    """Hormann's transformed rejection for the binomial (BTRS)."""
    jnp = _jnp()
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def body(carry):
        i, k_out, accepted, key = carry
        key, sub0, sub1 = R.split(key, 3)
        u = R.uniform(sub0, shape, prob.dtype)
        v = R.uniform(sub1, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
              + _stirling_approx_tail(m)
              + _stirling_approx_tail(count - m)
              - _stirling_approx_tail(k)
              - _stirling_approx_tail(count - k))
        accept2 = v <= ub
        accept = accept1 | (~reject & accept2)
        k_out = lax.select(accept, k, k_out)
        accepted = accepted | accept
        return i + 1, k_out, accepted, key

    def cond(carry):
        i, accepted = carry[0], carry[2]
        return (~accepted).any() & (i < max_iters)

    k0 = lax.full_like(prob, -1, prob.dtype, shape)
    carry = (0, k0, jnp.full(shape, False, bool), key)
    return cf.while_loop(cond, body, carry)[1].astype(dtype)


@partial(jit, static_argnums=(3, 4), inline=True)
def _binomial(key, count, prob, shape, dtype):
    jnp = _jnp()
    if shape is None:
        shape = R._broadcast_shapes(np.shape(count), np.shape(prob))
    else:
        R._check_shape("binomial", shape, np.shape(count), np.shape(prob))
    from .numpy.util import promote_dtypes_inexact
    prob, = promote_dtypes_inexact(prob)
    count = lax.convert_element_type(count, prob.dtype)
    count = jnp.broadcast_to(count, shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = _isnan(count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_is_nan = _isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)  # as NumPy does for float counts
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = dtype.type(dtypes.finfo(dtype).max)
    samples = lax.select(use_inversion,
                         _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                         _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & (~invalid), jnp.full_like(samples, np.inf, dtype),
                         samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dtype) - samples)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts, as floats (NaN for invalid parameters)."""
    key, _ = R._check_key("binomial", key)
    from .numpy.util import check_arraylike
    check_arraylike("binomial", n, p)
    dtype = R._float_dtype("binomial", dtype)
    if shape is not None:
        shape = R._shape_arg(shape)
    return _binomial(key, n, p, shape, dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial counts over the last axis of ``p``: a binomial draw per
    category from what the earlier categories left."""
    jnp = _jnp()
    key, _ = R._check_key("multinomial", key)
    from .numpy.util import check_arraylike, promote_dtypes_inexact
    check_arraylike("multinomial", n, p)
    n, p = promote_dtypes_inexact(n, p)
    if shape is None:
        shape = p.shape
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.broadcast_to(p, shape)

    def step(remainder, ratio_key):
        ratio, k = ratio_key
        count = binomial(k, remainder, ratio.clip(0, 1), dtype=remainder.dtype)
        return remainder - count, count

    p = jnp.moveaxis(p, -1, 0)
    from .lax.sorting import cumsum
    remaining = cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining == 0, 1, remaining)
    keys = R.split(key, ratios.shape[0])
    _, counts = cf.scan(step, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(dtype)


# --------------------------------------------------------------------------
# Geometric


def geometric(key, p, shape=None, dtype=None):
    """Number of Bernoulli(p) trials up to and including the first success."""
    key, _ = R._check_key("geometric", key)
    dtype = R._user_dtype(dtype, int)
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    shape = check_broadcast_shapes("geometric", shape, p)
    return _geometric(key, p, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _geometric(key, p, shape, dtype):
    from .numpy.util import check_arraylike, promote_dtypes_inexact
    check_arraylike("geometric", p)
    p, = promote_dtypes_inexact(p)
    u = R.uniform(key, shape, p.dtype)
    u = _jnp().where(u == 0, 1, u)
    log_u = lax.log(u)
    log_one_minus_p = _jnp().broadcast_to(lax.log1p(-p), shape)
    g = lax.floor(lax.div(log_u, log_one_minus_p)) + 1
    return g.astype(dtype)
