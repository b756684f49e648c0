"""Matrix decompositions (``xjit.lax.linalg``) as primitives.

``cholesky`` and ``triangular_solve`` lower to the StableHLO ops of the same
name, which XLA expands on every platform. ``lu``, ``qr``, ``eigh`` and
``svd`` call jaxlib's LAPACK kernels (typed-FFI custom calls, column-major
operands) and so compile only for CPU; elsewhere they raise
NotImplementedError. All operate on the trailing two axes, batched over the
rest.
"""
from __future__ import annotations


import numpy as np

from xjit._src import sharding_in_types as sit
from . import sharding_rules as _sr
from xjit._src import dtypes
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero
from xjit._src.interpreters.batching import bdim_at_front, moveaxis, not_mapped
from ..core import ShapedArray
from xjit._src.interpreters.mlir import ttype
from xjit._src.lax import lax
from xjit._src.lax import gather_scatter as gs
from xjit._src.lax.lapack import _PREFIX, finite_or_zeros, inline, lapack_call, nan_if_failed
from xjit._src.lax import cusolver


def _check_matrix(name, a, square=True):
    """JAX's checks, in its order: rank, dtype, then squareness."""
    if a.ndim < 2:
        raise TypeError(f"Input 0 to {name} must have rank at least 2, but got shape={a.shape}")
    if not dtypes.issubdtype(a.dtype, np.inexact):
        raise TypeError(f"{name} does not accept dtype {a.dtype.name} at position 0. Accepted "
                        "dtypes at position 0 are subtypes of floating, complexfloating.")
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got {a.shape}.")


def _real(dt):
    return np.dtype({"complex64": np.float32, "complex128": np.float64}.get(dt.name, dt))


_prim = lowering.define_primitive

# -- platform-neutral: cholesky and triangular_solve


def _cholesky_eval(a, **_):
    _check_matrix("cholesky", a)
    return a.update(weak_type=False)


def _cholesky_lower(ctx, ai, ao, a):
    """LAPACK potrf on CPU and cuSOLVER's on the GPU, as JAX lowers it (so
    factors agree to the bit, e.g. in random.multivariate_normal)."""
    a_aval = ai[0]
    if ctx.module_ctx.platforms[0] == "gpu" and a_aval.dtype.name in _PREFIX:
        return cusolver.cholesky(ctx, a_aval, a)  # as JAX: XLA's own is blocked with TF32 dots
    if ctx.module_ctx.platforms[0] != "cpu" or a_aval.dtype.name not in _PREFIX:
        return ctx.op("stablehlo.cholesky", [a], [ttype(a_aval)], ttype(ao[0]),
                      attrs="lower = true")
    info_aval = ShapedArray(a_aval.shape[:-2], np.int32)
    factor, info = lapack_call(ctx, "cholesky", "potrf", [a], [a_aval], [a_aval, info_aval],
                                config=f"uplo = {ord('L')} : ui8")
    return nan_if_failed(ctx, info_aval, info, [a_aval], [factor])[0]


cholesky_p = _prim("cholesky", _cholesky_eval, _cholesky_lower)


def _tri_solve_eval(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    _check_matrix("triangular_solve", a)
    if b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2]:
        raise TypeError("triangular_solve requires both arguments to have the same number of "
                        f"dimensions and equal batch dimensions, got {a.shape} and {b.shape}.")
    k = b.shape[-2] if left_side else b.shape[-1]
    if k != a.shape[-1]:
        raise TypeError(f"triangular_solve requires a.shape[-1] == b.shape[{-2 if left_side else -1}]"
                        f", got a.shape={a.shape} and b.shape={b.shape}.")
    return b.update(weak_type=False)


def _tri_solve_lower(ctx, ai, ao, a, b, *, left_side, lower, transpose_a, conjugate_a,
                     unit_diagonal):
    if conjugate_a and not transpose_a and ai[0].dtype.kind == "c":
        a = lowering.rules[_conj_p()](ctx, ai[:1], ai[:1], a, input_dtype=ai[0].dtype)
    if ctx.module_ctx.platforms[0] == "cpu" and ai[0].dtype.name in _PREFIX:
        # LAPACK's trsm, as JAX on CPU: XLA's expander multiplies by inverted
        # diagonal blocks, so an infinite pivot gives NaN where trsm gives 0
        trans = (ord("C") if conjugate_a else ord("T")) if transpose_a else ord("N")
        config = (f"diag = {ord('U' if unit_diagonal else 'N')} : ui8, "
                  f"side = {ord('L' if left_side else 'R')} : ui8, trans_x = {trans} : ui8, "
                  f"uplo = {ord('L' if lower else 'U')} : ui8")
        return lapack_call(ctx, "triangular_solve", "trsm", [a, b], list(ai), list(ao),
                            config=config)[0]
    mode = ("ADJOINT" if conjugate_a else "TRANSPOSE") if transpose_a else "NO_TRANSPOSE"
    return ctx.op("stablehlo.triangular_solve", [a, b], [ttype(ai[0]), ttype(ai[1])], ttype(ao[0]),
                  attrs=f"left_side = {str(left_side).lower()}, lower = {str(lower).lower()}, "
                        f"unit_diagonal = {str(unit_diagonal).lower()}, "
                        f"transpose_a = #stablehlo<transpose {mode}>")


