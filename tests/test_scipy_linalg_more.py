"""The rest of ``jax.scipy.linalg`` against what JAX 0.10.2 returned or raised
(``scipy_linalg_more.json``, written by ``scripts/record_scipy_linalg_more.py``):
the structured-matrix constructors (hankel ... dft), the matrix functions
(sqrtm, funm, rsf2csf, expm_frechet, polar), solve_sylvester,
eigh_tridiagonal and qr_multiply. Values and dtypes (float32 by default,
complex where JAX takes it, float64 under x64), under jit and vmap, the
derivatives JAX has (in several composition orders) and the errors it
raises for the ones it lacks and for bad input.

Complex results are recorded as (real, imag). The constructors are exact
up to float32 rounding; the iterative and factorization-based functions
are compared with float32 tolerances (their summation orders may differ).
"""
import functools

import pytest

import recorded

NAME = "scipy_linalg_more"

PRELUDE = '''
L = jax.scipy.linalg
A3 = np.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]], np.float32)    # SPD
N3 = np.array([[1., 2., 3.], [5., 4., 2.], [3., 2., 1.]], np.float32)        # a negative eigenvalue
R4 = np.array([[0., 3., 3., 1.], [0., 1., 2., -1.], [2., 0., 1., 0.5], [1., -1., 0., 2.]],
              np.float32)                                                   # complex pairs
C3 = (A3 + 1j * np.array([[0., 1., -0.5], [0.3, 0., 1.], [-1., 0.2, 0.]])).astype(np.complex64)
T43 = np.array([[2., 1., 0.], [0.5, 3., 1.], [1., 0., 4.], [0.2, 0.1, 0.3]], np.float32)
W = np.linspace(-1., 2., 64).astype(np.float32)

def ri(z):
    """Complex results as (real, imag): the records keep real values only."""
    return jnp.real(z), jnp.imag(z)

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
    """A weighted sum, so every entry's derivative shows."""
    x = jnp.real(x)
    return (x * W[:x.size].reshape(x.shape)).sum()
'''

