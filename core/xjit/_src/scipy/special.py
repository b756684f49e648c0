"""``xjit.scipy.special``: special functions built from lax's elementwise
primitives, composed in the same order as JAX's so jaxprs print alike."""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core, dtypes
from xjit._src.custom_derivatives import custom_jvp
from xjit._src.ad_api import jvp as _jvp
from xjit._src.numpy.util import promote_args_inexact as _promote_inexact
from xjit._src.lax import lax
from xjit._src.lax import special as lax_special
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import manipulation
from xjit._src.numpy import reductions
from xjit._src.numpy import shape_ops
from xjit._src.numpy import sorting
from xjit._src.numpy import ufuncs
from xjit._src.numpy import ufuncs_api
from xjit._src.nn.functions import (  # noqa: F401
    log_softmax as _nn_log_softmax, logsumexp, softmax as _nn_softmax)
from xjit._src.pjit import jit_named


def promote_args_inexact(name, *args):
    """Promoted to a common inexact dtype, Python scalars included (as weak arrays)."""
    return [jnp.asarray(a) for a in _promote_inexact(name, *args)]


_SCALAR_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _const(x, v):
    """``v`` in ``x``'s dtype, folded into jaxprs as a literal: a Python scalar
    (weak) when ``x`` is a weakly typed scalar, else a strongly typed one."""
    dt = np.dtype(lax.dtype(x))
    if type(x) in _SCALAR_KIND.values() or (core.aval_of(x).weak_type and np.ndim(x) == 0):
        val = _SCALAR_KIND[dt.kind](v)
        if np.dtype(lax.dtype(val)) == dt:
            return val
    return np.array(v, dt)[()]


def _no_complex(name, x):
    if dtypes.issubdtype(lax.dtype(x), np.complexfloating):
        raise ValueError(f"{name} does not support complex-valued inputs.")


# -- gamma family

def gammaln(x):
    x, = promote_args_inexact("gammaln", x)
    return lax.lgamma(x)


def _gammasgn(x):
    x, = promote_args_inexact("gammasgn", x)
    _no_complex("gammasgn", x)
    t = x.dtype.type
    fl = lax.floor(x)
    neg = x < 0
    pole = neg & (x == fl) | jnp.isnan(x)
    minus = neg & (fl % 2 != 0) | (x == 0) & ufuncs.signbit(x)
    return manipulation.select([pole, minus], [t(np.nan), t(-1.0)], t(1.0))


gammasgn = jit_named("gammasgn")(_gammasgn)


def gamma(x):
    x, = promote_args_inexact("gamma", x)
    _no_complex("gamma", x)
    return gammasgn(x) * lax.exp(lax.lgamma(x))


def _algdiv(a, b):
    """log(Gamma(b) / Gamma(a + b)) for large b (the ACM 708 series)."""
    c = [0.0833333333333333, -0.00277777777760991, 0.00079365066682539,
         -0.00059520293135187, 0.000837308034031215, -0.00165322962780713]
    h = a / b
    cc = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c[5] * s11 * t + c[4] * s9) * t + c[3] * s7) * t + c[2] * s5) * t
         + c[1] * s3) * t + c[0]
    w = w * (cc / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp.where(u <= v, w - v - u, w - u - v)


def betaln(a, b):
    a, b = promote_args_inexact("betaln", a, b)
    a, b = ufuncs_api.minimum(a, b), ufuncs_api.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _algdiv(a, b)
    return jnp.where(b < 8, small_b, large_b)


def beta(a, b):
    a, b = promote_args_inexact("beta", a, b)
    _no_complex("beta", a)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def factorial(n, exact=False):
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n, = promote_args_inexact("factorial", n)
    return jnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition=False):
    N, k = promote_args_inexact("comb", N, k)
    if repetition:
        return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k, repetition=False))
    ok = (k <= N) & (N >= 0) & (k >= 0)
    sN = jnp.where(ok, N, 0.0)
    sk = jnp.where(ok, k, 0.0)
    return jnp.where(ok, lax.exp(gammaln(sN + 1) - gammaln(sk + 1) - gammaln(sN + 1 - sk)), 0.0)


def poch(z, m):
    """Rising factorial Gamma(z + m) / Gamma(z), exactly 1 when m == 0."""
    z, m = promote_args_inexact("poch", z, m)
    if dtypes.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return jnp.where(m == 0.0, jnp.array(1, dtype=z.dtype), gamma(z + m) / gamma(z))


