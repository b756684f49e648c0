"""JVP, transpose and batching rules for the matrix decompositions of
``lax.linalg`` (cholesky, triangular_solve, lu, qr, eigh, svd; eig's JVP).

The JVPs are the standard forward-mode formulas JAX uses (each expressed
with triangular solves and matrix products, so they are themselves linear in
the tangent and transpose for reverse mode). All operands carry leading batch
axes, so batching moves the batch axis to the front and rebinds; a triangle
shared by a batch of right-hand sides is solved once against them all.
"""
from __future__ import annotations

import numpy as np

from xjit._src.interpreters import ad
from xjit._src.interpreters.ad import Zero
from xjit._src.interpreters.batching import batch_rules, bdim_at_front, moveaxis, not_mapped
from xjit._src.lax import lax
from . import linalg as la
from . import linalg_general as lag
from . import slicing as sl

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


def _H(x):
    t = _T(x)
    return lax.conj(t) if x.dtype.kind == "c" else t


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
    nb = len(batch)
    iota = lax.iota(np.int32, k)
    wrapped = [lax.select(lax.lt(iota, np.int32(0)), lax.add(iota, np.int32(size)), iota)
               for size in (n, m)]
    idx = [lax.broadcast_in_dim(w, (k, 1), (0,)) for w in wrapped]
    dn = sl.GatherDimensionNumbers(offset_dims=tuple(range(nb)),
                                   collapsed_slice_dims=(nb, nb + 1),
                                   start_index_map=(nb, nb + 1))
    return sl.gather(x, lax.concatenate(idx, 1), dn, tuple(batch) + (1, 1),
                     mode=sl.GatherScatterMode.PROMISE_IN_BOUNDS)


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
    return la.triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                      transpose_a=transpose_a,
                                      conjugate_a=conjugate_a and a.dtype.kind == "c",
                                      unit_diagonal=unit_diagonal)

# -- cholesky


def _cholesky_jvp(primals, tangents):
    """L' = L Φ(L⁻¹ Σ' L⁻ᴴ), Φ taking the lower triangle with a halved
    diagonal (Murray, arXiv:1602.07527)."""
    (x,), (sigma_dot,) = primals, tangents
    L = _tril(la.cholesky_p.bind(x))
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
    ans = la.triangular_solve_p.bind(a, b, **kw)
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
            return la.triangular_solve_p.bind(a, rhs, **kw)
        if left_side:  # the cheaper association of A⁻¹ ∂A X
            out = a_inv(_mm(g, ans)) if m > n else _mm(a_inv(g), ans)
        else:
            out = a_inv(_mm(ans, g)) if m < n else _mm(ans, a_inv(g))
    if type(g_b) is not Zero:
        tb = la.triangular_solve_p.bind(a, g_b, **kw)
        out = tb if out is None else ad.add_tangents(out, tb)
    return ans, out


def _tri_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a,
                         unit_diagonal):
    if ad.is_undefined_primal(a):
        raise NotImplementedError("triangular_solve is not linear in its first argument")
    if type(ct) is Zero:
        return [None, Zero(b.aval)]
    return [None, la.triangular_solve_p.bind(a, ct, left_side=left_side, lower=lower,
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
        out = la.triangular_solve_p.bind(a, flat, left_side=left_side, **params)
        return lax.reshape(out, b.shape), out_dim
    size = next(x.shape[d] for x, d in zip(args, dims) if d is not not_mapped)
    a, b = bdim_at_front(a, da, size), bdim_at_front(b, db, size)
    return la.triangular_solve_p.bind(a, b, left_side=left_side, **params), 0

# -- lu


def _lu_jvp(primals, tangents):
    """L' = L tril(L⁻¹ P A' U⁻¹, -1), U' = triu(L⁻¹ P A' U⁻¹) U (De Hoog,
    Anderssen and Lukas), with L and U completed to square (m×m, n×n)."""
    (a,), (a_dot,) = primals, tangents
    lu, pivots, perm = la.lu_p.bind(a)
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
    nb = len(batch)
    idx = lax.select(lax.lt(perm, np.int32(0)), lax.add(perm, np.int32(m)), perm)
    idx = lax.broadcast_in_dim(idx, perm.shape + (1,), tuple(range(perm.ndim)))
    dn = sl.GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,),
                                   start_index_map=(nb,),
                                   operand_batching_dims=tuple(range(nb)),
                                   start_indices_batching_dims=tuple(range(nb)))
    return sl.gather(x, idx, dn, (1,) * nb + (1, n), mode=sl.GatherScatterMode.PROMISE_IN_BOUNDS)

# -- qr


