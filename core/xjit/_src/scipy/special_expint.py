"""Exponential integrals Ei, E1 and En: the Cephes rational approximations
and series (ei.c, expn.c), evaluated piecewise as JAX 0.10.2 does so values
agree to rounding; their JVPs are the closed forms JAX defines."""
from __future__ import annotations

import numpy as np

import xjit.numpy as jnp
from xjit._src import dtypes
from xjit._src.custom_derivatives import custom_jvp
from xjit._src.lax import lax
from xjit._src.lax.control_flow.loops import fori_loop, while_loop
from xjit._src.numpy import polynomial
from xjit._src.numpy.vectorize import vectorize
from xjit._src.pjit import jit
from xjit._src.scipy.special import promote_args_inexact


def _k(x, v):
    """``v`` as a strongly typed constant of ``x``'s dtype."""
    return np.array(v, lax.dtype(x))


def _real_only(name, x):
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"{name} does not support complex-valued inputs.")


# Cephes ei.c: Ei on (0, 2] as x*A(x)/B(x) + gamma + log x; above 2, on the
# octaves (2, 4], (4, 8], ..., (32, 64] and beyond, e^x/x * (1 + A(1/x)/(x B(1/x))).
_EI_SMALL = (
    [-5.350447357812542947283e0, 2.185049168816613393830e2, -4.176572384826693777058e3,
     5.541176756393557601232e4, -3.313381331178144034309e5, 1.592627163384945414220e6],
    [1.0, -5.250547959112862969197e1, 1.259616186786790571525e3, -1.756549581973534652631e4,
     1.493062117002725991967e5, -7.294949239640527645655e5, 1.592627163384945429726e6])
_EI_OCTAVES = [
    ([1.981808503259689673238e-2, -1.271645625984917501326e0, -2.088160335681228318920e0,
      2.755544509187936721172e0, -4.409507048701600257171e-1, 4.665623805935891391017e-2,
      -1.545042679673485262580e-3, 7.059980605299617478514e-5],
     [1.0, 1.476498670914921440652e0, 5.629177174822436244827e-1, 1.699017897879307263248e-1,
      2.291647179034212017463e-2, 4.450150439728752875043e-3, 1.727439612206521482874e-4,
      3.953167195549672482304e-5]),
    ([-1.373215375871208729803e0, -7.084559133740838761406e-1, 1.580806855547941010501e0,
      -2.601500427425622944234e-1, 2.994674694113713763365e-2, -1.038086040188744005513e-3,
      4.371064420753005429514e-5, 2.141783679522602903795e-6],
     [1.0, 8.585231423622028380768e-1, 4.483285822873995129957e-1, 7.687932158124475434091e-2,
      2.449868241021887685904e-2, 8.832165941927796567926e-4, 4.590952299511353531215e-4,
      -4.729848351866523044863e-6, 2.665195537390710170105e-6]),
    ([-2.106934601691916512584e0, 1.732733869664688041885e0, -2.423619178935841904839e-1,
      2.322724180937565842585e-2, 2.372880440493179832059e-4, -8.343219561192552752335e-5,
      1.363408795605250394881e-5, -3.655412321999253963714e-7, 1.464941733975961318456e-8,
      6.176407863710360207074e-10],
     [1.0, -2.298062239901678075778e-1, 1.105077041474037862347e-1, -1.566542966630792353556e-2,
      2.761106850817352773874e-3, -2.089148012284048449115e-4, 1.708528938807675304186e-5,
      -4.459311796356686423199e-7, 1.394634930353847498145e-8, 6.150865933977338354138e-10]),
    ([-2.458119367674020323359e-1, -1.483382253322077687183e-1, 7.248291795735551591813e-2,
      -1.348315687380940523823e-2, 1.342775069788636972294e-3, -7.942465637159712264564e-5,
      2.644179518984235952241e-6, -4.239473659313765177195e-8],
     [1.0, -1.044225908443871106315e-1, -2.676453128101402655055e-1, 9.695000254621984627876e-2,
      -1.601745692712991078208e-2, 1.496414899205908021882e-3, -8.462452563778485013756e-5,
      2.728938403476726394024e-6, -4.239462431819542051337e-8]),
    ([1.212561118105456670844e-1, -5.823133179043894485122e-1, 2.348887314557016779211e-1,
      -3.040034318113248237280e-2, 1.510082146865190661777e-3, -2.523137095499571377122e-5],
     [1.0, -1.002252150365854016662e0, 2.928709694872224144953e-1, -3.337004338674007801307e-2,
      1.560544881127388842819e-3, -2.523137093603234562648e-5]),
    ([-7.657847078286127362028e-1, 6.886192415566705051750e-1, -2.132598113545206124553e-1,
      3.346107552384193813594e-2, -3.076541477344756050249e-3, 1.747119316454907477380e-4,
      -6.103711682274170530369e-6, 1.218032765428652199087e-7, -1.086076102793290233007e-9],
     [1.0, -1.888802868662308731041e0, 1.066691687211408896850e0, -2.751915982306380647738e-1,
      3.930852688233823569726e-2, -3.414684558602365085394e-3, 1.866844370703555398195e-4,
      -6.345146083130515357861e-6, 1.239754287483206878024e-7, -1.086076102793126632978e-9]),
]


def _piecewise(x, conds, vals, **kw):
    """``jnp.piecewise`` (the last true condition wins; the extra value is the
    default), spelled out because ``expn``'s conditions are shaped like ``n``
    or like ``x`` and broadcast, where ``jnp.piecewise`` stacks them."""
    def val(f):
        v = f(x, **kw) if callable(f) else f
        return jnp.broadcast_to(jnp.asarray(v).astype(x.dtype), x.shape)
    out = val(vals[-1])
    for c, f in zip(conds, vals):
        out = jnp.where(c, val(f), out)
    return out


