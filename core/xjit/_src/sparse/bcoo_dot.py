"""``bcoo_dot_general``: a contraction of a BCOO array (its buffers) with a
dense array, and ``bcoo_dot_general_sampled``, the dense product computed
only at given indices, which is what the cotangent of the sparse data is.

The dense result is computed per stored element: the dense operand is
gathered at each element's contracted coordinates, multiplied with the
element's data, and the products scattered (added) into the output at the
element's free coordinates; out-of-bound (padding) coordinates gather zeros
and scatter nowhere."""
from __future__ import annotations

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import core, dtypes
from xjit._src.interpreters import ad, batching, mlir
from xjit._src.interpreters.batching import vmap
from xjit._src.lax import dot_general as _dg
from xjit._src.lax.elementwise import _unbroadcast
from xjit._src.sparse.bcoo_prims import (
    _batch_dims_to_front,
    _bcoo_extract,
    _bcoo_transpose,
    _extract_abstract_eval,
    _extract_transpose,
    _full_batch,
    _validate_bcoo,
    _validate_permutation,
)
from xjit._src.sparse.util import SparseInfo, _dot_general_validated_shape


def _index_tuple(dims):
    return tuple(int(d) for d in (dims if isinstance(dims, (tuple, list, np.ndarray)) else
                                  (dims,)))


def _remaining(original, *removed):
    gone = {d for r in removed for d in r}
    return [i for i in original if i not in gone]


def _ranges_like(*xs):
    start = 0
    for x in xs:
        yield range(start, start + len(x))
        start += len(x)


bcoo_dot_general_p = core.Primitive("bcoo_dot_general")


def _bcoo_dot_general(lhs_data, lhs_indices, rhs, *, dimension_numbers,
                      preferred_element_type, lhs_spinfo):
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((_index_tuple(lc), _index_tuple(rc)), (_index_tuple(lb), _index_tuple(rb)))
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(np.dtype(preferred_element_type))
    return bcoo_dot_general_p.bind(jnp.asarray(lhs_data), jnp.asarray(lhs_indices),
                                   jnp.asarray(rhs), dimension_numbers=dn,
                                   preferred_element_type=preferred_element_type,
                                   lhs_spinfo=lhs_spinfo)


def _bcoo_rdot_general(lhs, rhs_data, rhs_indices, *, dimension_numbers,
                       preferred_element_type, rhs_spinfo):
    """dense @ sparse: the sparse-first product with its output axes moved back."""
    reversed_dn = tuple(d[::-1] for d in dimension_numbers)
    out = _bcoo_dot_general(rhs_data, rhs_indices, lhs, lhs_spinfo=rhs_spinfo,
                            dimension_numbers=reversed_dn,
                            preferred_element_type=preferred_element_type)
    n_contract, n_batch = (len(d[0]) for d in dimension_numbers)
    n_swap = len(rhs_spinfo.shape) - n_contract
    perm = (*range(n_batch), *range(n_swap, out.ndim), *range(n_batch, n_swap))
    return lax.transpose(out, perm)


def _dot_abstract_eval(lhs_data, lhs_indices, rhs, *, dimension_numbers,
                       preferred_element_type, lhs_spinfo):
    out = _dg._dot_general_eval(core.ShapedArray(tuple(lhs_spinfo.shape), lhs_data.dtype),
                                core.ShapedArray(rhs.shape, rhs.dtype), dimension_numbers,
                                None, preferred_element_type)
    (lc, _), (lb, _) = dimension_numbers
    n_batch, n_sparse, _, _ = _validate_bcoo(lhs_data, lhs_indices, lhs_spinfo.shape)
    if lb and max(lb) >= n_batch:
        raise NotImplementedError(
            "bcoo_dot_general batch dimensions must be among the batch dimensions in the "
            f"sparse representation.\ngot lhs_batch={tuple(lb)}, n_batch={n_batch}")
    if any(d >= n_batch + n_sparse for d in lc):
        raise NotImplementedError("bcoo_dot_general: contracting over dense dimensions.")
    return core.ShapedArray(out.shape, out.dtype)


