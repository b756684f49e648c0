"""Confluent (1F1) and Gauss (2F1) hypergeometric functions after Pearson,
Olver & Porter (2014, arXiv:1407.7786): Taylor series, the large-x asymptotic
series for 1F1, the terminating and digamma-transformed (AMS55 15.3.10-12)
series for 2F1. Evaluated elementwise and in the order JAX 0.10.2 uses, so
values and iteration counts agree; the derivatives in the parameters are the
Wolfram-functions series JAX defines."""
from __future__ import annotations

import numpy as np

import xjit.numpy as jnp
from xjit._src import dtypes
from xjit._src.custom_derivatives import custom_jvp
from xjit._src.lax import lax
from xjit._src.lax.control_flow.loops import fori_loop, while_loop
from xjit._src.numpy.vectorize import vectorize
from xjit._src.pjit import jit
from xjit._src.scipy.special import digamma, gamma, promote_args_inexact

_MAX_TERMS = 250


def _sum_terms(x, first, ratio, weight=None):
    """sum_k w(k) t_k with t_1 = ``first``, t_{k+1} = t_k * ratio(k), from
    k = 1 until a term is below eps relative to the sum (250 terms at most).
    Without ``weight`` the sum starts from 1 (the k = 0 term)."""
    eps = dtypes.finfo(x.dtype).eps
    one = jnp.array(1, dtype=x.dtype)

    def body(c):
        s, k, t = c
        s = s + (t if weight is None else t * weight(k))
        return s, k + 1, t * ratio(k)

    def cond(c):
        s, k, t = c
        return (k < _MAX_TERMS) & (lax.abs(t) / lax.abs(s) > eps)

    init = (one if weight is None else jnp.zeros_like(one), jnp.array(1, np.int32),
            jnp.asarray(first, x.dtype))
    return while_loop(cond, body, init)[0]


# -- 1F1

def _hyp1f1_elem(a, b, x):
    a, b, x = promote_args_inexact("hyp1f1", a, b, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    series = _sum_terms(x, a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1))
    asym = _sum_terms(x, (b - a) * (1 - a) / x, lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x)
    asym = gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * asym
    out = jnp.where(lax.abs(x) < 100, series, asym)
    a0 = a == 0
    return jnp.select([a0, (a == b) & ~a0, (b == 0) & ~a0],
                      [jnp.array(1, x.dtype), jnp.exp(x), jnp.array(np.inf, x.dtype)], out)


hyp1f1 = custom_jvp(jit(vectorize(_hyp1f1_elem)))
hyp1f1.__name__ = hyp1f1.__qualname__ = "hyp1f1"


def _hyp1f1_param_derivative(weight):
    def d(a, b, x):
        return _sum_terms(x, a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                          lambda k: weight(a, b, k))
    return jit(vectorize(d))


_hyp1f1_da = _hyp1f1_param_derivative(lambda a, b, k: digamma(a + k) - digamma(a))
_hyp1f1_db = _hyp1f1_param_derivative(lambda a, b, k: digamma(b) - digamma(b + k))

_hyp1f1_dx = jit(lambda a, b, x: a / b * hyp1f1(a + 1, b + 1, x))

hyp1f1.defjvps(
    lambda g, ans, a, b, x: _hyp1f1_da(a, b, x) * g,
    lambda g, ans, a, b, x: _hyp1f1_db(a, b, x) * g,
    lambda g, ans, a, b, x: _hyp1f1_dx(a, b, x) * g)


# -- 2F1

