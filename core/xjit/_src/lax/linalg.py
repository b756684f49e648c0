"""Matrix decompositions (``xjit.lax.linalg``) as primitives.

``cholesky`` and ``triangular_solve`` lower to the StableHLO ops of the same
name, which XLA expands on every platform. ``lu``, ``qr``, ``eigh`` and
``svd`` call jaxlib's LAPACK kernels (typed-FFI custom calls, column-major
operands) and so compile only for CPU; elsewhere they raise
NotImplementedError. All operate on the trailing two axes, batched over the
rest.
"""
from __future__ import annotations

import functools

import numpy as np

from xjit._src import xla_bridge as backend, dtypes
from xjit._src.interpreters import mlir as lowering
from ..core import ShapedArray
from xjit._src.interpreters.mlir import ttype
from xjit._src.lax import lax

_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}


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
    """LAPACK potrf on CPU, as JAX lowers it there (so factors agree to the
    bit, e.g. in random.multivariate_normal); stablehlo.cholesky elsewhere."""
    a_aval = ai[0]
    if backend.default_backend() != "cpu" or a_aval.dtype.name not in _PREFIX:
        return ctx.op("stablehlo.cholesky", [a], [ttype(a_aval)], ttype(ao[0]),
                      attrs="lower = true")
    info_aval = ShapedArray(a_aval.shape[:-2], np.int32)
    factor, info = _lapack_call(ctx, "cholesky", "potrf", [a], [a_aval], [a_aval, info_aval],
                                config=f"uplo = {ord('L')} : ui8")
    return _nan_if_failed(ctx, info_aval, info, [a_aval], [factor])[0]


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
    mode = ("ADJOINT" if conjugate_a else "TRANSPOSE") if transpose_a else "NO_TRANSPOSE"
    return ctx.op("stablehlo.triangular_solve", [a, b], [ttype(ai[0]), ttype(ai[1])], ttype(ao[0]),
                  attrs=f"left_side = {str(left_side).lower()}, lower = {str(lower).lower()}, "
                        f"unit_diagonal = {str(unit_diagonal).lower()}, "
                        f"transpose_a = #stablehlo<transpose {mode}>")


def _conj_p():
    from .elementwise import conj_p
    return conj_p


triangular_solve_p = _prim("triangular_solve", _tri_solve_eval, _tri_solve_lower)

# -- LAPACK (CPU) custom calls


@functools.cache
def _register_lapack():
    from jaxlib import lapack, xla_client
    lapack._lapack.initialize()  # binds the kernels to SciPy's LAPACK
    for name, fn, api_version in lapack.registrations()["cpu"]:
        xla_client.register_custom_call_target(name, fn, platform="cpu", api_version=api_version)


def _layout(ndim, nbatch):
    """Matrices (``nbatch + 2`` axes) column-major with batch axes outermost,
    as LAPACK expects; vectors and scalars row-major."""
    if ndim != nbatch + 2:
        order = list(range(ndim - 1, -1, -1))
    else:
        order = [ndim - 2, ndim - 1] + list(range(ndim - 3, -1, -1))
    return f"dense<{order}> : tensor<{ndim}xindex>" if ndim else "dense<> : tensor<0xindex>"


_COMPLEX_NAMES = {"orgqr": "ungqr", "ormqr": "unmqr"}


def _lapack_call(ctx, op, name, operands, in_avals, out_avals, config="", nbatch=None):
    if backend.default_backend() != "cpu":
        raise NotImplementedError(f"{op} is implemented with LAPACK and only runs on CPU; no "
                                  f"lowering for platform '{backend.default_backend()}'")
    dt = in_avals[0].dtype
    if dt.name not in _PREFIX:  # 16-bit floats pass the type checks, as in JAX, but LAPACK
        raise NotImplementedError(KeyError(dt.type), f"Unsupported dtype {dt.name}.")
    _register_lapack()
    if dt.kind == "c":  # LAPACK names the complex (unitary) Householder routines apart
        name = _COMPLEX_NAMES.get(name, name)
    target = f"lapack_{_PREFIX[dt.name]}{name}_ffi"
    nb = in_avals[0].ndim - 2 if nbatch is None else nbatch
    attrs = (f'call_target_name = "{target}", api_version = 4 : i32, backend_config = {{{config}}}, '
             f'operand_layouts = [{", ".join(_layout(a.ndim, nb) for a in in_avals)}], '
             f'result_layouts = [{", ".join(_layout(a.ndim, nb) for a in out_avals)}]')
    return ctx.op("stablehlo.custom_call", list(operands), [ttype(a) for a in in_avals],
                  [ttype(a) for a in out_avals], attrs=attrs)


def _inline(ctx, fn, avals, args):
    """Lower ``fn`` (written with lax) inline on the given SSA values."""
    from xjit._src.interpreters.partial_eval import trace_to_jaxpr
    jaxpr, consts = trace_to_jaxpr(fn, list(avals))
    return lowering.lower_jaxpr(ctx, jaxpr, consts, list(args))