def _conj_p():
    from .elementwise import conj_p
    return conj_p


triangular_solve_p = _prim("triangular_solve", _tri_solve_eval, _tri_solve_lower)

def _lu_eval(a):
    _check_matrix("lu", a, square=False)
    *batch, m, n = a.shape
    k = min(m, n)
    return [a.update(weak_type=False), ShapedArray((*batch, k), np.int32),
            ShapedArray((*batch, m), np.int32)]


def _pivots_to_permutation(pivots, m):
    """Apply the row swaps ``i <-> pivots[i]`` in order to ``arange(m)``."""
    batch = pivots.shape[:-1]
    perm = lax.broadcast_in_dim(lax.iota(np.int32, m), batch + (m,), (len(batch),))
    iota = perm
    for i in range(pivots.shape[-1]):
        p = lax.broadcast_in_dim(lax.squeeze(lax.slice_along(pivots, i, i + 1, axis=len(batch)),
                                             (len(batch),)), batch + (m,), tuple(range(len(batch))))
        pi = lax.broadcast_in_dim(lax.squeeze(lax.slice_along(perm, i, i + 1, axis=len(batch)),
                                              (len(batch),)), batch + (m,), tuple(range(len(batch))))
        at_p = lax.eq(iota, p)
        pp = lax.reduce_sum(lax.select(at_p, perm, lax.full_like(perm, 0)), (len(batch),))
        pp = lax.broadcast_in_dim(pp, batch + (m,), tuple(range(len(batch))))
        at_i = lax.eq(iota, lax.full_like(iota, i))
        perm = lax.select(at_i, pp, lax.select(at_p, pi, perm))
    return perm


def _lu_lower(ctx, ai, ao, a):
    a_aval = ai[0]
    if ctx.module_ctx.platforms[0] == "gpu":
        return cusolver.lu(ctx, a_aval, ao[2], a)
    *batch, m, n = a_aval.shape
    k = min(m, n)
    info_aval = ShapedArray(tuple(batch), np.int32)
    piv_aval = ShapedArray((*batch, k), np.int32)
    lu, ipiv, info = lapack_call(ctx, "lu", "getrf", [a], [a_aval], [a_aval, piv_aval, info_aval])

    def post(lu, ipiv, info):
        piv = lax.sub(ipiv, np.int32(1))  # LAPACK pivots are 1-based
        ok = lax.eq(info, np.int32(0))
        ok = lax.broadcast_in_dim(lax.bitwise_or(ok, lax.gt(info, np.int32(0))), lu.shape,
                                  tuple(range(len(batch))))
        lu = lax.select(ok, lu, lax.full_like(lu, np.nan))
        return [lu, piv, _pivots_to_permutation(piv, m)]
    return inline(ctx, post, [a_aval, piv_aval, info_aval], [lu, ipiv, info])


lu_p = _prim("lu", _lu_eval, _lu_lower, multiple_results=True)


def _qr_eval(a, *, pivoting=False, full_matrices=True, use_magma=None):
    _check_matrix("qr", a, square=False)
    *batch, m, n = a.shape
    k = m if full_matrices else min(m, n)
    outs = [ShapedArray((*batch, m, k), a.dtype), ShapedArray((*batch, k, n), a.dtype)]
    return outs + [ShapedArray((*batch, n), np.int32)] if pivoting else outs