def _hyp2f1_terminal(a, b, c, x):
    """The polynomial when a (or b) is a non-positive integer: its degree is
    that of the larger such parameter, unless c's pole would come first."""
    eps = dtypes.finfo(x.dtype).eps * 50
    c_pole_first = (c % 1 == 0) & (c <= 0) & (c > b)
    swap = (b < a) & (jnp.abs(b - jnp.round(b)) < eps) & ~c_pole_first
    a, b = jnp.where(swap, b, a), jnp.where(swap, a, b)
    a = jnp.abs(a)

    def body(i, st):
        s, t = st
        t = t * (-(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
        return s + t, t

    one = jnp.array(1, dtype=x.dtype)
    return fori_loop(jnp.array(1, dtype=a.dtype), a + 1, body, (one, one))[0]


def _hyp2f1_series(a, b, c, x):
    rtol = dtypes.finfo(x.dtype).eps

    def body(st):
        s, k, t = st
        return s + t, k + 1, t * ((a + k - 1) * (b + k - 1) / (c + k - 1) / k * x)

    def cond(st):
        s, k, t = st
        return (k < _MAX_TERMS) & (lax.abs(t) > rtol * lax.abs(s))

    init = tuple(jnp.array(v, dtype=x.dtype) for v in (0, 1, 1))
    return while_loop(cond, body, init)[0]


def _hyp2f1_digamma_transform(a, b, c, x):
    """x near 1 with c - a - b (nearly) an integer m: the log-series of
    AMS55 15.3.10-12, plus for m != 0 the finite sum of |m| terms."""
    rtol = dtypes.finfo(x.dtype).eps
    zero = jnp.array(0, dtype=x.dtype)
    one = jnp.array(1, dtype=x.dtype)
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    up = rd >= 0
    e = jnp.where(up, d, -d)
    d1 = jnp.where(up, d, zero)
    d2 = jnp.where(up, zero, d)
    m = jnp.where(up, rd, -rd).astype("int32")
    log_s = jnp.log(s)
    y = (digamma(1.0) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1) - log_s)
    y = y / gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def body(st):
        p, q, t, y = st
        r = (digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1)
             - digamma(b + t + d1) - log_s)
        q = p * r
        y = y + q
        p = p * (s * (a + t + d1) / (t + 1.0))
        p = p * ((b + t + d1) / (t + 1.0 + e))
        return p, q, t + 1.0, y

    _, _, _, y = while_loop(lambda st: (st[2] < _MAX_TERMS) & (jnp.abs(st[1]) >= rtol * jnp.abs(st[3])),
                            body, (p, y, one, y))

    def finite_sum(y):
        def fbody(i, st):
            p, t, y1 = st
            p = p * (s * (a + t + d2) * (b + t + d2) / (1.0 - e + t))
            t = t + 1.0
            p = p / t
            return p, t, y1 + p

        y1 = fori_loop(1, m, fbody, (one, zero, one))[-1]
        gc = gamma(c)
        y1 = y1 * (gamma(e) * gc / (gamma(a + d1) * gamma(b + d1)))
        y = y * (gc / (gamma(a + d2) * gamma(b + d2)))
        y = jnp.where((m & 1) != 0, -y, y)
        q = s ** rd
        return jnp.where(rd > 0, y * q + y1, y + y1 * q)

    return jnp.where(rd == 0, y * gamma(c) / (gamma(a) * gamma(b)), finite_sum(y))


def _hyp2f1_terminal_or_series(a, b, c, x):
    eps = dtypes.finfo(x.dtype).eps * 50
    d = c - a - b
    neg_int = ((a <= 0) & (jnp.abs(a - jnp.round(a)) < eps)) | (
        (b <= 0) & (jnp.abs(b - jnp.round(b)) < eps))
    near_int_d = jnp.abs(d - jnp.round(d)) < eps
    return jnp.select(
        [(x > 0.9) & ~neg_int & near_int_d, neg_int],
        [_hyp2f1_digamma_transform(a, b, c, x), _hyp2f1_terminal(a, b, c, x)],
        _hyp2f1_series(a, b, c, x))


def _hyp2f1_elem(a, b, c, x):
    a, b, c, x = promote_args_inexact("hyp2f1", a, b, c, x)
    eps = dtypes.finfo(x.dtype).eps * 50
    d = c - a - b
    s = 1 - x
    ca, cb = c - a, c - b
    non_int_d = jnp.abs(d - jnp.round(d)) >= eps
    inf = jnp.array(np.inf, dtype=x.dtype)
    trivial = (x == 0) | (((a == 0) | (b == 0)) & (c != 0))
    c_pole = (c == 0) | ((c < 0) & (c % 1 == 0))
    euler = (d <= -1) & ~(non_int_d & (s < 0))
    # Euler's transformation sums 2F1(c-a, c-b; c; x); the one series
    # evaluation serves both it and the plain case (the first matching case wins)
    use_euler = euler & ~trivial & ~c_pole
    series = _hyp2f1_terminal_or_series(jnp.where(use_euler, ca, a), jnp.where(use_euler, cb, b),
                                        c, x)
    return jnp.select(
        [trivial, c_pole, euler, (d <= 0) & (x == 1), (x < 1) & (b == c), (x < 1) & (a == c),
         x > 1, x == 1],
        [jnp.array(1, dtype=x.dtype), inf, s ** d * series, inf, s ** (-a), s ** (-b), inf,
         gamma(c) * gamma(d) / (gamma(ca) * gamma(cb))],
        series)


hyp2f1 = custom_jvp(jit(vectorize(_hyp2f1_elem)))
hyp2f1.__name__ = hyp2f1.__qualname__ = "hyp2f1"


def _hyp2f1_param_derivative(weight):
    def d(a, b, c, x):
        return _sum_terms(x, a * b / c * x, lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x,
                          lambda k: weight(a, b, c, k))
    return jit(vectorize(d))


_hyp2f1_da = _hyp2f1_param_derivative(lambda a, b, c, k: digamma(a + k) - digamma(a))
_hyp2f1_db = _hyp2f1_param_derivative(lambda a, b, c, k: digamma(b + k) - digamma(b))
_hyp2f1_dc = _hyp2f1_param_derivative(lambda a, b, c, k: digamma(c) - digamma(c + k))

_hyp2f1_dx = jit(lambda a, b, c, x: a * b / c * hyp2f1(a + 1, b + 1, c + 1, x))

hyp2f1.defjvps(
    lambda g, ans, a, b, c, x: _hyp2f1_da(a, b, c, x) * g,
    lambda g, ans, a, b, c, x: _hyp2f1_db(a, b, c, x) * g,
    lambda g, ans, a, b, c, x: _hyp2f1_dc(a, b, c, x) * g,
    lambda g, ans, a, b, c, x: _hyp2f1_dx(a, b, c, x) * g)