def _nan_if_failed(ctx, info_aval, info, vals_avals, vals):
    """JAX's convention: a batch element whose LAPACK info is nonzero is NaN."""
    def fix(info, *xs):
        ok = lax.eq(info, np.int32(0))
        outs = []
        for x in xs:
            m = lax.broadcast_in_dim(ok, x.shape, tuple(range(ok.ndim)))
            outs.append(lax.select(m, x, lax.full_like(x, np.nan)))
        return outs
    return _inline(ctx, fix, [info_aval, *vals_avals], [info, *vals])


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
    *batch, m, n = a_aval.shape
    k = min(m, n)
    info_aval = ShapedArray(tuple(batch), np.int32)
    piv_aval = ShapedArray((*batch, k), np.int32)
    lu, ipiv, info = _lapack_call(ctx, "lu", "getrf", [a], [a_aval], [a_aval, piv_aval, info_aval])

    def post(lu, ipiv, info):
        piv = lax.sub(ipiv, np.int32(1))  # LAPACK pivots are 1-based
        ok = lax.eq(info, np.int32(0))
        ok = lax.broadcast_in_dim(lax.bitwise_or(ok, lax.gt(info, np.int32(0))), lu.shape,
                                  tuple(range(len(batch))))
        lu = lax.select(ok, lu, lax.full_like(lu, np.nan))
        return [lu, piv, _pivots_to_permutation(piv, m)]
    return _inline(ctx, post, [a_aval, piv_aval, info_aval], [lu, ipiv, info])


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
    if pivoting:  # column-pivoted QR (geqp3): a[..., perm] = q @ r
        piv_aval = ShapedArray((*batch, n), np.int32)
        (zeros,) = _inline(ctx, lambda: [lax.full(piv_aval.shape, 0, np.int32)], [], [])
        r, jpvt, taus = _lapack_call(ctx, "qr", "geqp3", [a, zeros], [a_aval, piv_aval],
                                     [a_aval, piv_aval, tau_aval])
        (perm,) = _inline(ctx, lambda j: [lax.sub(j, np.int32(1))], [piv_aval], [jpvt])
    else:
        r, taus = _lapack_call(ctx, "qr", "geqrf", [a], [a_aval], [a_aval, tau_aval])
    q_cols = m if full_matrices else k
    q_in_aval = ShapedArray((*batch, m, q_cols), a_aval.dtype)

    def reflectors(r):  # the Householder vectors, as a (m, q_cols) matrix for orgqr
        if q_cols <= n:
            return [lax.slice_along(r, 0, q_cols, axis=r.ndim - 1)]
        cfg = [(0, 0, 0)] * (r.ndim - 1) + [(0, q_cols - n, 0)]
        return [lax.pad(r, lax._convert(0, r.dtype, False), cfg)]

    (qin,) = _inline(ctx, reflectors, [a_aval], [r])
    (q,) = _lapack_call(ctx, "qr", "orgqr", [qin, taus], [q_in_aval, tau_aval], [q_in_aval])

    def upper(r):
        r = lax.slice_along(r, 0, ao[1].shape[-2], axis=r.ndim - 2)
        rows = lax.broadcasted_iota(np.int32, r.shape, r.ndim - 2)
        cols = lax.broadcasted_iota(np.int32, r.shape, r.ndim - 1)
        return [lax.select(lax.le(rows, cols), r, lax.full_like(r, 0))]
    (r,) = _inline(ctx, upper, [a_aval], [r])
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
    info_aval = ShapedArray(a_aval.shape[:-2], np.int32)
    uplo = ord("L") if lower else ord("U")
    v, w, info = _lapack_call(ctx, "eigh", "syevd" if a_aval.dtype.kind != "c" else "heevd", [a],
                              [a_aval], [a_aval, ao[1], info_aval],
                              config=f"mode = {ord('V')} : ui8, uplo = {uplo} : ui8")
    return _nan_if_failed(ctx, info_aval, info, [a_aval, ao[1]], [v, w])


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
    mode = ord("A") if full_matrices else ord("S")
    _, s, u, vt, info = _lapack_call(ctx, "svd", kernel, [a], [a_aval],
                                     [a_aval, s_aval, u_aval, vt_aval, info_aval],
                                     config=f"mode = {mode} : ui8")
    outs = _nan_if_failed(ctx, info_aval, info, [s_aval, u_aval, vt_aval], [s, u, vt])
    return outs if compute_uv else outs[:1]


svd_p = _prim("svd", _svd_eval, _svd_lower, multiple_results=True)

# -- the xjit.lax.linalg functions


def _symmetrize(x):
    return lax.div(lax.add(x, _ct(x)), lax._convert(2, x.dtype, True))


def _ct(x):
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    t = lax.transpose(x, perm)
    return lax.conj(t) if x.dtype.kind == "c" else t


def _tril_mask(x, k=0):
    rows = lax.add(lax.broadcasted_iota(np.int32, x.shape, x.ndim - 2), np.int32(k))
    return lax.ge(rows, lax.broadcasted_iota(np.int32, x.shape, x.ndim - 1))


def cholesky(x, *, symmetrize_input=True):
    """Lower Cholesky factor; NaN where the input is not positive definite."""
    x = lax.asarray_device(x)
    if symmetrize_input:
        x = _symmetrize(x)
    L = cholesky_p.bind(x)
    return lax.select(_tril_mask(x), L, lax.full_like(x, 0))


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