CASES = {
    # -- constructors from a vector
    "hankel": "(L.hankel(jnp.array([1, 2, 3])), L.hankel(jnp.array([1., 2., 3.]), "
              "jnp.array([9., 4., 5., 6.])), L.hankel(jnp.arange(6.).reshape(2, 3), jnp.arange(4.)), "
              "L.hankel(jnp.array([1., np.inf, 2.]), jnp.array([3., 4.])), "
              "L.hankel(jnp.zeros((0,)), jnp.ones(3)), L.hankel(jnp.array([1, 2]), jnp.array([1., 2.])), "
              "L.hankel(jnp.array([1., 2.]), jnp.array([5.])))",
    "hankel:grad": "jax.jit(jax.grad(lambda c, r: wsum(L.hankel(c, r)), (0, 1)))("
                   "jnp.array([1., 2., 3.]), jnp.array([0., 4., 5., 6.]))",
    "hankel:jac": "(jax.jacrev(L.hankel)(jnp.array([1., 2.]), jnp.array([0., 3., 4.])), "
                  "jax.jacfwd(L.fiedler_companion)(jnp.array([2., 1., 3., 4.])), "
                  "jax.hessian(lambda a: wsum(L.companion(a) ** 2))(jnp.array([2., 1., 3.])))",
    "hankel:errors": "errs(lambda: L.hankel([1, 2]), lambda: L.hankel(jnp.float32(1)), "
                     "lambda: L.hankel(jnp.ones(2), jnp.float32(1)), "
                     "lambda: L.hankel(jnp.ones(2), [1., 2.]))",
    "circulant": "(L.circulant(jnp.array([1, 2, 3])), L.circulant(jnp.array([[1., 2., 3.], [4., 5., 6.]])), "
                 "L.circulant(jnp.array([1., np.nan, 2.])), L.circulant(jnp.float32(2.)), L.circulant(2.), "
                 "ri(L.circulant(jnp.array([1j, 2.]))))",
    "circulant:grad": "(jax.grad(lambda c: wsum(L.circulant(c)))(jnp.array([1., 2., 3.])), "
                      "jax.vmap(jax.grad(lambda c: wsum(L.circulant(c))))(jnp.ones((2, 3))))",
    "circulant:errors": "err(lambda: L.circulant([1, 2]))",
    "leslie": "(L.leslie(jnp.array([0.1, 2., 1., 0.1]), jnp.array([0.2, 0.8, 0.7])), "
              "L.leslie(jnp.array([1, 2]), jnp.array([0.5])), "
              "L.leslie(jnp.array([[1., 2., 3.], [4., 5., 6.]]), jnp.array([0.5, 0.25])), "
              "L.leslie(jnp.array([1, 2, 3]), jnp.array([4, 5])), L.leslie(jnp.array([1, 2]), 0.5))",
    "leslie:grad": "jax.jit(jax.grad(lambda f, s: wsum(L.leslie(f, s)), (0, 1)))("
                   "jnp.array([1., 2., 3.]), jnp.array([0.5, 0.25]))",
    "leslie:errors": "errs(lambda: L.leslie(jnp.ones(1), jnp.ones(0)), "
                     "lambda: L.leslie(jnp.ones(3), jnp.ones(3)), lambda: L.leslie([1., 2.], [1.]))",
    "companion": "(L.companion(jnp.array([1, -10, 31, -30])), "
                 "L.companion(jnp.array([[2., 4., 6.], [1., 0., -1.]])), L.companion(jnp.array([3., 6.])), "
                 "L.companion(jnp.array([0., 1., 2.])), ri(L.companion(jnp.array([1j, 2., 1.]))))",
    "companion:grad": "jax.vmap(jax.grad(lambda a: wsum(L.companion(a))))(jnp.array([[2., 4., 6.], "
                      "[1., 3., -1.]]))",
    "companion:errors": "errs(lambda: L.companion(jnp.ones(1)), "
                        "lambda: L.companion(jnp.float32(1.)), lambda: L.companion([1., 2.]))",
    "fiedler": "(L.fiedler(jnp.array([1, 4, 12, 45, 77])), L.fiedler(jnp.array([[1., -2.], [3., 0.5]])), "
               "L.fiedler(jnp.float32(3.)), L.fiedler(jnp.array([1., np.inf])), "
               "L.fiedler(jnp.array([1, 5, 2], jnp.uint8)), L.fiedler(2.), L.fiedler_companion(2.), "
               "L.fiedler_companion(jnp.array([2, 1])))",
    "fiedler:grad": "jax.grad(lambda a: wsum(L.fiedler(a)))(jnp.array([1., 4., -2.]))",
    "fiedler:errors": "errs(lambda: L.fiedler([1, 2]), lambda: L.fiedler(jnp.array([True, False])))",
    "fiedler_companion": "[L.fiedler_companion(jnp.arange(1., k + 1.) * (-1.) ** jnp.arange(k)) "
                         "for k in range(1, 8)] + [L.fiedler_companion(jnp.array([1, -16, 86, -176, 105])), "
                         "L.fiedler_companion(jnp.array([[2., 1., 3., 4.], [1., 0., 2., -1.]])), "
                         "L.fiedler_companion(jnp.float32(2.))]",
    "fiedler_companion:grad": "jax.jit(jax.grad(lambda a: wsum(L.fiedler_companion(a))))("
                              "jnp.array([2., 1., 3., 4., 5.]))",
    "fiedler_companion:errors": "errs(lambda: L.fiedler_companion(jnp.ones(0)), "
                                "lambda: L.fiedler_companion([1., 2.]))",
    "convolution_matrix": "[L.convolution_matrix(a, n, mode) for mode in ('full', 'same', 'valid') "
                          "for a, n in ((jnp.array([-1, 4, -2]), 5), (jnp.arange(1., 6.), 3), "
                          "(jnp.arange(1., 5.), 4), (jnp.array([2.]), 3), (jnp.arange(1., 7.), 1))] + "
                          "[L.convolution_matrix(jnp.arange(6.).reshape(2, 3), 4, 'same'), "
                          "jax.jit(L.convolution_matrix, static_argnums=(1, 2))(jnp.arange(1., 4.), 4, 'valid')]",
    "convolution_matrix:grad": "jax.grad(lambda a: wsum(L.convolution_matrix(a, 3, 'same')))("
                               "jnp.array([1., 2., 3., 4.]))",
    "convolution_matrix:errors": "errs(lambda: L.convolution_matrix(jnp.ones(3), 0), "
                                 "lambda: L.convolution_matrix(jnp.ones(3), 2.5), "
                                 "lambda: L.convolution_matrix(jnp.float32(1.), 2), "
                                 "lambda: L.convolution_matrix(jnp.ones(0), 2), "
                                 "lambda: L.convolution_matrix(jnp.ones(3), 2, 'wide'), "
                                 "lambda: L.convolution_matrix([1., 2.], 2))",
    # -- constructors from an order
    "hilbert": "[L.hilbert(n) for n in (0, 1, 3, 5)]",
    "hilbert:x64": "x64(lambda: L.hilbert(4))",
    "invhilbert": "[L.invhilbert(n) for n in (1, 2, 4, 7)]",
    "invhilbert:x64": "x64(lambda: L.invhilbert(9))",
    "pascal": "[L.pascal(6, kind) for kind in (None, 'lower', 'upper', 'symmetric')] + [L.pascal(1)]",
    "pascal:x64": "x64(lambda: L.pascal(5))",
    "invpascal": "[L.invpascal(6, kind) for kind in (None, 'lower', 'upper')] + [L.invpascal(2)]",
    "invpascal:x64": "x64(lambda: L.invpascal(7))",
    "pascal:errors": "errs(lambda: L.pascal(3, 'diag'), lambda: L.invpascal(3, 'diag'))",
    "helmert": "[L.helmert(n, full) for n in (1, 2, 5) for full in (False, True)]",
    "helmert:x64": "x64(lambda: L.helmert(4, full=True))",
    "helmert:errors": "err(lambda: L.helmert(0))",
    "hadamard": "[L.hadamard(1), L.hadamard(8), L.hadamard(4, jnp.float32), "
                "ri(L.hadamard(2, dtype=jnp.complex64)), L.hadamard(2, jnp.uint8)]",
    "hadamard:x64": "x64(lambda: L.hadamard(4))",
    "hadamard:errors": "errs(*[partial(L.hadamard, n) for n in (0, 6, -4)])",
    "dft": "[ri(L.dft(n)) for n in (1, 4, 5)] + [ri(L.dft(4, 'sqrtn')), ri(L.dft(3, scale='n')), "
           "ri(L.dft(2, dtype=jnp.complex64))]",
    "dft:x64": "x64(lambda: (ri(L.dft(6)), ri(L.dft(3, dtype=jnp.complex64))))",
    "dft:errors": "errs(lambda: L.dft(4, dtype=jnp.float32), lambda: L.dft(4, dtype=int), "
                  "lambda: L.dft(4, 'ortho'))",
    # -- matrix functions
    "sqrtm": "(ri(L.sqrtm(A3)), ri(L.sqrtm(N3)), ri(L.sqrtm(R4)), ri(L.sqrtm(C3)), "
             "ri(L.sqrtm(jnp.array([[4, 0], [1, 9]]))), ri(L.sqrtm(jnp.array([[0., 0.], [0., 4.]]))))",
    "sqrtm:jit_vmap": "ri(jax.jit(jax.vmap(L.sqrtm))(jnp.stack([A3, N3])))",
    "sqrtm:x64": "x64(lambda: ri(L.sqrtm(R4.astype(np.float64))))",
    "sqrtm:errors": "errs(lambda: L.sqrtm(A3, blocksize=2), lambda: L.sqrtm(jnp.ones(3)), "
                    "lambda: L.sqrtm(jnp.stack([A3, A3])), "
                    "lambda: jax.grad(lambda a: L.sqrtm(a).real.sum())(A3))",
    "funm": "(ri(L.funm(A3, jnp.exp)), ri(L.funm(N3, lambda x: jnp.sin(x) + 2 * jnp.cos(x))), "
            "ri(L.funm(R4, jnp.exp)), ri(L.funm(C3, jnp.sqrt)), ri(L.funm(jnp.eye(1), jnp.exp)), "
            "ri(jax.jit(L.funm, static_argnums=1)(R4, jnp.sin)))",
    "funm:disp": "[(ri(f), e) for f, e in (L.funm(R4, jnp.exp, disp=False), "
                 "L.funm(jnp.array([[1., 5.], [0., 1.]]), jnp.exp, False))]",
    "funm:errors": "errs(lambda: L.funm(jnp.ones((2, 3)), jnp.exp), "
                   "lambda: L.funm(jnp.ones(3), jnp.exp), lambda: L.funm(jnp.eye(2, dtype=int), jnp.exp), "
                   "lambda: jax.grad(lambda a: L.funm(a, jnp.exp).real.sum())(A3))",
    "rsf2csf": "[(ri(t), ri(z)) for t, z in (L.rsf2csf(*L.schur(R4)), L.rsf2csf(*L.schur(N3)), "
               "L.rsf2csf(jnp.array([[2.]]), jnp.array([[1.]])), "
               "jax.jit(L.rsf2csf)(*L.schur(jnp.stack([R4, R4.T]))), "
               "L.rsf2csf(*L.schur(C3, output='complex')))]",
    "rsf2csf:grad": "(jax.grad(lambda t, z: wsum(L.rsf2csf(t, z)[0]) + wsum(L.rsf2csf(t, z)[1].imag), (0, 1))("
                    "*L.schur(R4)), jax.jit(jax.grad(lambda t: wsum(L.rsf2csf(t, jnp.eye(4))[1])))("
                    "L.schur(R4)[0]))",
    "rsf2csf:x64": "x64(lambda: [ri(x) for x in L.rsf2csf(*L.schur(R4.astype(np.float64)))])",
    "rsf2csf:errors": "errs(lambda: L.rsf2csf(jnp.ones((2, 3)), jnp.eye(2)), "
                      "lambda: L.rsf2csf(jnp.eye(2), jnp.ones(2)), "
                      "lambda: L.rsf2csf(jnp.eye(2), jnp.eye(3)))",
    "expm_frechet": "(L.expm_frechet(A3, N3 / 4), L.expm_frechet(R4 / 3, R4.T, compute_expm=False), "
                    "L.expm_frechet(jnp.stack([A3, N3 / 5]), jnp.stack([N3, A3])), "
                    "[ri(x) for x in L.expm_frechet(C3 / 2, C3.T)], "
                    "L.expm_frechet(10 * A3, jnp.eye(3), method='SPS'))",
    "expm_frechet:grad": "(jax.grad(lambda a, e: wsum(L.expm_frechet(a, e)[1]), (0, 1))(A3 / 3, N3 / 3), "
                         "jax.jit(jax.grad(lambda a: wsum(L.expm_frechet(a, N3, compute_expm=False))))(A3 / 4), "
                         "jax.vmap(jax.grad(lambda a: wsum(L.expm_frechet(a, A3)[0])))(jnp.stack([A3, N3]) / 5), "
                         "jax.grad(lambda a: wsum(jax.vmap(L.expm_frechet)(a, a)[1]))(jnp.stack([A3, N3]) / 5))",
    "expm_frechet:jacfwd": "jax.jacfwd(lambda a: L.expm_frechet(a, N3 / 3)[1])(A3 / 4)",
    "expm_frechet:x64": "x64(lambda: L.expm_frechet(A3.astype(np.float64), N3.astype(np.float64)))",
    "expm_frechet:errors": "errs(lambda: L.expm_frechet(jnp.ones((2, 3)), jnp.ones((2, 3))), "
                           "lambda: L.expm_frechet(A3, jnp.ones((3, 2))), lambda: L.expm_frechet(A3, jnp.eye(2)), "
                           "lambda: L.expm_frechet(jnp.eye(3, dtype=int), jnp.eye(3, dtype=int)), "
                           "lambda: L.expm_frechet(jnp.ones(3), jnp.ones(3)), "
                           "lambda: L.expm_frechet(jnp.ones((2, 3, 2, 2)), jnp.ones((2, 3, 2, 2))))",
    "polar:qdwh": "[L.polar(N3), L.polar(A3), L.polar(T43), L.polar(T43.T, side='left'), "
                  "L.polar(jnp.stack([N3, A3, R4[:3, :3]])), L.polar(100 * R4), L.polar(jnp.eye(2)), "
                  "jax.jit(L.polar)(R4), L.polar(jnp.zeros((2, 2))), "
                  "L.polar(N3, max_iterations=1)]",
    "polar:complex": "[ri(x) for x in L.polar(C3) + L.polar(C3[:2].T) + L.polar(C3[:2], 'left')]",
    "polar:svd": "[L.polar(a, side, method='svd') for a in (N3, T43, T43.T) for side in ('right', 'left')] "
                 "+ [[ri(x) for x in L.polar(C3, 'left', method='svd')]]",
    "polar:x64": "x64(lambda: (L.polar(R4.astype(np.float64)), L.polar(T43.astype(np.float64), method='svd')))",
    "polar:jvp": "(jax.jvp(L.polar, (N3,), (A3,)), jax.jit(lambda a, t: jax.jvp(lambda x: L.polar(x)[1], "
                 "(a,), (t,)))(T43, T43[::-1]))",
    "polar:grad_svd": "(jax.grad(lambda a: wsum(L.polar(a, method='svd')[0]) + wsum(L.polar(a, method='svd')[1]))(N3), "
                      "jax.jit(jax.grad(lambda a: wsum(L.polar(a, 'left', method='svd')[1])))(T43.T), "
                      "jax.vmap(jax.grad(lambda a: wsum(L.polar(a, method='svd')[0])))(jnp.stack([N3, A3])))",
    "polar:errors": "errs(lambda: L.polar(jnp.ones(3)), lambda: L.polar(A3, side='up'), "
                    "lambda: L.polar(A3, method='newton'), lambda: L.polar(A3, side='left'), "
                    "lambda: L.polar(T43.T), lambda: L.polar(jnp.eye(2, dtype=int)), "
                    "lambda: L.polar(A3, eps=1e-6), "
                    "lambda: jax.grad(lambda a: L.polar(a)[0].sum())(A3))",
    "solve_sylvester": "(L.solve_sylvester(A3, N3, jnp.ones((3, 3))), "
                       "L.solve_sylvester(R4, A3, jnp.arange(12.).reshape(4, 3)), "
                       "L.solve_sylvester(A3, N3, T43[:3], method='eigen'), "
                       "L.solve_sylvester(jnp.array([[1, 2], [3, 4]]), jnp.array([[5, 6], [7, 8]]), "
                       "jnp.array([[6, 8], [10, 12]])), "
                       "ri(L.solve_sylvester(C3, C3.T, jnp.eye(3, dtype=np.complex64))), "
                       "ri(L.solve_sylvester(C3, A3, N3, method='eigen')), "
                       "L.solve_sylvester(jnp.stack([A3, N3]), A3[:2, :2], jnp.ones((3, 2))), "
                       "jax.jit(L.solve_sylvester)(A3, -A3, jnp.ones((3, 3))), "
                       "L.solve_sylvester(A3, -A3 + 0.01, jnp.ones((3, 3)), tol=0.5), "
                       "jax.vmap(L.solve_sylvester, (0, None, 0))(jnp.stack([A3, R4[:3, :3]]), N3, jnp.stack([N3, A3])))",
    "solve_sylvester:x64": "x64(lambda: L.solve_sylvester(R4.astype(np.float64), A3.astype(np.float64), "
                           "jnp.ones((4, 3))))",
    "solve_sylvester:errors": "errs(lambda: L.solve_sylvester(A3, A3, jnp.ones((3, 2))), "
                              "lambda: L.solve_sylvester(A3, N3, N3, method='qz'), "
                              "lambda: L.solve_sylvester(A3, N3, jnp.ones(3)), "
                              "lambda: jax.grad(lambda a: L.solve_sylvester(a, N3, A3).sum())(A3), "
                              "lambda: jax.grad(lambda a: L.solve_sylvester(a, N3, A3, method='eigen').sum())(A3))",
    "eigh_tridiagonal": "(L.eigh_tridiagonal(jnp.array([1., 2., 3., 4.]), jnp.ones(3), eigvals_only=True), "
                        "L.eigh_tridiagonal(jnp.array([1., 2., 3., 4.]), jnp.ones(3)), "
                        "L.eigh_tridiagonal(jnp.arange(6.), jnp.array([0.5, -1., 2., 0.1, 1.]), "
                        "select='i', select_range=(1, 3)), "
                        "L.eigh_tridiagonal(jnp.arange(5.), jnp.full(4, 0.3), eigvals_only=True, tol=1e-2), "
                        "L.eigh_tridiagonal(jnp.array([2.]), jnp.zeros(0)), "
                        "L.eigh_tridiagonal(jnp.array([2.]), jnp.zeros(0), eigvals_only=True), "
                        "L.eigh_tridiagonal(jnp.array([1., -3., 2.]), jnp.array([2., 1.]), "
                        "key=jax.random.key(7)), "
                        "jax.jit(lambda d, e: L.eigh_tridiagonal(d, e, eigvals_only=True))("
                        "jnp.linspace(-1., 1., 8), jnp.linspace(0., 1., 7)))",
    "eigh_tridiagonal:clusters": "L.eigh_tridiagonal(jnp.array([1., 1., 1., 5., 9.]), "
                                 "jnp.array([0., 0., 1e-3, 0.]))",
    "eigh_tridiagonal:complex": "(L.eigh_tridiagonal(jnp.array([1., 2., 3.], jnp.complex64), "
                                "jnp.array([1j, 1. - 1j], jnp.complex64), eigvals_only=True), "
                                "[ri(x) for x in L.eigh_tridiagonal(jnp.array([1., 2., 3.], jnp.complex64), "
                                "jnp.array([1j, 1. - 1j], jnp.complex64))])",
    "eigh_tridiagonal:x64": "x64(lambda: L.eigh_tridiagonal(jnp.arange(5.), jnp.full(4, 0.5)))",
    "eigh_tridiagonal:errors": "errs(lambda: L.eigh_tridiagonal(jnp.ones(3), jnp.ones(2, int)), "
                               "lambda: L.eigh_tridiagonal(jnp.ones(3, int), jnp.ones(2, int)), "
                               "lambda: L.eigh_tridiagonal(jnp.ones(3), jnp.ones(2), select='v'), "
                               "lambda: L.eigh_tridiagonal(jnp.ones(3), jnp.ones(2), select='x'), "
                               "lambda: L.eigh_tridiagonal(jnp.ones(3), jnp.ones(2), select='i'), "
                               "lambda: L.eigh_tridiagonal(jnp.ones(3), jnp.ones(2), select='i', "
                               "select_range=(2, 1)), "
                               "lambda: jax.grad(lambda d: L.eigh_tridiagonal(d, jnp.ones(2), "
                               "eigvals_only=True).sum())(jnp.arange(3.)))",
    "tridiagonal_solve:perturbed": "lax.linalg.tridiagonal_solve(jnp.array([[0., 1., 1.], [0., 2., 0.]]), "
                                   "jnp.array([[1., 1., 1.], [1e-30, 0., 3.]]), jnp.array([[1., 1., 0.], [0., 0., 0.]]), "
                                   "jnp.ones((2, 3, 2)), perturb_singular=True)",
    "qr_multiply": "[L.qr_multiply(a, c, mode) for a, c, mode in ((N3, A3, 'right'), (N3, A3, 'left'), "
                   "(T43, jnp.ones((2, 4)), 'right'), (T43, jnp.arange(6.).reshape(3, 2), 'left'), "
                   "(T43.T, jnp.ones((5, 3)), 'right'), (T43.T, jnp.ones((3, 2)), 'left'), "
                   "(T43, jnp.arange(4.), 'right'), (T43, jnp.arange(3.), 'left'), "
                   "(jnp.stack([N3, A3]), jnp.ones((2, 3)), 'right'), "
                   "(jnp.array([[1, 2], [3, 4]]), jnp.eye(2, dtype=int), 'left'))]",
    "qr_multiply:pivoting": "[L.qr_multiply(a, c, mode, pivoting=True) for a, c, mode in ("
                            "(N3, A3, 'right'), (T43, jnp.arange(6.).reshape(3, 2), 'left'), "
                            "(T43.T, jnp.ones((2, 3)), 'right'))]",
    "qr_multiply:complex": "[[ri(x) for x in L.qr_multiply(a, c, mode, conjugate=conj)] for a, c, mode, conj in ("
                           "(C3, A3, 'right', False), (C3, A3, 'left', True), (C3, C3, 'right', True), "
                           "(C3[:, :2], C3[:2], 'left', True), (C3[:2], C3[1, :2], 'right', True), "
                           "(N3, A3, 'left', True))]",
    "qr_multiply:jit": "jax.jit(L.qr_multiply, static_argnames=('mode', 'pivoting', 'conjugate'))("
                       "T43, jnp.ones((1, 4)), mode='right', conjugate=True)",
    "qr_multiply:errors": "errs(lambda: L.qr_multiply(N3, A3, 'both'), "
                          "lambda: L.qr_multiply(T43, jnp.ones((4, 2)), 'left'), "
                          "lambda: L.qr_multiply(T43, jnp.ones((2, 3)), 'right'), "
                          "lambda: L.qr_multiply(jnp.ones(3), jnp.ones(3)), "
                          "lambda: jax.grad(lambda a: L.qr_multiply(a, A3)[0].sum())(N3))",
}