def _qr_lower(ctx, ai, ao, a, *, pivoting=False, full_matrices=True, use_magma=None):
    a_aval = ai[0]
    *batch, m, n = a_aval.shape
    k = min(m, n)
    tau_aval = ShapedArray((*batch, k), a_aval.dtype)
    gpu = ctx.module_ctx.platforms[0] == "gpu"
    if pivoting and gpu:
        raise NotImplementedError("QR with column pivoting is not implemented on the GPU")
    if gpu:
        r, taus = cusolver.geqrf(ctx, a_aval, tau_aval, a)
    elif pivoting:  # column-pivoted QR (geqp3): a[..., perm] = q @ r
        piv_aval = ShapedArray((*batch, n), np.int32)
        (zeros,) = inline(ctx, lambda: [lax.full(piv_aval.shape, 0, np.int32)], [], [])
        r, jpvt, taus = lapack_call(ctx, "qr", "geqp3", [a, zeros], [a_aval, piv_aval],
                                     [a_aval, piv_aval, tau_aval])
        (perm,) = inline(ctx, lambda j: [lax.sub(j, np.int32(1))], [piv_aval], [jpvt])
    else:
        r, taus = lapack_call(ctx, "qr", "geqrf", [a], [a_aval], [a_aval, tau_aval])
    q_cols = m if full_matrices else k
    q_in_aval = ShapedArray((*batch, m, q_cols), a_aval.dtype)

    def reflectors(r):  # the Householder vectors, as a (m, q_cols) matrix for orgqr
        if q_cols <= n:
            return [lax.slice_along(r, 0, q_cols, axis=r.ndim - 1)]
        cfg = [(0, 0, 0)] * (r.ndim - 1) + [(0, q_cols - n, 0)]
        return [lax.pad(r, lax._convert(0, r.dtype, False), cfg)]

    (qin,) = inline(ctx, reflectors, [a_aval], [r])
    (q,) = (cusolver.orgqr(ctx, q_in_aval, tau_aval, qin, taus) if gpu else
            lapack_call(ctx, "qr", "orgqr", [qin, taus], [q_in_aval, tau_aval], [q_in_aval]))

    def upper(r):
        r = lax.slice_along(r, 0, ao[1].shape[-2], axis=r.ndim - 2)
        rows = lax.broadcasted_iota(np.int32, r.shape, r.ndim - 2)
        cols = lax.broadcasted_iota(np.int32, r.shape, r.ndim - 1)
        return [lax.select(lax.le(rows, cols), r, lax.full_like(r, 0))]
    (r,) = inline(ctx, upper, [a_aval], [r])
    return [q, r, perm] if pivoting else [q, r]


qr_p = _prim("qr", _qr_eval, _qr_lower, multiple_results=True)


def _eigh_eval(a, *, lower=True, sort_eigenvalues=True, subset_by_index=None, algorithm=None):
    _check_matrix("eigh", a)
    n = a.shape[-1]
    if subset_by_index is not None:
        lo, hi = subset_by_index
        n = hi - lo
    return [ShapedArray(a.shape[:-1] + (n,), a.dtype),
            ShapedArray(a.shape[:-2] + (n,), _real(a.dtype))]


def _eigh_lower(ctx, ai, ao, a, *, lower=True, sort_eigenvalues=True, subset_by_index=None,
                algorithm=None):
    if subset_by_index is not None and tuple(subset_by_index) != (0, ai[0].shape[-1]):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    a_aval = ai[0]
    if ctx.module_ctx.platforms[0] == "gpu":
        return cusolver.eigh(ctx, a_aval, ao[1], a, lower=lower, algorithm=algorithm)
    info_aval = ShapedArray(a_aval.shape[:-2], np.int32)
    uplo = ord("L") if lower else ord("U")
    v, w, info = lapack_call(ctx, "eigh", "syevd" if a_aval.dtype.kind != "c" else "heevd", [a],
                              [a_aval], [a_aval, ao[1], info_aval],
                              config=f"mode = {ord('V')} : ui8, uplo = {uplo} : ui8")
    return nan_if_failed(ctx, info_aval, info, [a_aval, ao[1]], [v, w])


eigh_p = _prim("eigh", _eigh_eval, _eigh_lower, multiple_results=True)


def _svd_eval(a, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    _check_matrix("svd", a, square=False)
    *batch, m, n = a.shape
    k = min(m, n)
    if subset_by_index is not None:
        if full_matrices and tuple(subset_by_index) != (0, k):
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        k = subset_by_index[1] - subset_by_index[0]
    s = ShapedArray((*batch, k), _real(a.dtype))
    if not compute_uv:
        return [s]
    um, vn = (m, n) if full_matrices else (k, k)
    return [s, ShapedArray((*batch, m, um), a.dtype), ShapedArray((*batch, vn, n), a.dtype)]


def _svd_lower(ctx, ai, ao, a, *, full_matrices=True, compute_uv=True, subset_by_index=None,
               algorithm=None):
    a_aval = ai[0]
    *batch, m, n = a_aval.shape
    k = min(m, n)
    if subset_by_index is not None and tuple(subset_by_index) != (0, k):
        raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    if ctx.module_ctx.platforms[0] == "gpu":
        return cusolver.svd(ctx, a_aval, list(ao), a, full_matrices=full_matrices,
                            compute_uv=compute_uv, algorithm=algorithm)
    kernel = "gesdd"
    if algorithm is not None and getattr(algorithm, "value", algorithm) in ("Jacobi", "polar"):
        raise NotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on "
                                  "CPU.")
    if algorithm is not None and getattr(algorithm, "value", algorithm) == "QR":
        kernel = "gesvd"
    um, vn = (m, n) if full_matrices else (k, k)
    s_aval = ShapedArray((*batch, k), _real(a_aval.dtype))
    u_aval = ShapedArray((*batch, m, um), a_aval.dtype)
    vt_aval = ShapedArray((*batch, vn, n), a_aval.dtype)
    info_aval = ShapedArray(tuple(batch), np.int32)
    # singular values alone: LAPACK's job "N" (as JAX; computing the vectors
    # too never returns on some matrices with an inf)
    mode = ord("N") if not compute_uv else ord("A") if full_matrices else ord("S")
    # LAPACK may never return on a matrix with an inf or a NaN (JAX hangs there):
    # such a batch element is factorized as zeros and its results made NaN
    finite_aval = ShapedArray(tuple(batch), np.bool_)
    a, finite = inline(ctx, finite_or_zeros, [a_aval], [a])
    _, s, u, vt, info = lapack_call(ctx, "svd", kernel, [a], [a_aval],
                                     [a_aval, s_aval, u_aval, vt_aval, info_aval],
                                     config=f"mode = {mode} : ui8")
    info, = inline(ctx, lambda i, f: [lax.select(f, i, lax.full_like(i, -1))],
                    [info_aval, finite_aval], [info, finite])
    outs = nan_if_failed(ctx, info_aval, info, [s_aval, u_aval, vt_aval], [s, u, vt])
    return outs if compute_uv else outs[:1]


