"""Sine/cosine and Fresnel integrals (Cephes sici.c, fresnl), Owen's T
(Patefield & Tandy's 13-point quadrature, T5) and Bessel J_0..J_v by
Miller's backward recurrence: the methods and branch points of JAX 0.10.2,
with the JVPs it defines."""
from __future__ import annotations

import operator

import numpy as np

import xjit.numpy as jnp
from xjit._src import core, dtypes
from xjit._src.custom_derivatives import custom_jvp
from xjit._src.lax import lax
from xjit._src.lax.control_flow.loops import scan
from xjit._src.numpy import polynomial
from xjit._src.pjit import jit
from xjit._src.scipy.special import promote_args_inexact


def _poly(c, x):
    return polynomial.polyval(np.array(c, x.dtype), x)


# -- sici: rational series on [0, 4], Cephes' auxiliary f, g on (4, 8) and
# [8, 1e9], then the leading asymptotic term.
_SI_SERIES = ([-8.39167827910303881427E-11, 4.62591714427012837309E-8, -9.75759303843632795789E-6,
               9.76945438170435310816E-4, -4.13470316229406538752E-2, 1.00000000000000000302E0],
              [2.03269266195951942049E-12, 1.27997891179943299903E-9, 4.41827842801218905784E-7,
               9.96412122043875552487E-5, 1.42085239326149893930E-2, 9.99999999999999996984E-1])
_CI_SERIES = ([2.02524002389102268789E-11, -1.35249504915790756375E-8, 3.59325051419993077021E-6,
               -4.74007206873407909465E-4, 2.89159652607555242092E-2, -1.00000000000000000080E0],
              [4.07746040061880559506E-12, 3.06780997581887812692E-9, 1.23210355685883423679E-6,
               3.17442024775032769882E-4, 5.10028056236446052392E-2, 4.00000000000000000080E0])
_FG4 = ([4.23612862892216586994E0, 5.45937717161812843388E0, 1.62083287701538329132E0,
         1.67006611831323023771E-1, 6.81020132472518137426E-3, 1.08936580650328664411E-4,
         5.48900223421373614008E-7],
        [1, 8.16496634205391016773E0, 7.30828822505564552187E0, 1.86792257950184183883E0,
         1.78792052963149907262E-1, 7.01710668322789753610E-3, 1.10034357153915731354E-4,
         5.48900252756255700982E-7],
        [8.71001698973114191777E-2, 6.11379109952219284151E-1, 3.97180296392337498885E-1,
         7.48527737628469092119E-2, 5.38868681462177273157E-3, 1.61999794598934024525E-4,
         1.97963874140963632189E-6, 7.82579040744090311069E-9],
        [1, 1.64402202413355338886E0, 6.66296701268987968381E-1, 9.88771761277688796203E-2,
         6.22396345441768420760E-3, 1.73221081474177119497E-4, 2.02659182086343991969E-6,
         7.82579218933534490868E-9])
_FG8 = ([4.55880873470465315206E-1, 7.13715274100146711374E-1, 1.60300158222319456320E-1,
         1.16064229408124407915E-2, 3.49556442447859055605E-4, 4.86215430826454749482E-6,
         3.20092790091004902806E-8, 9.41779576128512936592E-11, 9.70507110881952024631E-14],
        [1.0, 9.17463611873684053703E-1, 1.78685545332074536321E-1, 1.22253594771971293032E-2,
         3.58696481881851580297E-4, 4.92435064317881464393E-6, 3.21956939101046018377E-8,
         9.43720590350276732376E-11, 9.70507110881952025725E-14],
        [6.97359953443276214934E-1, 3.30410979305632063225E-1, 3.84878767649974295920E-2,
         1.71718239052347903558E-3, 3.48941165502279436777E-5, 3.47131167084116673800E-7,
         1.70404452782044526189E-9, 3.85945925430276600453E-12, 3.14040098946363334640E-15],
        [1.0, 1.68548898811011640017E0, 4.87852258695304967486E-1, 4.67913194259625806320E-2,
         1.90284426674399523638E-3, 3.68475504442561108162E-5, 3.57043223443740838771E-7,
         1.72693748966316146736E-9, 3.87830166023954706752E-12, 3.14040098946363335242E-15])


