"""lax's special functions (igamma, betainc, polygamma, zeta, Bessel...) against
closed forms and identities (and SciPy where installed): derivative rules,
dtype and gradient errors, batching, and the single primitive each stages."""
import math

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

from util import close

RNG = np.random.RandomState(0)
A = RNG.uniform(0.2, 12.0, 40).astype(np.float32)
X = RNG.uniform(0.05, 20.0, 40).astype(np.float32)



def test_igamma_closed_forms():
    close(lax.igamma(np.float32(1.0), X), 1 - np.exp(-X.astype(np.float64)))
    close(lax.igammac(np.float32(1.0), X), np.exp(-X.astype(np.float64)), rtol=1e-4)
    # P(a, x) + Q(a, x) == 1 on both sides of the series / continued-fraction switch
    close(lax.igamma(A, X) + lax.igammac(A, X), np.ones_like(A), atol=3e-6)


def test_igamma_edges():
    a = np.array([0.0, -1.0, 2.0, 2.0, np.nan, 2.0], np.float32)
    x = np.array([0.0, 1.0, -1.0, 0.0, 1.0, np.inf], np.float32)
    out = np.asarray(lax.igamma(a, x))
    assert np.isnan(out[[0, 1, 2, 4]]).all() and out[3] == 0.0 and out[5] == 1.0
    outc = np.asarray(lax.igammac(a, x))
    assert outc[3] == 1.0 and outc[5] == 0.0


def test_igamma_grad_a_matches_finite_difference():
    a, x = np.float64(2.5), np.float64(3.0)
    with jax.enable_x64(True):
        h = 1e-6
        fd = (lax.igamma(a + h, x) - lax.igamma(a - h, x)) / (2 * h)
        close(lax.igamma_grad_a(a, x), fd, rtol=1e-6)
        close(jax.grad(lax.igamma)(a, x), fd, rtol=1e-6)
        assert lax.igamma(a, x).dtype == np.float64


def test_random_gamma_grad_is_implicit_derivative():
    """For x with P(a, x) = u fixed, dx/da = -(dP/da) / (dP/dx)."""
    a, x = A.astype(np.float64), X.astype(np.float64)
    with jax.enable_x64(True):
        dpda = np.asarray(lax.igamma_grad_a(a, x))
        dpdx = np.exp((a - 1) * np.log(x) - x - np.asarray(lax.lgamma(a)))
        close(lax.random_gamma_grad(a, x), -dpda / dpdx, rtol=1e-8)
    out = lax.random_gamma_grad(A, X)
    assert out.dtype == np.float32 and out.shape == A.shape
    half = lax.random_gamma_grad(A.astype(np.float16), X.astype(np.float16))
    assert half.dtype == np.float16


def test_betainc_closed_forms():
    u = RNG.uniform(0.0, 1.0, 30).astype(np.float32)
    close(lax.betainc(np.float32(1.0), np.float32(1.0), u), u)
    close(lax.betainc(np.float32(3.0), np.float32(1.0), u), u.astype(np.float64) ** 3, atol=2e-6)
    close(lax.betainc(np.float32(1.0), np.float32(2.5), u), 1 - (1 - u.astype(np.float64)) ** 2.5,
          atol=2e-6)
    a, b = np.float32(2.5), np.float32(4.0)  # symmetry I_x(a, b) = 1 - I_{1-x}(b, a)
    close(lax.betainc(a, b, u) + lax.betainc(b, a, 1 - u), np.ones_like(u), atol=3e-6)


def test_polygamma_zeta_bessel_known_values():
    close(lax.polygamma(np.float32(1.0), np.float32(1.0)), np.pi ** 2 / 6)
    close(lax.polygamma(np.float32(0.0), np.float32(3.0)), lax.digamma(np.float32(3.0)))
    close(lax.zeta(np.float32(2.0), np.float32(1.0)), np.pi ** 2 / 6)
    close(lax.zeta(np.float32(4.0), np.float32(1.0)), np.pi ** 4 / 90)
    xs = np.linspace(-20, 20, 41)
    k = np.arange(60)
    lg = np.array([math.lgamma(i + 1) for i in k])
    i0 = np.array([np.sum(np.exp(2 * k * np.log(abs(v) / 2 + 1e-300) - 2 * lg)) for v in xs])
    i1 = np.array([np.sign(v) * np.sum(np.exp((2 * k + 1) * np.log(abs(v) / 2 + 1e-300) - lg -
                                              np.array([math.lgamma(i + 2) for i in k])))
                   for v in xs])
    close(lax.bessel_i0e(xs.astype(np.float32)), np.exp(-abs(xs)) * i0, rtol=1e-5)
    close(lax.bessel_i1e(xs.astype(np.float32)), np.exp(-abs(xs)) * i1, rtol=1e-5)