# (rtol, atol) per case family: the constructors are exact up to rounding;
# factorizations and iterations may round differently from JAX's in float32
EXACT = (1e-6, 1e-6)
ITERATIVE = (2e-4, 2e-5)
TOLERANCES = {"hankel": EXACT, "circulant": EXACT, "leslie": EXACT, "companion": EXACT,
              "fiedler": EXACT, "fiedler_companion": EXACT, "convolution_matrix": EXACT,
              "hilbert": EXACT, "helmert": EXACT, "hadamard": EXACT, "pascal": (1e-5, 1e-5),
              "invpascal": (1e-5, 1e-5), "invhilbert": (1e-5, 1e-5), "dft": (1e-5, 1e-6)}

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
@pytest.mark.parametrize("case", sorted(CASES)[::6])
def test_records_match_live_jax(case):
    rtol, atol = _tolerance(case)
    recorded.compare(recorded.run(PRELUDE, CASES[case], "jax"), _expected()[case],
                     rtol=rtol, atol=atol)


def test_schur_complex_of_int_input_is_complex64():
    """Recorded from JAX 0.10.2: an int64 NumPy input's complex Schur form is
    complex64 without x64, and no truncation warning."""
    import warnings

    import numpy as np

    from xjit.scipy.linalg import schur
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t, z = schur(np.array([[1, 2], [3, 4]]), output="complex")
    assert t.dtype == z.dtype == np.complex64