def _sici_small(x):
    t = x * x
    si = (x * _poly(_SI_SERIES[0], t)) / _poly(_SI_SERIES[1], t)
    ci = np.euler_gamma + jnp.log(x) + t * _poly(_CI_SERIES[0], t) / _poly(_CI_SERIES[1], t)
    return jnp.where(x == 0, 0.0, si), jnp.where(x == 0, -np.inf, ci)


def _sici_medium(x):
    s, c = jnp.sin(x), jnp.cos(x)
    z = 1.0 / (x * x)

    def fg(fn, fd, gn, gd):
        return _poly(fn, z) / (x * _poly(fd, z)), z * _poly(gn, z) / _poly(gd, z)

    f4, g4 = fg(*_FG4)
    f8, g8 = fg(*_FG8)
    below8 = x < 8.0
    f, g = jnp.where(below8, f4, f8), jnp.where(below8, g4, g8)
    return (np.pi / 2) - f * c - g * s, f * s - g * c


def _sici_large(x):
    inf = jnp.isposinf(x)
    return (jnp.where(inf, np.pi / 2, (np.pi / 2) - jnp.cos(x) / x),
            jnp.where(inf, 0.0, jnp.sin(x) / x))


def _sici(x):
    x, = promote_args_inexact("sici", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
    ax = jnp.abs(x)
    parts = [_sici_small(ax), _sici_medium(ax), _sici_large(ax)]
    conds = [ax <= 4, (ax > 4) & (ax <= 1e9)]
    si = jnp.select(conds, [parts[0][0], parts[1][0]], parts[2][0])
    ci = jnp.select(conds, [parts[0][1], parts[1][1]], parts[2][1])
    return jnp.sign(x) * si, jnp.where(jnp.isneginf(x), np.nan, ci)


sici = custom_jvp(jit(_sici))
sici.__name__ = sici.__qualname__ = "sici"


def _sici_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return sici(x), (jnp.sinc(x / np.pi) * t, jnp.cos(x) / x * t)


sici.defjvp(jit(_sici_jvp))


# -- fresnel: Cephes fresnl (fresnlf's shorter polynomials in single
# precision, half precision widened to float32), with sin/cos(pi x^2 / 2)
# reduced exactly modulo 2 before the trigonometry.

def _sincos_pi_half_sq(x):
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sinpi = jnp.where(r < 0.5, jnp.sin(np.pi * r),
                      jnp.where(r > 1.5, jnp.sin(np.pi * (r - 2.0)), -jnp.sin(np.pi * (r - 1.0))))
    cospi = jnp.where(r == 0.5, 0.0, jnp.where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)),
                                                 jnp.sin(np.pi * (r - 1.5))))
    return sinpi, cospi


_sincos_pi_half_sq = jit(_sincos_pi_half_sq)

_FRESNEL_F32 = {
    "sn": [1.647629463788700e-9, -1.522754752581096e-7, 8.424748808502400e-6,
        -3.120693124703272e-4, 7.244727626597022e-3, -9.228055941124598e-2,
        5.235987735681432e-1],
    "cn": [1.416802502367354e-8, -1.157231412229871e-6, 5.387223446683264e-5,
        -1.604381798862293e-3, 2.818489036795073e-2, -2.467398198317899e-1,
        9.999999760004487e-1],
    "fn": [-1.903009855649792e12, 1.355942388050252e11, -4.158143148511033e9, 7.343848463587323e7,
        -8.732356681548485e5, 8.560515466275470e3, -1.032877601091159e2, 2.999401847870011e0],
    "gn": [-1.860843997624650e11, 1.278350673393208e10, -3.779387713202229e8, 6.492611570598858e6,
        -7.787789623358162e4, 8.602931494734327e2, -1.493439396592284e1, 9.999841934744914e-1]}
