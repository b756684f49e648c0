"""``xjit.scipy.linalg``: SciPy's spellings of the decompositions and solves,
jitted under JAX's names so jaxprs print the same."""
from __future__ import annotations

import functools
import warnings

import numpy as np

from xjit._src import dtypes
from xjit._src.lax import linalg as _lax_linalg
from xjit._src.lax.linalg_general import (
    hessenberg as _lax_hessenberg, householder_product, lu_pivots_to_permutation,
    schur as _lax_schur)
from xjit._src.numpy import linalg as _jnp_linalg
from xjit._src.numpy.util import check_arraylike, promote_dtypes, promote_dtypes_inexact
from xjit._src.numpy.vectorize import vectorize
from xjit._src.lax.linear_solve import custom_linear_solve
from xjit._src.interpreters.batching import vmap
from xjit._src import ad_api
from xjit._src.lax import convolution as lax_convolution
from xjit._src.lax import lax
from xjit._src.lax import sorting
from xjit._src.numpy import diagonals
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import manipulation
from xjit._src.numpy import reordering
from xjit._src.numpy import shape_ops
from xjit._src.numpy import tensor_contractions
from xjit._src.numpy import ufuncs
from xjit._src.pjit import jit_named


def _mT(x):
    return shape_ops.swapaxes(x, -1, -2)


@jit_named("_cholesky", static_argnames=("lower",))
def _cholesky(a, lower):
    a, = promote_dtypes_inexact(jnp.asarray(a))
    l_ = _lax_linalg.cholesky(a if lower else ufuncs.conj(_mT(a)), symmetrize_input=False)
    return l_ if lower else ufuncs.conj(_mT(l_))


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    return _cholesky(a, lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    return cholesky(a, lower=lower), lower


_FIRST_ARG = {"lu_solve": "lu_and_piv", "cho_solve": "c_and_lower", "solve_triangular": "a"}


def _solve_signature(name, a, b, extra=""):
    """The gufunc signature of a (batched) solve of ``a`` against ``b``."""
    if b.ndim == 1:
        return f"(n,n),{extra}(n)->(n)"
    if a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        warnings.warn(f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are "
                      "deprecated, and in the future will be treated as a batched 2D solve. Use "
                      f"{name}({_FIRST_ARG[name]}, b[..., None]).squeeze(-1) to avoid this "
                      "warning.", category=FutureWarning)
        return f"(n,n),{extra}(n)->(n)"
    return f"(n,n),{extra}(n,k)->(n,k)"


def _tri(lower, transpose_a, conjugate_a, unit_diagonal=False):
    """A left-side triangular solve that also takes a vector right-hand side
    (conjugation only means something for complex ``a``)."""
    def solve(a, b):
        vector = b.ndim == a.ndim - 1
        conj = conjugate_a and a.dtype.kind == "c"
        out = _lax_linalg.triangular_solve(a, lax.expand_dims(b, (b.ndim,)) if vector else b,
                                           left_side=True, lower=lower, transpose_a=transpose_a,
                                           conjugate_a=conj, unit_diagonal=unit_diagonal)
        return out[..., 0] if vector else out
    return solve


@jit_named("_cho_solve", static_argnames=("lower",))
def _cho_solve(c, b, lower):
    c, b = promote_dtypes_inexact(jnp.asarray(c), jnp.asarray(b))
    sig = _solve_signature("cho_solve", c, b)
    b = vectorize(_tri(lower, not lower, not lower), signature=sig)(c, b)
    return vectorize(_tri(lower, lower, lower), signature=sig)(c, b)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    c, lower = c_and_lower
    return _cho_solve(c, b, lower)


_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


@jit_named("_solve_triangular", static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a, b, trans, lower, unit_diagonal):
    if trans not in _TRANS:
        raise ValueError(f"Invalid 'trans' value {trans}")
    t, c = _TRANS[trans]
    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    sig = _solve_signature("solve_triangular", a, b)
    return vectorize(_tri(lower, t, c, unit_diagonal), signature=sig)(a, b)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    return _solve_triangular(a, b, trans, lower, unit_diagonal)


@jit_named("lu_factor", static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a, overwrite_a=False, check_finite=True):
    a, = promote_dtypes_inexact(jnp.asarray(a))
    lu_, pivots, _ = _lax_linalg.lu(a)
    return lu_, pivots


def _lu_solve_core(lu_, perm, b, trans):
    """Solve one system from packed LU factors (L unit lower, U upper)."""
    m = lu_.shape[0]
    x = lax.reshape(b, (m, int(np.prod(b.shape[1:]))))
    if trans == 0:
        x = x[perm, :]
        x = _lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
        x = _lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    elif trans in (1, 2):
        conj = trans == 2 and lu_.dtype.kind == "c"
        x = _lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False, transpose_a=True,
                                         conjugate_a=conj)
        x = _lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True,
                                         transpose_a=True, conjugate_a=conj)
        _, inverse = sorting.sort_key_val(perm, lax.iota("int32", perm.shape[0]))
        x = x[inverse, :]
    else:
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return lax.reshape(x, b.shape)


