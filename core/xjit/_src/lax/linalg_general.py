"""The nonsymmetric and structured decompositions of ``xjit.lax.linalg``:
``eig`` (LAPACK geev), ``schur`` (gees), ``hessenberg`` (gehrd),
``tridiagonal`` (sytrd/hetrd), ``tridiagonal_solve`` (gtsv), the
Householder pieces ``geqrf``/``householder_product``/``ormqr``, plus
``lu_pivots_to_permutation``, ``symmetric_product`` and ``cholesky_update``
(plain lax, lowered inline).

The LAPACK ones are jaxlib's typed-FFI CPU kernels, so, like ``lu`` and
``svd`` in :mod:`.linalg`, they compile only for CPU. A batch element whose
LAPACK ``info`` is nonzero comes back as NaN, as in JAX.
"""
from __future__ import annotations

import enum

import numpy as np

from .. import dtypes
from xjit._src import sharding_in_types as sit
from . import sharding_rules as _sr
from xjit._src.interpreters import ad, batching
from ..core import ShapedArray
from xjit._src.lax import lax
from .lapack import _layout, _register_lapack, ffi_call, inline, lapack_call, nan_if_failed
from .linalg import (
    _T, _as, _ct, _diagonal, _eye, _front_batch, _mm, _pivots_to_permutation, _prim, _solve_tri,
    _take_rows, _tri_mask, lu_p)


class EigImplementation(enum.Enum):
    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


class EighImplementation(enum.Enum):
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


_FLOATS = "subtypes of floating, complexfloating"


def _check_operand(name, a, i=0, rank=2):
    """JAX's generic linalg checks, in its order: rank, then dtype."""
    if a.ndim < rank:
        raise TypeError(f"Input {i} to {name} must have rank at least {rank}, but got "
                        f"shape={a.shape}")
    if not dtypes.issubdtype(a.dtype, np.inexact):
        raise TypeError(f"{name} does not accept dtype {a.dtype.name} at position {i}. "
                        f"Accepted dtypes at position {i} are {_FLOATS}.")


def _complex(dt):
    return np.dtype(np.complex128 if dt in (np.float64, np.complex128) else np.complex64)


def _real(dt):
    return np.dtype({"complex64": np.float32, "complex128": np.float64}.get(dt.name, dt))


def _info(a):
    return ShapedArray(a.shape[:-2], np.int32)

# -- eig


def _eig_eval(a, *, compute_left_eigenvectors, compute_right_eigenvectors,
              enable_eigvec_derivs, implementation):
    _check_operand("eig", a)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The input to eig must be a square matrix. Got shape {a.shape[-2:]}.")
    c = _complex(a.dtype)
    outs = [ShapedArray(a.shape[:-1], c)]
    outs += [ShapedArray(a.shape, c)] * (int(compute_left_eigenvectors)
                                         + int(compute_right_eigenvectors))
    return outs


def _eig_lower(ctx, ai, ao, a, *, compute_left_eigenvectors, compute_right_eigenvectors,
               enable_eigvec_derivs, implementation):
    if implementation not in (None, EigImplementation.LAPACK):
        raise ValueError("Only the lapack implementation is supported on CPU.")
    a_aval = ai[0]
    real = a_aval.dtype.kind == "f"
    w_aval = ShapedArray(a_aval.shape[:-1], a_aval.dtype)
    v_aval = ShapedArray(a_aval.shape, _complex(a_aval.dtype))
    outs = [w_aval] * (2 if real else 1) + [v_aval, v_aval, _info(a_aval)]
    mode = lambda on: ord("V") if on else ord("N")  # noqa: E731
    *w, vl, vr, info = lapack_call(
        ctx, "eig", "geev", [a], [a_aval], outs,
        config=f"compute_left = {mode(compute_left_eigenvectors)} : ui8, "
               f"compute_right = {mode(compute_right_eigenvectors)} : ui8")
    if real:
        (w,) = inline(ctx, lambda re, im: [lax.complex(re, im)], [w_aval, w_aval], w)
    else:
        (w,) = w
    vals, avals = [w], [ao[0]]
    if compute_left_eigenvectors:
        vals.append(vl)
        avals.append(v_aval)
    if compute_right_eigenvectors:
        vals.append(vr)
        avals.append(v_aval)
    return nan_if_failed(ctx, _info(a_aval), info, avals, vals)