svd_p = _prim("svd", _svd_eval, _svd_lower, multiple_results=True)
# sharding rules (JAX 0.10.2's linalg rule): batch dimensions only may be split
sit.sharding_rules.update({
    cholesky_p: _sr.linalg("cholesky", (2,)), triangular_solve_p: _sr.triangular_solve, lu_p: _sr.linalg("lu", (2,), _lu_eval),
    qr_p: _sr.linalg("qr", (2,), _qr_eval), eigh_p: _sr.linalg("eigh", (2,), _eigh_eval),
    svd_p: _sr.linalg("svd", (2,), _svd_eval)})

# -- the xjit.lax.linalg functions


def _symmetrize(x):
    return lax.div(lax.add(x, _ct(x)), lax._convert(2, x.dtype, True))


def _ct(x):
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    t = lax.transpose(x, perm)
    return lax.conj(t) if x.dtype.kind == "c" else t


def cholesky(x, *, symmetrize_input=True):
    """Lower Cholesky factor; NaN where the input is not positive definite."""
    x = lax.asarray_device(x)
    if symmetrize_input:
        x = _symmetrize(x)
    L = cholesky_p.bind(x)
    return lax.select(_tri_mask(x.shape, 0), L, lax.full_like(x, 0))


def triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False, conjugate_a=False,
                     unit_diagonal=False):
    return triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                   transpose_a=bool(transpose_a), conjugate_a=bool(conjugate_a),
                                   unit_diagonal=bool(unit_diagonal))


def lu(x):
    """(lu, pivots, permutation) of partial-pivoting LU: ``x[perm] = L @ U``."""
    return list(lu_p.bind(lax.asarray_device(x)))


def qr(x, *, pivoting=False, full_matrices=True, use_magma=None):
    """``(q, r)``, or ``(q, r, p)`` with column pivoting (``x[..., p] = q @ r``)."""
    return tuple(qr_p.bind(lax.asarray_device(x), pivoting=bool(pivoting),
                           full_matrices=bool(full_matrices), use_magma=use_magma))


def eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True, subset_by_index=None):
    """Eigenvectors (columns) and ascending eigenvalues of a Hermitian matrix."""
    x = lax.asarray_device(x)
    if symmetrize_input:
        x = _symmetrize(x)
    v, w = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues,
                       subset_by_index=subset_by_index, algorithm=None)
    return v, w


def svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    """``(u, s, vh)``, or ``s`` alone when ``compute_uv`` is False."""
    outs = svd_p.bind(lax.asarray_device(x), full_matrices=full_matrices, compute_uv=compute_uv,
                      subset_by_index=subset_by_index, algorithm=algorithm)
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


# --------------------------------------------------------------------------
# JVP, transpose and batching rules. The JVPs are the standard forward-mode
# formulas JAX uses (each expressed with triangular solves and matrix
# products, so they are themselves linear in the tangent and transpose for
# reverse mode). All operands carry leading batch axes, so batching moves the
# batch axis to the front and rebinds; a triangle shared by a batch of
# right-hand sides is solved once against them all.

# -- batched-matrix helpers


def _mm(a, b):
    """``a @ b`` over the trailing two axes, batched over the leading ones."""
    nb = a.ndim - 2
    batch = tuple(range(nb))
    return lax.dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)), precision="highest")


def _matmul(a, b, precision=None):
    """``a @ b`` as jnp.matmul binds it (the result dtype preferred), where
    JAX's rules use the ``@`` operator."""
    nb = a.ndim - 2
    batch = tuple(range(nb))
    return lax.dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)), precision=precision,
                           preferred_element_type=a.dtype)