def test_against_scipy():
    sp = pytest.importorskip("scipy.special")
    u = RNG.uniform(0, 1, 40).astype(np.float32)
    close(lax.igamma(A, X), sp.gammainc(A, X), rtol=1e-4, atol=1e-6)
    close(lax.igammac(A, X), sp.gammaincc(A, X), rtol=1e-4, atol=1e-6)
    close(lax.betainc(A, X, u), sp.betainc(A, X, u), rtol=1e-4, atol=1e-6)
    close(lax.polygamma(np.float32(2.0), X), sp.polygamma(2, X), rtol=1e-4)
    close(lax.zeta(A + 1, X), sp.zeta(A + 1, X), rtol=1e-4)
    with jax.enable_x64(True):
        a, x = A.astype(np.float64), X.astype(np.float64)
        close(lax.igamma(a, x), sp.gammainc(a, x), rtol=1e-10, atol=1e-14)
        close(lax.bessel_i0e(x - 10), sp.i0e(x - 10), rtol=1e-12)


def test_special_derivatives():
    close(jax.grad(lax.digamma)(2.5), lax.polygamma(np.float32(1.0), np.float32(2.5)))
    g = jax.grad(lax.polygamma, argnums=1)(np.float32(1.0), np.float32(2.0))
    close(g, lax.polygamma(np.float32(2.0), np.float32(2.0)))
    x = np.float32(0.4)
    lbeta = math.lgamma(2.0) + math.lgamma(3.0) - math.lgamma(5.0)
    close(jax.grad(lax.betainc, argnums=2)(2.0, 3.0, x), math.exp(math.log(x) + 2 * math.log(
        1 - x) - lbeta), rtol=1e-5)
    close(jax.grad(lax.igammac, argnums=1)(2.0, 1.5), -1.5 * math.exp(-1.5))
    for f in (lax.bessel_i0e, lax.bessel_i1e):
        h = 1e-3
        for v in (-2.0, 0.3, 4.0):
            fd = (float(f(np.float32(v + h))) - float(f(np.float32(v - h)))) / (2 * h)
            close(jax.grad(f)(v), fd, rtol=2e-3, atol=2e-4)
    close(jax.grad(lax.bessel_i1e)(0.0), 0.5)


def test_special_gradient_errors():
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
        jax.grad(lax.betainc)(2.0, 3.0, 0.5)
    with pytest.raises(ValueError, match="polygamma gradient with respect to m"):
        jax.grad(lax.polygamma)(1.0, 2.0)


def test_special_dtype_errors():
    with pytest.raises(TypeError, match="igamma does not accept dtype int32"):
        lax.igamma(1, 2.0)
    with pytest.raises(TypeError, match="same dtypes, got float32, float16"):
        lax.igamma(jnp.ones(3), jnp.ones(3, jnp.float16))
    with pytest.raises(TypeError, match="incompatible shapes"):
        lax.zeta(jnp.ones(3), jnp.ones(2))


@pytest.mark.parametrize("name", ["igamma", "igammac", "igamma_grad_a", "zeta", "polygamma"])
def test_special_vmap_and_jit(name):
    f = getattr(lax, name)
    a = np.abs(A[:6]) + (1.5 if name == "zeta" else 0)
    a = np.floor(a) if name == "polygamma" else a
    want = np.asarray(f(a, X[:6]))
    close(jax.vmap(f)(a, X[:6]), want)
    close(jax.vmap(f, (0, None))(a, X[0]), f(a, np.full(6, X[0])))
    close(jax.jit(f)(a, X[:6]), want)


def test_special_jaxprs_are_single_primitives():
    assert str(jax.make_jaxpr(lax.igamma)(1.0, 2.0)).count("igamma a b") == 1
    j = jax.make_jaxpr(lax.betainc)(1.0, 2.0, 0.5)
    assert j.eqns[0].primitive is lax.regularized_incomplete_beta_p
