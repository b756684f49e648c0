"""``jax.scipy.linalg.qr_multiply``: the QR decomposition of ``a`` with Q
applied to ``c`` straight from its Householder reflectors (LAPACK ormqr),
never forming Q."""
from __future__ import annotations

import numpy as np

from xjit import numpy as jnp
from xjit._src.lax import linalg as lax_linalg
from xjit._src.lax.linalg_general import geqrf, ormqr
from xjit._src.numpy.util import promote_dtypes_inexact


def _pivoted_geqrf(a):
    """Column-pivoted packed QR (what LAPACK geqp3 returns): the pivots of
    the pivoted QR, then the packed QR of the permuted columns, which is the
    factorization geqp3 computes."""
    _, _, p = lax_linalg.qr(a, pivoting=True, full_matrices=False)
    r, taus = geqrf(jnp.take_along_axis(a, p[..., None, :], axis=-1))
    return r, taus, p


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """(Q @ c, R) for ``mode='left'`` (c has min(M, N) rows) or (c @ Q, R) for
    ``mode='right'`` (c has M columns; the product keeps min(M, N) of them),
    conj(Q) in place of Q when ``conjugate``; with ``pivoting`` the column
    permutation comes third. A 1-D c is a column (left) or a row (right)
    and the product is 1-D."""
    a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    vector = c.ndim == 1
    if vector:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError("Array shapes are not compatible for Q @ c operation: a has shape "
                         f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} "
                         f"rows (expected {k}).")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError("Array shapes are not compatible for c @ Q operation: a has shape "
                         f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} "
                         f"columns (expected {m}).")
    batch = np.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    c = jnp.broadcast_to(c, batch + c.shape[-2:])

    if pivoting:
        r, taus, p = _pivoted_geqrf(a)
    else:
        r, taus = geqrf(a)
    if mode == "left" and m > n:  # Q is m x m: c's missing rows meet Q's extra columns
        c = jnp.concatenate([c, jnp.zeros(c.shape[:-2] + (m - k, c.shape[-1]), c.dtype)],
                            axis=-2)
    if conjugate:
        # conj(Q) c = (c^T Q^H)^T and c conj(Q) = (Q^H c^T)^T: transposing c
        # swaps the side Q acts on and asks ormqr for Q^H, with no conj op
        c = jnp.swapaxes(ormqr(r, taus, jnp.swapaxes(c, -1, -2), left=mode == "right",
                               transpose=True), -1, -2)
    else:
        c = ormqr(r, taus, c, left=mode == "left")
    if mode == "right":
        c = c[..., :k]
    if vector:
        c = c.ravel()
    r = jnp.triu(r[..., :k, :])
    return (c, r, p) if pivoting else (c, r)