def _T(x):
    return lax.transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def _tri_mask(shape, k):
    """True on and below the ``k``-th diagonal of the trailing two axes."""
    nd = len(shape)
    rows = lax.add(lax.broadcasted_iota(np.int32, shape, nd - 2), np.int32(k))
    return lax.ge(rows, lax.broadcasted_iota(np.int32, shape, nd - 1))


def _tril(x, k=0):
    return lax.select(_tri_mask(x.shape, k), x, lax.full_like(x, 0))


def _triu(x, k=0):
    return lax.select(_tri_mask(x.shape, k - 1), lax.full_like(x, 0), x)


def _eye(dtype, n, m=None, batch=()):
    """The identity (built as JAX builds it: iota + 0 == iota), broadcast
    over ``batch``."""
    m = n if m is None else m
    rows = lax.add(lax.broadcasted_iota(np.int32, (n, m), 0), np.int32(0))
    eye = lax.convert_element_type(lax.eq(rows, lax.broadcasted_iota(np.int32, (n, m), 1)), dtype)
    if not batch:
        return eye
    nb = len(batch)
    return lax.broadcast_in_dim(eye, tuple(batch) + (n, m), (nb, nb + 1))


def _diagonal(x):
    """The main diagonal of the trailing two axes, as a gather at (i, i)
    (the indices normalised as JAX's ``x[..., i, i]`` does)."""
    *batch, n, m = x.shape
    k = min(n, m)
    if k == 0:  # empty: no gather (its unit slices would not fit), as JAX's indexing
        return lax.full((*batch, 0), 0, x.dtype)
    nb = len(batch)
    iota = lax.iota(np.int32, k)
    wrapped = [lax.select(lax.lt(iota, np.int32(0)), lax.add(iota, np.int32(size)), iota)
               for size in (n, m)]
    idx = [lax.broadcast_in_dim(w, (k, 1), (0,)) for w in wrapped]
    dn = gs.GatherDimensionNumbers(offset_dims=tuple(range(nb)),
                                   collapsed_slice_dims=(nb, nb + 1),
                                   start_index_map=(nb, nb + 1))
    return gs.gather(x, lax.concatenate(idx, 1), dn, tuple(batch) + (1, 1),
                     mode=gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _as(x, dtype):
    return x if x.dtype == dtype else lax.convert_element_type(x, dtype)


def _real_part(x):
    return lax.real(x) if x.dtype.kind == "c" else x


def _unpermute_rows(perm, x):
    """``y`` with ``y[..., perm, :] = x``: the transposed one-hot permutation
    applied as a product (linear in ``x``)."""
    shape = perm.shape + (x.shape[-2],)
    on = lax.eq(lax.broadcast_in_dim(perm, shape, tuple(range(perm.ndim))),
                lax.broadcasted_iota(np.int32, shape, perm.ndim))
    return _mm(_T(_as(on, x.dtype)), x)


def _solve_tri(a, b, *, left_side=False, lower=False, transpose_a=False, conjugate_a=False,
               unit_diagonal=False):
    """triangular_solve, conjugating only complex operands (as JAX's wrapper)."""
    return triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                      transpose_a=transpose_a,
                                      conjugate_a=conjugate_a and a.dtype.kind == "c",
                                      unit_diagonal=unit_diagonal)

# -- cholesky


def _cholesky_jvp(primals, tangents):
    """L' = L Φ(L⁻¹ Σ' L⁻ᴴ), Φ taking the lower triangle with a halved
    diagonal (Murray, arXiv:1602.07527)."""
    (x,), (sigma_dot,) = primals, tangents
    L = _tril(cholesky_p.bind(x))
    tmp = _solve_tri(L, sigma_dot, left_side=False, transpose_a=True, conjugate_a=True,
                     lower=True)
    inner = _tril(_solve_tri(L, tmp, left_side=True, transpose_a=False, lower=True))
    n = x.shape[-1]
    phi = lax.div(inner, lax.add(np.ones((), inner.dtype), _eye(inner.dtype, n, n, x.shape[:-2])))
    return L, _mm(L, phi)

# -- triangular_solve


def _tri_solve_jvp(primals, tangents, *, left_side, lower, transpose_a, conjugate_a,
                   unit_diagonal):
    a, b = primals
    g_a, g_b = tangents
    kw = dict(left_side=left_side, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
              unit_diagonal=unit_diagonal)
    ans = triangular_solve_p.bind(a, b, **kw)
    out = None
    if type(g_a) is not Zero:
        # d(A⁻¹B) = -A⁻¹ dA A⁻¹B, with dA restricted to the triangle A uses
        k = 1 if unit_diagonal else 0
        g = _tril(g_a, -k) if lower else _triu(g_a, k)
        g = lax.neg(g)
        if transpose_a:
            g = _T(g)
        if conjugate_a and g.dtype.kind == "c":
            g = lax.conj(g)
        m, n = b.shape[-2:]

        def a_inv(rhs):
            return triangular_solve_p.bind(a, rhs, **kw)
        if left_side:  # the cheaper association of A⁻¹ ∂A X
            out = a_inv(_mm(g, ans)) if m > n else _mm(a_inv(g), ans)
        else:
            out = a_inv(_mm(ans, g)) if m < n else _mm(ans, a_inv(g))
    if type(g_b) is not Zero:
        tb = triangular_solve_p.bind(a, g_b, **kw)
        out = tb if out is None else ad.add_tangents(out, tb)
    return ans, out


