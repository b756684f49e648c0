"""``jnp.linalg`` over the ``lax.linalg`` decompositions.

Solves go through LU (row permutation applied as an exact one-hot product,
no gather needed), determinants through LU (closed forms for 2x2 and 3x3, as
JAX uses), pseudo-inverses and least squares through the SVD."""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from .. import dtypes
from ..lax import api as lax
from ..lax import linalg as lax_linalg
from . import util
from .lax_numpy import asarray, eye, util_dtype, where
from .more_ops import _diagonal_2d, _static, jitted
from .reductions import max as _max, min as _min, sum as _sum
from .shape_ops import matmul


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


def _inexact(name, *args):
    util.check_arraylike(name, *args)
    return [asarray(a) for a in util.promote_dtypes_inexact(*[asarray(a) for a in args])]


def _square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got {a.shape}.")


def _H(x):
    t = lax.transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))
    return lax.conj(t) if util_dtype(t).kind == "c" else t


def _real_dtype(dt):
    return np.dtype({"complex64": np.float32, "complex128": np.float64}.get(dt.name, dt))


def _permute_rows(perm, b):
    """``b[..., perm, :]`` as a one-hot matrix product (exact)."""
    n = perm.shape[-1]
    onehot = lax.eq(lax.expand_dims(perm, (perm.ndim,)),
                    lax.broadcast_in_dim(lax.iota(np.int32, n), perm.shape + (n,), (perm.ndim,)))
    p = lax._convert(onehot, util_dtype(b), False)
    nb = perm.ndim - 1
    batch = tuple(range(nb))
    return lax.dot_general(p, b, (((nb + 1,), (nb,)), (batch, batch)), precision="highest")

# -- solves and inverses


@jitted("solve")
def _solve(a, b):
    a, b = _inexact("solve", a, b)
    _square("solve", a)
    vector = b.ndim == 1
    if vector:
        b = lax.expand_dims(b, (1,))
    batch = util.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = util.broadcast_to(a, batch + a.shape[-2:])
    b = util.broadcast_to(b, batch + b.shape[-2:])
    lu, _, perm = lax_linalg.lu(a)
    y = lax_linalg.triangular_solve(lu, _permute_rows(perm, b), left_side=True, lower=True,
                                    unit_diagonal=True)
    x = lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)
    return lax.squeeze(x, (x.ndim - 1,)) if vector else x


def solve(a, b):
    return _solve(a, b)


@jitted("inv")
def _inv(a):
    (a,) = _inexact("inv", a)
    _square("inv", a)
    ident = util.broadcast_to(eye(a.shape[-1], dtype=util_dtype(a)), a.shape)
    return _solve(a, ident)


def inv(a):
    util.check_arraylike("inv", a)
    return _inv(a)


def _lu_diag_parity(a):
    lu, piv, _ = lax_linalg.lu(a)
    diag = _diagonal_2d(lu, 0)
    swaps = _sum(lax.ne(piv, lax.broadcast_in_dim(lax.iota(np.int32, piv.shape[-1]), piv.shape,
                                                  (piv.ndim - 1,))), axis=-1, dtype=np.int32)
    odd = lax.eq(lax.rem(swaps, np.int32(2)), np.int32(1))
    return diag, odd


def _entry(a, i, j):
    nb = a.ndim - 2
    s = lax.slice(a, (0,) * nb + (i, j), a.shape[:-2] + (i + 1, j + 1))
    return lax.squeeze(s, (nb, nb + 1))


@jitted("det")
def _det(a):
    (a,) = _inexact("det", a)
    _square("det", a)
    n = a.shape[-1]
    e = lambda i, j: _entry(a, i, j)  # noqa: E731
    if n == 2:
        return lax.sub(lax.mul(e(0, 0), e(1, 1)), lax.mul(e(0, 1), e(1, 0)))
    if n == 3:
        out = lax.mul(lax.mul(e(0, 0), e(1, 1)), e(2, 2))
        out = lax.add(out, lax.mul(lax.mul(e(0, 1), e(1, 2)), e(2, 0)))
        out = lax.add(out, lax.mul(lax.mul(e(0, 2), e(1, 0)), e(2, 1)))
        out = lax.sub(out, lax.mul(lax.mul(e(0, 2), e(1, 1)), e(2, 0)))
        out = lax.sub(out, lax.mul(lax.mul(e(0, 0), e(1, 2)), e(2, 1)))
        return lax.sub(out, lax.mul(lax.mul(e(0, 1), e(1, 0)), e(2, 2)))
    if n == 0:
        return lax.full(a.shape[:-2], 1, util_dtype(a))
    diag, odd = _lu_diag_parity(a)
    d = lax.reduce_prod(diag, (diag.ndim - 1,))
    return lax.select(odd, lax.neg(d), d)


