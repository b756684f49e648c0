"""``lax.linalg.qdwh``: the polar decomposition ``x = u h`` by the QR-based
dynamically weighted Halley iteration (Nakatsukasa, Bai & Gygi, "Optimizing
Halley's iteration for computing the matrix polar decomposition", SIAM J.
Matrix Anal. Appl. 31, 2010), as JAX 0.10.2 runs it.

QDWH is JAX's own algorithm (it has no LAPACK kernel), so this follows JAX's
schedule step for step: the input is scaled by ``1/sqrt(|x|_1 |x|_inf)``,
the dynamic weights ``(a, b, c)`` are worked out ahead of time in Python
floats from the lower bound ``l = eps`` on the smallest scaled singular
value, the steps whose ``c`` is above 100 use the inverse-free QR form and
the rest the Cholesky form (testing convergence on the last), and plain
Halley steps (the weights' limit ``(3, 1, 3)``) follow in a ``while_loop``
until the iterate stops moving or ``max_iterations`` steps have run; one
Newton-Schulz step refines ``u``. The ``while_loop`` means there is a jvp
but no reverse-mode derivative, as in JAX.

``jax.scipy.linalg.polar`` (method 'qdwh') is built on this function.

Everything here is written with lax operations (this module is in the lax
layer and may not use ``xjit.numpy``).
"""
from __future__ import annotations

import numpy as np

from xjit._src import core
from xjit._src import dtypes
from xjit._src.lax import lax
from xjit._src.lax import linalg as lax_linalg
from xjit._src.lax.control_flow.loops import fori_loop, while_loop
from xjit._src.pjit import jit_named

_DEFAULT_MAX_ITERATIONS = 10
_CHOLESKY_CUTOFF = 100  # above it, c u^H u + I is too ill-conditioned to factor


# -- matrix helpers in lax operations

def _is_complex(x):
    return np.dtype(x.dtype).kind == "c"


def _ct(x):
    """The conjugate transpose."""
    t = lax.transpose(x, (1, 0))
    return lax.conj(t) if _is_complex(x) else t


def _matmul(a, b):
    # JAX runs qdwh under default_matmul_precision('float32'): full precision
    return lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision=lax.Precision.HIGHEST,
                           preferred_element_type=a.dtype)


def _eye(n, dtype):
    return lax.convert_element_type(
        lax.eq(lax.broadcasted_iota(np.int32, (n, n), 0), lax.broadcasted_iota(np.int32, (n, n), 1)),
        dtype)


def _one_norm(x):
    """max_j sum_i |x_ij| (0 for an empty x)."""
    return lax.max(lax.reduce_max(lax.reduce_sum(lax.abs(x), (0,)), (0,)), 0.0)


def _inf_norm(x):
    """max_i sum_j |x_ij| (0 for an empty x)."""
    return lax.max(lax.reduce_max(lax.reduce_sum(lax.abs(x), (1,)), (0,)), 0.0)


def _fro_norm(x):
    sq = lax.real(lax.mul(x, lax.conj(x))) if _is_complex(x) else lax.mul(x, x)
    return lax.sqrt(lax.reduce_sum(sq, (0, 1)))


# -- padded (dynamically shaped) inputs: the true shape is (m, n) <= (M, N);
# m and n are Python ints or traced integer scalars

def _mask(x, dims, alternative=None):
    """``x`` inside its top-left ``dims`` corner, ``alternative`` (default 0,
    else an array of x's shape) outside it."""
    keep = None
    for axis, d in enumerate(dims):
        if d is not None:
            inside = lax.lt(lax.broadcasted_iota(np.int32, x.shape, axis), d)
            keep = inside if keep is None else lax.bitwise_and(keep, inside)
    if keep is None:
        return x
    if alternative is None:
        alternative = lax.full_like(x, 0)
    return lax.select(keep, x, alternative)


def _stack_rows(top, bottom, m):
    """``[top[:m]; bottom]`` padded with zero rows below to top's rows plus
    bottom's."""
    zero = lax.convert_element_type(0, top.dtype)
    padded = lax.pad(top, zero, [(0, bottom.shape[0], 0), (0, 0, 0)])
    return lax.dynamic_update_slice_in_dim(padded, bottom, m, 0)


# -- one weighted Halley step, in its two forms; params = (p, q, e) are
# traced scalars (from the weight tables) or Python floats (plain Halley)

def _qr_step(u, m, n, params):
    """u <- e u + (a - e)/sqrt(c) Q1 Q2^H where [sqrt(c) u; I] = [Q1; Q2] R:
    no inverse, so it is safe for the early steps whose c is large."""
    scale, sqrt_c, e = params
    M, N = u.shape
    stacked = _stack_rows(lax.mul(sqrt_c, u), _eye(N, u.dtype), m)
    q, _ = lax_linalg.qr(stacked, full_matrices=False)
    q1 = _mask(lax.slice(q, (0, 0), (M, N)), (m, n))
    q2 = _mask(lax.dynamic_slice_in_dim(q, m, N, 0), (n, n))
    return lax.add(lax.mul(e, u), lax.mul(scale, _matmul(q1, _ct(q2))))


def _cholesky_step(u, m, n, params):
    """u <- e u + (a - e) u (c u^H u + I)^-1, through the Cholesky factor of
    c u^H u + I (padding rows and columns become the identity's, so the
    factorization still succeeds)."""
    a_minus_e, c, e = params
    N = u.shape[1]
    eye = _eye(N, u.dtype)
    gram = lax.add(lax.mul(c, _matmul(_ct(u), u)), eye)
    gram = _mask(gram, (n, n), eye)
    y = lax_linalg.cholesky(gram, symmetrize_input=False)
    w = lax_linalg.triangular_solve(y, _ct(u), left_side=True, lower=True)  # y w = u^H
    w = lax_linalg.triangular_solve(y, w, left_side=True, lower=True, transpose_a=True,
                                    conjugate_a=True)  # y^H w' = w
    return lax.add(lax.mul(e, u), lax.mul(a_minus_e, _ct(w)))


