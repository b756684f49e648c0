"""xjit.scipy on its own: known values of special functions and
distributions (against SciPy when it is installed), identities between
functions, gradients against finite differences, jit/vmap agreement and the
module layout (``import xjit.scipy.special`` and ``xjit.scipy`` as attribute)."""
import importlib

import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
import xjit.scipy.linalg as L
import xjit.scipy.special as S
import xjit.scipy.stats as st


def test_layout():
    assert xjit.scipy.special is S
    for d in ["norm", "uniform", "expon", "gamma", "beta", "t", "laplace", "logistic", "cauchy",
              "chi2", "poisson", "bernoulli", "geom"]:
        assert importlib.import_module(f"xjit.scipy.stats.{d}") is getattr(st, d)


@pytest.mark.parametrize("fn,args,want", [
    (S.gamma, (5.0,), 24.0), (S.gamma, (0.5,), np.sqrt(np.pi)), (S.gamma, (-0.5,), -2 * np.sqrt(np.pi)),
    (S.gammaln, (10.0,), np.log(362880.0)), (S.factorial, (5.0,), 120.0), (S.comb, (10.0, 3.0), 120.0),
    (S.beta, (2.0, 3.0), 1 / 12), (S.erf, (0.0,), 0.0), (S.erfinv, (0.5,), 0.4769362762),
    (S.ndtr, (0.0,), 0.5), (S.ndtri, (0.975,), 1.959963985), (S.log_ndtr, (-20.0,), -203.9171),
    (S.expit, (0.0,), 0.5), (S.logit, (0.5,), 0.0), (S.xlogy, (0.0, 0.0), 0.0),
    (S.entr, (0.5,), 0.5 * np.log(2)), (S.zeta, (2.0, 1.0), np.pi ** 2 / 6),
    (S.polygamma, (1, 1.0), np.pi ** 2 / 6), (S.digamma, (1.0,), -0.5772156649),
    (S.i0, (0.0,), 1.0), (S.i1, (0.0,), 0.0), (S.spence, (1.0,), 0.0), (S.spence, (0.0,), np.pi ** 2 / 6),
    (S.gammainc, (1.0, 1.0), 1 - np.exp(-1)), (S.betainc, (1.0, 1.0, 0.3), 0.3),
    (S.multigammaln, (3.0, 1), np.log(2.0)), (S.kl_div, (1.0, 1.0), 0.0),
])
def test_known_values(fn, args, want):
    np.testing.assert_allclose(np.asarray(fn(*args)), want, rtol=2e-5, atol=1e-6)


def test_bernoulli_numbers():
    np.testing.assert_allclose(S.bernoulli(8), [1, -0.5, 1 / 6, 0, -1 / 30, 0, 1 / 42, 0, -1 / 30],
                               rtol=1e-6, atol=1e-7)


def test_against_scipy():
    sp = pytest.importorskip("scipy.special")
    x = np.linspace(0.05, 6, 23).astype(np.float32)
    p = np.linspace(0.01, 0.99, 23).astype(np.float32)
    for ours, theirs, args in [
            (S.gammaln, sp.gammaln, (x,)), (S.digamma, sp.digamma, (x,)),
            (S.betaln, sp.betaln, (x, x[::-1])), (S.erfinv, sp.erfinv, (2 * p - 1,)),
            (S.ndtri, sp.ndtri, (p,)), (S.log_ndtr, sp.log_ndtr, (-3 * x,)),
            (S.i0e, sp.i0e, (x,)), (S.i1, sp.i1, (x,)), (S.spence, sp.spence, (x,)),
            (S.gammaincc, sp.gammaincc, (x, x[::-1])), (S.rel_entr, sp.rel_entr, (p, p[::-1])),
            (S.xlog1py, sp.xlog1py, (x, p))]:
        np.testing.assert_allclose(ours(*args), theirs(*[a.astype(np.float64) for a in args]),
                                   rtol=3e-5, atol=1e-6, err_msg=ours.__name__)