def _tri_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a,
                         unit_diagonal):
    if ad.is_undefined_primal(a):
        raise NotImplementedError("triangular_solve is not linear in its first argument")
    if type(ct) is Zero:
        return [None, Zero(b.aval)]
    return [None, triangular_solve_p.bind(a, ct, left_side=left_side, lower=lower,
                                             transpose_a=not transpose_a,
                                             conjugate_a=conjugate_a,
                                             unit_diagonal=unit_diagonal)]


def _tri_solve_batch(args, dims, *, left_side, **params):
    a, b = args
    da, db = dims
    if da is not_mapped:
        # one shared triangle: fold the batch into b's free axis (columns
        # for a left solve, rows for a right one) and solve once
        nd = b.ndim
        if left_side:
            b = moveaxis(b, db, nd - 1)
            flat = lax.reshape(b, b.shape[:-2] + (b.shape[-2] * b.shape[-1],))
            out_dim = nd - 1
        else:
            b = moveaxis(b, db, nd - 2)
            flat = lax.reshape(b, b.shape[:-3] + (b.shape[-3] * b.shape[-2], b.shape[-1]))
            out_dim = nd - 2
        out = triangular_solve_p.bind(a, flat, left_side=left_side, **params)
        return lax.reshape(out, b.shape), out_dim
    size = next(x.shape[d] for x, d in zip(args, dims) if d is not not_mapped)
    a, b = bdim_at_front(a, da, size), bdim_at_front(b, db, size)
    return triangular_solve_p.bind(a, b, left_side=left_side, **params), 0

# -- lu


def _lu_jvp(primals, tangents):
    """L' = L tril(L⁻¹ P A' U⁻¹, -1), U' = triu(L⁻¹ P A' U⁻¹) U (De Hoog,
    Anderssen and Lukas), with L and U completed to square (m×m, n×n)."""
    (a,), (a_dot,) = primals, tangents
    lu, pivots, perm = lu_p.bind(a)
    *batch, m, n = a.shape
    batch = tuple(batch)
    k = min(m, n)
    nd = a.ndim
    zero = np.zeros((), lu.dtype)
    none = [(0, 0, 0)] * (nd - 2)
    lu_cols = lu if k == n else lax.slice(lu, (0,) * nd, (*batch, m, k))
    l = lax.pad(_tril(lu_cols, -1), zero, none + [(0, 0, 0), (0, m - k, 0)])
    l = lax.add(l, _eye(lu.dtype, m, m, batch))
    u_eye = lax.pad(_eye(lu.dtype, n - k, n - k, batch), zero, none + [(k, 0, 0), (k, 0, 0)])
    lu_rows = lu if k == m else lax.slice(lu, (0,) * nd, (*batch, k, n))
    u = lax.add(lax.pad(_triu(lu_rows), zero, none + [(0, n - k, 0), (0, 0, 0)]), u_eye)
    x = _take_rows(a_dot, perm)
    la_ = _solve_tri(l, x, left_side=True, transpose_a=False, lower=True, unit_diagonal=True)
    lau = _solve_tri(u, la_, left_side=False, transpose_a=False, lower=False)
    l_dot = _matmul(l, _tril(lau, -1), "highest")
    u_dot = _matmul(_triu(lau), u, "highest")
    return [lu, pivots, perm], [lax.add(l_dot, u_dot), Zero.from_primal_value(pivots),
                                Zero.from_primal_value(perm)]


def _take_rows(x, perm):
    """``x[..., perm, :]`` (a gather, linear in ``x``)."""
    *batch, m, n = x.shape
    if 0 in x.shape:  # empty: no gather (its unit slices would not fit)
        return lax.full((*batch, perm.shape[-1], n), 0, x.dtype)
    nb = len(batch)
    idx = lax.select(lax.lt(perm, np.int32(0)), lax.add(perm, np.int32(m)), perm)
    idx = lax.broadcast_in_dim(idx, perm.shape + (1,), tuple(range(perm.ndim)))
    dn = gs.GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,),
                                   start_index_map=(nb,),
                                   operand_batching_dims=tuple(range(nb)),
                                   start_indices_batching_dims=tuple(range(nb)))
    return gs.gather(x, idx, dn, (1,) * nb + (1, n), mode=gs.GatherScatterMode.PROMISE_IN_BOUNDS)