# -- the weights

def _weights(eps, max_iterations):
    """The (a, b, c) of each dynamically weighted step (at most
    ``max_iterations``), each raising the lower bound l towards 1."""
    lo, tol_l = eps, 10.0 * eps / 2.0
    steps = []
    while lo + tol_l < 1 and len(steps) < max_iterations:
        l2 = lo * lo
        d = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        root = (1.0 + d) ** (1 / 2)
        a = root + (2 - d + 2 * (2 - l2) / (l2 * root)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        lo = lo * (a + b * l2) / (1 + c * l2)
        steps.append((a, b, c))
    return steps


def _qr_params(a, b, c):
    e = b / c
    return ((a - e) / c ** (1 / 2), c ** (1 / 2), e)


def _cholesky_params(a, b, c):
    e = b / c
    return (a - e, c, e)


def _qdwh(x, m, n, max_iterations, eps):
    if eps is None:
        eps = float(dtypes.finfo(x.dtype).eps)
    real_dtype = dtypes.finfo(x.dtype).dtype
    one_norm, inf_norm = _one_norm(x), _inf_norm(x)
    # 1/sqrt(|x|_1 |x|_inf) <= 1/|x|_2: every singular value lands in (0, 1]
    scale = lax.select(lax.eq(one_norm, 0.0), lax.full_like(one_norm, 1),
                       lax.mul(lax.rsqrt(one_norm), lax.rsqrt(inf_norm)))
    u = lax.mul(x, lax.convert_element_type(scale, x.dtype))
    tol_norm = lax.cbrt(lax.full((), 10.0 * eps / 2.0, real_dtype))

    qr_table, chol_table = [], []
    for a, b, c in _weights(eps, max_iterations):
        if c > _CHOLESKY_CUTOFF:
            qr_table.append(_qr_params(a, b, c))
        else:
            chol_table.append(_cholesky_params(a, b, c))

    def moved(u_new, u_old):
        return lax.gt(_fro_norm(lax.sub(u_new, u_old)), tol_norm)

    def table_params(table, k):
        row = lax.dynamic_index_in_dim(table, k, 0, keepdims=False)
        return tuple(lax.reshape(lax.slice(row, (i,), (i + 1,)), ()) for i in range(3))

    if qr_table:
        table = lax.asarray_device(np.asarray(qr_table, x.dtype))
        u = fori_loop(0, len(qr_table),
                      lambda k, u: _qr_step(u, m, n, table_params(table, k)), u)

    not_converged = np.bool_(True)
    if chol_table:
        table = lax.asarray_device(np.asarray(chol_table, x.dtype))

        def chol_body(k, carry):
            u_prev, _ = carry
            u = _cholesky_step(u_prev, m, n, table_params(table, k))
            return u, moved(u, u_prev)
        u, not_converged = fori_loop(0, len(chol_table), chol_body, (u, not_converged))

    # l has converged; if u has not, plain Halley steps until it has
    def halley(state):
        k, u_prev, _ = state
        u = _cholesky_step(u_prev, m, n, _cholesky_params(3, 1, 3))
        return lax.add(k, 1), u, moved(u, u_prev)

    def keep_going(state):
        k, _, not_converged = state
        return lax.bitwise_and(not_converged, lax.lt(k, max_iterations))

    num_iters, u, not_converged = while_loop(
        keep_going, halley, (len(qr_table) + len(chol_table), u, not_converged))

    # one Newton-Schulz step
    u = lax.sub(lax.mul(1.5, u), _matmul(lax.mul(0.5, u), _matmul(_ct(u), u)))
    h = _matmul(_ct(u), x)
    h = lax.div(lax.add(h, _ct(h)), 2.0)
    return u, h, num_iters, lax.bitwise_not(not_converged)


@jit_named("qdwh", static_argnames=("is_hermitian", "max_iterations", "eps"))
def qdwh(x, *, is_hermitian=False, max_iterations=None, eps=None, dynamic_shape=None):
    """QR-based dynamically weighted Halley iteration for the polar
    decomposition of a full-rank M x N matrix ``x`` (M >= N), as JAX's.

    ``is_hermitian`` is accepted and unused (as in JAX); ``eps`` sets the
    convergence tolerance (``|u_k - u_k-1|_F < (5 eps)^(1/3)``) and the
    weights, defaulting to the dtype's epsilon; ``max_iterations`` (default
    10) bounds the steps; ``dynamic_shape=(m, n)`` names the true shape of
    an ``x`` zero-padded to M x N.

    Returns ``(u, h, num_iters, is_converged)``: ``x = u h`` with ``u``'s
    columns orthonormal and ``h`` Hermitian positive semidefinite, the steps
    taken (a weakly typed int32) and whether the iterate converged within
    ``max_iterations``.
    """
    is_hermitian = core.concrete_or_error(
        bool, is_hermitian, "The `is_hermitian` argument must be statically specified to use "
        "`qdwh` within JAX transformations.")
    if max_iterations is None:
        max_iterations = _DEFAULT_MAX_ITERATIONS
    else:
        max_iterations = core.concrete_or_error(
            int, max_iterations, "The `max_iterations` argument must be statically specified to "
            "use `qdwh` within JAX transformations.")

    M, N = x.shape
    if M < N:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    if dynamic_shape is not None:
        m, n = dynamic_shape
        x = _mask(x, (m, n))
    else:
        m, n = M, N
    return _qdwh(x, m, n, max_iterations, eps)
