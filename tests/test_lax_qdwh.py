"""``lax.linalg.qdwh`` against what JAX 0.10.2 returned or raised
(``lax_qdwh.json``, written by ``scripts/record_lax_qdwh.py``): the polar
factors, iteration counts and convergence flags of well- and ill-conditioned,
square and tall, real and complex matrices; ``is_hermitian``,
``max_iterations``, ``eps`` and ``dynamic_shape``; under jit and vmap; the
jvp JAX has and the reverse-mode error it raises (the Halley steps are a
while_loop); and the errors for bad input.

Complex results are recorded as (real, imag). Values are compared with
float32 tolerances (LAPACK's QR and Cholesky may round differently).
"""
import functools

import pytest

import recorded

NAME = "lax_qdwh"

PRELUDE = '''
Q = lax.linalg.qdwh
A3 = np.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]], np.float32)    # SPD
N3 = np.array([[1., 2., 3.], [5., 4., 2.], [3., 2., 1.]], np.float32)        # a negative eigenvalue
R4 = np.array([[0., 3., 3., 1.], [0., 1., 2., -1.], [2., 0., 1., 0.5], [1., -1., 0., 2.]],
              np.float32)
C3 = (A3 + 1j * np.array([[0., 1., -0.5], [0.3, 0., 1.], [-1., 0.2, 0.]])).astype(np.complex64)
T43 = np.array([[2., 1., 0.], [0.5, 3., 1.], [1., 0., 4.], [0.2, 0.1, 0.3]], np.float32)
CT = np.concatenate([C3, C3[:2] * 1j]).astype(np.complex64)                  # 5 x 3 complex
HILB = (1. / (np.arange(5)[:, None] + np.arange(5)[None, :] + 1.)).astype(np.float32)  # cond ~5e5
# singular values 1 ... 1e-5, square and tall (condition 1e5)
_G = np.linalg.qr(np.cos(np.arange(36.).reshape(6, 6) * 0.7 + 0.3))[0]
_V = np.linalg.qr(np.sin(np.arange(16.).reshape(4, 4) * 1.3 + 0.1))[0]
ILL6 = ((_G[:, :4] * np.logspace(0, -5, 4)) @ _V.T).astype(np.float32)
ILL4 = ((_V * np.logspace(0, -5, 4)) @ _G[:4, :4].T).astype(np.float32)
W = np.linspace(-1., 2., 64).astype(np.float32)

def ri(z):
    """Complex results as (real, imag): the records keep real values only."""
    return jnp.real(z), jnp.imag(z)

def rq(out):
    u, h, k, c = out
    return ri(u), ri(h), k, c

def x64(thunk):
    with jax.enable_x64(True):
        return thunk()

def err(thunk):
    try:
        thunk()
    except Exception as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"
    return "no error"

def errs(*thunks):
    """The errors as one text, so the records compare them in full."""
    return "\\n".join(err(f) for f in thunks)

def wsum(x):
    x = jnp.real(x)
    return (x * W[:x.size].reshape(x.shape)).sum()
'''