def _contract_one(data, indices, rhs, *, lhs_c, out_shape, out_dtype, pet):
    """One batch element: ``data`` (nse, dense...), ``indices`` (nse, n_sparse),
    ``rhs`` with the axes paired with the sparse axes ``lhs_c`` first."""
    n_sparse = indices.shape[1]
    coords = tuple(indices[:, i] for i in range(n_sparse))
    if lhs_c:
        picked = rhs.at[tuple(coords[c] for c in lhs_c)].get(mode="fill", fill_value=0)
        prod = lax.dot_general(data, picked, (((), ()), ((0,), (0,))),
                               preferred_element_type=pet)
    else:
        prod = lax.dot_general(data, rhs, (((), ()), ((), ())), preferred_element_type=pet)
    free = [coords[i] for i in range(n_sparse) if i not in lhs_c]
    if free:
        return jnp.zeros(out_shape, out_dtype).at[tuple(free)].add(prod.astype(out_dtype))
    return prod.sum(0, dtype=out_dtype)


def _dot_impl(lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type,
              lhs_spinfo):
    out_aval = _dot_abstract_eval(core.aval_of(lhs_data), core.aval_of(lhs_indices),
                                  core.aval_of(rhs), dimension_numbers=dimension_numbers,
                                  preferred_element_type=preferred_element_type,
                                  lhs_spinfo=lhs_spinfo)
    shape = tuple(lhs_spinfo.shape)
    n_batch, _, _, nse = _validate_bcoo(lhs_data, lhs_indices, shape)
    (lc, rc), (lb, rb) = dimension_numbers
    pairs = dict(zip(lc, rc))
    cb = [d for d in range(n_batch) if d in pairs]  # batch axes contracted with rhs axes
    fb = _remaining(range(n_batch), lb, cb)        # batch axes kept in the output
    data = _full_batch(lhs_data, shape[:n_batch])
    indices = _full_batch(lhs_indices, shape[:n_batch])
    order = [*lb, *fb, *cb]
    data = data.transpose(*order, *range(n_batch, data.ndim))
    indices = indices.transpose(*order, n_batch, n_batch + 1)
    if cb:  # contracted batch axes become leading sparse axes, folded into nse
        lead = len(lb) + len(fb)
        csizes = [shape[d] for d in cb]
        grid = jnp.meshgrid(*(jnp.arange(s, dtype=indices.dtype) for s in csizes),
                            indexing="ij")
        extra = jnp.stack([g[..., None] for g in grid], axis=-1)
        extra = jnp.broadcast_to(extra, indices.shape[:-1] + (len(cb),))
        indices = jnp.concatenate([extra, indices], axis=-1)
        flat = int(np.prod(csizes)) * nse
        indices = indices.reshape(indices.shape[:lead] + (flat, indices.shape[-1]))
        data = data.reshape(data.shape[:lead] + (flat,) + data.shape[lead + len(cb) + 1:])
    sparse_c = [d - n_batch for d in lc if d >= n_batch]
    lhs_c = [*range(len(cb)), *(len(cb) + d for d in sparse_c)]
    rhs_c = [pairs[d] for d in cb] + [pairs[d + n_batch] for d in sparse_c]
    rhs = rhs.transpose(*rb, *rhs_c, *_remaining(range(rhs.ndim), rb, rhs_c))
    nb_out = len(lb) + len(fb)
    fn = lambda d, i, r: _contract_one(
        d, i, r, lhs_c=lhs_c, out_shape=out_aval.shape[nb_out:],
        out_dtype=out_aval.dtype, pet=preferred_element_type)
    for _ in fb:
        fn = vmap(fn, in_axes=(0, 0, None))
    for _ in lb:
        fn = vmap(fn, in_axes=(0, 0, 0))
    return fn(data, indices, rhs)


def _dot_jvp_lhs(t, lhs_data, lhs_indices, rhs, **params):
    return _bcoo_dot_general(t, lhs_indices, rhs, **params)