def _thin_qr_jvp(q, r, dx):
    """dQ, dR for a thin QR (m >= n): with C = Qᴴ dX R⁻¹ and Ω its
    skew-Hermitian part built from the strict lower triangle (plus the
    imaginary part of C's diagonal, zero for real inputs),
    dQ = Q(Ω - C) + dX R⁻¹ and dR = (C - Ω) R."""
    dx_rinv = _solve_tri(r, dx)
    c = _matmul(_H(q), dx_rinv)
    low = _tril(c, -1)
    omega = lax.sub(low, _H(low))
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
    q, r, *p = la.qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices,
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
        dr2 = lax.add(_matmul(_H(dq), x2), _matmul(_H(q), dx2))
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
    lu, _, perm = la.lu_p.bind(lax.sub(q_nn, _eye(q.dtype, n, n, batch)))
    z_pn_h = _lu_solve_adjoint(lu, perm, _H(q_pn))
    z_pn = _H(z_pn_h)
    dq_mp = lax.sub(_matmul(dq_mn, z_pn_h),
                    _matmul(lax.add(q_mn, _matmul(q_mp, z_pn)),
                            _H(lax.sub(dq_pn, _matmul(z_pn, dq_nn)))))
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
    sym = lax.div(lax.add(a, _H(a)), lax._convert(2, a.dtype, True))
    v, w_real = la.eigh_p.bind(sym, lower=lower, sort_eigenvalues=sort_eigenvalues,
                               subset_by_index=subset_by_index, algorithm=algorithm)
    w = _as(w_real, a.dtype)
    batch = a.shape[:-2]
    nb = len(batch)
    eye = _eye(a.dtype, n, n, batch)
    # F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it (no division by zero)
    plus_wj = lax.add(eye, lax.broadcast_in_dim(w, batch + (1, n), tuple(range(nb)) + (nb + 1,)))
    w_i = lax.broadcast_in_dim(w, batch + (n, 1), tuple(range(nb + 1)))
    f = lax.sub(lax.integer_pow(lax.sub(plus_wj, w_i), -1), eye)
    vdag_adot_v = _mm(_mm(_H(v), a_dot), v)
    dv = _mm(v, lax.mul(f, vdag_adot_v))
    dw = _diagonal(_real_part(vdag_adot_v))
    return [v, w_real], [dv, dw]

# -- svd


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm=None):
    (a,), (da,) = primals, tangents
    s, u, vt = la.svd_p.bind(a, full_matrices=False, compute_uv=True,
                             subset_by_index=subset_by_index, algorithm=algorithm)
    *batch, m, n = a.shape
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices")
    ut, v = _H(u), _H(vt)
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
    half = np.array(0.5, _real_dtype(a.dtype)).astype(a.dtype)
    dudv_diag = lax.mul(lax.mul(half, lax.sub(ds_mat, _H(ds_mat))), _as(s_inv_mat, a.dtype))
    du = _matmul(u, lax.add(lax.mul(f, lax.add(dss, _H(dss))), dudv_diag))
    dv = _matmul(v, lax.mul(f, lax.add(sds, _H(sds))))
    if m > n:  # the part of dA outside U's column space
        dav = _matmul(da, v)
        du = lax.add(du, lax.div(lax.sub(dav, _matmul(u, _matmul(ut, dav))), s_dim_c))
    if n > m:
        dahu = _matmul(_H(da), u)
        dv = lax.add(dv, lax.div(lax.sub(dahu, _matmul(v, _matmul(vt, dahu))), s_dim_c))
    return [s, u, vt], [ds, du, _H(dv)]


def _row(s, dtype, rows):
    """``s`` broadcast along a new second-to-last axis of length ``rows``."""
    nb = s.ndim - 1
    shape = s.shape[:-1] + (rows, s.shape[-1])
    return _as(lax.broadcast_in_dim(s, shape, tuple(range(nb)) + (nb + 1,)), dtype)


def _real_dtype(dt):
    return np.dtype({"complex64": np.float32, "complex128": np.float64}.get(dt.name, dt))

# -- eig (general matrices)


def _lu_solve(a, b):
    """A⁻¹ B through the LU factorisation of ``a`` (linear in ``b``)."""
    lu, _, perm = la.lu_p.bind(a)
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
    outs = lag.eig_p.bind(a, compute_left_eigenvectors=left, compute_right_eigenvectors=True,
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
        _, dvl = _eig_vec_jvp(lax.conj(w), outs[1], _H(da))
        primal_out.append(outs[1])
        tangent_out.append(dvl)
    if right:
        primal_out.append(vr)
        tangent_out.append(dvr)
    return primal_out, tangent_out

# -- batching: every decomposition is already batched over leading axes


def _front_batch(prim):
    def rule(args, dims, **params):
        (x,), (d,) = args, dims
        x = bdim_at_front(x, d, x.shape[d])
        outs = prim.bind(x, **params)
        if prim.multiple_results:
            return outs, [0] * len(outs)
        return outs, 0
    return rule


ad.jvp_rules[la.cholesky_p] = _cholesky_jvp
ad.jvp_rules[la.triangular_solve_p] = _tri_solve_jvp
ad.transpose_rules[la.triangular_solve_p] = _tri_solve_transpose
ad.jvp_rules[la.lu_p] = _lu_jvp
ad.jvp_rules[la.qr_p] = _qr_jvp
ad.jvp_rules[la.eigh_p] = _eigh_jvp
ad.jvp_rules[la.svd_p] = _svd_jvp
ad.jvp_rules[lag.eig_p] = _eig_jvp
batch_rules[la.triangular_solve_p] = _tri_solve_batch
for _p in (la.cholesky_p, la.lu_p, la.qr_p, la.eigh_p, la.svd_p):
    batch_rules[_p] = _front_batch(_p)
del _p
