"""``jnp.linalg`` over the ``lax.linalg`` decompositions.

Solves go through LU and LAPACK's triangular solves, as JAX on CPU (so
infinities and singular matrices give JAX's values), determinants through LU (closed forms for 2x2 and 3x3, as
JAX uses), pseudo-inverses and least squares through the SVD."""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from .. import dtypes
from ..ad_api import stop_gradient
from ..custom_derivatives import custom_jvp
from xjit._src.lax import lax
from ..lax import linalg as lax_linalg
from ..lax import linalg_general as lax_linalg_general
from ..lax.linear_solve import custom_linear_solve
from ..lax.sorting import sort as lax_sort
from . import util
from .lax_numpy import asarray, eye, util_dtype, where
from .advanced_indexing import take_along_axis
from .diagonals import _diagonal_2d
from .reductions import max as _max, min as _min, sum as _sum
from .tensor_contractions import matmul
from .tensor_contractions import matmul as matmul_
from .shape_ops import matrix_transpose as matrix_transpose_
from xjit._src.pjit import jit_named


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
    """``b[..., perm, :]``, a gather (a one-hot product would turn an
    infinite entry into NaNs across its column)."""
    if perm.shape[-1] == 0:
        return b
    return take_along_axis(b, lax.expand_dims(perm, (perm.ndim,)), axis=-2)

# -- solves and inverses


def _check_solve_shapes(a, b):
    """JAX's checks: its solve is vectorized over ``(m,m),(m)->(m)`` (vector
    ``b``) or ``(m,m),(m,n)->(m,n)``."""
    if a.ndim < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a.shape}")
    if b.ndim > 1 and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1] \
            and a.shape[-1] != b.shape[-2]:
        raise ValueError(f"Invalid shapes for solve: {a.shape}, {b.shape}. Prior to JAX v0.5.0, "
                         "this would have been treated as a batched 1-dimensional solve. To "
                         "recover this behavior, use solve(a, b[..., None]).squeeze(-1).")
    sig = "(m,m),(m)->(m)" if b.ndim == 1 else "(m,m),(m,n)->(m,n)"
    context = f"on vectorized function with excluded=frozenset() and signature='{sig}'"
    core = ("m",) if b.ndim == 1 else ("m", "n")
    if b.ndim < len(core):
        raise ValueError(f"input with shape {b.shape!r} does not have enough dimensions for all "
                         f"core dimensions {core!r} {context}")
    m = a.shape[-2]
    for size in (a.shape[-1], b.shape[-len(core)]):
        if size != m:
            raise ValueError(f"inconsistent size for core dimension 'm': {size} vs {m} {context}")


@jit_named("solve")
def _solve(a, b):
    a, b = _inexact("jnp.linalg.solve", a, b)
    _check_solve_shapes(a, b)
    vector = b.ndim == 1
    if vector:
        b = lax.expand_dims(b, (1,))
    batch = util.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = util.broadcast_to(a, batch + a.shape[-2:])
    b = util.broadcast_to(b, batch + b.shape[-2:])
    # differentiated implicitly, as JAX: tangents and cotangents are further
    # solves with the same LU, not the LU's own derivative (which turns an
    # infinite or singular input into NaN where JAX's gradient is finite or inf)
    lu, _, perm = lax_linalg.lu(stop_gradient(a))
    nb = len(batch)
    dims = (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    x = custom_linear_solve(lambda v: lax.dot_general(a, v, dims, precision="highest"), b,
                            solve=lambda _, v: _lu_solve(lu, perm, v, False),
                            transpose_solve=lambda _, v: _lu_solve(lu, perm, v, True))
    return lax.squeeze(x, (x.ndim - 1,)) if vector else x


def _lu_solve(lu, perm, b, transpose):
    """``a^-1 b`` (``a^-T b``) from ``a``'s LU factors and row permutation."""
    if not transpose:
        y = lax_linalg.triangular_solve(lu, _permute_rows(perm, b), left_side=True, lower=True,
                                        unit_diagonal=True)
        return lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)
    y = lax_linalg.triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True)
    y = lax_linalg.triangular_solve(lu, y, left_side=True, lower=True, unit_diagonal=True,
                                    transpose_a=True)
    iota = lax.broadcasted_iota(np.int32, perm.shape, perm.ndim - 1)
    _, inverse = lax_sort((perm, iota), dimension=perm.ndim - 1, num_keys=1)
    return _permute_rows(inverse, y)