def _dot_jvp_rhs(t, lhs_data, lhs_indices, rhs, **params):
    return _bcoo_dot_general(lhs_data, lhs_indices, t, **params)


def _dot_transpose(ct, lhs_data, lhs_indices, rhs, *, dimension_numbers,
                   preferred_element_type, lhs_spinfo):
    assert not ad.is_undefined_primal(lhs_indices)
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_ndim = len(lhs_spinfo.shape)
    rhs_ndim = rhs.aval.ndim if ad.is_undefined_primal(rhs) else rhs.ndim
    lhs_kept = _remaining(range(lhs_ndim), lc, lb)
    rhs_kept = _remaining(range(rhs_ndim), rc, rb)
    ans_batch, ans_lhs, ans_rhs = map(list, _ranges_like(lb, lhs_kept, rhs_kept))
    if ad.is_undefined_primal(lhs_data):
        dims = ((ans_rhs, rhs_kept), (ans_batch, rb))
        lc_by_rhs = list(np.take(lc, np.argsort(rc)))
        perm = list(lb) + lhs_kept + lc_by_rhs
        out_axes = [int(i) for i in np.argsort(perm)]
        stand_in = jnp.zeros((lhs_indices.ndim - 2) * (1,) + (lhs_indices.shape[-2],))
        stand_in_shape = tuple(lhs_indices.shape[:-2]) + lhs_indices.shape[-1] * (1,)
        try:
            _validate_permutation(stand_in, lhs_indices, perm, stand_in_shape)
            direct = True
        except NotImplementedError:
            direct = False
        if direct:  # sample the product at the (re-ordered) indices
            _, indices_t = _bcoo_transpose(stand_in, lhs_indices, permutation=perm,
                                           spinfo=SparseInfo(stand_in_shape))
            result_t = bcoo_dot_general_sampled(ct, rhs, indices_t, dimension_numbers=dims)
            result, _ = _bcoo_transpose(result_t, indices_t, permutation=out_axes,
                                        spinfo=SparseInfo(tuple(stand_in_shape[i]
                                                                for i in perm)))
        else:  # the dense cotangent, then its values at the indices
            dense = lax.transpose(lax.dot_general(ct, rhs, dimension_numbers=dims), out_axes)
            result = _bcoo_extract(lhs_indices, dense)
        return _unbroadcast(lhs_data.aval, result), lhs_indices, rhs
    dims = ((lhs_kept, ans_lhs), (lb, ans_batch))
    rc_by_lhs = list(np.take(rc, np.argsort(lc)))
    out_axes = [int(i) for i in np.argsort(list(rb) + rc_by_lhs + rhs_kept)]
    result = _bcoo_dot_general(lhs_data, lhs_indices, ct, lhs_spinfo=lhs_spinfo,
                               preferred_element_type=preferred_element_type,
                               dimension_numbers=dims)
    return lhs_data, lhs_indices, lax.transpose(result, out_axes)


def _bump(dims, b):
    return tuple(int(d) + (d >= b) for d in dims)


def _batch_dim_nums(ndims, bdims, dimension_numbers):
    """Dimension numbers of a dot_general whose operands gained the vmapped
    axes ``bdims``, and where the vmapped axis lands in its output."""
    lhs_ndim, rhs_ndim = ndims
    lbd, rbd = bdims
    (lc, rc), (lb, rb) = dimension_numbers
    if lbd is not None and rbd is not None:
        lb, rb = (lbd, *_bump(lb, lbd)), (rbd, *_bump(rb, rbd))
        lc, rc = _bump(lc, lbd), _bump(rc, rbd)
        out = 0
    elif rbd is None:
        lhs_tensor = [d for d in range(lhs_ndim) if d not in lb and d not in lc]
        out = len(lb) + int(np.sum(np.less(lhs_tensor, lbd)))
        lb, lc = _bump(lb, lbd), _bump(lc, lbd)
    else:
        rhs_tensor = _remaining(range(rhs_ndim), rb, rc)
        out = lhs_ndim - len(lc) + int(np.sum(np.less(rhs_tensor, rbd)))
        rb, rc = _bump(rb, rbd), _bump(rc, rbd)
    return ((lc, rc), (lb, rb)), out


