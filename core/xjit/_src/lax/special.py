"""Special functions of ``xjit.lax``: incomplete gamma and beta, polygamma,
Hurwitz zeta and the scaled Bessel functions.

Each is a primitive (so jaxprs show ``igamma a b`` as JAX's do). Where CHLO
has the function (``chlo.polygamma``, ``chlo.zeta``, ``chlo.bessel_i1e``) it is
lowered to that op; otherwise the lowering is lax code staged and inlined:
series / continued-fraction evaluations in ``while`` loops, as XLA's own
math library computes them. ``random_gamma_grad`` is such lax code called
directly (JAX has no primitive for it either).
"""
from __future__ import annotations

import numpy as np

from xjit._src.interpreters import mlir as lowering
from xjit._src import core, dtypes
from xjit._src.interpreters.ad import defjvp, defjvp2
from xjit._src.lax import lax
from . import elementwise as ew
from .control_flow import while_loop
from .slicing import lower_fun


def _define(name, nargs, chlo_op=None):
    return ew.naryop(name, nargs, ew.naryop_eval(name, ew.FLOAT),
                     ew._simple_lowering(chlo_op) if chlo_op is not None else None)


igamma_p = _define("igamma", 2)
igammac_p = _define("igammac", 2)
igamma_grad_a_p = _define("igamma_grad_a", 2)
regularized_incomplete_beta_p = _define("regularized_incomplete_beta", 3)
polygamma_p = _define("polygamma", 2, "chlo.polygamma")
zeta_p = _define("zeta", 2, "chlo.zeta")
bessel_i0e_p = _define("bessel_i0e", 1)
bessel_i1e_p = _define("bessel_i1e", 1, "chlo.bessel_i1e")


def igamma(a, x):
    """Regularized lower incomplete gamma P(a, x)."""
    return igamma_p.bind(a, x)


def igammac(a, x):
    """Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x)."""
    return igammac_p.bind(a, x)


def igamma_grad_a(a, x):
    """dP(a, x)/da."""
    return igamma_grad_a_p.bind(a, x)


def betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b)."""
    return regularized_incomplete_beta_p.bind(a, b, x)


def polygamma(m, x):
    """The m-th derivative of digamma."""
    return polygamma_p.bind(m, x)


def zeta(x, q):
    """Hurwitz zeta(x, q)."""
    return zeta_p.bind(x, q)


def bessel_i0e(x):
    """exp(-|x|) I0(x)."""
    return bessel_i0e_p.bind(x)


def bessel_i1e(x):
    """exp(-|x|) I1(x)."""
    return bessel_i1e_p.bind(x)


# --------------------------------------------------------------------------
# Helpers for the lax-code lowerings


def _upcast_broadcast(impl):
    """Operands broadcast to one shape; half-precision ones computed in f32
    (the series constants need it)."""
    def run(*args):
        shape = np.broadcast_shapes(*(a.shape for a in args))
        args = [lax.broadcast_in_dim(a, shape, tuple(range(a.ndim))) if a.shape != shape else a
                for a in args]
        dt = args[0].dtype
        low = dt == dtypes.bfloat16 or dt == np.float16
        if low:
            args = [lax.convert_element_type(a, np.float32) for a in args]
        out = impl(*args, dtype=np.dtype(np.float32) if low else dt)
        return lax.convert_element_type(out, dt) if low else out
    return run


def _full(x, v):
    return lax.full_like(x, v)


def _isnan(x):
    return lax.ne(x, x)


def _any(pred):
    return lax.reduce_or(pred, tuple(range(pred.ndim)))


def _or(*ps):
    out = ps[0]
    for p in ps[1:]:
        out = lax.bitwise_or(out, p)
    return out


def _where(c, t, f):
    return lax.select(c, t, f)


def _log_ax(a, x, dtype):
    """log(x^a e^-x / Gamma(a)), and whether exp of it underflows."""
    lax_ = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a))
    underflow = lax.lt(lax_, _full(lax_, -np.log(np.finfo(dtype).max)))
    return lax.exp(lax_), underflow


# -- incomplete gamma: what the two evaluations return
VALUE, DERIVATIVE, SAMPLE_DERIVATIVE = "value", "derivative", "sample_derivative"


def _gamma_series(ax, x, a, enabled, dtype, mode):
    """The power series of P(a, x) (good for x < a + 1), with its derivative
    in ``a`` carried alongside."""
    eps = np.finfo(dtype).eps

    def body(s):
        on, r, c, ans, xx, dc, dans = s
        r1 = lax.add(r, 1.0)
        dc1 = lax.sub(lax.mul(dc, lax.div(xx, r1)), lax.div(lax.mul(c, xx), lax.mul(r1, r1)))
        dans1 = lax.add(dans, dc1)
        c1 = lax.mul(c, lax.div(xx, r1))
        ans1 = lax.add(ans, c1)
        test = lax.div(c1, ans1) if mode == VALUE else lax.abs(lax.div(dc1, dans1))
        more = lax.bitwise_and(on, lax.gt(test, _full(test, eps)))
        return (more, _where(on, r1, r), _where(on, c1, c), _where(on, ans1, ans), xx,
                _where(on, dc1, dc), _where(on, dans1, dans))

    init = (enabled, a, _full(a, 1), _full(a, 1), x, _full(a, 0), _full(a, 0))
    _, _, _, ans, _, _, dans = while_loop(lambda s: _any(s[0]), body, init)
    if mode == VALUE:
        return lax.div(lax.mul(ans, ax), a)
    dlogax = lax.sub(lax.log(x), lax.digamma(lax.add(a, 1.0)))
    if mode == DERIVATIVE:
        return lax.div(lax.mul(ax, lax.add(lax.mul(ans, dlogax), dans)), a)
    return lax.div(lax.mul(lax.neg(lax.add(dans, lax.mul(ans, dlogax))), x), a)


def _gamma_continued_fraction(ax, x, a, enabled, dtype, mode):
    """The continued fraction of Q(a, x) (good for x > a + 1), with its
    derivative in ``a``; numerators and denominators are rescaled by eps
    whenever they grow past 1/eps."""
    eps = np.finfo(dtype).eps
    big = 1.0 / eps

    def body(s):
        on, ans, t, y, z, c, p1, q1, p2, q2, dp2, dq2, dp1, dq1, dans = s
        c = lax.add(c, 1.0)
        y1 = lax.add(y, 1.0)
        z1 = lax.add(z, 2.0)
        yc = lax.mul(y1, c)
        pk = lax.sub(lax.mul(p1, z1), lax.mul(p2, yc))
        qk = lax.sub(lax.mul(q1, z1), lax.mul(q2, yc))
        nz = lax.ne(qk, _full(qk, 0))
        r = lax.div(pk, qk)
        t1 = _where(nz, lax.abs(lax.div(lax.sub(ans, r), r)), _full(r, 1))
        ans1 = _where(nz, r, ans)
        dpk = lax.add(lax.sub(lax.sub(lax.mul(dp1, z1), p1), lax.mul(dp2, yc)), lax.mul(p2, c))
        dqk = lax.add(lax.sub(lax.sub(lax.mul(dq1, z1), q1), lax.mul(dq2, yc)), lax.mul(q2, c))
        dans1 = _where(nz, lax.div(lax.sub(dpk, lax.mul(ans1, dqk)), qk), dans)
        dchange = _where(nz, lax.abs(lax.sub(dans1, dans)), _full(dans, 1))
        rescale = lax.gt(lax.abs(pk), _full(pk, big))

        def scaled(v):
            return _where(rescale, lax.mul(v, eps), v)
        n_p2, n_p1, n_q2, n_q1 = scaled(p1), scaled(pk), scaled(q1), scaled(qk)
        n_dp2, n_dq2, n_dp1, n_dq1 = scaled(dp1), scaled(dq1), scaled(dpk), scaled(dqk)
        test = t1 if mode == VALUE else dchange
        more = lax.bitwise_and(on, lax.gt(test, _full(test, eps)))
        keep = [(ans1, ans), (t1, t), (y1, y), (z1, z)]
        upd = [_where(on, new, old) for new, old in keep]
        rest = [(n_p1, p1), (n_q1, q1), (n_p2, p2), (n_q2, q2), (n_dp2, dp2), (n_dq2, dq2),
                (n_dp1, dp1), (n_dq1, dq1), (dans1, dans)]
        return (more, *upd, c, *[_where(on, new, old) for new, old in rest])

    y = lax.sub(1.0, a)
    z = lax.add(lax.add(x, y), 1.0)
    p2, q2 = _full(x, 1), x
    p1 = lax.add(x, 1.0)
    q1 = lax.mul(z, x)
    ans = lax.div(p1, q1)
    zero = _full(x, 0)
    dq1 = lax.neg(x)
    dans = lax.div(lax.sub(zero, lax.mul(ans, dq1)), q1)
    init = (enabled, ans, _full(x, 1), y, z, lax.full((), 0, dtype), p1, q1, p2, q2,
            zero, zero, zero, dq1, dans)
    out = while_loop(lambda s: lax.bitwise_and(lax.lt(s[5], lax.full((), 2000, dtype)),
                                               _any(s[0])), body, init)
    ans, dans = out[1], out[14]
    if mode == VALUE:
        return lax.mul(ans, ax)
    dlogax = lax.sub(lax.log(x), lax.digamma(a))
    if mode == DERIVATIVE:
        return lax.mul(ax, lax.add(lax.mul(ans, dlogax), dans))
    return lax.neg(lax.mul(lax.add(dans, lax.mul(ans, dlogax)), x))


def _igamma_impl(a, x, *, dtype):
    nan = _or(_isnan(a), _isnan(x))
    x_inf = lax.eq(x, _full(x, np.inf))
    a_zero, x_zero = lax.eq(a, _full(a, 0)), lax.eq(x, _full(x, 0))
    bad = _or(lax.lt(x, _full(x, 0)), lax.lt(a, _full(a, 0)), lax.bitwise_and(a_zero, x_zero), nan)
    use_cf = lax.bitwise_and(lax.ge(x, _full(x, 1)), lax.gt(x, a))
    ax, underflow = _log_ax(a, x, dtype)
    on = lax.bitwise_not(_or(x_zero, bad, underflow, x_inf))
    cf = _gamma_continued_fraction(ax, x, a, lax.bitwise_and(on, use_cf), dtype, VALUE)
    series = _gamma_series(ax, x, a, lax.bitwise_and(on, lax.bitwise_not(use_cf)), dtype, VALUE)
    out = _where(use_cf, lax.sub(1.0, cf), series)
    out = _where(x_zero, _full(a, 0), out)
    out = _where(x_inf, _full(a, 1), out)
    return _where(bad, _full(a, np.nan), out)


def _igammac_impl(a, x, *, dtype):
    nan = _or(_isnan(a), _isnan(x))
    a_zero, x_zero = lax.eq(a, _full(a, 0)), lax.eq(x, _full(x, 0))
    x_inf = lax.eq(x, _full(x, np.inf))
    bad = _or(lax.lt(x, _full(x, 0)), lax.lt(a, _full(a, 0)), lax.bitwise_and(a_zero, x_zero), nan)
    use_series = _or(lax.lt(x, _full(x, 1)), lax.lt(x, a))
    ax, underflow = _log_ax(a, x, dtype)
    on = lax.bitwise_not(_or(bad, underflow, x_inf, a_zero))
    series = _gamma_series(ax, x, a, lax.bitwise_and(on, use_series), dtype, VALUE)
    cf = _gamma_continued_fraction(ax, x, a, lax.bitwise_and(on, lax.bitwise_not(use_series)),
                                   dtype, VALUE)
    out = _where(use_series, lax.sub(1.0, series), cf)
    out = _where(_or(x_inf, a_zero), _full(out, 0), out)
    return _where(bad, _full(a, np.nan), out)


def _gamma_derivative(a, x, dtype, mode):
    """dP/da (``DERIVATIVE``) or the reparameterization derivative of a
    Gamma(a, 1) sample x (``SAMPLE_DERIVATIVE``)."""
    nan = _or(_isnan(a), _isnan(x))
    x_zero = lax.eq(x, _full(x, 0))
    bad = _or(lax.lt(x, _full(x, 0)), lax.le(a, _full(a, 0)))
    use_cf = lax.bitwise_and(lax.gt(x, _full(x, 1)), lax.gt(x, a))
    ax, underflow = _log_ax(a, x, dtype)
    on = lax.bitwise_not(_or(x_zero, bad, underflow, nan))
    cf = _gamma_continued_fraction(ax, x, a, lax.bitwise_and(on, use_cf), dtype, mode)
    series = _gamma_series(ax, x, a, lax.bitwise_and(on, lax.bitwise_not(use_cf)), dtype, mode)
    out = _where(use_cf, lax.neg(cf), series)
    out = _where(x_zero, _full(out, 0), out)
    return _where(_or(bad, nan), _full(a, np.nan), out)


def _igamma_grad_a_impl(a, x, *, dtype):
    return _gamma_derivative(a, x, dtype, DERIVATIVE)


def random_gamma_grad(a, x):
    """d(sample)/d(a) for a sample ``x`` of Gamma(a, 1), by implicit
    differentiation of the CDF: -(dP/da) / (dP/dx)."""
    a = lax.asarray_device(a)
    x = lax.asarray_device(x)
    return _upcast_broadcast(lambda a, x, dtype: _gamma_derivative(
        a, x, dtype, SAMPLE_DERIVATIVE))(a, x)


# -- incomplete beta: the continued fraction of DLMF 8.17.22, evaluated
# with the modified Lentz method


def _betainc_impl(a, b, x, *, dtype):
    eps = np.finfo(dtype).eps / 2
    shape = a.shape
    a_zero = _or(lax.eq(a, _full(a, 0)), lax.eq(b, _full(b, np.inf)))
    b_zero = _or(lax.eq(b, _full(b, 0)), lax.eq(a, _full(a, np.inf)))
    x_zero, x_one = lax.eq(x, _full(x, 0)), lax.eq(x, _full(x, 1))
    is_zero = _or(lax.bitwise_and(b_zero, lax.bitwise_not(x_one)),
                  lax.bitwise_and(a_zero, x_zero))
    is_one = _or(lax.bitwise_and(a_zero, lax.bitwise_not(x_zero)), lax.bitwise_and(b_zero, x_one))
    is_nan = _or(lax.lt(a, _full(a, 0)), lax.lt(b, _full(b, 0)), lax.lt(x, _full(x, 0)),
                 lax.gt(x, _full(x, 1)), lax.bitwise_and(a_zero, b_zero),
                 _isnan(a), _isnan(b), _isnan(x))
    # The fraction converges fast for x < (a+1)/(a+b+2); otherwise use
    # I_x(a, b) = 1 - I_{1-x}(b, a).
    direct = lax.lt(x, lax.div(lax.add(a, 1.0), lax.add(lax.add(a, b), 2.0)))
    a, b = _where(direct, a, b), _where(direct, b, a)
    x = _where(direct, x, lax.sub(1.0, x))

    def numerator(n):
        nb = lax.broadcast_in_dim(n, shape, ())
        m = lax.convert_element_type(lax.div(lax.sub(nb, 1), np.int32(2)), dtype)
        a2m = lax.add(a, lax.mul(2.0, m))
        even_first = lax.div(lax.mul(lax.neg(lax.add(a, b)), x), lax.add(a, 1.0))
        even = lax.div(lax.mul(lax.mul(lax.neg(lax.add(a, m)), lax.add(lax.add(a, b), m)), x),
                       lax.mul(a2m, lax.add(a2m, 1.0)))
        even = _where(lax.eq(m, _full(m, 0)), even_first, even)
        odd = lax.div(lax.mul(lax.mul(m, lax.sub(b, m)), x), lax.mul(lax.sub(a2m, 1.0), a2m))
        is_even = lax.eq(lax.rem(nb, np.int32(2)), _full(nb, 0))
        return _where(lax.eq(nb, _full(nb, 1)), _full(x, 1), _where(is_even, even, odd))

    def floor_tiny(v):
        return _where(lax.lt(lax.abs(v), _full(v, eps)), _full(v, eps), v)

    def body(s):
        n, _, c, d, h = s
        num = numerator(n)
        c1 = floor_tiny(lax.add(1.0, lax.div(num, c)))
        d1 = lax.div(1.0, floor_tiny(lax.add(1.0, lax.mul(num, d))))
        delta = lax.mul(c1, d1)
        more = _any(lax.ge(lax.abs(lax.sub(delta, 1.0)), _full(delta, eps)))
        return lax.add(n, np.int32(1)), more, c1, d1, lax.mul(h, delta)

    iters = 200 if dtype == np.float32 else 600
    h0 = _full(x, eps)  # the fraction's 0th denominator is 0, floored to eps
    init = (np.int32(1), np.bool_(True), h0, _full(x, 0), h0)
    frac = while_loop(lambda s: lax.bitwise_and(lax.lt(s[0], np.int32(iters)), s[1]), body,
                      init)[4]
    tiny = np.finfo(dtype).tiny * 2
    lbeta_rest = lax.sub(lax.lgamma(b), lax.lgamma(lax.add(a, b)))
    lbeta = lax.add(lax.lgamma(a), lbeta_rest)
    log1mx_b = lax.mul(lax.log1p(lax.neg(x)), b)
    factor = _where(lax.lt(a, _full(a, tiny)),
                    lax.exp(lax.sub(log1mx_b, lbeta_rest)),
                    lax.div(lax.exp(lax.sub(lax.add(lax.mul(lax.log(x), a), log1mx_b), lbeta)), a))
    out = lax.mul(frac, factor)
    out = _where(direct, out, lax.sub(1.0, out))
    out = _where(is_zero, _full(out, 0), out)
    out = _where(is_one, _full(out, 1), out)
    return _where(is_nan, _full(out, np.nan), out)


# -- bessel_i0e: Chebyshev expansions (Cephes coefficients) on |x| <= 8
# and, in 32/x, beyond

_I0E_A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
          1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
          -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
          9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
          -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
          1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
          -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
          1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
          -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
          1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0E_B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
          3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
          1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
          -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
          7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
          -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
          3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
          2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
          8.04490411014108831608E-1)
# single precision needs only the tails of the series
_I0E_A32, _I0E_B32 = _I0E_A[-18:], _I0E_B[-7:]


def _chebyshev(x, coeffs):
    b0 = b1 = b2 = _full(x, 0)
    for c in coeffs:
        b2, b1 = b1, b0
        b0 = lax.add(lax.sub(lax.mul(x, b1), b2), _full(x, c))
    return lax.mul(lax.sub(b0, b2), 0.5)


def _bessel_i0e_impl(x):
    dt = x.dtype
    if dt != np.float64 and dt != np.float32:
        return lax.convert_element_type(_bessel_i0e_impl(lax.convert_element_type(x, np.float32)),
                                        dt)
    ca, cb = (_I0E_A, _I0E_B) if dt == np.float64 else (_I0E_A32, _I0E_B32)
    x = lax.abs(x)
    small = _chebyshev(lax.sub(lax.mul(x, 0.5), 2.0), ca)
    large = lax.div(_chebyshev(lax.sub(lax.div(32.0, x), 2.0), cb), lax.sqrt(x))
    return _where(lax.le(x, _full(x, 8.0)), small, large)


lowering.rules[igamma_p] = lower_fun(_upcast_broadcast(_igamma_impl))
lowering.rules[igammac_p] = lower_fun(_upcast_broadcast(_igammac_impl))
lowering.rules[igamma_grad_a_p] = lower_fun(_upcast_broadcast(_igamma_grad_a_impl))
lowering.rules[regularized_incomplete_beta_p] = lower_fun(_upcast_broadcast(_betainc_impl))
lowering.rules[bessel_i0e_p] = lower_fun(_bessel_i0e_impl)


# --------------------------------------------------------------------------
# Derivatives


_const = lax.rule_const


def _times(g, y):
    """JAX writes these rules' products as ``g * y``: NumPy promotion, so a
    weakly typed factor beside a strong one is converted to strong first (and
    the transpose of that conversion makes the cotangent weak again)."""
    wg, wy = core.aval_of(g).weak_type, core.aval_of(y).weak_type
    if wg != wy:
        g, y = (lax._convert(v, core.aval_of(v).dtype, False) for v in (g, y))
    return lax.mul(g, y)


def _igamma_dx(g, a, x):
    return _times(g, lax.exp(lax.sub(lax.add(lax.neg(x), lax.mul(lax.sub(a, _const(a, 1)),
                                                                  lax.log(x))), lax.lgamma(a))))


def _no_grad(what):
    def rule(g, *args):
        raise ValueError(what)
    return rule


defjvp(igamma_p, lambda g, a, x: _times(g, igamma_grad_a(a, x)), _igamma_dx)
defjvp(igammac_p, lambda g, a, x: lax.neg(_times(g, igamma_grad_a(a, x))),
       lambda g, a, x: lax.neg(_igamma_dx(g, a, x)))
defjvp(polygamma_p, _no_grad("polygamma gradient with respect to m is not supported"),
       lambda g, m, x: _times(g, polygamma(lax.add(m, _const(m, 1)), x)))
defjvp(ew.digamma_p, lambda g, x: lax.mul(g, polygamma(_const(x, 1), x)))


def _betainc_dx(g, a, b, x):
    lbeta = lax.sub(lax.add(lax.lgamma(a), lax.lgamma(b)), lax.lgamma(lax.add(a, b)))
    logp = lax.add(lax.mul(lax.sub(b, 1.0), lax.log1p(lax.neg(x))),
                   lax.mul(lax.sub(a, 1.0), lax.log(x)))
    return _times(lax.exp(lax.sub(logp, lbeta)), g)


_betainc_ab = _no_grad("Betainc gradient with respect to a and b not supported.")
defjvp(regularized_incomplete_beta_p, _betainc_ab, _betainc_ab, _betainc_dx)
defjvp2(bessel_i0e_p, lambda g, y, x: lax.mul(g, lax.sub(bessel_i1e(x), lax.mul(lax.sign(x), y))))


def _bessel_i1e_jvp(g, y, x):
    eps = np.finfo(core.aval_of(x).dtype).eps
    not_tiny = lax.gt(lax.convert_element_type(lax.abs(x), core.aval_of(x).dtype),
                      _const(x, eps))
    safe = lax.select(not_tiny, x, _filled(x, eps))
    dy = lax.sub(bessel_i0e(safe), lax.mul(y, lax.add(lax.sign(safe), lax.integer_pow(safe, -1))))
    return lax.mul(g, lax.select(not_tiny, dy, _filled(x, 0.5)))


def _filled(x, v):
    """``v`` at ``x``'s shape and dtype; a rank-0 one stays a constant."""
    a = core.aval_of(x)
    return _const(x, v) if not a.shape else lax.full(a.shape, v, a.dtype)


defjvp2(bessel_i1e_p, _bessel_i1e_jvp)