_FRESNEL_F64 = {
    "sn": [-2.99181919401019853726e3, 7.08840045257738576863e5, -6.29741486205862506537e7,
        2.54890880573376359104e9, -4.42979518059697779103e10, 3.18016297876567817986e11],
    "sd": [1.00000000000000000000e0, 2.81376268889994315696e2, 4.55847810806532581675e4,
        5.17343888770096400730e6, 4.19320245898111231129e8, 2.24411795645340920940e10,
        6.07366389490084639049e11],
    "cn": [-4.98843114573573548651e-8, 9.50428062829859605134e-6, -6.45191435683965050962e-4,
        1.88843319396703850064e-2, -2.05525900955013891793e-1, 9.99999999999999998822e-1],
    "cd": [3.99982968972495980367e-12, 9.15439215774657478799e-10, 1.25001862479598821474e-7,
        1.22262789024179030997e-5, 8.68029542941784300606e-4, 4.12142090722199792936e-2,
        1.00000000000000000118e0],
    "fn": [4.21543555043677546506e-1, 1.43407919780758885261e-1, 1.15220955073585758835e-2,
        3.45017939782574027900e-4, 4.63613749287867322088e-6, 3.05568983790257605827e-8,
        1.02304514164907233465e-10, 1.72010743268161828879e-13, 1.34283276233062758925e-16,
        3.76329711269987889006e-20],
    "fd": [1.00000000000000000000e0, 7.51586398353378947175e-1, 1.16888925859191382142e-1,
        6.44051526508858611005e-3, 1.55934409164153020873e-4, 1.84627567348930545870e-6,
        1.12699224763999035261e-8, 3.60140029589371370404e-11, 5.88754533621578410010e-14,
        4.52001434074129701496e-17, 1.25443237090011264384e-20],
    "gn": [5.04442073643383265887e-1, 1.97102833525523411709e-1, 1.87648584092575249293e-2,
        6.84079380915393090172e-4, 1.15138826111884280931e-5, 9.82852443688422223854e-8,
        4.45344415861750144738e-10, 1.08268041139020870318e-12, 1.37555460633261799868e-15,
        8.36354435630677421531e-19, 1.86958710162783235106e-22],
    "gd": [1.00000000000000000000e0, 1.47495759925128324529e0, 3.37748989120019970451e-1,
        2.53603741420338795122e-2, 8.14679107184306179049e-4, 1.27545075667729118702e-5,
        1.04314589657571990585e-7, 4.60680728146520428211e-10, 1.10273215066240270757e-12,
        1.38796531259578871258e-15, 8.39158816283118707363e-19, 1.86958710162783236342e-22]}


def _fresnel(x):
    xx, = promote_args_inexact("fresnel", x)
    dtype = xx.dtype
    if dtypes.issubdtype(dtype, np.complexfloating):
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if dtype in (np.float32, np.float16, dtypes.bfloat16):
        xx = xx.astype(np.float32)
    elif dtype != np.float64:
        raise NotImplementedError(f"Support for {dtype} dtype is not implemented yet.")
    single = xx.dtype == np.float32
    k = _FRESNEL_F32 if single else _FRESNEL_F64

    def ratio(num, den, v):
        p = _poly(k[num], v)
        return p if single else p / _poly(k[den], v)

    x = jnp.abs(xx)
    x2 = x * x
    t = x2 * x2
    s_small = x * x2 * ratio("sn", "sd", t)
    c_small = x * ratio("cn", "cd", t)
    sinpi, cospi = _sincos_pi_half_sq(x)
    if single:
        s_large = c_large = 0.5
    else:
        c_large = 0.5 + 1 / (np.pi * x) * sinpi
        s_large = 0.5 - 1 / (np.pi * x) * cospi
    t = np.pi * x2
    u = 1.0 / (t * t)
    t = 1.0 / t
    f = 1.0 - u * ratio("fn", "fd", u)
    g = t * ratio("gn", "gd", u)
    t = np.pi * x
    c_mid = 0.5 + (f * sinpi - g * cospi) / t
    s_mid = 0.5 - (f * cospi + g * sinpi) / t
    inf, small, large = jnp.isinf(xx), x2 < 2.5625, x > 36974.0
    s = jnp.where(inf, 0.5, jnp.where(small, s_small, jnp.where(large, s_large, s_mid)))
    c = jnp.where(inf, 0.5, jnp.where(small, c_small, jnp.where(large, c_large, c_mid)))
    neg = xx < 0.0
    s, c = jnp.where(neg, -s, s), jnp.where(neg, -c, c)
    if dtype != xx.dtype:
        s, c = s.astype(dtype), c.astype(dtype)
    return s, c


fresnel = custom_jvp(_fresnel)
fresnel.__name__ = fresnel.__qualname__ = "fresnel"


def _fresnel_jvp(primals, tangents):
    x, = primals
    t, = tangents
    sinpi, cospi = _sincos_pi_half_sq(x)
    return fresnel(x), (sinpi * t, cospi * t)


fresnel.defjvp(_fresnel_jvp)