def _ratio(coefs, x):
    num, den = (np.array(c, x.dtype) for c in coefs)
    return polynomial.polyval(num, x) / polynomial.polyval(den, x)


def _ei_small(x):
    return x * _ratio(_EI_SMALL, x) + np.euler_gamma + jnp.log(x)


def _ei_octave(coefs):
    def f(x):
        one = _k(x, 1.0)
        w = one / x
        return jnp.exp(x) * w * (w * _ratio(coefs, w) + one)
    return f


def _expi_pos(x):
    bounds = [(0, 2)] + [(2 ** i, 2 ** (i + 1)) for i in range(1, 6)]
    conds = [(_k(x, lo) < x) & (x <= _k(x, hi)) for lo, hi in bounds]
    return _piecewise(x, conds, [_ei_small] + [_ei_octave(c) for c in _EI_OCTAVES])


def _expi(x):
    x, = promote_args_inexact("expi", x)
    _real_only("expi", x)
    return _piecewise(x, [x < 0], [lambda v: -exp1(-v), _expi_pos])


expi = custom_jvp(jit(_expi))
expi.__name__ = expi.__qualname__ = "expi"


def _expi_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return expi(x), jnp.exp(x) / x * t


expi.defjvp(jit(_expi_jvp))


def _expn_series(x, n):
    """E_n for x <= 1: the power series with the digamma term (Cephes)."""
    eps = dtypes.finfo(x.dtype).eps
    zero, one = _k(x, 0.0), _k(x, 1.0)
    psi = fori_loop(_k(n, 1), n, lambda i, p: p + one / i, -np.euler_gamma - jnp.log(x))
    n_safe = jnp.where(n == _k(n, 1), one + one, n)
    init = (-x, zero, one, one - n, jnp.where(n == _k(n, 1), zero, one / (one - n_safe)),
            _k(x, np.inf))

    def body(c):
        z, xk, yk, pk, ans, _ = c
        xk = xk + one
        yk = yk * (z / xk)
        pk = pk + one
        ans = ans + jnp.where(pk != zero, yk / pk, zero)
        return z, xk, yk, pk, ans, jnp.where(ans != zero, abs(yk / ans), one)

    z, _, _, _, ans, _ = while_loop(lambda c: (x > zero) & (c[5] > eps), body, init)
    return z ** (n - _k(n, 1)) * psi / jnp.exp(lax.lgamma(n)) - ans


def _expn_fraction(x, n):
    """E_n for x > 1: the continued fraction, rescaled when it grows (Cephes)."""
    big = _k(x, 1.44115188075855872e17)
    eps = dtypes.finfo(x.dtype).eps
    zero, one = _k(x, 0.0), _k(x, 1.0)
    init = (_k(n, 1), one, x, one, x + n, one / (x + n), _k(x, np.inf), zero)

    def body(c):
        k, pkm2, qkm2, pkm1, qkm1, ans, _, r = c
        k = k + _k(k, 1)
        odd = k % _k(k, 2) == _k(k, 1)
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - _k(k, 1)) / _k(k, 2), k / _k(k, 2))
        pk = pkm1 * yk + pkm2 * xk
        qk = qkm1 * yk + qkm2 * xk
        nz = qk != zero
        r = jnp.where(nz, pk / qk, r)
        t = jnp.where(nz, abs((ans - r) / r), one)
        ans = jnp.where(nz, r, ans)
        is_big = abs(pk) > big
        pkm2, pkm1, qkm2, qkm1 = (jnp.where(is_big, v / big, v)
                                  for v in (pkm1, pk, qkm1, qk))
        return k, pkm2, qkm2, pkm1, qkm1, ans, t, r

    out = while_loop(lambda c: (x > _k(c[0], 0)) & (c[6] > eps), body, init)
    return out[5] * jnp.exp(-x)


def _expn_large_n(x, n):
    """E_n for n >= 5000: the first terms of the asymptotic expansion in n."""
    one = _k(x, 1.0)
    xk = x + n
    yk = one / (xk * xk)
    ans = yk * n * (_k(x, 6) * x * x - _k(x, 8) * n * x + n * n)
    ans = yk * (ans + n * (n - _k(x, 2) * x))
    ans = yk * (ans + n)
    return (ans + one) * jnp.exp(-x) / xk


def _expn(n, x):
    n, x = promote_args_inexact("expn", n, x)
    _real_only("expn", x)
    zero, one = _k(x, 0), _k(x, 1)
    conds = [(n < _k(n, 0)) | (x < zero), (x == zero) & (n < _k(n, 2)),
             (x == zero) & (n >= _k(n, 2)), (n == _k(n, 0)) & (x >= zero),
             n >= _k(n, 5000), x > one]
    n_safe = jnp.where(n == _k(n, 1), n + n, n)
    vals = [np.nan, np.inf, one / n_safe, jnp.exp(-x) / x,
            _expn_large_n, _expn_fraction, _expn_series]
    return _piecewise(x, conds, vals, n=n)


expn = custom_jvp(vectorize(jit(_expn)), nondiff_argnums=(0,))
expn.__name__ = expn.__qualname__ = "expn"


def _expn_jvp(n, primals, tangents):
    x, = primals
    t, = tangents
    return expn(n, x), lax.mul(lax.neg(t), expn(lax.sub(n, _k(n, 1)), x))


expn.defjvp(jit(_expn_jvp))


def exp1(x):
    x, = promote_args_inexact("exp1", x)
    _real_only("exp1", x)
    return expn(1, x)