# -- qr


def _thin_qr_jvp(q, r, dx):
    """dQ, dR for a thin QR (m >= n): with C = Qᴴ dX R⁻¹ and Ω its
    skew-Hermitian part built from the strict lower triangle (plus the
    imaginary part of C's diagonal, zero for real inputs),
    dQ = Q(Ω - C) + dX R⁻¹ and dR = (C - Ω) R."""
    dx_rinv = _solve_tri(r, dx)
    c = _matmul(_ct(q), dx_rinv)
    low = _tril(c, -1)
    omega = lax.sub(low, _ct(low))
    n = r.shape[-1]
    eye = _eye(c.dtype, n, n, c.shape[:-2])
    omega = lax.add(omega, lax.mul(eye, lax.sub(c, _as(_real_part(c), c.dtype))))
    dq = lax.add(_matmul(q, lax.sub(omega, c)), dx_rinv)
    dr = _matmul(lax.sub(c, omega), r)
    return dq, dr


def _lu_solve_adjoint(lu, perm, b):
    """X with Aᴴ X = B, where ``A[perm] = L U`` is the LU factorisation."""
    y = _solve_tri(lu, b, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
    z = _solve_tri(lu, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True,
                   unit_diagonal=True)
    return _unpermute_rows(perm, z)


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    (x,), (dx,) = primals, tangents
    q, r, *p = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices,
                            use_magma=use_magma)
    *batch, m, n = x.shape
    nd = x.ndim
    start = (0,) * nd
    if pivoting:  # X P = Q R: differentiate the column-permuted matrix
        dx = _T(_take_rows(_T(dx), p[0]))
        x = _T(_take_rows(_T(x), p[0]))
    zero_p = [Zero.from_primal_value(p[0])] if pivoting else []
    if m < n:  # wide: X = Q [R1 R2]; R1 from the square block, R2 = Qᴴ X2
        x2 = lax.slice(x, (0,) * (nd - 1) + (m,), x.shape)
        dx1 = lax.slice(dx, start, (*batch, m, m))
        dx2 = lax.slice(dx, (0,) * (nd - 1) + (m,), dx.shape)
        r1 = lax.slice(r, start, (*batch, m, m))
        dq, dr1 = _thin_qr_jvp(q, r1, dx1)
        dr2 = lax.add(_matmul(_ct(dq), x2), _matmul(_ct(q), dx2))
        return [q, r, *p], [dq, lax.concatenate([dr1, dr2], nd - 1), *zero_p]
    q_mn = lax.slice(q, start, (*batch, m, n)) if full_matrices else q
    r_nn = lax.slice(r, start, (*batch, n, n)) if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return [q, r, *p], [dq_mn, dr_nn, *zero_p]
    # full Q of a tall matrix: the extra columns Q_mp follow from keeping Q
    # unitary, choosing the rotation that vanishes with Q_nn - I
    q_nn = lax.slice(q_mn, start, (*batch, n, n))
    q_pn = lax.slice(q_mn, (0,) * (nd - 2) + (n, 0), q_mn.shape)
    q_mp = lax.slice(q, (0,) * (nd - 1) + (n,), q.shape)
    dq_nn = lax.slice(dq_mn, start, (*batch, n, n))
    dq_pn = lax.slice(dq_mn, (0,) * (nd - 2) + (n, 0), dq_mn.shape)
    lu, _, perm = lu_p.bind(lax.sub(q_nn, _eye(q.dtype, n, n, batch)))
    z_pn_h = _lu_solve_adjoint(lu, perm, _ct(q_pn))
    z_pn = _ct(z_pn_h)
    dq_mp = lax.sub(_matmul(dq_mn, z_pn_h),
                    _matmul(lax.add(q_mn, _matmul(q_mp, z_pn)),
                            _ct(lax.sub(dq_pn, _matmul(z_pn, dq_nn)))))
    dq = lax.concatenate([dq_mn, dq_mp], nd - 1)
    dr = lax.concatenate([dr_nn, lax.full((*batch, m - n, n), 0, dr_nn.dtype)], nd - 2)
    return [q, r, *p], [dq, dr, *zero_p]