def solve(a, b):
    return _solve(a, b)


@jit_named("inv")
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


def _empty_det_impl(a):
    return lax.full(a.shape[:-2], 1, util_dtype(a))


def _empty_det_jvp(primals, tangents):
    # JAX's det rule reads the last pivot of the (empty) LU factorization
    raise IndexError(f"index is out of bounds for axis {primals[0].ndim - 2} with size 0")


_empty_det = custom_jvp(_empty_det_impl)
_empty_det.defjvp(_empty_det_jvp)


@jit_named("det")
def _det(a):
    (a,) = _inexact("det", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to _det() must have shape [..., n, n], got {a.shape}")
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
        return _empty_det(a)
    diag, odd = _lu_diag_parity(a)
    d = lax.reduce_prod(diag, (diag.ndim - 1,))
    return lax.select(odd, lax.neg(d), d)


def det(a):
    util.check_arraylike("det", a)
    return _det(a)


def _slogdet_closed_impl(a):
    """n = 1 or 2: the determinant's closed form, as JAX (no LU, whose
    elimination would turn an infinite entry into NaN)."""
    e = lambda i, j: _entry(a, i, j)  # noqa: E731
    det = e(0, 0) if a.shape[-1] == 1 else lax.sub(lax.mul(e(0, 0), e(1, 1)),
                                                   lax.mul(e(0, 1), e(1, 0)))
    return lax.sign(det), lax.log(lax.abs(det))


def _slogdet_lu_impl(a):
    """LU: the sign from the pivots' parity (and, for real matrices, the
    negative pivots', so a NaN pivot leaves the sign at +-1 as in JAX)."""
    dt = util_dtype(a)
    diag, odd = _lu_diag_parity(a)
    axis = (diag.ndim - 1,)
    absd = lax.abs(diag)
    zero = lax.reduce_or(lax.eq(absd, lax.full_like(absd, 0)), axis)
    if dt.kind == "c":
        sign = lax.reduce_prod(lax.div(diag, lax._convert(absd, dt, False)), axis)
    else:
        sign = lax.full(odd.shape, 1, dt)
        negs = _sum(lax.lt(diag, lax.full_like(diag, 0)), axis=-1, dtype=np.int32)
        odd = lax.ne(odd, lax.eq(lax.rem(negs, np.int32(2)), np.int32(1)))
    sign = lax.select(odd, lax.neg(sign), sign)
    sign = lax.select(zero, lax.full_like(sign, 0), sign)
    logabs = lax.reduce_sum(lax.log(absd), axis)
    return sign, lax.select(zero, lax.full_like(logabs, -np.inf), logabs)


def _slogdet_tangents(x, sign, ans_dot):
    """The tangents of (sign, logabsdet) from d log det: the sign's is zero for
    real matrices, its phase's change for complex ones."""
    if util_dtype(x).kind == "c":
        re = lax.real(ans_dot)
        return lax.mul(lax.sub(ans_dot, lax._convert(re, util_dtype(ans_dot), False)), sign), re
    return lax.full_like(sign, 0), ans_dot


def _slogdet_closed_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    sign, ans = _slogdet_closed(x)
    e, t = (lambda i, j: _entry(x, i, j)), (lambda i, j: _entry(g, i, j))  # noqa: E731
    if x.shape[-1] == 1:
        ans_dot = lax.div(t(0, 0), e(0, 0))
    else:
        det = lax.sub(lax.mul(e(0, 0), e(1, 1)), lax.mul(e(0, 1), e(1, 0)))
        ddet = lax.sub(lax.sub(lax.mul(t(0, 0), e(1, 1)), lax.mul(t(0, 1), e(1, 0))),
                       lax.sub(lax.mul(t(1, 0), e(0, 1)), lax.mul(t(1, 1), e(0, 0))))
        ans_dot = lax.div(ddet, det)
    return (sign, ans), _slogdet_tangents(x, sign, ans_dot)


def _slogdet_lu_jvp(primals, tangents):
    """d log|det x| = trace(x^-1 dx)."""
    (x,), (g,) = primals, tangents
    sign, ans = _slogdet_lu(x)
    d = _diagonal_2d(_solve(x, g), 0)
    return (sign, ans), _slogdet_tangents(x, sign, lax.reduce_sum(d, (d.ndim - 1,)))


_slogdet_closed = custom_jvp(_slogdet_closed_impl)
_slogdet_closed.defjvp(_slogdet_closed_jvp)
_slogdet_lu = custom_jvp(_slogdet_lu_impl)
_slogdet_lu.defjvp(_slogdet_lu_jvp)


@jit_named("slogdet")
def _slogdet(a):
    (a,) = _inexact("slogdet", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to slogdet() must have shape [..., n, n], got {a.shape}")
    dt = util_dtype(a)
    if a.shape[-1] == 0:
        return SlogdetResult(lax.full(a.shape[:-2], 1, dt), lax.full(a.shape[:-2], 0, _real_dtype(dt)))
    rule = _slogdet_closed if a.shape[-1] <= 2 else _slogdet_lu
    return SlogdetResult(*rule(a))


def slogdet(a, *, method=None):
    util.check_arraylike("slogdet", a)
    if method not in (None, "lu"):
        raise ValueError(f"Unrecognized slogdet method {method}")
    return _slogdet(a)

# -- decompositions


@jit_named("cholesky", static_argnames=("upper", "symmetrize_input"))
def _cholesky(a, upper, symmetrize_input):
    (a,) = _inexact("jnp.linalg.cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


def cholesky(a, *, upper=False, symmetrize_input=True):
    util.check_arraylike("jnp.linalg.cholesky", a)
    return _cholesky(a, upper=bool(upper), symmetrize_input=bool(symmetrize_input))


@jit_named("qr", static_argnames=("mode",))
def _qr(a, mode):
    (a,) = _inexact("jnp.linalg.qr", a)
    if mode == "raw":
        h, taus = lax_linalg_general.geqrf(a)
        return QRResult(matrix_transpose_(h), taus)
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def qr(a, mode="reduced"):
    util.check_arraylike("jnp.linalg.qr", a)
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    return _qr(a, mode=mode)


@jit_named("eigh", static_argnames=("UPLO", "symmetrize_input"))
def _eigh(a, UPLO, symmetrize_input):
    (a,) = _inexact("jnp.linalg.eigh", a)
    v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigh(a, UPLO=None, symmetrize_input=True):
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix, read
    from its lower (``UPLO='L'``, default) or upper triangle."""
    util.check_arraylike("jnp.linalg.eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    return _eigh(a, UPLO=UPLO, symmetrize_input=bool(symmetrize_input))


@jit_named("eigvalsh", static_argnames=("UPLO", "symmetrize_input"))
def _eigvalsh(a, UPLO, symmetrize_input):
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    util.check_arraylike("jnp.linalg.eigvalsh", a)
    return _eigvalsh(a, UPLO=UPLO, symmetrize_input=bool(symmetrize_input))


@jit_named("svd", static_argnames=("full_matrices", "compute_uv", "hermitian", "subset_by_index"))
def _svd(a, full_matrices, compute_uv, hermitian, subset_by_index):
    (a,) = _inexact("jnp.linalg.svd", a)
    if not hermitian:
        out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                             subset_by_index=subset_by_index)
        return SVDResult(*out) if compute_uv else out
    # Hermitian: singular values are |eigenvalues|, sorted descending; the
    # eigenvalue signs move into the right singular vectors.
    vecs, vals = lax_linalg.eigh(a, subset_by_index=subset_by_index)
    s = lax.abs(vals)
    last = s.ndim - 1
    if not compute_uv:
        return lax.rev(lax_sort(s, dimension=last), (last,))
    from .advanced_indexing import take_along_axis
    sign = lax.sign(vals)
    idx = lax.broadcasted_iota(np.uint32 if s.shape[-1] < 2 ** 32 else np.uint64, s.shape, last)
    s, idx, sign = lax_sort((s, idx, sign), dimension=last, num_keys=1)
    s, idx, sign = (lax.rev(x, (last,)) for x in (s, idx, sign))
    u = take_along_axis(vecs, lax.expand_dims(idx, (last,)), axis=-1)
    vh = _H(lax.mul(u, lax._convert(lax.expand_dims(sign, (last,)), util_dtype(u), False)))
    return SVDResult(u, s, vh)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """``(U, S, Vh)`` or, without ``compute_uv``, the singular values alone
    (descending); ``hermitian=True`` reads them off ``eigh``."""
    util.check_arraylike("jnp.linalg.svd", a)
    return _svd(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                hermitian=bool(hermitian),
                subset_by_index=None if subset_by_index is None else tuple(subset_by_index))


def svdvals(x, /):
    return svd(x, compute_uv=False)


@jit_named("matrix_rank", static_argnames=("hermitian",))
def _matrix_rank(M, rtol, hermitian):
    from .reductions import any as _any
    (M,) = _inexact("jnp.linalg.matrix_rank", M)
    if M.ndim < 2:
        return lax._convert(_any(lax.ne(M, lax._convert(0, util_dtype(M), False))), np.int32,
                            False)
    s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        big = lax._convert(max(M.shape[-2:]), util_dtype(s), False)
        rtol = lax.mul(lax.mul(_max(s, axis=-1), big),
                       lax._convert(float(dtypes.finfo(util_dtype(s)).eps), util_dtype(s), False))
    rtol = asarray(rtol)
    rtol = lax.expand_dims(rtol, (rtol.ndim,))
    return _sum(s > rtol, axis=-1)


def matrix_rank(M, rtol=None, *, hermitian=False, tol=None):
    """Number of singular values above ``rtol`` (default: the largest times
    ``max(M, N) * eps``)."""
    util.check_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    return _matrix_rank(M, rtol, hermitian=bool(hermitian))


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    (a,) = _inexact("pinv", a)
    rtol = rcond if rtol is None else rtol
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return lax.full(a.shape[:-2] + (n, m), 0, util_dtype(a))
    u, s, vh = svd(a, full_matrices=False, hermitian=bool(hermitian))
    if rtol is None:
        rtol = 10 * max(m, n) * float(dtypes.finfo(util_dtype(s)).eps)
    cutoff = lax.mul(_max(s, axis=-1, keepdims=True), lax._convert(rtol, util_dtype(s), False))
    s_inv = where(lax.gt(s, cutoff), lax.div(lax.full_like(s, 1), s), lax.full_like(s, 0))
    v_scaled = lax.mul(_H(vh), lax._convert(lax.expand_dims(s_inv, (s_inv.ndim - 1,)),
                                            util_dtype(a), False))
    return matmul(v_scaled, _H(u), precision="highest")


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    a, b = _inexact("lstsq", a, b)
    if a.shape[0] != b.shape[0]:  # JAX checks this first (a 0-d operand: IndexError)
        raise ValueError("Leading dimensions of input arrays must match")
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


@jit_named("matrix_power", static_argnames=("n",))
def _matrix_power(a, n):
    if n == 0:
        return util.broadcast_to(eye(a.shape[-1], dtype=util_dtype(a)), a.shape)
    if n < 0:
        a, n = inv(a), -n
    if n <= 3:  # JAX's small-power association: (a @ a) @ a
        out = a
        for _ in range(n - 1):
            out = matmul_(out, a)
        return out
    z = result = None
    while n:
        z = a if z is None else matmul_(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul_(result, z)
    return result


def matrix_power(a, n):
    util.check_arraylike("jnp.linalg.matrix_power", a)
    a = asarray(a)
    if a.ndim < 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be at least "
                        "two-dimensional")
    if a.shape[-2] != a.shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(util.concrete_arg(n, "jnp.linalg.matrix_power n"))
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    return _matrix_power(a, n=n)


# -- norms


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or ord == 2:
        sq = lax.real(lax.mul(x, lax.conj(x))) if util_dtype(x).kind == "c" else lax.mul(x, x)
        return lax.sqrt(_sum(sq, axis=axis, keepdims=keepdims))
    absx = lax.abs(x) if util_dtype(x).kind != "u" else x
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


@jit_named("norm", static_argnames=("ord", "axis", "keepdims"))
def _norm(x, ord, axis, keepdims):
    (x,) = _inexact("norm", x)
    if axis is None:
        if ord is None:
            return _vector_norm(x, None, None, keepdims)
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
    return _vector_norm(x, ord, axis, keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)

# -- general eigenproblems


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


def eig(a):
    """Eigenvalues and right eigenvectors of a general square matrix (complex)."""
    util.check_arraylike("jnp.linalg.eig", a)
    (a,) = _inexact("jnp.linalg.eig", a)
    w, v = lax_linalg_general.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@jit_named("eigvals")
def _eigvals(a):
    (a,) = _inexact("jnp.linalg.eigvals", a)
    return lax_linalg_general.eig(a, compute_left_eigenvectors=False,
                                  compute_right_eigenvectors=False)[0]


def eigvals(a):
    util.check_arraylike("jnp.linalg.eigvals", a)
    return _eigvals(a)


@jit_named("cond", static_argnames=("p",))
def _cond(x, p):
    from .lax_numpy import isnan, logical_and, logical_not
    from .reductions import any as _any
    (x,) = _inexact("jnp.linalg.cond", x)
    if any(d == 0 for d in x.shape[-2:]):
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got arr.shape={x.shape}")
    if p is None or p == 2 or p == -2:
        s = svdvals(x)
        hi = lax.squeeze(lax.slice_along(s, 0, 1, axis=s.ndim - 1), (s.ndim - 1,))
        k = s.shape[-1]
        lo = lax.squeeze(lax.slice_along(s, k - 1, k, axis=s.ndim - 1), (s.ndim - 1,))
        if p != -2:
            return lax.div(hi, lo)
        r = lax.div(lo, hi)
    else:
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise ValueError(f"jnp.linalg.cond: for p={p}, array must be square; "
                             f"got arr.shape={x.shape}")
        r = lax.mul(norm(x, ord=p, axis=(-2, -1)), norm(inv(x), ord=p, axis=(-2, -1)))
    nan_free = logical_not(_any(isnan(x), axis=(-2, -1)))
    return where(logical_and(isnan(r), nan_free), np.inf, r)


def cond(x, p=None):
    """Condition number of ``x`` in the matrix norm ``p`` (2 by default, via
    the singular values); inf, not NaN, for a singular NaN-free matrix."""
    util.check_arraylike("jnp.linalg.cond", x)
    return _cond(x, p=p)

# -- array-API spellings over the matrix axes


def cross(x1, x2, /, *, axis=-1):
    from .tensor_contractions import cross as _cross
    util.check_arraylike("jnp.linalg.cross", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                         f"have x1.shape[axis]={x1.shape[axis]} and "
                         f"x2.shape[axis]={x2.shape[axis]}")
    return _cross(x1, x2, axis=axis)


def outer(x1, x2, /):
    util.check_arraylike("jnp.linalg.outer", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} "
                         f"x2.ndim={x2.ndim}")
    return x1[:, None] * x2[None, :]


def matrix_transpose(x, /):
    from .shape_ops import matrix_transpose as _mt
    util.check_arraylike("jnp.linalg.matrix_transpose", x)
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got ndim={x.ndim}")
    return _mt(x)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    return matmul_(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    from .tensor_contractions import tensordot as _td
    util.check_arraylike("jnp.linalg.tensordot", x1, x2)
    return _td(x1, x2, axes=axes, precision=precision,
               preferred_element_type=preferred_element_type)


def trace(x, /, *, offset=0, dtype=None):
    from .diagonals import trace as _trace
    util.check_arraylike("jnp.linalg.trace", x)
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x, /, *, offset=0):
    from .diagonals import diagonal as _diag
    util.check_arraylike("jnp.linalg.diagonal", x)
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    return _diag(x, offset=offset, axis1=-2, axis2=-1)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    from .tensor_contractions import vecdot as _vecdot
    return _vecdot(x1, x2, axis=axis, precision=precision,
                   preferred_element_type=preferred_element_type)


def multi_dot(arrays, *, precision=None):
    """``arrays[0] @ ... @ arrays[-1]`` in the cheapest association order
    (dynamic programming over the chain), the ends may be vectors."""
    util.check_arraylike("jnp.linalg.multi_dot", *arrays)
    arrs = [asarray(a) for a in arrays]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays, got {len(arrs)}")
    if any(a.ndim != 2 for a in arrs[1:-1]) or arrs[0].ndim not in (1, 2) \
            or arrs[-1].ndim not in (1, 2):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the "
                         "first and last array which may be 1 or 2 dimensional. Got array shapes "
                         f"{[a.shape for a in arrs]}")
    first_vec, last_vec = arrs[0].ndim == 1, arrs[-1].ndim == 1
    if first_vec:
        arrs[0] = lax.expand_dims(arrs[0], (0,))
    if last_vec:
        arrs[-1] = lax.expand_dims(arrs[-1], (1,))
    dims = [a.shape[0] for a in arrs] + [arrs[-1].shape[1]]
    n = len(arrs)
    cost = {(i, i): 0 for i in range(n)}
    split = {}
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            cost[i, j], split[i, j] = min(
                (cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                for k in range(i, j))

    def chain(i, j):
        if i == j:
            return arrs[i]
        k = split[i, j]
        return matmul_(chain(i, k), chain(k + 1, j), precision=precision)
    out = chain(0, n - 1)
    if first_vec:
        out = lax.squeeze(out, (0,))
    if last_vec:
        out = lax.squeeze(out, (out.ndim - 1,))
    return out


def tensorinv(a, ind=2):
    """The inverse of ``a`` seen as a linear map from its last axes to its
    first ``ind`` axes."""
    util.check_arraylike("tensorinv", a)
    a = asarray(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind}")
    out_shape, in_shape = a.shape[ind:], a.shape[:ind]
    m, n = int(np.prod(in_shape, dtype=np.int64)), int(np.prod(out_shape, dtype=np.int64))
    if m != n:
        raise ValueError("tensorinv is only possible when the product of the first `ind` "
                         "dimensions equals that of the remaining dimensions. got "
                         f"arr.shape={a.shape} with ind={ind}.")
    return lax.reshape(inv(lax.reshape(a, (m, n))), out_shape + in_shape)


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b``."""
    from .shape_ops import moveaxis
    util.check_arraylike("tensorsolve", a, b)
    a, b = asarray(a), asarray(b)
    if axes is not None:
        axes = (axes,) if isinstance(axes, int) else tuple(axes)
        a = moveaxis(a, axes, len(axes) * (a.ndim - 1,))
    out_shape = a.shape[b.ndim:]
    if a.shape[:b.ndim] != b.shape:
        raise ValueError("After moving axes to end, leading shape of a must match shape of b. "
                         f"got a.shape={a.shape}, b.shape={b.shape}")
    n = int(np.prod(out_shape, dtype=np.int64))
    if b.size != n:
        raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == "
                         f"prod(a.shape[b.ndim:]); got a.shape={a.shape}, b.ndim={b.ndim}.")
    x = solve(lax.reshape(a, (b.size, n)), lax.reshape(b, (b.size,)))
    return lax.reshape(x, out_shape)