def test_distributions_against_scipy():
    ss = pytest.importorskip("scipy.stats")
    x = np.linspace(-3, 5, 17).astype(np.float32)
    q = np.linspace(0.02, 0.98, 17).astype(np.float32)
    for d, params in [("norm", (0.5, 2.0)), ("expon", (0.1, 1.5)), ("laplace", (0.5, 2.0)),
                      ("logistic", (0.5, 2.0)), ("cauchy", (0.5, 2.0)), ("uniform", (-1.0, 3.0)),
                      ("gamma", (2.5, 0.0, 1.5)), ("chi2", (3.0, 0.0, 1.0)), ("t", (4.0, 0.0, 1.0))]:
        ours, theirs = getattr(st, d), getattr(ss, d)
        for fn in ["logpdf", "pdf", "cdf", "sf", "ppf"]:
            if hasattr(ours, fn):
                arg = q if fn == "ppf" else x
                np.testing.assert_allclose(getattr(ours, fn)(arg, *params),
                                           getattr(theirs, fn)(arg.astype(np.float64), *params),
                                           rtol=1e-4, atol=1e-5, err_msg=f"{d}.{fn}")
    k = np.arange(-1, 7).astype(np.float32)
    np.testing.assert_allclose(st.poisson.pmf(k, 2.5), ss.poisson.pmf(k, 2.5), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(st.poisson.cdf(k, 2.5), ss.poisson.cdf(k, 2.5), rtol=1e-5)
    np.testing.assert_allclose(st.geom.pmf(k, 0.3), ss.geom.pmf(k, 0.3), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(st.beta.logpdf(q, 2.0, 3.0), ss.beta.logpdf(q, 2.0, 3.0), rtol=1e-4,
                               atol=1e-5)


def test_identities():
    x = jnp.linspace(-4.0, 4.0, 9)
    np.testing.assert_allclose(st.norm.cdf(x) + st.norm.sf(x), 1.0, rtol=1e-6)
    np.testing.assert_allclose(st.norm.ppf(st.norm.cdf(x)), x, atol=2e-4)
    np.testing.assert_allclose(S.expit(S.logit(jnp.array([0.1, 0.5, 0.9]))), [0.1, 0.5, 0.9],
                               rtol=1e-6)
    np.testing.assert_allclose(S.i0(x), jnp.exp(jnp.abs(x)) * S.i0e(x), rtol=1e-6)
    np.testing.assert_allclose(jnp.exp(S.logsumexp(x)), jnp.sum(jnp.exp(x)), rtol=1e-5)


@pytest.mark.parametrize("fn,x", [
    (lambda a: S.xlogy(a, a + 1.0), 0.7), (lambda a: S.zeta(a, 1.5), 3.2),
    (lambda a: S.log_ndtr(a), -7.5), (lambda a: S.gammaln(a), 2.3),
    (lambda a: st.t.logpdf(1.3, a), 3.0), (lambda a: st.gamma.logpdf(1.3, a), 2.0),
    (lambda a: S.betainc(2.0, 3.0, a), 0.4), (lambda a: S.entr(a), 0.3),
])
def test_grad_matches_finite_difference(fn, x):
    h = 1e-3
    fd = (float(fn(np.float64(x + h))) - float(fn(np.float64(x - h)))) / (2 * h)
    np.testing.assert_allclose(float(xjit.grad(fn)(x)), fd, rtol=2e-2)


def test_jit_and_vmap_agree_with_eager():
    x = jnp.linspace(0.1, 3.0, 6)
    for f in [S.gammaln, S.ndtri, lambda v: st.beta.logpdf(v / 4, 2.0, 3.0), S.spence,
              lambda v: S.zeta(v + 1, 2.0)]:
        want = np.asarray(f(x))
        np.testing.assert_allclose(xjit.jit(f)(x), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(xjit.vmap(f)(x), want, rtol=1e-5, atol=1e-6)


def test_linalg_solves_and_factorizations():
    a = jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 2.0]])
    b = jnp.array([1.0, -2.0, 0.5])
    x = np.linalg.solve(np.asarray(a), np.asarray(b))
    np.testing.assert_allclose(L.cho_solve(L.cho_factor(a), b), x, rtol=1e-5)
    np.testing.assert_allclose(L.lu_solve(L.lu_factor(a), b), x, rtol=1e-5)
    np.testing.assert_allclose(L.solve(a, b, assume_a="pos"), x, rtol=1e-5)
    np.testing.assert_allclose(L.lu_solve(L.lu_factor(a), b, trans=1),
                               np.linalg.solve(np.asarray(a).T, np.asarray(b)), rtol=1e-5)
    p, l_, u = L.lu(a)
    np.testing.assert_allclose(p @ l_ @ u, a, rtol=1e-6)
    c = L.cholesky(a)
    np.testing.assert_allclose(c.T @ c, a, rtol=1e-6)
    low = jnp.tril(a)
    np.testing.assert_allclose(low @ L.solve_triangular(low, b, lower=True), b, rtol=1e-5,
                               atol=1e-6)
    batched = jnp.stack([a, 2 * a])
    np.testing.assert_allclose(L.cho_solve(L.cho_factor(batched), jnp.stack([b, b])[..., None])[..., 0],
                               np.stack([x, x / 2]), rtol=1e-5)


def test_expm():
    sl = pytest.importorskip("scipy.linalg")
    for scale in [0.01, 0.3, 1.0, 5.0, 40.0]:
        m = np.array([[0.1, 1.0, 0.0], [-1.0, 0.2, 0.3], [0.0, 0.5, -0.4]]) * scale
        np.testing.assert_allclose(L.expm(m.astype(np.float32)), sl.expm(m), rtol=2e-4, atol=1e-5)
    with xjit.enable_x64(True):
        m = np.array([[0.0, 6.0], [-6.0, 0.0]])
        np.testing.assert_allclose(L.expm(m), sl.expm(m), rtol=1e-10, atol=1e-12)


def test_structured_matrices():
    np.testing.assert_array_equal(L.toeplitz(jnp.array([1, 2, 3]), jnp.array([1, 4, 5, 6])),
                                  [[1, 4, 5, 6], [2, 1, 4, 5], [3, 2, 1, 4]])
    np.testing.assert_array_equal(L.block_diag(jnp.ones((1, 2)), 2),
                                  [[1, 1, 0], [0, 0, 2]])


def test_errors():
    with pytest.raises(ValueError, match="integer type"):
        S.polygamma(1.5, 2.0)
    with pytest.raises(NotImplementedError):
        S.zeta(2.0)
    with pytest.raises(TypeError, match="not supported"):
        S.ndtr(jnp.arange(3))
    with pytest.raises(ValueError, match="assume_a"):
        L.solve(jnp.eye(2), jnp.ones(2), assume_a="tri")
    with pytest.raises(ValueError, match="Invalid 'trans'"):
        L.solve_triangular(jnp.eye(2), jnp.ones(2), trans="X")