poch = custom_jvp(poch)
poch.defjvps(lambda dz, ans, z, m: (digamma(z + m) - digamma(z)) * poch(z, m) * dz,
             lambda dm, ans, z, m: digamma(z + m) * poch(z, m) * dm)


def betainc(a, b, x):
    a, b, x = promote_args_inexact("betainc", a, b, x)
    _no_complex("betainc", x)
    return lax_special.betainc(a, b, x)


def digamma(x):
    x, = promote_args_inexact("digamma", x)
    return lax.digamma(x)


def gammainc(a, x):
    a, x = promote_args_inexact("gammainc", a, x)
    return lax_special.igamma(a, x)


def gammaincc(a, x):
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax_special.igammac(a, x)


def multigammaln(a, d):
    d = core.concrete_or_error(int, d, "d argument of multigammaln")
    a, d_ = promote_args_inexact("multigammaln", a, d)
    constant = lax.mul(lax.mul(lax.mul(_const(a, 0.25), d_), lax.sub(d_, _const(a, 1))),
                       lax.log(_const(a, np.pi)))
    b = lax.div(jnp.arange(d, dtype=d_.dtype), _const(a, 2))
    terms = gammaln(shape_ops.expand_dims(a, axis=-1) - shape_ops.expand_dims(b, axis=tuple(range(a.ndim))))
    return reductions.sum(terms, axis=-1) + constant


def polygamma(n, x):
    if not dtypes.issubdtype(lax.dtype(n), np.integer):
        raise ValueError("Argument `n` to polygamma must be of integer type. "
                         f"Got dtype {lax.dtype(n)}.")
    n, x = promote_args_inexact("polygamma", n, x)
    _no_complex("polygamma", x)
    return lax_special.polygamma(n, x)


# Bernoulli numbers B_2k scaled by (2k)!: the Euler-Maclaurin tail of zeta.
_ZETA_TAIL = np.array([12, -720, 30240, -1209600, 47900160, -1307674368000 / 691, 74724249600,
                       -10670622842880000 / 3617, 5109094217170944000 / 43867,
                       -802857662698291200000 / 174611, 14101100039391805440000 / 77683,
                       -1693824136731743669452800000 / 236364091,
                       186134520519971831808000000 / 657931,
                       -37893265687455865519472640000000 / 3392780147,
                       759790291646040068357842010112000000 / 1723168255201,
                       -134196726836183700385281186201600000000 / 7709321041217])

_RIEMANN = ("Riemann zeta function not implemented; pass q != None to compute the Hurwitz "
            "Zeta function.")


def zeta(x, q=None):
    if q is None:
        raise NotImplementedError(_RIEMANN)
    x, q = promote_args_inexact("zeta", x, q)
    return lax_special.zeta(x, q)


def _zeta_series(x, q=None):
    """Euler-Maclaurin form of zeta, differentiable in both arguments; it
    supplies zeta's derivative (the primitive's own is defined in q only)."""
    if q is None:
        raise NotImplementedError(_RIEMANN)
    s, a = promote_args_inexact("zeta", x, q)
    t = lax.dtype(a).type
    N = M = t(8) if lax.dtype(a) == np.float32 else t(16)
    s_, a_ = shape_ops.expand_dims(s, -1), shape_ops.expand_dims(a, -1)
    k = shape_ops.expand_dims(np.arange(N, dtype=N.dtype), tuple(range(a.ndim)))
    head = reductions.sum((a_ + k) ** (-s_), -1)
    integral = lax.div((a + N) ** (t(1) - s), s - t(1))
    t0 = (a + N) ** (-s)
    m = shape_ops.expand_dims(np.arange(2 * M, dtype=M.dtype), tuple(range(s.ndim)))
    t1 = sorting.cumprod((s_ + m) / (a_ + N), -1)[..., ::2]
    t1 = jnp.clip(t1, max=dtypes.finfo(t).max)
    t1 = t1 / np.expand_dims(np.array(_ZETA_TAIL[:t1.shape[-1]], dtype=t), tuple(range(a.ndim)))
    return head + integral + t0 * (t(0.5) + t1.sum(-1))


zeta = custom_jvp(zeta)
def jvp(primals, tangents):
    """zeta's rule: the derivative of the series form."""
    return _jvp(_zeta_series, primals, tangents)


zeta.defjvp(jvp)


# -- error function family

