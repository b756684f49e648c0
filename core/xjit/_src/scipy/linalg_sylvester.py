"""``jax.scipy.linalg.solve_sylvester``: X with A X + X B = C, by
Bartels-Stewart on the complex Schur forms (the default) or through the
eigendecompositions of A and B. Neither is differentiable (schur and
non-symmetric eigenvectors have no derivative rules, in JAX as here)."""
from __future__ import annotations

import functools

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src.lax import linalg as lax_linalg
from xjit._src.numpy.util import promote_dtypes_inexact
from xjit._src.numpy.vectorize import vectorize
from xjit._src.pjit import jit_named
from xjit._src.scipy.linalg import inv, schur, solve


def _triangular_sylvester(r, s, f):
    """Y with R Y + Y S = F for upper-triangular R and lower-triangular S,
    by back substitution a row at a time from the bottom: row i solves
    y (R[i, i] I + S) = F[i] - R[i, i+1:] Y[i+1:], a triangular system."""
    m, n = f.shape
    below = jnp.arange(m)
    eye = jnp.eye(n, dtype=f.dtype)

    def row(step, y):
        i = m - 1 - step
        rhs = f[i] - jnp.where(below > i, r[i], 0) @ y
        yi = lax_linalg.triangular_solve(r[i, i] * eye + s, rhs[None, :], left_side=False,
                                         lower=True)
        return y.at[i].set(yi[0])

    return lax.fori_loop(0, m, row, jnp.zeros_like(f))


@jit_named("_solve_sylvester_2d", static_argnames=("method",))
def _solve_sylvester_2d(a, b, c, *, method, tol):
    if method == "schur":
        # A = U R U^H, B = V S^H V^H (S the Schur form of B^H): R Y + Y S^H = U^H C V
        r, u = schur(a, output="complex")
        s, v = schur(b.conj().T, output="complex")
        y = _triangular_sylvester(r, s.conj().T, u.conj().T @ c.astype(r.dtype) @ v)
        x = u @ y @ v.conj().T
    elif method == "eigen":
        wa, ua = jnp.linalg.eig(a)
        wb, ub = jnp.linalg.eig(b)
        y = solve(ua, c.astype(wa.dtype) @ ub) / (wa[:, None] + wb[None, :])
        x = ua @ y @ inv(ub)
    else:
        raise ValueError(f"Unrecognized method {method}. The two valid methods are either "
                         "\"schur\" or \"eigen\".")
    if not jnp.issubdtype(c.dtype, np.complexfloating):
        x = x.real
    # no unique solution when an eigenvalue of A is (nearly) minus one of B
    singular = jnp.any(jnp.abs(jnp.linalg.eigvals(a)[:, None]
                               + jnp.linalg.eigvals(b)[None, :]) < tol)
    return jnp.where(singular, x * np.nan, x)  # nan + nan j when complex, as JAX


@jit_named("solve_sylvester", static_argnames=("method",))
def solve_sylvester(A, B, C, *, method="schur", tol=1e-8):
    """X with A X + X B = C for A (..., m, m), B (..., n, n), C (..., m, n),
    batch axes broadcast; all nan when some eigenvalue sum of A and B is
    within ``tol`` of zero. Real unless the inputs are complex."""
    A, B, C = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError("Incompatible shapes for Sylvester equation:\n"
                         f"A: {A.shape}\nB: {B.shape}\nC: {C.shape}")
    return vectorize(functools.partial(_solve_sylvester_2d, method=method, tol=tol),
                     signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)
