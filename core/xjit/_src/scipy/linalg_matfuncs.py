"""Functions of a matrix through its Schur form, as ``jax.scipy.linalg``:
``sqrtm`` (Bjorck-Hammarling recurrence), ``funm`` (Parlett's recurrence),
``rsf2csf`` (real to complex Schur form), and ``expm_frechet`` (the
directional derivative of ``expm``, by forward-mode differentiation).

Schur has no differentiation rule, in JAX as here, so sqrtm and funm are
not differentiable; rsf2csf and expm_frechet are."""
from __future__ import annotations

import functools

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import dtypes
from xjit._src.ad_api import jvp
from xjit._src.numpy.util import promote_dtypes_inexact
from xjit._src.numpy.vectorize import vectorize
from xjit._src.pjit import jit_named
from xjit._src.scipy.linalg import schur
from xjit._src.scipy.linalg_expm import expm


def _matmul(a, b):
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _between(n, lo, hi):
    """The mask lo < k < hi over k in range(n)."""
    k = jnp.arange(n)
    return (k > lo) & (k < hi)


@jit_named("_sqrtm_triu")
def _sqrtm_triu(t):
    """The upper-triangular square root U of the upper-triangular T (Bjorck &
    Hammarling 1983): sqrt of the diagonal, then each column j from the
    diagonal up, U[i, j] = (T[i, j] - sum_{i<k<j} U[i, k] U[k, j]) / (U[i, i] + U[j, j])."""
    d = jnp.sqrt(jnp.diag(t))
    n = d.size

    def column(j, u):
        def entry(step, u):
            i = j - 1 - step
            inner = _between(n, i, j)
            s = jnp.sum(jnp.where(inner, u[i, :] * u[:, j], 0))
            # T[i, j] == s covers 0/0 when two zero eigenvalues meet
            return u.at[i, j].set(jnp.where(t[i, j] == s, 0, (t[i, j] - s) / (d[i] + d[j])))
        return lax.fori_loop(0, j, entry, u)

    return lax.fori_loop(0, n, column, jnp.diag(d))


@jit_named("_sqrtm")
def _sqrtm(a):
    t, z = schur(a, output="complex")
    return _matmul(_matmul(z, _sqrtm_triu(t)), jnp.conj(z.T))


def sqrtm(A, blocksize=1):
    """The principal square root of the square matrix ``A``, complex-valued,
    from its complex Schur form (unblocked only, as JAX)."""
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    return _sqrtm(A)


def _rsf2csf_2d(t, z):
    t, z = [x.astype(dtypes.to_complex_dtype(x.dtype)) for x in promote_dtypes_inexact(t, z)]
    n = t.shape[0]
    if n == 1:
        return t, z
    eps = np.finfo(t.dtype).eps
    k = jnp.arange(n)

    def rotate(m, t, z):
        """Zero T[m, m-1] by the Givens rotation that moves an eigenvalue of
        the 2x2 block at (m-1, m-1) to the top, applied on both sides."""
        mu = jnp.linalg.eigvals(lax.dynamic_slice(t, (m - 1, m - 1), (2, 2))) - t[m, m]
        r = jnp.linalg.norm(jnp.stack([mu[0], t[m, m - 1]])).astype(t.dtype)
        c, s = mu[0] / r, t[m, m - 1] / r
        g = jnp.stack([jnp.stack([c.conj(), s]), jnp.stack([-s, c])])
        gh = g.conj().T
        rows = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=0)
        rows = jnp.where(k >= m - 1, g @ rows, rows)  # columns are rotated independently
        t = lax.dynamic_update_slice_in_dim(t, rows, m - 1, axis=0)
        above = (k <= m)[:, None]
        cols = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=1)
        cols = jnp.where(above, cols @ gh, cols)
        t = lax.dynamic_update_slice_in_dim(t, cols, m - 1, axis=1)
        zc = lax.dynamic_slice_in_dim(z, m - 1, 2, axis=1)
        return t, lax.dynamic_update_slice_in_dim(z, zc @ gh, m - 1, axis=1)

    def step(i, tz):
        t, z = tz
        m = (n - i).astype(np.int32)  # the slices' other index is a Python 0: one dtype under x64
        sub = jnp.abs(t[m, m - 1]) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
        t, z = lax.cond(sub, rotate, lambda m, t, z: (t, z), m, t, z)
        return t.at[m, m - 1].set(0.0), z

    return lax.fori_loop(1, n, step, (t, z))


