"""The GPU lowerings of ``lax.linalg``'s factorizations: the CUDA plugin's
cuSOLVER kernels as typed-FFI custom calls (registered by
``xla_bridge._register_cuda_kernels``), with the conventions JAX wraps around
them (failed factorizations made NaN, 0-based pivots, V transposed to Vh).
The kernels pick the routine by element type, so targets carry no dtype
prefix; matrices are column-major with batch axes outermost, as in LAPACK."""
from __future__ import annotations

import numpy as np

from xjit._src.core import ShapedArray
from xjit._src.lax import lax
from xjit._src.lax.lapack import _layout, ffi_call, inline, nan_if_failed, row_major

_ALIAS_FIRST = (", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices "
                "= [{}], operand_index = 0, operand_tuple_indices = []>]")


def solver_call(ctx, target, operands, in_avals, out_avals, config="", *, nbatch,
                alias=True, column_major=True):
    """A custom call of ``target`` whose first result overwrites the first operand."""
    layout = (lambda a: _layout(a.ndim, nbatch)) if column_major else (lambda a: row_major(a.ndim))
    extra = _ALIAS_FIRST.format("0" if len(out_avals) > 1 else "") if alias else ""
    return ffi_call(ctx, target, operands, in_avals, out_avals, config, layout, extra)


def cholesky(ctx, a_aval, a):
    info_aval = ShapedArray(a_aval.shape[:-2], np.int32)
    factor, info = solver_call(ctx, "cusolver_potrf_ffi", [a], [a_aval], [a_aval, info_aval],
                               "lower = true", nbatch=a_aval.ndim - 2)
    return nan_if_failed(ctx, info_aval, info, [a_aval], [factor])[0]


def lu(ctx, a_aval, perm_aval, a):
    *batch, m, n = a_aval.shape
    nb = len(batch)
    info_aval = ShapedArray(tuple(batch), np.int32)
    piv_aval = ShapedArray((*batch, min(m, n)), np.int32)
    lu_, ipiv, info = solver_call(ctx, "cusolver_getrf_ffi", [a], [a_aval],
                                  [a_aval, piv_aval, info_aval], nbatch=nb)

    def post(lu_, ipiv, info):
        ok = lax.broadcast_in_dim(lax.ge(info, np.int32(0)), lu_.shape, tuple(range(nb)))
        return [lax.select(ok, lu_, lax.full_like(lu_, np.nan)), lax.sub(ipiv, np.int32(1))]
    lu_, piv = inline(ctx, post, [a_aval, piv_aval, info_aval], [lu_, ipiv, info])
    (perm,) = solver_call(ctx, "cu_lu_pivots_to_permutation", [piv], [piv_aval], [perm_aval],
                          nbatch=nb, alias=False, column_major=False)
    return [lu_, piv, perm]


def geqrf(ctx, a_aval, tau_aval, a):
    return solver_call(ctx, "cusolver_geqrf_ffi", [a], [a_aval], [a_aval, tau_aval],
                       nbatch=a_aval.ndim - 2)


def orgqr(ctx, q_aval, tau_aval, q, taus):
    return solver_call(ctx, "cusolver_orgqr_ffi", [q, taus], [q_aval, tau_aval], [q_aval],
                       nbatch=q_aval.ndim - 2)


def eigh(ctx, a_aval, w_aval, a, *, lower, algorithm):
    name = getattr(algorithm, "name", algorithm)
    if name == "QDWH":
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    code = 0 if algorithm is None else 2 if name == "JACOBI" else 1
    info_aval = ShapedArray(a_aval.shape[:-2], np.int32)
    v, w, info = solver_call(ctx, "cusolver_syevd_ffi", [a], [a_aval], [a_aval, w_aval, info_aval],
                             f"algorithm = {code} : ui8, lower = {str(bool(lower)).lower()}",
                             nbatch=a_aval.ndim - 2)
    return nan_if_failed(ctx, info_aval, info, [a_aval, w_aval], [v, w])


def svd(ctx, a_aval, out_avals, a, *, full_matrices, compute_uv, algorithm):
    """cuSOLVER's Jacobi SVD (gesvdj) up to 1024 rows and columns, else gesvd,
    as JAX chooses; ``algorithm`` QR asks for gesvd, JACOBI for gesvdj."""
    *batch, m, n = a_aval.shape
    nb, k = len(batch), min(m, n)
    name = getattr(algorithm, "name", algorithm)
    if name in ("POLAR", "DIVIDE_AND_CONQUER"):
        raise NotImplementedError(f"SVD algorithm {name} is not implemented on the GPU")
    jacobi = name == "JACOBI" or (name in (None, "DEFAULT") and m <= 1024 and n <= 1024)
    s_aval = out_avals[0]
    info_aval = ShapedArray(tuple(batch), np.int32)
    flags = f"compute_uv = {str(bool(compute_uv)).lower()}, full_matrices = {{}}"
    if jacobi:  # gesvdj has no economy mode of its own below 32
        econ = not full_matrices and m > 32 and n > 32
        u_aval = ShapedArray((*batch, m, k if econ else m), a_aval.dtype)
        v_aval = ShapedArray((*batch, n, k if econ else n), a_aval.dtype)
        _, s, u, v, info = solver_call(
            ctx, "cusolver_gesvdj_ffi", [a], [a_aval], [a_aval, s_aval, u_aval, v_aval, info_aval],
            flags.format(str(not econ).lower()), nbatch=nb)
        if not compute_uv:
            return nan_if_failed(ctx, info_aval, info, [s_aval], [s])

        def to_vh(u, v):
            vt = lax.transpose(v, tuple(range(nb)) + (nb + 1, nb))
            if a_aval.dtype.kind == "c":
                vt = lax.conj(vt)
            if not full_matrices and not econ:
                u, vt = lax.slice_along(u, 0, k, axis=nb + 1), lax.slice_along(vt, 0, k, axis=nb)
            return [u, vt]
        u, vt = inline(ctx, to_vh, [u_aval, v_aval], [u, v])
    else:  # gesvd wants m >= n: a wide matrix is passed row-major, i.e. transposed
        transposed = m < n
        scalar = ShapedArray((), a_aval.dtype)
        u_aval, vt_aval = out_avals[1:] if compute_uv else (scalar, scalar)
        slots = [vt_aval, u_aval] if transposed else [u_aval, vt_aval]
        _, s, x, y, info = solver_call(
            ctx, "cusolver_gesvd_ffi", [a], [a_aval], [a_aval, s_aval, *slots, info_aval],
            flags.format(str(bool(full_matrices)).lower()) +
            f", transposed = {str(transposed).lower()}", nbatch=nb, column_major=not transposed)
        if not compute_uv:
            return nan_if_failed(ctx, info_aval, info, [s_aval], [s])
        u, vt = (y, x) if transposed else (x, y)
    return nan_if_failed(ctx, info_aval, info, list(out_avals), [s, u, vt])