def erf(x):
    x, = promote_args_inexact("erf", x)
    return lax.erf(x)


def erfc(x):
    x, = promote_args_inexact("erfc", x)
    return lax.erfc(x)


def erfinv(x):
    x, = promote_args_inexact("erfinv", x)
    return lax.erf_inv(x)


def logit(x):
    x, = promote_args_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(_const(x, 1), x)))


logit = custom_jvp(logit)
logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(_const(x, 1), x))))


def expit(x):
    x, = promote_args_inexact("expit", x)
    return lax.logistic(x)


# -- x log y and entropies

def xlogy(x, y):
    x, y = promote_args_inexact("xlogy", x, y)
    return jnp.where((x != 0.0) | jnp.isnan(y), lax.mul(x, lax.log(y)), jnp.zeros_like(x))


def _xlogy_jvp(primals, tangents):
    (x, y), (dx, dy) = primals, tangents
    out = xlogy(x, y)
    return out, (dx * lax.log(y) + dy * x / y).astype(out.dtype)


xlogy = custom_jvp(xlogy)
xlogy.defjvp(_xlogy_jvp)


def xlog1py(x, y):
    x, y = promote_args_inexact("xlog1py", x, y)
    return jnp.where((x != 0.0) | jnp.isnan(y), lax.mul(x, lax.log1p(y)), jnp.zeros_like(x))


def _xlog1py_jvp(primals, tangents):
    (x, y), (dx, dy) = primals, tangents
    out = xlog1py(x, y)
    return out, (dx * lax.log1p(y) + dy * x / (1 + y)).astype(out.dtype)


xlog1py = custom_jvp(xlog1py)
xlog1py.defjvp(_xlog1py_jvp)


def _xlogx(x):
    return xlogy(x, x)


_xlogx = custom_jvp(_xlogx)
def _xlogx_jvp(primals, tangents):
    return _xlogx(primals[0]), tangents[0] * (lax.log(primals[0]) + 1)


_xlogx.defjvp(_xlogx_jvp)


def entr(x):
    x, = promote_args_inexact("entr", x)
    _no_complex("entr", x)
    return lax.select(lax.lt(x, _const(x, 0)), lax.full_like(x, -np.inf), lax.neg(_xlogx(x)))


def rel_entr(p, q):
    p, q = promote_args_inexact("rel_entr", p, q)
    _no_complex("rel_entr", p)
    zero = _const(p, 0.0)
    both_pos = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    p_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    sp = jnp.where(both_pos, p, 1)
    sq = jnp.where(both_pos, q, 1)
    val = lax.sub(_xlogx(sp), xlogy(sp, sq))
    return jnp.where(both_pos, val, jnp.where(p_zero, zero, np.inf))


def kl_div(p, q):
    p, q = promote_args_inexact("kl_div", p, q)
    _no_complex("kl_div", p)
    return rel_entr(p, q) - p + q


def boxcox(x, lmbda):
    x, lmbda = promote_args_inexact("boxcox", x, lmbda)
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    lx = jnp.log(x)
    return jnp.where(zero, lx, jnp.expm1(safe * lx) / safe)


def boxcox1p(x, lmbda):
    x, lmbda = promote_args_inexact("boxcox1p", x, lmbda)
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    lx = jnp.log1p(x)
    return jnp.where(zero, lx, jnp.expm1(safe * lx) / safe)


# -- Bessel functions

def i0e(x):
    x, = promote_args_inexact("i0e", x)
    return lax_special.bessel_i0e(x)


def i0(x):
    x, = promote_args_inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), lax_special.bessel_i0e(x))


def i1e(x):
    x, = promote_args_inexact("i1e", x)
    return lax_special.bessel_i1e(x)


def i1(x):
    x, = promote_args_inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), lax_special.bessel_i1e(x))


# -- softmax

def softmax(x, /, *, axis=None):
    return _nn_softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    return _nn_log_softmax(x, axis=axis)


def bernoulli(n):
    """The first n + 1 Bernoulli numbers (B_1 = -1/2), from the Akiyama-Tanigawa
    recurrence evaluated in exact rationals on the host."""
    n = operator.index(core.concrete_or_error(None, n, "Argument n of bernoulli"))
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    from fractions import Fraction
    row, out = [], []
    for m in range(n + 1):
        row.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        out.append(row[0])
    if n >= 1:
        out[1] = -out[1]
    return jnp.array([float(v) for v in out])