@jit_named("rsf2csf", static_argnames=("check_finite",))
def rsf2csf(T, Z, check_finite=True):
    """The complex Schur form (T, Z) from the real one: each 2x2 diagonal
    block of T (a complex pair) is split by a unitary rotation, bottom up."""
    T, Z = jnp.asarray(T), jnp.asarray(Z)
    if T.ndim < 2 or T.shape[-1] != T.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if Z.ndim < 2 or Z.shape[-1] != Z.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if T.shape[-1] != Z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {Z.shape} vs. T: {T.shape}")
    return vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(T, Z)


@jit_named("_algorithm_11_1_1")
def _parlett(f, t):
    """Parlett's recurrence (Golub & Van Loan, Algorithm 11.1.1): the strict
    upper triangle of F = f(T), one superdiagonal at a time, from its
    diagonal; also the smallest |T[j, j] - T[i, i]| it divided by."""
    n = t.shape[0]

    def superdiagonal(p, carry):
        def entry(i, carry):
            f, minden = carry
            j = i + p
            inner = _between(n, i, j)
            s = (t[i, j] * (f[j, j] - f[i, i])
                 + jnp.where(inner, t[i], 0) @ jnp.where(inner, f[:, j], 0)
                 - jnp.where(inner, f[i], 0) @ jnp.where(inner, t[:, j], 0))
            den = t[j, j] - t[i, i]
            s = jnp.where(den != 0, s / den, s)
            return f.at[i, j].set(s), jnp.minimum(minden, jnp.abs(den))
        return lax.fori_loop(0, n - p, entry, carry)

    return lax.fori_loop(1, n, superdiagonal, (f, jnp.abs(t[0, 0])))


def funm(A, func, disp=True):
    """``func`` of the square matrix ``A``, through the complex Schur form:
    always complex. With ``disp=False`` also the error estimate SciPy gives."""
    A = jnp.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = rsf2csf(*schur(A))
    f = jnp.diag(func(jnp.diag(t))).astype(t.dtype)
    f, minden = _parlett(f, t)
    f = z @ f @ z.conj().T
    if disp:
        return f
    tol = np.finfo(np.float32 if f.dtype == np.complex64 else np.float64).eps
    minden = jnp.where(minden == 0.0, tol, minden)
    err = jnp.minimum(1, jnp.maximum(tol, (tol / minden) * jnp.linalg.norm(jnp.triu(t, 1), 1)))
    return f, jnp.where(jnp.any(jnp.isinf(f)), np.inf, err)


@jit_named("expm_frechet", static_argnames=("method", "compute_expm"))
def expm_frechet(A, E, *, method=None, compute_expm=True):
    """The Frechet derivative of ``expm`` at ``A`` in the direction ``E``
    (with ``expm(A)`` first when ``compute_expm``): one jvp of expm."""
    A, E = jnp.asarray(A), jnp.asarray(E)
    # JAX 0.10.2 compares A.shape[-2] with A.shape[1]; kept, so the same
    # batched inputs (4-D and up) are refused
    if A.ndim < 2 or A.shape[-2] != A.shape[1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
    if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
    if A.shape != E.shape:
        raise ValueError("expected A and E to be the same shape, got "
                         f"A.shape={A.shape} E.shape={E.shape}")
    expm_a, frechet = jvp(functools.partial(expm, upper_triangular=False, max_squarings=16),
                          (A,), (E,))
    return (expm_a, frechet) if compute_expm else frechet