@jit_named("_lu_solve", static_argnames=("trans",))
def _lax_lu_solve(lu_, perm, b, trans):
    """``lax.linalg.lu_solve``: b is a vector (per matrix) or a stack of columns."""
    if lu_.ndim < 2 or lu_.shape[-1] != lu_.shape[-2]:
        raise ValueError("last two dimensions of LU decomposition must be equal, got shape "
                         f"{lu_.shape}")
    vector = lu_.ndim == b.ndim + 1
    if vector:
        b = b[..., np.newaxis]
    batch = np.broadcast_shapes(lu_.shape[:-2], perm.shape[:-1], b.shape[:-2])
    lu_ = shape_ops.broadcast_to(lu_, (*batch, *lu_.shape[-2:]))
    perm = shape_ops.broadcast_to(perm, (*batch, perm.shape[-1]))
    b = shape_ops.broadcast_to(b, (*batch, *b.shape[-2:]))
    fn = _lu_solve_core
    for _ in batch:
        fn = vmap(fn, in_axes=(0, 0, 0, None))
    x = fn(lu_, perm, b, trans)
    return x[..., 0] if vector else x


@jit_named("lu_solve", static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    lu_, pivots = lu_and_piv
    lu_, b = promote_dtypes_inexact(jnp.asarray(lu_), jnp.asarray(b))
    perm = lu_pivots_to_permutation(pivots, lu_.shape[-2])
    sig = _solve_signature("lu_solve", lu_, b, "(n),")
    return vectorize(functools.partial(_lax_lu_solve, trans=trans), signature=sig)(lu_, perm, b)


@jit_named("_lu", static_argnames=("permute_l",))
def _lu(a, permute_l):
    a, = promote_dtypes_inexact(jnp.asarray(a))
    lu_, _, perm = _lax_linalg.lu(a)
    m, n = np.shape(a)
    # p[i, j] = 1 where row j of the factors came from row i of a
    p = jnp.real(jnp.array(perm[None, :] == jnp.arange(m, dtype=perm.dtype)[:, None],
                           dtype=a.dtype))
    k = min(m, n)
    l_ = diagonals.tril(lu_, -1)[:, :k] + jnp.eye(m, k, dtype=a.dtype)
    u = diagonals.triu(lu_)[:k, :]
    if permute_l:
        return tensor_contractions.matmul(p, l_, precision=lax.Precision.HIGHEST), u
    return p, l_, u


@jit_named("lu", static_argnames=("permute_l", "overwrite_a", "check_finite"))
def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    return _lu(a, permute_l)


def det(a, overwrite_a=False, check_finite=True):
    return _jnp_linalg.det(a)


def inv(a, overwrite_a=False, check_finite=True):
    return _jnp_linalg.inv(a)


def _matvec(a, x):
    """(..., n, m) @ (..., m) -> (..., n) as one batched dot_general."""
    batch = np.broadcast_shapes(a.shape[:-2], x.shape[:-1])
    nb = len(batch)
    a = shape_ops.broadcast_to(a, (*batch, *a.shape[-2:]))
    x = shape_ops.broadcast_to(x, (*batch, x.shape[-1]))
    dims = (([a.ndim - 1], [x.ndim - 1]), (list(range(nb)), list(range(nb))))
    return lax.dot_general(a, x, dimension_numbers=dims, precision=lax.Precision.HIGHEST)


@jit_named("_solve", static_argnames=("assume_a", "lower"))
def _solve(a, b, assume_a, lower):
    if assume_a != "pos":
        return _jnp_linalg.solve(a, b)
    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    _jnp_linalg._check_solve_shapes(a, b)
    factors = cho_factor(ad_api.stop_gradient(a), lower=lower)
    solve_ = functools.partial(custom_linear_solve, lambda x: _matvec(a, x),
                               solve=lambda _, x: cho_solve(factors, x), symmetric=True)
    if a.ndim == b.ndim + 1:
        return solve_(b)
    return vmap(solve_, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
    return _solve(a, b, assume_a, lower)


def _block_diag(*arrs):
    if not arrs:
        arrs = (jnp.zeros((1, 0)),)
    arrs = tuple(promote_dtypes(*arrs))
    bad = [i for i, a in enumerate(arrs) if np.ndim(a) > 2]
    if bad:
        raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                         f"dimensions, got {arrs[bad[0]]} at argument {bad[0]}.")
    mats = [shape_ops.atleast_2d(a) for a in arrs]
    zero = lax.dtype(mats[0]).type(0)
    total = sum(a.shape[1] for a in mats)
    rows, col = [], 0
    for m in mats:
        rows.append(lax.pad(m, zero, ((0, 0, 0), (col, total - m.shape[1] - col, 0))))
        col += m.shape[1]
    return shape_ops.concatenate(rows, axis=0)


block_diag = jit_named("block_diag")(_block_diag)


def _toeplitz_1d(c, r):
    """Row i of the matrix is a window of reversed(c) ++ r[1:], read off as
    the patches of a 1-D convolution (then flipped into order)."""
    m, n = c.shape[0], r.shape[0]
    if m == 0 or n == 0:
        return jnp.empty((m, n), dtype=jnp.promote_types(c.dtype, r.dtype))
    elems = shape_ops.concatenate((c[::-1], r[1:]))
    patches = lax_convolution.conv_general_dilated_patches(
        elems.reshape((1, m + n - 1, 1)), (n,), (1,), "VALID",
        dimension_numbers=("NTC", "IOT", "NTC"), precision=lax.Precision.HIGHEST)[0]
    return reordering.flip(patches, axis=0)


_toeplitz = vectorize(_toeplitz_1d, signature="(m),(n)->(m,n)")


def toeplitz(c, r=None):
    if r is None:
        check_arraylike("toeplitz", c)
        r = ufuncs.conjugate(jnp.asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    return _toeplitz(shape_ops.atleast_1d(jnp.asarray(c)), shape_ops.atleast_1d(jnp.asarray(r)))


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    if pivoting:
        raise NotImplementedError("pivoting=True is not supported by xjit.scipy.linalg.qr")
    if mode not in ("full", "r", "economic"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    a, = promote_dtypes_inexact(jnp.asarray(a))
    q, r = _lax_linalg.qr(a, full_matrices=mode == "full")
    return (r,) if mode == "r" else (q, r)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    return _jnp_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, type=1, check_finite=True):
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    a, = promote_dtypes_inexact(jnp.asarray(a))
    v, w = _lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


@jit_named("_schur", static_argnames=("output",))
def _schur(a, output):
    if output == "complex":  # in the canonical complex dtype (int64 input: complex64)
        a = jnp.asarray(a)
        a = a.astype(dtypes.to_complex_dtype(a.dtype))
    return _lax_schur(a)


def schur(a, output="real"):
    if output not in ("real", "complex"):
        raise ValueError("Expected 'output' to be either 'real' or 'complex', got "
                         f"output={output!r}.")
    return _schur(a, output)


@jit_named("hessenberg", static_argnames=("calc_q", "check_finite", "overwrite_a"))
def hessenberg(a, *, calc_q=False, overwrite_a=False, check_finite=True):
    n = np.shape(a)[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    packed, taus = _lax_hessenberg(a)
    h = diagonals.triu(packed, -1)
    if not calc_q:
        return h
    # Q = diag(1, Q') with Q' the product of the reflectors stored below the subdiagonal
    q = householder_product(packed[..., 1:, :-1], taus)
    batch = packed.shape[:-2]
    dt = packed.dtype
    q = manipulation.block([[jnp.ones(batch + (1, 1), dtype=dt), jnp.zeros(batch + (1, n - 1), dtype=dt)],
                   [jnp.zeros(batch + (n - 1, 1), dtype=dt), q]])
    return h, q