def det(a):
    util.check_arraylike("det", a)
    return _det(a)


@jitted("slogdet")
def _slogdet(a):
    (a,) = _inexact("slogdet", a)
    _square("slogdet", a)
    dt = util_dtype(a)
    if a.shape[-1] == 0:
        return SlogdetResult(lax.full(a.shape[:-2], 1, dt), lax.full(a.shape[:-2], 0, _real_dtype(dt)))
    diag, odd = _lu_diag_parity(a)
    absd = lax.abs(diag)
    logabs = lax.reduce_sum(lax.log(absd), (diag.ndim - 1,))
    unit = lax.div(diag, lax._convert(absd, dt, False)) if dt.kind == "c" else lax.sign(diag)
    sign = lax.reduce_prod(unit, (diag.ndim - 1,))
    sign = lax.select(odd, lax.neg(sign), sign)
    zero = lax.reduce_or(lax.eq(absd, lax.full_like(absd, 0)), (diag.ndim - 1,))
    sign = lax.select(zero, lax.full_like(sign, 0), sign)
    logabs = lax.select(zero, lax.full_like(logabs, -np.inf), logabs)
    return SlogdetResult(sign, logabs)


def slogdet(a, *, method=None):
    util.check_arraylike("slogdet", a)
    if method not in (None, "lu"):
        raise ValueError(f"Unrecognized slogdet method {method}")
    return _slogdet(a)

# -- decompositions


