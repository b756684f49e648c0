"""``jax.scipy.sparse.linalg``: the Krylov solvers cg, bicgstab and gmres.

``A`` (and the preconditioner ``M``) may be a function, a square matrix or
anything with ``@``; ``b`` may be any pytree of arrays. Each solve runs in
``lax.while_loop`` and is wrapped in ``lax.custom_linear_solve``, so its
derivatives come from another solve of the (transposed) system, not from
differentiating the iterations. The iterations follow JAX's arithmetic, so
the solutions agree with JAX's to rounding.
"""
from __future__ import annotations

import operator
from functools import partial

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import dtypes
from xjit._src.array import Array
from xjit._src.lax.lax import _convert
from xjit._src.scipy import linalg as jsp_linalg
from xjit._src.tree_util import (
    Partial,
    tree_leaves,
    tree_map,
    tree_reduce,
    tree_structure,
)

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)
_vdot = partial(jnp.vdot, precision=lax.Precision.HIGHEST)
_einsum = partial(jnp.einsum, precision=lax.Precision.HIGHEST)


def _vdot_real(x, y):
    """Re<x, y> without forming the complex cross terms."""
    out = _vdot(x.real, y.real)
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        out += _vdot(x.imag, y.imag)
    return out


def _vdot_real_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot_real, x, y)))


def _vdot_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot, x, y)))


def _norm(x):
    xs = tree_leaves(x)
    return jnp.sqrt(sum(map(_vdot_real, xs, xs)))


def _mul(scalar, tree):
    return tree_map(partial(operator.mul, scalar), tree)


_add = partial(tree_map, operator.add)
_sub = partial(tree_map, operator.sub)


@Partial
def _identity(x):
    return x


def _as_operator(f):
    """A function applying ``f``: itself if callable, else ``f @ x``."""
    if callable(f):
        return f
    if isinstance(f, (np.ndarray, Array)):
        if f.ndim != 2 or f.shape[0] != f.shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: {f.shape}")
        return partial(_dot, f)
    if hasattr(f, "__matmul__"):
        if hasattr(f, "shape") and len(f.shape) != 2 or f.shape[0] != f.shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: {f.shape}")
        return partial(operator.matmul, f)
    raise TypeError(f"linear operator must be either a function or ndarray: {f}")


def _cg_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    """Preconditioned conjugate gradients; stops on ``|r|^2 <= max(tol^2 |b|^2, atol^2)``."""
    bound = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))

    def running(value):
        _, r, gamma, _, k = value
        rs = gamma.real if M is _identity else _vdot_real_tree(r, r)
        return (rs > bound) & (k < maxiter)

    def step(value):
        x, r, gamma, p, k = value
        Ap = A(p)
        alpha = gamma / _vdot_real_tree(p, Ap).astype(dtype)
        x = _add(x, _mul(alpha, p))
        r = _sub(r, _mul(alpha, Ap))
        z = M(r)
        gamma_next = _vdot_real_tree(r, z).astype(dtype)
        p = _add(z, _mul(gamma_next / gamma, p))
        return x, r, gamma_next, p, k + 1

    r0 = _sub(b, A(x0))
    p0 = M(r0)
    dtype = dtypes.result_type(*tree_leaves(p0))
    gamma0 = _vdot_real_tree(r0, p0).astype(dtype)
    return lax.while_loop(running, step, (x0, r0, gamma0, p0, 0))[0]


