"""The polar decomposition ``a = u p``, as ``jax.scipy.linalg.polar``: by
the SVD, or (the default) by QDWH, the QR-based dynamically weighted Halley
iteration of Nakatsukasa, Bai & Gygi (SIAM J. Matrix Anal. Appl. 31, 2010),
which is ``lax.linalg.qdwh`` (``xjit._src.lax.qdwh``), run step for step as
JAX runs it. Its closing Halley steps are a while_loop, so like JAX's it has
a jvp but no reverse-mode derivative."""
from __future__ import annotations

import functools

from xjit import numpy as jnp
from xjit._src.lax import linalg as lax_linalg
from xjit._src.lax.qdwh import qdwh as _lax_qdwh
from xjit._src.numpy.vectorize import vectorize
from xjit._src.pjit import jit_named


def _ct(x):
    return x.T.conj()


def _qdwh(x, eps=None):
    """(u, h) of ``lax.linalg.qdwh``, as JAX's polar takes them (its
    iteration count and convergence flag are dropped)."""
    u, h, _, _ = _lax_qdwh(x, is_hermitian=False, eps=eps)
    return u, h


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