# -- eigh


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    """First-order perturbation theory for distinct eigenvalues:
    dw = diag(Vᴴ dA V), dV = V (F ∘ Vᴴ dA V) with F_ij = 1/(w_j - w_i)."""
    (a,), (a_dot,) = primals, tangents
    n = a.shape[-1]
    if subset_by_index is not None and tuple(subset_by_index) != (0, n):
        raise NotImplementedError("Derivatives not defined for partial eigen decomposition.")
    sym = lax.div(lax.add(a, _ct(a)), lax._convert(2, a.dtype, True))
    v, w_real = eigh_p.bind(sym, lower=lower, sort_eigenvalues=sort_eigenvalues,
                               subset_by_index=subset_by_index, algorithm=algorithm)
    w = _as(w_real, a.dtype)
    batch = a.shape[:-2]
    nb = len(batch)
    eye = _eye(a.dtype, n, n, batch)
    # F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it (no division by zero)
    plus_wj = lax.add(eye, lax.broadcast_in_dim(w, batch + (1, n), tuple(range(nb)) + (nb + 1,)))
    w_i = lax.broadcast_in_dim(w, batch + (n, 1), tuple(range(nb + 1)))
    f = lax.sub(lax.integer_pow(lax.sub(plus_wj, w_i), -1), eye)
    vdag_adot_v = _mm(_mm(_ct(v), a_dot), v)
    dv = _mm(v, lax.mul(f, vdag_adot_v))
    dw = _diagonal(_real_part(vdag_adot_v))
    return [v, w_real], [dv, dw]

# -- svd


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm=None):
    (a,), (da,) = primals, tangents
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True,
                             subset_by_index=subset_by_index, algorithm=algorithm)
    *batch, m, n = a.shape
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices")
    ut, v = _ct(u), _ct(vt)
    s_dim = _row(s, s.dtype, 1)
    ds_mat = _matmul(_matmul(ut, da, "highest"), v, "highest")
    ds = _diagonal(_real_part(ds_mat))
    if not compute_uv:
        return [s], [ds]
    # F_ij = 1 / (s_j² - s_i²) off the diagonal, 0 on it
    k = s.shape[-1]
    s_dim_t = _T(s_dim)
    eye_s = _eye(s.dtype, k, k, tuple(batch))
    diffs = lax.mul(lax.add(s_dim, s_dim_t), lax.sub(s_dim, s_dim_t))
    f = _as(lax.sub(lax.div(np.ones((), s.dtype), lax.add(diffs, eye_s)), eye_s), a.dtype)
    s_dim_c = _as(s_dim, a.dtype)
    dss = lax.mul(s_dim_c, ds_mat)  # dS diag(s)
    sds = lax.mul(_T(s_dim_c), ds_mat)  # diag(s) dS
    s_zero = _as(lax.eq(s, np.zeros((), s.dtype)), s.dtype)
    s_inv = lax.sub(lax.div(np.ones((), s.dtype), lax.add(s, s_zero)), s_zero)
    s_inv_mat = lax.mul(eye_s, _row(s_inv, s.dtype, 1))
    half = np.array(0.5, _real(a.dtype)).astype(a.dtype)
    dudv_diag = lax.mul(lax.mul(half, lax.sub(ds_mat, _ct(ds_mat))), _as(s_inv_mat, a.dtype))
    du = _matmul(u, lax.add(lax.mul(f, lax.add(dss, _ct(dss))), dudv_diag))
    dv = _matmul(v, lax.mul(f, lax.add(sds, _ct(sds))))
    if m > n:  # the part of dA outside U's column space
        dav = _matmul(da, v)
        du = lax.add(du, lax.div(lax.sub(dav, _matmul(u, _matmul(ut, dav))), s_dim_c))
    if n > m:
        dahu = _matmul(_ct(da), u)
        dv = lax.add(dv, lax.div(lax.sub(dahu, _matmul(v, _matmul(vt, dahu))), s_dim_c))
    return [s, u, vt], [ds, du, _ct(dv)]


def _row(s, dtype, rows):
    """``s`` broadcast along a new second-to-last axis of length ``rows``."""
    nb = s.ndim - 1
    shape = s.shape[:-1] + (rows, s.shape[-1])
    return _as(lax.broadcast_in_dim(s, shape, tuple(range(nb)) + (nb + 1,)), dtype)

# -- batching: every decomposition is already batched over leading axes


def _front_batch(prim):
    """Move each operand's batch axis to the front (broadcasting unbatched
    ones) and rebind: the kernels loop over leading axes themselves."""
    def rule(args, dims, **params):
        size = next(x.shape[d] for x, d in zip(args, dims) if d is not not_mapped)
        outs = prim.bind(*[bdim_at_front(x, d, size) for x, d in zip(args, dims)], **params)
        return (outs, [0] * len(outs)) if prim.multiple_results else (outs, 0)
    return rule


ad.jvp_rules[cholesky_p] = _cholesky_jvp
ad.jvp_rules[triangular_solve_p] = _tri_solve_jvp
ad.transpose_rules[triangular_solve_p] = _tri_solve_transpose
ad.jvp_rules[lu_p] = _lu_jvp
ad.jvp_rules[qr_p] = _qr_jvp
ad.jvp_rules[eigh_p] = _eigh_jvp
ad.jvp_rules[svd_p] = _svd_jvp
batching.batch_rules[triangular_solve_p] = _tri_solve_batch
for _p in (cholesky_p, lu_p, qr_p, eigh_p, svd_p):
    batching.batch_rules[_p] = _front_batch(_p)
del _p