eig_p = _prim("eig", _eig_eval, _eig_lower, multiple_results=True)


def eig(x, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
        enable_eigvec_derivs=False, implementation=None, use_magma=None):
    """Eigenvalues and (left/right, as asked) eigenvectors of a general
    square matrix, always complex; eigenvectors have unit 2-norm."""
    return list(eig_p.bind(lax.asarray_device(x),
                           compute_left_eigenvectors=compute_left_eigenvectors,
                           compute_right_eigenvectors=compute_right_eigenvectors,
                           enable_eigvec_derivs=enable_eigvec_derivs,
                           implementation=implementation))

# -- schur and hessenberg


def _schur_eval(a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _check_operand("schur", a)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The input to schur must be a square matrix. Got shape {a.shape[-2:]}.")
    out = a.update(weak_type=False)
    return [out, out] if compute_schur_vectors else [out]


def _schur_lower(ctx, ai, ao, a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")
    a_aval = ai[0]
    w_aval = ShapedArray(a_aval.shape[:-1], a_aval.dtype)
    ws = [w_aval] * (2 if a_aval.dtype.kind == "f" else 1)
    mode = ord("V") if compute_schur_vectors else ord("N")
    t, vs, *_, info = lapack_call(ctx, "schur", "gees", [a], [a_aval],
                                   [a_aval, a_aval, *ws, _info(a_aval), _info(a_aval)],
                                   config=f"mode = {mode} : ui8, sort = {ord('N')} : ui8")
    vals = [t, vs] if compute_schur_vectors else [t]
    return nan_if_failed(ctx, _info(a_aval), info, [a_aval] * len(vals), vals)


schur_p = _prim("schur", _schur_eval, _schur_lower, multiple_results=True)


def schur(x, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
    """``(T, Z)`` with ``x = Z T Z^H``: T quasi-upper-triangular (real input)
    or upper-triangular (complex)."""
    return list(schur_p.bind(lax.asarray_device(x), compute_schur_vectors=compute_schur_vectors,
                             sort_eig_vals=sort_eig_vals, select_callable=select_callable))


def _hessenberg_eval(a):
    _check_operand("hessenberg", a)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError("Argument to Hessenberg reduction must have shape [..., n, n], "
                         f"got shape {a.shape[-2:]}")
    out = a.update(weak_type=False)
    return [out, ShapedArray(a.shape[:-2] + (a.shape[-1] - 1,), a.dtype)]


def _hessenberg_lower(ctx, ai, ao, a):
    a_aval = ai[0]
    n = a_aval.shape[-1]
    h, taus, info = lapack_call(ctx, "hessenberg", "gehrd", [a], [a_aval],
                                 [a_aval, ao[1], _info(a_aval)],
                                 config=f"high = {n} : i32, low = 1 : i32")
    return nan_if_failed(ctx, _info(a_aval), info, [a_aval, ao[1]], [h, taus])


hessenberg_p = _prim("hessenberg", _hessenberg_eval, _hessenberg_lower, multiple_results=True)


def hessenberg(a):
    """``(h, taus)``: the upper Hessenberg form with the Householder
    reflectors below its first subdiagonal, packed as LAPACK's gehrd does."""
    return list(hessenberg_p.bind(lax.asarray_device(a)))

# -- tridiagonal reduction and solve


def _tridiagonal_eval(a, *, lower):
    _check_operand("tridiagonal", a)
    n = a.shape[-1]
    if a.shape[-2] != n or n == 0:
        raise ValueError(f"The input to tridiagonal must be a square matrix. Got shape "
                         f"{a.shape[-2:]}.")
    b, r = a.shape[:-2], _real(a.dtype)
    return [a.update(weak_type=False), ShapedArray(b + (n,), r), ShapedArray(b + (n - 1,), r),
            ShapedArray(b + (n - 1,), a.dtype)]


def _tridiagonal_lower(ctx, ai, ao, a, *, lower):
    a_aval = ai[0]
    name = "sytrd" if a_aval.dtype.kind == "f" else "hetrd"
    *outs, info = lapack_call(ctx, "tridiagonal", name, [a], [a_aval],
                               [*ao, _info(a_aval)],
                               config=f"uplo = {ord('L') if lower else ord('U')} : ui8")
    return nan_if_failed(ctx, _info(a_aval), info, list(ao), outs)


tridiagonal_p = _prim("tridiagonal", _tridiagonal_eval, _tridiagonal_lower,
                      multiple_results=True)


def tridiagonal(a, *, lower=True):
    """``(arr, d, e, taus)``: Householder reduction of a Hermitian matrix to
    real symmetric tridiagonal form (diagonal ``d``, off-diagonal ``e``)."""
    return list(tridiagonal_p.bind(lax.asarray_device(a), lower=bool(lower)))


def _tri_solve_eval(dl, d, du, b, *, perturb_singular):
    for i, x in enumerate((dl, d, du)):
        _check_operand("tridiagonal_solve", x, i, rank=1)
    _check_operand("tridiagonal_solve", b, 3)
    if dl.shape != d.shape or dl.shape != du.shape:
        raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same "
                        "shape.")
    if dl.shape != b.shape[:-1]:
        raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b "
                        "equal the dimensions of the diagonal arguments.")
    if len({x.dtype for x in (dl, d, du, b)}) != 1:
        raise TypeError("tridiagonal_solve requires all arguments to have the same dtype, got "
                        f"{', '.join(x.dtype.name for x in (dl, d, du, b))}.")
    return b.update(weak_type=False)


def _tri_solve_lower(ctx, ai, ao, dl, d, du, b, *, perturb_singular):
    b_aval = ai[3]
    nb = b_aval.ndim - 2
    if perturb_singular:  # jaxlib's own kernel: pivoted elimination, tiny pivots perturbed
        if ctx.module_ctx.platforms[0] != "cpu":
            raise NotImplementedError("tridiagonal_solve(perturb_singular=True) is implemented "
                                      "on CPU only (jaxlib's tridiagonal_solve_perturbed kernel)")
        _register_lapack()
        return ffi_call(ctx, "tridiagonal_solve_perturbed_ffi", [dl, d, du, b], list(ai),
                        [b_aval], "", lambda a: _layout(a.ndim, nb))[0]
    *_, x, info = lapack_call(ctx, "tridiagonal_solve", "gtsv", [dl, d, du, b], list(ai),
                               [*ai, _info(b_aval)], nbatch=nb)
    return nan_if_failed(ctx, _info(b_aval), info, [b_aval], [x])[0]


tridiagonal_solve_p = _prim("tridiagonal_solve", _tri_solve_eval, _tri_solve_lower)


def _tridiagonal_product(dl, d, du, b):
    """``A @ b`` for the tridiagonal A given by its diagonals (``dl[0]`` and
    ``du[-1]`` unused): the diagonal product plus the two off-diagonal ones,
    shifted one row down and up."""
    nd = b.ndim
    n = b.shape[-2]
    col = lambda v: lax.expand_dims(v, (nd - 1,))  # noqa: E731  (a diagonal as a column)
    rows = lambda v, lo, hi: lax.slice_in_dim(v, lo, hi, axis=nd - 2)  # noqa: E731
    zero = lax._const(b, 0)
    below = lax.mul(col(rows(dl, 1, n)), rows(b, 0, n - 1))
    above = lax.mul(col(rows(du, 0, n - 1)), rows(b, 1, n))
    pad = [(0, 0, 0)] * nd
    y = lax.mul(col(d), b)
    y = lax.add(y, lax.pad(below, zero, pad[:nd - 2] + [(1, 0, 0), (0, 0, 0)]))
    return lax.add(y, lax.pad(above, zero, pad[:nd - 2] + [(0, 1, 0), (0, 0, 0)]))


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    """x = A⁻¹b, so dx = A⁻¹(db - dA x)."""
    *diags, _ = primals
    *ddiags, db = tangents
    x = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    if all(type(t) is ad.Zero for t in ddiags):
        if type(db) is ad.Zero:
            return x, ad.Zero.from_primal_value(x)
        rhs = db
    else:
        dax = _tridiagonal_product(*[ad.instantiate_zeros(t) for t in ddiags], x)
        rhs = lax.neg(dax) if type(db) is ad.Zero else lax.sub(db, dax)
    return x, tridiagonal_solve_p.bind(*diags, rhs, perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    """Linear in ``b`` only: solve with Aᵀ, whose diagonals are ``du`` shifted
    down and ``dl`` shifted up."""
    if type(ct) is ad.Zero:
        return [None, None, None, ad.Zero(b.aval)]
    last = du.ndim - 1
    n = du.shape[-1]
    zero = lax._const(du, 0)
    pad = [(0, 0, 0)] * last
    dl_t = lax.pad(lax.slice_in_dim(du, 0, n - 1, axis=last), zero, pad + [(1, 0, 0)])
    du_t = lax.pad(lax.slice_in_dim(dl, 1, n, axis=last), zero, pad + [(0, 1, 0)])
    return [None, None, None, tridiagonal_solve_p.bind(dl_t, d, du_t, ct,
                                                       perturb_singular=perturb_singular)]


def tridiagonal_solve(dl, d, du, b, *, perturb_singular=False):
    """Solve ``A X = B`` for tridiagonal A given by its three diagonals
    (``dl[0]`` and ``du[-1]`` are ignored)."""
    args = [lax.asarray_device(x) for x in (dl, d, du, b)]
    return tridiagonal_solve_p.bind(*args, perturb_singular=bool(perturb_singular))

# -- Householder QR pieces: geqrf, householder_product (orgqr), ormqr


def _geqrf_eval(a):
    _check_operand("geqrf", a)
    *batch, m, n = a.shape
    return [a.update(weak_type=False), ShapedArray((*batch, min(m, n)), a.dtype)]


def _geqrf_lower(ctx, ai, ao, a):
    return lapack_call(ctx, "geqrf", "geqrf", [a], list(ai), list(ao))


geqrf_p = _prim("geqrf", _geqrf_eval, _geqrf_lower, multiple_results=True)


def geqrf(a):
    """LAPACK's packed QR: R on and above the diagonal, the Householder
    vectors below it, and their scales ``taus``."""
    return list(geqrf_p.bind(lax.asarray_device(a)))


def _check_taus(name, a, taus):
    _check_operand(name, a)
    _check_operand(name, taus, 1, rank=1)
    if taus.dtype != a.dtype:
        raise TypeError(f"{name} requires a and taus to have the same dtype, got "
                        f"{a.dtype.name} and {taus.dtype.name}.")
    if taus.shape[:-1] != a.shape[:-2] or taus.shape[-1] > min(a.shape[-2:]):
        raise ValueError(f"Type mismatch for {name}: a.shape={a.shape}, taus.shape={taus.shape}")


def _householder_eval(a, taus):
    _check_taus("householder_product", a, taus)
    if a.shape[-2] < a.shape[-1]:
        raise ValueError("The first argument to householder_product must have at least as many "
                         f"rows as columns, got shape {a.shape[-2:]}")
    return a.update(weak_type=False)


def _householder_lower(ctx, ai, ao, a, taus):
    return lapack_call(ctx, "householder_product", "orgqr", [a, taus], list(ai), [ao[0]])[0]


householder_product_p = _prim("householder_product", _householder_eval, _householder_lower)


def householder_product(a, taus):
    """The first ``a.shape[-1]`` columns of the product of the Householder
    reflectors stored in ``(a, taus)`` (LAPACK orgqr/ungqr)."""
    return householder_product_p.bind(lax.asarray_device(a), lax.asarray_device(taus))


def _ormqr_eval(a, taus, c, *, left, transpose):
    _check_taus("ormqr", a, taus)
    _check_operand("ormqr", c, 2)
    if c.dtype != a.dtype or c.shape[:-2] != a.shape[:-2] \
            or a.shape[-2] != c.shape[-2 if left else -1]:
        raise ValueError(f"Type mismatch for ormqr: a.shape={a.shape}, c.shape={c.shape}, "
                         f"left={left}")
    return c.update(weak_type=False)


def _ormqr_lower(ctx, ai, ao, a, taus, c, *, left, transpose):
    return lapack_call(ctx, "ormqr", "ormqr", [a, taus, c], list(ai), [ao[0]],
                        config=f"left = {str(left).lower()}, "
                               f"transpose = {str(transpose).lower()}")[0]


ormqr_p = _prim("ormqr", _ormqr_eval, _ormqr_lower)


def ormqr(a, taus, c, *, left=True, transpose=False):
    """``Q @ c`` (``c @ Q`` when not ``left``; ``Q^H`` when ``transpose``) for
    the Q held as Householder reflectors in ``(a, taus)``."""
    return ormqr_p.bind(lax.asarray_device(a), lax.asarray_device(taus), lax.asarray_device(c),
                        left=bool(left), transpose=bool(transpose))

# -- pivots


def _pivots_eval(pivots, *, permutation_size):
    _check_pivots(pivots)
    if pivots.shape[-1] > permutation_size:
        raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing "
                         f"dimension of the pivots. Got pivots size {pivots.shape[-1]}")
    return ShapedArray(pivots.shape[:-1] + (permutation_size,), np.int32)


def _check_pivots(p):
    if p.ndim < 1:
        raise TypeError(f"Input 0 to lu_pivots_to_permutation must have rank at least 1, but got "
                        f"shape={p.shape}")
    if p.dtype != np.int32:
        raise TypeError(f"lu_pivots_to_permutation does not accept dtype {p.dtype.name} at "
                        "position 0. Accepted dtypes at position 0 are subtypes of int32.")


def _pivots_lower(ctx, ai, ao, pivots, *, permutation_size):
    return inline(ctx, lambda p: [_pivots_to_permutation(p, permutation_size)], ai, [pivots])[0]


lu_pivots_to_permutation_p = _prim("lu_pivots_to_permutation", _pivots_eval, _pivots_lower)


def lu_pivots_to_permutation(pivots, permutation_size):
    """The row permutation that applying LU's swaps ``i <-> pivots[i]`` in
    order makes of ``arange(permutation_size)``."""
    return lu_pivots_to_permutation_p.bind(lax.asarray_device(pivots),
                                           permutation_size=int(permutation_size))

# -- symmetric products and rank-1 Cholesky updates (plain lax, any platform)


def _sym_eval(a, c, *, alpha, beta):
    _check_operand("symmetric_product", a)
    _check_operand("symmetric_product", c, 1)
    if a.dtype.kind == "c":
        raise TypeError(f"symmetric_product does not accept dtype {a.dtype.name} at position 0. "
                        "Accepted dtypes at position 0 are subtypes of floating.")
    if c.shape[-2:] != (a.shape[-2],) * 2 or c.shape[:-2] != a.shape[:-2]:
        raise ValueError("symmetric_update expects a rectangular matrix of shape (m, n) and a "
                         f"square matrix of shape (n, n). Got shapes {a.shape} and {c.shape}.")
    return c.update(weak_type=False)


def _sym_product(a, c, alpha, beta):
    nb = a.ndim - 2
    batch = tuple(range(nb))
    at = lax.transpose(a, batch + (nb + 1, nb))
    aat = lax.dot_general(a, at, (((nb + 1,), (nb,)), (batch, batch)), precision="highest")
    scale = lambda v, x: lax.mul(lax.full_like(x, v), x)  # noqa: E731
    return [lax.add(scale(alpha, aat), scale(beta, c))]


symmetric_product_p = _prim(
    "symmetric_product", _sym_eval,
    lambda ctx, ai, ao, a, c, *, alpha, beta: inline(
        ctx, lambda a, c: _sym_product(a, c, alpha, beta), ai, [a, c])[0])


def symmetric_product(a_matrix, c_matrix, *, alpha=1.0, beta=0.0, symmetrize_output=False):
    """``alpha * a @ a.T + beta * c``; with ``symmetrize_output`` the lower
    triangle is mirrored onto the upper one."""
    out = symmetric_product_p.bind(lax.asarray_device(a_matrix), lax.asarray_device(c_matrix),
                                   alpha=alpha, beta=beta)
    if not symmetrize_output:
        return out
    nb = out.ndim - 2
    strict = lax.select(_tri_mask(out.shape, -1), out, lax.full_like(out, 0))
    upper = lax.transpose(strict, tuple(range(nb)) + (nb + 1, nb))
    return lax.add(lax.select(_tri_mask(out.shape, 0), out, lax.full_like(out, 0)), upper)


def _chol_update_eval(r, w):
    if r.ndim != 2 or w.ndim != 1 or r.shape != (w.shape[0],) * 2:
        raise ValueError("Rank-1 update to Cholesky decomposition takes a square matrix and a "
                         f"vector of the same size as input. Got shapes {r.shape} and {w.shape} "
                         "instead")
    _check_operand("cholesky_update", r)
    return r.update(weak_type=False)


def _chol_update(r, w):
    """Givens-style sweep: row k of R absorbs w[k], then w is rotated so it
    only touches the later rows."""
    n = r.shape[0]
    rows = []
    for k in range(n):
        row = lax.squeeze(lax.slice(r, (k, 0), (k + 1, n)), (0,))
        rkk = lax.squeeze(lax.slice(row, (k,), (k + 1,)), (0,))
        wk = lax.squeeze(lax.slice(w, (k,), (k + 1,)), (0,))
        rad = lax.sqrt(lax.add(lax.mul(rkk, rkk), lax.mul(wk, wk)))
        c, s_ = lax.div(rad, rkk), lax.div(wk, rkk)
        later = lax.gt(lax.iota(np.int32, n), lax.full((n,), k, np.int32))
        new_row = lax.div(lax.add(row, lax.mul(lax.full_like(w, s_), w)), lax.full_like(row, c))
        at_k = lax.eq(lax.iota(np.int32, n), lax.full((n,), k, np.int32))
        new_row = lax.select(later, new_row, lax.select(at_k, lax.full_like(row, rad), row))
        w = lax.select(later, lax.sub(lax.mul(lax.full_like(w, c), w),
                                      lax.mul(lax.full_like(w, s_), new_row)), w)
        rows.append(lax.reshape(new_row, (1, n)))
    return [lax.concatenate(rows, 0)]


cholesky_update_p = _prim("cholesky_update", _chol_update_eval,
                          lambda ctx, ai, ao, r, w: inline(ctx, _chol_update, ai, [r, w])[0])


def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor of ``R^T R + w w^T`` given the factor ``R``."""
    return cholesky_update_p.bind(lax.asarray_device(r_matrix), lax.asarray_device(w_vector))


# -- eig's JVP, and batching: every operand here already carries leading
# batch axes


def _lu_solve(a, b):
    """A⁻¹ B through the LU factorisation of ``a`` (linear in ``b``)."""
    lu, _, perm = lu_p.bind(a)
    y = _solve_tri(lu, _take_rows(b, perm), left_side=True, lower=True, unit_diagonal=True)
    return _solve_tri(lu, y, left_side=True, lower=False)


def _eig_vec_jvp(w, v, da):
    """dw = diag(V⁻¹ dA V) and dV = V (F ∘ V⁻¹ dA V) + V diag(c), where c
    keeps LAPACK's normalisation (unit 2-norm, largest component real)."""
    n = w.shape[-1]
    batch = w.shape[:-1]
    nb = len(batch)
    eye = _eye(w.dtype, n, n, batch)
    w_j = lax.broadcast_in_dim(w, batch + (1, n), tuple(range(nb)) + (nb + 1,))
    w_i = lax.broadcast_in_dim(w, batch + (n, 1), tuple(range(nb + 1)))
    f = lax.sub(lax.div(np.ones((), w.dtype), lax.sub(lax.add(eye, w_j), w_i)), eye)
    p = _mm(_lu_solve(v, da), v)
    u = _mm(v, lax.mul(f, p))
    rows = v.ndim - 2
    k = lax.argmax(lax.abs(v), rows, np.int32)
    mask = _as(lax.eq(lax.broadcasted_iota(np.int32, v.shape, rows),
                      lax.expand_dims(k, (rows,))), v.dtype)
    re = lax.neg(lax.real(lax.reduce_sum(lax.mul(lax.conj(v), u), (rows,))))
    im = lax.div(lax.neg(lax.imag(lax.reduce_sum(lax.mul(mask, u), (rows,)))),
                 lax.real(lax.reduce_sum(lax.mul(mask, v), (rows,))))
    c = lax.complex(re, im)
    return _diagonal(p), lax.add(u, lax.mul(v, lax.expand_dims(c, (rows,))))


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
    (a,), (da,) = primals, tangents
    left, right = compute_left_eigenvectors, compute_right_eigenvectors
    if (left or right) and not enable_eigvec_derivs:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
            "input that JAX cannot check (see the enable_eigvec_derivs argument to "
            "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt "
            "in. See https://github.com/jax-ml/jax/issues/2748 for discussion.")
    outs = eig_p.bind(a, compute_left_eigenvectors=left, compute_right_eigenvectors=True,
                          enable_eigvec_derivs=enable_eigvec_derivs,
                          implementation=implementation)
    w, vr = outs[0], outs[-1]
    da = _as(da, vr.dtype)
    if not (left or right):
        dw = lax.reduce_sum(lax.mul(_lu_solve(vr, da), _T(vr)), (vr.ndim - 1,))
        return [w], [dw]
    dw, dvr = _eig_vec_jvp(w, vr, da)
    primal_out, tangent_out = [w], [dw]
    if left:
        _, dvl = _eig_vec_jvp(lax.conj(w), outs[1], _ct(da))
        primal_out.append(outs[1])
        tangent_out.append(dvl)
    if right:
        primal_out.append(vr)
        tangent_out.append(dvr)
    return primal_out, tangent_out