def _dot_batch(args, dims, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    rhs, rhs_bdim = args[2], dims[2]
    data, indices, spinfo = _batch_dims_to_front(
        args[:2], dims[:2], lhs_spinfo,
        size=None if rhs_bdim is None else rhs.shape[rhs_bdim])
    dn, out_dim = _batch_dim_nums((len(lhs_spinfo.shape), rhs.ndim), (0, rhs_bdim),
                                  dimension_numbers)
    return _bcoo_dot_general(data, indices, rhs, lhs_spinfo=spinfo, dimension_numbers=dn,
                             preferred_element_type=preferred_element_type), out_dim


bcoo_dot_general_p.def_abstract_eval(_dot_abstract_eval)
ad.defjvp(bcoo_dot_general_p, _dot_jvp_lhs, None, _dot_jvp_rhs)
ad.transpose_rules[bcoo_dot_general_p] = _dot_transpose
batching.batch_rules[bcoo_dot_general_p] = _dot_batch
mlir.register_lowering(bcoo_dot_general_p, mlir.lower_fun(_dot_impl, multiple_results=False))


# -- bcoo_dot_general_sampled

bcoo_dot_general_sampled_p = core.Primitive("bcoo_dot_general_sampled")


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
    """``dot_general(A, B)`` evaluated only at the BCOO ``indices``: BCOO data."""
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((_index_tuple(lc), _index_tuple(rc)), (_index_tuple(lb), _index_tuple(rb)))
    return bcoo_dot_general_sampled_p.bind(A, B, indices, dimension_numbers=dn)


def _sampled_impl(A, B, indices, *, dimension_numbers):
    dense = lax.dot_general(A, B, dimension_numbers=dimension_numbers,
                            precision=lax.Precision.HIGHEST)
    return _bcoo_extract(indices, dense)


def _sampled_abstract_eval(A, B, indices, *, dimension_numbers):
    dense = _dg._dot_general_eval(A, B, dimension_numbers)
    return _extract_abstract_eval(indices, dense, assume_unique=True)


def _sampled_transpose(ct, A, B, indices, *, dimension_numbers):
    a_shape = A.aval.shape if ad.is_undefined_primal(A) else A.shape
    b_shape = B.aval.shape if ad.is_undefined_primal(B) else B.shape
    mat_shape = _dot_general_validated_shape(a_shape, b_shape, dimension_numbers)
    mat = ad.UndefinedPrimal(core.ShapedArray(mat_shape, ct.dtype))
    indices, ct = _extract_transpose(ct, indices, mat, assume_unique=True)
    A, B = _dg._dot_general_transpose(ct, A, B, dimension_numbers=dimension_numbers,
                                      precision=None, preferred_element_type=None,
                                      out_sharding=None)
    return A, B, indices


def _sampled_batch(args, dims, *, dimension_numbers):
    impl = lambda a, b, i: _sampled_impl(a, b, i, dimension_numbers=dimension_numbers)
    return vmap(impl, in_axes=tuple(dims), out_axes=0)(*args), 0


bcoo_dot_general_sampled_p.def_abstract_eval(_sampled_abstract_eval)
ad.defjvp(bcoo_dot_general_sampled_p,
          lambda t, A, B, indices, *, dimension_numbers: bcoo_dot_general_sampled(
              t, B, indices, dimension_numbers=dimension_numbers),
          lambda t, A, B, indices, *, dimension_numbers: bcoo_dot_general_sampled(
              A, t, indices, dimension_numbers=dimension_numbers), None)
ad.transpose_rules[bcoo_dot_general_sampled_p] = _sampled_transpose
batching.batch_rules[bcoo_dot_general_sampled_p] = _sampled_batch
mlir.register_lowering(bcoo_dot_general_sampled_p,
                       mlir.lower_fun(_sampled_impl, multiple_results=False))
