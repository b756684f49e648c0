"""``jax.scipy.linalg.eigh_tridiagonal``: eigenvalues of a Hermitian
tridiagonal matrix by bisection on Sturm-sequence counts (all of them in
parallel, as LAPACK's stebz does one at a time), and eigenvectors by
inverse iteration from random starts (as stein), clusters of close
eigenvalues re-orthogonalized after each step.

The bisection runs in a while_loop, so, as in JAX, it has a jvp but no
reverse-mode derivative. The eigenvectors start from ``random.normal`` on
the given key (``key(42)`` by default), as JAX's, so their signs agree."""
from __future__ import annotations

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit import random
from xjit._src.lax.linalg_general import tridiagonal_solve
from xjit._src.pjit import jit_named

_SUPPORTED = (np.float32, np.float64, np.complex64, np.complex128)


def _sturm_count(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """How many eigenvalues lie below each x: the negative pivots of the LDL^T
    factorization of T - x I, a pivot within ``pivmin`` of zero counted as
    negative and pushed to -pivmin (stebz's guard against overflow)."""
    q = alpha[0] - x
    count = jnp.where(q < 0, 1, 0).astype(np.int32)
    q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

    def step(i, carry):
        q, count = carry
        q = alpha[i] - beta_sq[i - 1] / q - x
        small = q <= pivmin
        return jnp.where(small, jnp.minimum(q, -pivmin), q), jnp.where(small, count + 1, count)

    return lax.fori_loop(1, alpha.shape[0], step, (q, count))[1]


def _orthogonalize_clusters(v, starts, ends, num_clusters):
    """Rows starts[c]:ends[c] of v replaced by an orthonormal basis of their
    span (QR of the block moved to the top), for each of the clusters."""
    k, n = v.shape
    rows = jnp.arange(k)

    def cluster(c, v):
        start, end = starts[c], ends[c]
        at = (start, 0 * start)  # one index dtype (int64 under x64)
        inside = (rows < end - start)[:, None]
        padded = jnp.concatenate([v, jnp.zeros_like(v)])
        block = jnp.where(inside, lax.dynamic_slice(padded, at, (k, n)), 0)
        q, _ = jnp.linalg.qr(block.T)
        basis = jnp.where(inside, q.T, 0)
        placed = lax.dynamic_update_slice(jnp.zeros_like(padded), basis, at)[:k]
        return jnp.where(((rows >= start) & (rows < end))[:, None], placed, v)

    return lax.fori_loop(0, num_clusters, cluster, v)


def _eigenvectors(alpha, beta, w, key):
    """Inverse iteration for the (ascending) eigenvalues w: solve
    (T - w_i I) x = v_i for all i at once, normalize, re-orthogonalize each
    cluster of eigenvalues closer than sqrt(eps) |T|; stop after 5 steps or
    once no norm grows by 10% (stein's rule)."""
    n, k = alpha.shape[0], w.shape[0]
    dt = np.result_type(alpha.dtype, beta.dtype)
    dl = jnp.pad(jnp.conj(beta), (1, 0)).astype(dt)
    du = jnp.pad(beta, (0, 1)).astype(dt)

    gap_tol = np.sqrt(np.finfo(w.dtype).eps) * jnp.maximum(jnp.abs(w[0]), jnp.abs(w[-1]))
    close = w[1:] - w[:-1] < gap_tol
    after_close = jnp.pad(close, (1, 0), constant_values=False)
    before_close = jnp.pad(close, (0, 1), constant_values=False)
    first = ~after_close & before_close
    starts = jnp.nonzero(first, size=k // 2 + 1)[0]
    ends = jnp.nonzero(after_close & ~before_close, size=k // 2 + 1)[0] + 1
    num_clusters = jnp.sum(first)

    v = random.normal(key, (k, n), dtype=np.finfo(dt).dtype).astype(dt)
    v = v / jnp.linalg.norm(v, axis=-1, keepdims=True).astype(dt)
    shifted = (alpha[None, :] - w[:, None]).astype(dt)
    dl, du = jnp.broadcast_to(dl, (k, n)), jnp.broadcast_to(du, (k, n))

    def step(state):
        i, v, norm, _ = state
        x = tridiagonal_solve(dl, shifted, du, v[:, :, None], perturb_singular=True)[..., 0]
        new_norm = jnp.linalg.norm(x, axis=-1, keepdims=True)
        x = _orthogonalize_clusters(x / new_norm.astype(dt), starts, ends, num_clusters)
        return i + 1, x, new_norm[:, 0], norm

    def growing(state):
        i, _, norm, old_norm = state
        return jnp.logical_and(i < 5, jnp.any(norm >= 1.1 * old_norm))

    return lax.while_loop(growing, step, (0, v, jnp.ones(k, w.dtype), jnp.zeros(k, w.dtype)))[1]


@jit_named("eigh_tridiagonal", static_argnames=("eigvals_only", "select", "select_range"))
def eigh_tridiagonal(d, e, *, eigvals_only=False, select="a", select_range=None, tol=None,
                     key=None):
    """Eigenvalues (ascending; with ``select='i'`` those numbered
    select_range[0]..select_range[1]) of the Hermitian tridiagonal matrix
    with diagonal ``d`` and off-diagonal ``e``, and unless ``eigvals_only``
    the eigenvectors as columns."""
    if not eigvals_only and key is None:
        key = random.key(42)
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    if alpha.dtype != beta.dtype:
        raise TypeError("diagonal and off-diagonal values must have same dtype, got "
                        f"{alpha.dtype} and {beta.dtype}")
    if alpha.dtype not in _SUPPORTED or beta.dtype not in _SUPPORTED:
        raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and {beta.dtype}")
    n = alpha.shape[0]
    if n <= 1:
        return jnp.real(alpha) if eigvals_only else (jnp.real(alpha),
                                                     jnp.eye(n, dtype=alpha.dtype))
    if jnp.iscomplexobj(alpha):
        alpha = jnp.real(alpha)
        beta_sq = jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)

    # Gershgorin bounds on the spectrum
    radius = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
    top, bottom = jnp.amax(alpha + radius), jnp.amin(alpha - radius)
    t_norm = jnp.maximum(jnp.abs(bottom), jnp.abs(top))

    finfo = np.finfo(alpha.dtype)
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.amax(beta_sq))
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)
    max_it = finfo.nmant + 1  # enough halvings to resolve every mantissa bit

    if select == "a":
        targets = jnp.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        targets = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")

    # bisect every wanted eigenvalue at once from a slightly widened
    # Gershgorin interval: eigenvalue t lies where the count passes t
    fudge = 2.1
    slack = jnp.array(n, alpha.dtype) * fudge * finfo.eps * t_norm
    shape = targets.shape
    lower = jnp.broadcast_to(bottom - slack - 2 * fudge * pivmin, shape)
    upper = jnp.broadcast_to(top + slack + fudge * pivmin, shape)
    pivmin = jnp.broadcast_to(pivmin, shape)
    alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

    def unresolved(state):
        i, lower, _, upper = state
        return jnp.logical_and(i < max_it, abs_tol < jnp.amax(upper - lower))

    def halve(state):
        i, lower, mid, upper = state
        below = _sturm_count(alpha, beta_sq, pivmin, alpha0_perturbation, mid) <= targets
        lower, upper = jnp.where(below, mid, lower), jnp.where(below, upper, mid)
        return i + 1, lower, 0.5 * (lower + upper), upper

    _, _, w, _ = lax.while_loop(unresolved, halve, (0, lower, 0.5 * (upper + lower), upper))
    if eigvals_only:
        return w
    return w, _eigenvectors(alpha, beta, w, key).T