CASES = {
    "square": "(Q(A3), Q(N3), Q(R4), Q(100 * R4), Q(jnp.eye(2)), Q(jnp.array([[3.]])))",
    "tall": "(Q(T43), Q(R4[:, :2]), Q(jnp.ones((3, 1))))",
    "ill_conditioned": "(Q(HILB), Q(ILL4), Q(ILL6))",
    "ill_conditioned:check": "[(jnp.abs(u @ h - x).max() < 1e-5, jnp.abs(u.T @ u - jnp.eye(x.shape[1])).max() < 1e-3) "
                             "for x in (HILB, ILL4, ILL6) for u, h, _, _ in [Q(x)]]",
    "complex": "(rq(Q(C3)), rq(Q(CT)), rq(Q(C3 * 1j, max_iterations=2)))",
    "hermitian": "(Q(A3, is_hermitian=True), Q(N3 + N3.T, is_hermitian=True), rq(Q(C3 + C3.conj().T, is_hermitian=True)))",
    "max_iterations": "(Q(HILB, max_iterations=1), Q(N3, max_iterations=2), Q(N3, max_iterations=3), "
                      "Q(A3, max_iterations=0), Q(T43, max_iterations=20), Q(A3, max_iterations=2.5))",
    "eps": "(Q(N3, eps=1e-3), Q(T43, eps=1e-5), Q(A3, eps=0.5), Q(ILL4, eps=1e-9))",
    "zeros": "(Q(jnp.zeros((2, 2))), Q(jnp.zeros((3, 2))), Q(jnp.zeros((0, 0))))",
    "dynamic_shape": "(Q(jnp.pad(A3, ((0, 1), (0, 1))), dynamic_shape=(3, 3)), Q(jnp.pad(T43, ((0, 2), (0, 0))), dynamic_shape=(4, 3)), "
                     "Q(R4, dynamic_shape=(3, 2)), "
                     "jax.jit(lambda a, m, n: Q(a, dynamic_shape=(m, n)))(jnp.pad(N3, ((0, 2), (0, 1))), 3, 3))",
    "jit": "(jax.jit(Q)(N3), jax.jit(Q, static_argnames='max_iterations')(HILB, max_iterations=2), "
           "jax.jit(lambda a: Q(a, eps=1e-4)[:2])(T43), jax.jit(lambda a: rq(Q(a)))(CT))",
    "vmap": "(jax.vmap(Q)(jnp.stack([A3, N3, R4[:3, :3], HILB[:3, :3]])), jax.vmap(Q)(jnp.stack([T43, 2 * T43])), "
            "jax.vmap(jax.vmap(Q))(jnp.stack([A3, N3, HILB[1:4, 1:4], 0 * A3]).reshape(2, 2, 3, 3)), "
            "jax.vmap(lambda a: rq(Q(a)))(jnp.stack([C3, C3.T])), "
            "jax.jit(jax.vmap(partial(Q, max_iterations=3)))(jnp.stack([HILB, 2 * HILB.T])))",
    "jvp": "(jax.jvp(Q, (N3,), (A3,)), jax.jvp(lambda a: Q(a)[:2], (T43,), (T43[::-1],)), "
           "jax.jit(lambda a, t: jax.jvp(lambda x: Q(x)[1], (a,), (t,)))(A3, N3), "
           "jax.vmap(lambda a, t: jax.jvp(lambda x: Q(x)[0], (a,), (t,)))(jnp.stack([A3, N3]), jnp.stack([N3, A3])))",
    "jvp:complex": "[ri(x) for x in jax.jvp(lambda a: Q(a)[:2], (C3,), (C3.T,))[1]]",
    "jacfwd": "(jax.jacfwd(lambda a: Q(a)[0])(N3), jax.jacfwd(lambda a: wsum(Q(a)[1]))(T43))",
    "linearize": "jax.linearize(lambda a: Q(a)[0], A3)[1](N3)",
    "x64": "x64(lambda: (Q(R4.astype(np.float64)), Q(HILB.astype(np.float64)), rq(Q(CT.astype(np.complex128))), Q(T43)))",
    "numpy_f64_input": "Q(HILB.astype(np.float64))",
    "reverse_mode": "errs(lambda: jax.grad(lambda a: Q(a)[0].sum())(A3), "
                    "lambda: jax.grad(lambda a: wsum(Q(a)[1]))(T43), "
                    "lambda: jax.jacrev(lambda a: Q(a)[0])(N3), "
                    "lambda: jax.vjp(lambda a: Q(a)[0], A3), "
                    "lambda: jax.grad(lambda a: wsum(Q(a, max_iterations=0)[0]))(A3))",
    "errors": "errs(lambda: Q(jnp.ones(3)), lambda: Q(jnp.ones((2, 3, 3))), lambda: Q(jnp.ones((2, 3))), "
              "lambda: Q(jnp.eye(3, dtype=int)), lambda: Q([[1., 2.], [3., 4.]]), "
              "lambda: Q(A3, is_hermitian=jnp.array(True)), "
              "lambda: jax.jit(lambda m: Q(A3, max_iterations=m))(3), "
              "lambda: jax.jit(lambda e: Q(A3, eps=e))(1e-3), "
              "lambda: Q(A3, 3), lambda: Q(A3, max_iteration=3), "
              "lambda: Q(A3, dynamic_shape=(3,)), "
              "lambda: jax.vmap(Q)(T43))",
    "polar_agrees": "(jax.scipy.linalg.polar(N3), Q(N3)[:2], jax.scipy.linalg.polar(T43.T, 'left'), Q(T43)[:2])",
}

# (rtol, atol): factorizations and iterations may round differently from JAX's
TOLERANCES = {}
ITERATIVE = (2e-4, 2e-5)

# Differences from JAX that are understood; strict, so a fix shows as XPASS.
KNOWN = {}


def _tolerance(case):
    return TOLERANCES.get(case.split(":")[0], ITERATIVE)


@functools.lru_cache(None)
def _expected():
    return recorded.load(NAME)


@pytest.mark.parametrize("case", [pytest.param(n, marks=pytest.mark.xfail(
    reason=KNOWN[n], strict=True)) if n in KNOWN else n for n in sorted(CASES)])
def test_matches_jax(case):
    rtol, atol = _tolerance(case)
    recorded.compare(recorded.run(PRELUDE, CASES[case], "xjit"), _expected()[case],
                     rtol=rtol, atol=atol)


def test_every_case_recorded():
    assert sorted(_expected()) == sorted(CASES)


@pytest.mark.compare
@pytest.mark.parametrize("case", sorted(CASES)[::4])
def test_records_match_live_jax(case):
    rtol, atol = _tolerance(case)
    recorded.compare(recorded.run(PRELUDE, CASES[case], "jax"), _expected()[case],
                     rtol=rtol, atol=atol)