# -- Owen's T: T(h, a) for |a| <= 1 by quadrature over t = u^2 / a^2 (the
# weights carry 1/2pi and the Jacobian); |a| > 1 by T(h, a) = (Phi terms) -
# T(ah, 1/a); exact at h = 0 and |a| = 1.
_OWENS_T_NODES = [0.0035082039676451715, 0.031279042338030754, 0.085266826283219451,
                  0.16245071730812277, 0.25851196049125435, 0.36807553840697534,
                  0.48501092905604697, 0.60277514152618577, 0.71477884217753227,
                  0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
                  0.99178832974629704]
_OWENS_T_WEIGHTS = [0.018831438115323503, 0.018567086243977649, 0.018042093461223386,
                    0.017263829606398753, 0.016243219975989857, 0.014994592034116705,
                    0.013535474469662088, 0.011886351605820165, 0.010070377242777432,
                    0.0081130545742299587, 0.0060419009528470239, 0.0038862217010742058,
                    0.0016793031084546090]


def _owens_t_impl(h, a):
    h = jnp.abs(h)
    abs_a = jnp.abs(a)
    root2 = np.array(np.sqrt(2), h.dtype)
    hn = h / root2
    small_a = abs_a <= 1.
    ma = jnp.where(small_a, abs_a, jnp.reciprocal(abs_a))
    mh = jnp.where(small_a, h, abs_a * h)
    r = jnp.square(ma)[..., None] * np.array(_OWENS_T_NODES)
    f = jnp.exp(-0.5 * jnp.square(mh)[..., None] * (1. + r)) / (1. + r)
    out = ma * (f @ np.array(_OWENS_T_WEIGHTS))
    out = jnp.where(mh == 0., jnp.arctan(ma) / (2 * np.pi), out)
    out = jnp.where(ma == 1., 0.125 * lax.erfc(-mh / root2) * lax.erfc(mh / root2), out)
    qh, qah = lax.erfc(hn), lax.erfc(abs_a * hn)
    out = jnp.where(abs_a > 1., jnp.where(
        abs_a * h <= 0.67, 0.25 - 0.25 * lax.erf(hn) * lax.erf(abs_a * hn) - out,
        0.25 * (qh + qah - qh * qah) - out), out)
    out = lax.sign(a) * out
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(out, jnp.nan), out)


_owens_t_impl = custom_jvp(_owens_t_impl)


def _owens_t_jvp(primals, tangents):
    h, a = primals
    dh, da = tangents
    root2 = np.array(np.sqrt(2), h.dtype)
    d_h = (-lax.exp(-0.5 * lax.square(h)) * lax.erf(a * h / root2)
           / (2. * np.array(np.sqrt(2. * np.pi), h.dtype)))
    a2p1 = lax.square(a) + 1.
    d_a = lax.exp(-0.5 * a2p1 * lax.square(h)) / (2. * np.pi * a2p1)
    out = _owens_t_impl(h, a)
    return out, (d_h * dh + d_a * da).astype(out.dtype)


_owens_t_impl.defjvp(_owens_t_jvp)


def owens_t(h, a):
    h, a = promote_args_inexact("owens_t", h, a)
    return _owens_t_impl(h, a)


# -- bessel_jn: Miller's backward recurrence from order n_iter, normalised
# by J_0 + 2 (J_2 + J_4 + ...) = 1 (Zhang & Jin).

def _bessel_jn(z, v, n_iter):
    def step(carry, k):
        f0, f1, total = carry
        f = 2.0 * (k + 1.0) * f1 / z - f0
        total = jnp.where(jnp.mod(k, 2) == 0, total + 2.0 * f, total)
        return (f1, f, total), f

    zero = jnp.zeros_like(z)
    (_, _, total), js = scan(step, (zero, jnp.full_like(z, 1e-16), zero),
                             lax.iota(z.dtype, n_iter + 1), reverse=True)
    return js[:v + 1] / (total - js[0])


def bessel_jn(z, *, v, n_iter=50):
    # complex z is not refused up front: as in JAX, it fails in the recurrence
    z, = promote_args_inexact("bessel_jn", jnp.asarray(z))
    v = core.concrete_or_error(operator.index, v, "Argument v of bessel_jn.")
    n_iter = core.concrete_or_error(int, n_iter, "Argument n_iter of bessel_jn.")
    return _bessel_jn_jit(z, v, n_iter)


_bessel_jn_jit = jit(_bessel_jn, static_argnums=(1, 2))