def cholesky(a, *, upper=False, symmetrize_input=True):
    (a,) = _inexact("cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


def qr(a, mode="reduced"):
    (a,) = _inexact("qr", a)
    if mode not in ("reduced", "complete", "r"):
        if mode == "raw":
            raise NotImplementedError("jnp.linalg.qr mode='raw' is not implemented")
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def eigh(a, UPLO=None, symmetrize_input=True):
    (a,) = _inexact("eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    (a,) = _inexact("svd", a)
    out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return SVDResult(*out) if compute_uv else out


def svdvals(x):
    return svd(x, compute_uv=False)


def matrix_rank(M, rtol=None, *, tol=None):
    (M,) = _inexact("matrix_rank", M)
    if M.ndim < 2:
        return lax._convert(lax.ne(M, lax.full_like(M, 0)) if M.ndim else
                            lax.ne(M, lax._convert(0, util_dtype(M), False)), np.int32, False)
    s = svd(M, compute_uv=False)
    if tol is None:
        rt = rtol if rtol is not None else max(M.shape[-2:]) * float(dtypes.finfo(util_dtype(s)).eps)
        tol = lax.mul(_max(s, axis=-1, keepdims=True), lax._convert(rt, util_dtype(s), False))
    return _sum(lax.gt(s, tol), axis=-1, dtype=np.int32)


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    (a,) = _inexact("pinv", a)
    rtol = rcond if rtol is None else rtol
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return lax.full(a.shape[:-2] + (n, m), 0, util_dtype(a))
    u, s, vh = svd(a, full_matrices=False)
    if rtol is None:
        rtol = 10 * max(m, n) * float(dtypes.finfo(util_dtype(s)).eps)
    cutoff = lax.mul(_max(s, axis=-1, keepdims=True), lax._convert(rtol, util_dtype(s), False))
    s_inv = where(lax.gt(s, cutoff), lax.div(lax.full_like(s, 1), s), lax.full_like(s, 0))
    v_scaled = lax.mul(_H(vh), lax._convert(lax.expand_dims(s_inv, (s_inv.ndim - 1,)),
                                            util_dtype(a), False))
    return matmul(v_scaled, _H(u), precision="highest")


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    a, b = _inexact("lstsq", a, b)
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim not in (1, 2):
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
    m, n = a.shape
    vector = b.ndim == 1
    if vector:
        b = lax.expand_dims(b, (1,))
    u, s, vh = svd(a, full_matrices=False)
    eps = float(dtypes.finfo(util_dtype(s)).eps)
    rc = eps * max(m, n) if rcond is None else (eps if rcond < 0 else rcond)
    mask = lax.ge(s, lax.mul(_max(s, keepdims=True) if s.shape[0] else s,
                            lax._convert(rc, util_dtype(s), False)))
    rank = _sum(mask, dtype=np.int32)
    s_inv = where(mask, lax.div(lax.full_like(s, 1), where(mask, s, lax.full_like(s, 1))),
                  lax.full_like(s, 0))
    uTb = matmul(_H(u), b, precision="highest")
    x = matmul(_H(vh), lax.mul(lax.expand_dims(lax._convert(s_inv, util_dtype(a), False), (1,)),
                               uTb), precision="highest")
    resid = lax.sub(matmul(a, x, precision="highest"), b)
    resid = _sum(lax.real(lax.mul(resid, lax.conj(resid))) if util_dtype(resid).kind == "c"
                 else lax.square(resid), axis=0)
    if numpy_resid and m <= n:  # NumPy reports no residuals for underdetermined systems
        resid = lax.full((0,), 0, util_dtype(resid))
    return (lax.squeeze(x, (1,)) if vector else x), resid, rank, s


def matrix_power(a, n):
    util.check_arraylike("matrix_power", a)
    a = asarray(a)
    _square("matrix_power", a)
    n = operator.index(_static(n, "jnp.linalg.matrix_power n"))
    if n == 0:
        return util.broadcast_to(eye(a.shape[-1], dtype=util_dtype(a)), a.shape)
    if n < 0:
        a, n = inv(a), -n
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result

# -- norms


def _vector_norm(x, ord, axis, keepdims):
    absx = lax.abs(x) if util_dtype(x).kind != "u" else x
    if ord is None or ord == 2:
        sq = lax.real(lax.mul(x, lax.conj(x))) if util_dtype(x).kind == "c" else lax.mul(x, x)
        return lax.sqrt(_sum(sq, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return _max(absx, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _min(absx, axis=axis, keepdims=keepdims)
    if ord == 0:
        nz = lax.ne(x, lax.full_like(x, 0))
        return _sum(nz, axis=axis, keepdims=keepdims, dtype=util_dtype(absx))
    if ord == 1:
        return _sum(absx, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    p = lax._convert(ord, util_dtype(absx), False)
    total = _sum(lax.pow(absx, p), axis=axis, keepdims=keepdims)
    return lax.pow(total, lax.div(lax.full_like(p, 1), p))


def _matrix_norm(x, ord, axes, keepdims):
    r, c = axes
    if ord is None or ord == "fro":
        return _vector_norm(x, None, axes, keepdims)
    absx = lax.abs(x)
    if ord in (1, -1):
        red = _max if ord == 1 else _min
        out = red(_sum(absx, axis=r, keepdims=True), axis=c, keepdims=True)
    elif ord in (np.inf, -np.inf):
        red = _max if ord == np.inf else _min
        out = red(_sum(absx, axis=c, keepdims=True), axis=r, keepdims=True)
    elif ord in (2, -2, "nuc"):
        from .shape_ops import moveaxis
        s = svd(moveaxis(x, (r, c), (-2, -1)), compute_uv=False)
        out = _sum(s, axis=-1) if ord == "nuc" else (_max if ord == 2 else _min)(s, axis=-1)
        if keepdims:
            out = lax.expand_dims(out, tuple(sorted((r, c))))
        return out
    else:
        raise ValueError(f"Invalid order '{ord}' for matrix norm.")
    return out if keepdims else lax.squeeze(out, tuple(sorted((r, c))))


@jitted("norm", ("ord", "axis", "keepdims"))
def _norm(x, ord, axis, keepdims):
    (x,) = _inexact("norm", x)
    if axis is None:
        if ord is None:
            return _vector_norm(lax.reshape(x, (x.size,)), None, None, False) if not keepdims \
                else lax.reshape(_vector_norm(x, None, None, True), (1,) * x.ndim)
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(util.canonicalize_axis(a, x.ndim) for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"Invalid axis values ({axis}) for jnp.linalg.norm.")


def norm(x, ord=None, axis=None, keepdims=False):
    util.check_arraylike("norm", x)
    if isinstance(axis, list):
        axis = tuple(axis)
    return _norm(x, ord=ord, axis=axis, keepdims=bool(keepdims))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    util.check_arraylike("vector_norm", x)
    (x,) = _inexact("vector_norm", x)
    if axis is None:
        out = _vector_norm(lax.reshape(x, (x.size,)), ord, None, False)
        return lax.reshape(out, (1,) * x.ndim) if keepdims else out
    return _vector_norm(x, ord, axis, keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)