def _bicgstab_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    """Preconditioned BiCGSTAB; a breakdown (rho, alpha or omega zero) ends
    the loop by making the counter negative."""
    bound = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))

    def running(value):
        r, k = value[1], value[-1]
        return (_vdot_real_tree(r, r) > bound) & (k < maxiter) & (k >= 0)

    def step(value):
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_next = _vdot_tree(rhat, r)
        beta = rho_next / rho * alpha / omega
        p = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
        phat = M(p)
        q = A(phat)
        alpha = rho_next / _vdot_tree(rhat, q)
        s = _sub(r, _mul(alpha, q))
        small = _vdot_real_tree(s, s) < bound
        shat = M(s)
        t = A(shat)
        omega = _vdot_tree(t, s) / _vdot_tree(t, t)
        x = tree_map(partial(jnp.where, small), _add(x, _mul(alpha, phat)),
                     _add(x, _add(_mul(alpha, phat), _mul(omega, shat))))
        r = tree_map(partial(jnp.where, small), s, _sub(s, _mul(omega, t)))
        k = jnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = jnp.where(rho_next == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_next, p, q, k

    r0 = _sub(b, A(x0))
    one = _convert(1, *dtypes.result_type(*tree_leaves(b), return_weak_type_flag=True))
    return lax.while_loop(running, step, (x0, r0, r0, one, one, one, r0, r0, 0))[0]


def _shapes(tree):
    return [np.shape(x) for x in tree_leaves(tree)]


def _prepare(A, b, x0, M):
    """Defaults, operators and argument checks shared by the three solvers."""
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b, x0 = tree_map(jnp.asarray, (b, x0))
    A = _as_operator(A)
    M = _identity if M is None else _as_operator(M)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError("x0 and b must have matching tree structure: "
                         f"{tree_structure(x0)} vs {tree_structure(b)}")
    return A, b, x0, M


def _krylov(solve, A, b, x0, *, tol, atol, maxiter, M, check_symmetric=False):
    A, b, x0, M = _prepare(A, b, x0, M)
    if maxiter is None:
        maxiter = 10 * sum(x.size for x in tree_leaves(b))  # SciPy's default
    if _shapes(x0) != _shapes(b):
        raise ValueError(f"arrays in x0 and b must have matching shapes: "
                         f"{_shapes(x0)} vs {_shapes(b)}")
    run = partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    # a real system solved by cg is symmetric: reverse mode reuses the solve
    symmetric = check_symmetric and all(not jnp.iscomplexobj(x) for x in tree_leaves(b))
    x = lax.custom_linear_solve(A, b, solve=run, transpose_solve=run, symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` for Hermitian positive-definite ``A`` by conjugate
    gradients; returns ``(x, None)``. Gradients solve again (implicitly)."""
    return _krylov(_cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` for general ``A`` by BiCGSTAB; returns ``(x, None)``."""
    return _krylov(_bicgstab_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M)


def _safe_normalize(x, thresh=None):
    """``(x / |x|, |x|)``, or zeros and 0 when ``|x|`` is at most ``thresh``
    (machine epsilon by default): a breakdown, not a direction."""
    norm = _norm(x)
    dtype, weak = dtypes.result_type(*tree_leaves(x), return_weak_type_flag=True)
    if thresh is None:
        thresh = dtypes.finfo(norm.dtype).eps
    thresh = thresh.astype(dtype).real
    keep = norm > thresh
    norm_cast = _convert(norm, dtype, weak)
    unit = tree_map(lambda y: jnp.where(keep, y / norm_cast, 0.0), x)
    return unit, jnp.where(keep, norm, 0.0)


def _project_on_columns(Q, v):
    """``Q^H v`` summed over the leaves."""
    parts = tree_map(lambda X, y: _einsum("...n,...->n", X.conj(), y), Q, v)
    return tree_reduce(operator.add, parts)


def _orthogonalize(Q, x, xnorm, max_iterations=2):
    """Classical Gram-Schmidt of ``x`` against ``Q``'s columns, repeated
    (at most ``max_iterations`` passes) while the overlap removed is large
    next to ``|x| / sqrt 2``; returns the residual vector and overlaps."""
    Q0 = tree_leaves(Q)[0]

    def one_pass(carry):
        k, q, r, qnorm_scaled = carry
        h = _project_on_columns(Q, q)
        q = _sub(q, tree_map(lambda X: _dot(X, h), Q))
        r = _add(r, h)

        def rescale(c):
            k, _, q, _ = c
            _, qnorm = _safe_normalize(q)
            return k, False, q, qnorm / jnp.sqrt(2.0)

        _, _, q, qnorm_scaled = lax.while_loop(
            lambda c: jnp.logical_and(c[1], c[0] < max_iterations - 1), rescale,
            (k, True, q, qnorm_scaled))
        return k + 1, q, r, qnorm_scaled

    def again(carry):
        k, _, r, qnorm_scaled = carry
        _, rnorm = _safe_normalize(r)
        return jnp.logical_and(k < max_iterations - 1, rnorm < qnorm_scaled)

    r0 = jnp.zeros(Q0.shape[-1], dtype=Q0.dtype)
    carry = one_pass((0, x, r0, xnorm / jnp.sqrt(2.0)))
    _, q, r, _ = lax.while_loop(again, one_pass, carry)
    return q, r


def _arnoldi_step(k, A, M, V, H):
    """Put the normalised part of ``M(A(V[:, k]))`` orthogonal to ``V[:, :k+1]``
    into ``V[:, k+1]`` and its overlaps into row ``k`` of ``H``; report a
    breakdown (invariant subspace) when that part vanishes."""
    dtype, _ = dtypes.result_type(*tree_leaves(V), return_weak_type_flag=True)
    v = M(A(tree_map(lambda X: X[..., k], V)))
    _, v_norm_0 = _safe_normalize(v)
    v, h = _orthogonalize(V, v, v_norm_0, max_iterations=2)
    unit_v, v_norm_1 = _safe_normalize(v, thresh=dtypes.finfo(dtype).eps * v_norm_0)
    V = tree_map(lambda X, y: X.at[..., k + 1].set(y), V, unit_v)
    H = H.at[k, :].set(h.at[k + 1].set(v_norm_1.astype(dtype)))
    return V, H, v_norm_1 == 0.


def _rotate(H, i, cs, sn):
    """Apply the Givens rotation (cs, sn) to entries i and i+1 of ``H``."""
    x, y = H[i], H[i + 1]
    H = H.at[i].set(cs.conj() * x - sn.conj() * y)
    return H.at[i + 1].set(sn * x + cs * y)


def _givens(a, b):
    """(cs, sn) zeroing ``b`` against ``a``."""
    b_zero = abs(b) == 0
    a_small = abs(a) < abs(b)
    t = -jnp.where(a_small, a, b) / jnp.where(a_small, b, a)
    r = lax.rsqrt(1 + abs(t) ** 2).astype(t.dtype)
    cs = jnp.where(b_zero, 1, jnp.where(a_small, r * t, r))
    sn = jnp.where(b_zero, 0, jnp.where(a_small, r, r * t))
    return cs, sn


def _krylov_basis(unit_residual, restart):
    """Room for ``restart + 1`` basis vectors, the first the unit residual."""
    return tree_map(lambda x: jnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)),
                    unit_residual)


def _restart_end(A, b, M, x0, V, y):
    """The new iterate ``x0 + V y`` and its normalised preconditioned residual."""
    x = _add(x0, tree_map(lambda X: _dot(X[..., :-1], y), V))
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x))))
    return x, unit_residual, residual_norm


def _gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart, QR-factorising the Hessenberg matrix by Givens rotations
    as it grows; the rotated right-hand side gives the residual for free, so
    the restart stops as soon as it is below ``ptol``."""
    V = _krylov_basis(unit_residual, restart)
    dtype = dtypes.result_type(*tree_leaves(b))
    R = jnp.eye(restart, restart + 1, dtype=dtype)
    givens = jnp.zeros((restart, 2), dtype=dtype)
    beta = jnp.zeros((restart + 1), dtype=dtype).at[0].set(residual_norm.astype(dtype))

    def step(carry):
        k, _, V, R, beta, givens = carry
        V, H, _ = _arnoldi_step(k, A, M, V, R)
        row = lax.fori_loop(0, k, lambda i, row: _rotate(row, i, *givens[i, :]), H[k, :])
        g = _givens(row[k], row[k + 1])
        givens = givens.at[k, :].set(g)
        R = R.at[k, :].set(_rotate(row, k, *g))
        beta = _rotate(beta, k, *givens[k, :])
        return k + 1, abs(beta[k + 1]), V, R, beta, givens

    _, _, V, R, beta, _ = lax.while_loop(
        lambda c: jnp.logical_and(c[0] < restart, c[1] > ptol), step,
        (0, residual_norm, V, R, beta, givens))
    y = jsp_linalg.solve_triangular(R[:, :-1].T, beta[:-1])
    return _restart_end(A, b, M, x0, V, y)


def _gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart building the whole Krylov basis (unless it breaks down),
    then one dense least-squares solve: no early exit, less overhead per step."""
    del ptol
    V = _krylov_basis(unit_residual, restart)
    dtype, weak = dtypes.result_type(*tree_leaves(b), return_weak_type_flag=True)
    H = _convert(jnp.eye(restart, restart + 1, dtype=dtype), dtype, weak)

    def step(carry):
        V, H, _, k = carry
        V, H, breakdown = _arnoldi_step(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = lax.while_loop(
        lambda c: jnp.logical_and(c[3] < restart, jnp.logical_not(c[2])), step,
        (V, H, False, 0))
    beta = jnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    # least squares by the normal equations, as JAX does
    Ht = H.T
    y = jsp_linalg.solve(_dot(Ht.T.conj(), Ht), _dot(Ht.T.conj(), beta), assume_a="pos")
    return _restart_end(A, b, M, x0, V, y)


def _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, restart_fn):
    """Restart ``restart_fn`` from the last iterate until the preconditioned
    residual is at most ``atol`` or ``maxiter`` restarts are done."""
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x0))))

    def step(value):
        x, k, unit_residual, residual_norm = value
        x, unit_residual, residual_norm = restart_fn(A, b, x, unit_residual, residual_norm,
                                                     ptol, restart, M)
        return x, k + 1, unit_residual, residual_norm

    return lax.while_loop(lambda v: jnp.logical_and(v[1] < maxiter, v[3] > atol), step,
                          (x0, 0, unit_residual, residual_norm))[0]


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """Solve ``A x = b`` for general ``A`` by restarted GMRES; ``restart`` is
    the Krylov dimension per restart, ``maxiter`` the number of restarts.
    Returns ``(x, info)`` with ``info`` -1 when ``x`` came out NaN, else 0."""
    A, b, x0, M = _prepare(A, b, x0, M)
    size = sum(x.size for x in tree_leaves(b))
    if maxiter is None:
        maxiter = 10 * size  # SciPy's default
    restart = min(restart, size)
    b_norm = _norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    ptol = _norm(M(b)) * jnp.minimum(1.0, atol / b_norm)
    if solve_method == "incremental":
        restart_fn = _gmres_incremental
    elif solve_method == "batched":
        restart_fn = _gmres_batched
    else:
        raise ValueError(f"invalid solve_method {solve_method}, must be either "
                         "'incremental' or 'batched'")

    def solve(A, b):
        return _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, restart_fn)

    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve)
    return x, jnp.where(jnp.isnan(_norm(x)), -1, 0)