ad.jvp_rules[eig_p] = _eig_jvp
ad.jvp_rules[tridiagonal_solve_p] = _tridiagonal_solve_jvp
ad.transpose_rules[tridiagonal_solve_p] = _tridiagonal_solve_transpose
for _p in (eig_p, schur_p, hessenberg_p, tridiagonal_p, tridiagonal_solve_p, geqrf_p,
           householder_product_p, ormqr_p, lu_pivots_to_permutation_p, symmetric_product_p):
    batching.batch_rules[_p] = _front_batch(_p)
del _p

# sharding rules (JAX 0.10.2's linalg rule: only batch dimensions may be split)
sit.sharding_rules.update({
    eig_p: _sr.linalg("eig", (2,), _eig_eval), schur_p: _sr.linalg("schur", (2,), _schur_eval),
    hessenberg_p: _sr.linalg("hessenberg", (2,), _hessenberg_eval),
    tridiagonal_p: _sr.linalg("tridiagonal", (2,), _tridiagonal_eval),
    tridiagonal_solve_p: _sr.linalg("tridiagonal_solve", (1, 1, 1, 2)),
    geqrf_p: _sr.linalg("geqrf", (2,), _geqrf_eval),
    householder_product_p: _sr.linalg("householder_product", (2, 1)),
    ormqr_p: _sr.linalg("ormqr", (2, 1, 2)),
    lu_pivots_to_permutation_p: _sr.linalg("lu_pivots_to_permutation", (1,)),
    symmetric_product_p: _sr.linalg("symmetric_product", (2, 2)),
    cholesky_update_p: _sr.linalg("cholesky_update", (2, 1))})
