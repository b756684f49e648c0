"""The polar decomposition ``a = u p``, as ``jax.scipy.linalg.polar``: by
the SVD, or (the default) by QDWH, the QR-based dynamically weighted Halley
iteration of Nakatsukasa, Bai & Gygi (SIAM J. Matrix Anal. Appl. 31, 2010).

QDWH is JAX's own algorithm with no LAPACK kernel; it is run here step for
step as JAX runs it (the same weights, the same QR- and Cholesky-based
updates, the same convergence test and final Newton-Schulz step), so the
factors agree with JAX's to rounding. Its closing Halley steps are a
while_loop, so like JAX's it has a jvp but no reverse-mode derivative."""
from __future__ import annotations

import functools

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src.lax import linalg as lax_linalg
from xjit._src.numpy.vectorize import vectorize
from xjit._src.pjit import jit_named

_MAX_ITERATIONS = 10  # JAX's qdwh default; polar never passes its own


def _ct(x):
    return x.T.conj()


def _weights(eps):
    """The (a, b, c) of each dynamically weighted step, found ahead of time
    from the lower bound l = eps on the scaled input's smallest singular
    value, which each step raises towards 1."""
    lo, tol_l = eps, 5 * eps
    steps = []
    while lo + tol_l < 1 and len(steps) < _MAX_ITERATIONS:
        l2 = lo * lo
        d = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        root = (1.0 + d) ** (1 / 2)
        a = root + (2 - d + 2 * (2 - l2) / (l2 * root)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        lo = lo * (a + b * l2) / (1 + c * l2)
        steps.append((a, b, c))
    return steps


def _qr_step(u, params):
    """u <- e u + (a - e)/sqrt(c) Q1 Q2^H, with [sqrt(c) u; I] = [Q1; Q2] R:
    the inverse-free form, for the early steps whose c is large."""
    scale, root_c, e = params
    m, n = u.shape
    q, _ = lax_linalg.qr(jnp.concatenate([root_c * u, jnp.eye(n, dtype=u.dtype)]),
                         full_matrices=False)
    return e * u + scale * (q[:m] @ _ct(q[m:]))


def _cholesky_step(u, params):
    """u <- e u + (a - e) u (c u^H u + I)^-1, through the Cholesky factor."""
    a_minus_e, c, e = params
    n = u.shape[1]
    y = lax_linalg.cholesky(c * (_ct(u) @ u) + jnp.eye(n, dtype=u.dtype),
                            symmetrize_input=False)
    w = lax_linalg.triangular_solve(y, _ct(u), left_side=True, lower=True)
    w = lax_linalg.triangular_solve(y, w, left_side=True, lower=True, transpose_a=True,
                                    conjugate_a=True)
    return e * u + a_minus_e * _ct(w)


@jit_named("qdwh", static_argnames=("eps",))
def _qdwh(x, eps=None):
    """(u, h) with x = u h, u with orthonormal columns, h Hermitian PSD; x is
    m x n with m >= n."""
    if eps is None:
        eps = float(np.finfo(x.dtype).eps)
    one_norm = jnp.linalg.norm(x, ord=1)
    inf_norm = jnp.linalg.norm(x, ord=np.inf)
    # 1/sqrt(|x|_1 |x|_inf) >= 1/|x|_2 scales every singular value into (0, 1]
    scale = jnp.where(one_norm == 0, 1, lax.rsqrt(one_norm) * lax.rsqrt(inf_norm))
    u = x * scale.astype(x.dtype)
    tol_norm = jnp.cbrt(5 * eps)

    qr_params, chol_params = [], []
    for a, b, c in _weights(eps):
        e = b / c
        if c > 100:  # Cholesky of c u^H u + I would lose too much accuracy
            qr_params.append(((a - e) / c ** (1 / 2), c ** (1 / 2), e))
        else:
            chol_params.append((a - e, c, e))

    def run(u, params, step, converging):
        """The steps with the given weights; with ``converging``, also whether
        the last one still moved u by more than the tolerance."""
        if not params:
            return u, True
        table = jnp.array(params).astype(x.dtype)

        def body(k, carry):
            u_prev, _ = carry
            u = step(u_prev, table[k])
            return u, (jnp.linalg.norm(u - u_prev) > tol_norm) if converging else True
        return lax.fori_loop(0, len(params), body, (u, True))

    u, _ = run(u, qr_params, _qr_step, False)
    u, moving = run(u, chol_params, _cholesky_step, True)

    def halley(state):  # the weights' limit (a, b, c) = (3, 1, 3)
        k, u, _ = state
        u_next = _cholesky_step(u, (3 - 1 / 3, 3, 1 / 3))
        return k + 1, u_next, jnp.linalg.norm(u_next - u) > tol_norm

    _, u, _ = lax.while_loop(lambda s: jnp.logical_and(s[2], s[0] < _MAX_ITERATIONS), halley,
                             (len(qr_params) + len(chol_params), u, moving))
    u = 1.5 * u - 0.5 * u @ (_ct(u) @ u)  # one Newton-Schulz step
    h = _ct(u) @ x
    return u, (h + _ct(h)) / 2


@jit_named("_polar_2d", static_argnames=("side", "method"))
def _polar_2d(a, side, method, eps, max_iterations):
    m, n = a.shape
    if method == "qdwh":
        if m >= n and side == "right":
            return _qdwh(a, eps=eps)
        if m < n and side == "left":
            u, p = _qdwh(_ct(a), eps=eps)
            return _ct(u), _ct(p)
        raise NotImplementedError("method='qdwh' only supports mxn matrices where m < n where "
                                  "side='right' and m >= n side='left', got "
                                  f"{a.shape} with {side=}")
    if method == "svd":
        u, s, vh = lax_linalg.svd(a, full_matrices=False)
        s = s.astype(u.dtype)
        if side == "right":
            return u @ vh, (_ct(vh) * s[None, :]) @ vh
        return u @ vh, (u * s[None, :]) @ _ct(u)
    raise ValueError(f"Unknown polar decomposition method {method}.")


@jit_named("polar", static_argnames=("side", "method"))
def polar(a, side="right", *, method="qdwh", eps=None, max_iterations=None):
    """(u, p) with a = u p (side 'right', p n x n) or a = p u (side 'left',
    p m x m), p positive semidefinite. As in JAX, ``max_iterations`` is not
    used (QDWH stops after at most 10 steps), and a given ``eps`` fails under
    the jit (it is traced, and QDWH needs it static)."""
    a = jnp.asarray(a)
    if a.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ["right", "left"]:
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    return vectorize(functools.partial(_polar_2d, side=side, method=method, eps=eps,
                                       max_iterations=max_iterations), signature=sig)(a)
