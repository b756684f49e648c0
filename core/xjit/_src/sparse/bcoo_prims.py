"""The BCOO primitives on raw buffers (``data``, ``indices``): conversion to
and from dense, extraction at indices, transposition, sorting and summing
duplicates. They are primitives, as in JAX, so jaxprs show them as single
equations and autodiff/vmap see their own rules; each lowers by staging its
implementation (written with jnp/lax) into the surrounding program.

Layout: ``data`` is ``batch + (nse,) + dense``, ``indices`` is ``batch +
(nse, n_sparse)``; a batch axis of size 1 in either is shared by every batch
element. Padding entries carry out-of-bound indices (the sparse shape) and
are dropped by every consumer."""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import core
from xjit._src.interpreters import ad, batching, mlir
from xjit._src.pjit import jit
from xjit._src.sparse.util import SparseInfo, nfold_vmap


class BCOOProperties(NamedTuple):
    n_batch: int
    n_sparse: int
    n_dense: int
    nse: int


def _validate_bcoo_indices(indices, shape) -> BCOOProperties:
    assert jnp.issubdtype(indices.dtype, jnp.integer)
    shape = tuple(shape)
    nse, n_sparse = indices.shape[-2:]
    n_batch = len(indices.shape) - 2
    n_dense = len(shape) - n_batch - n_sparse
    assert n_dense >= 0
    if len(shape) < n_batch or any(a not in (1, b) for a, b in zip(indices.shape[:n_batch],
                                                                   shape[:n_batch])):
        raise ValueError(f"indices batch dimensions not compatible for "
                         f"indices.shape={indices.shape}, shape={shape}")
    return BCOOProperties(n_batch, n_sparse, n_dense, nse)


def _validate_bcoo(data, indices, shape) -> BCOOProperties:
    props = _validate_bcoo_indices(indices, shape)
    n_batch, n_sparse, n_dense, nse = props
    shape = tuple(shape)
    if any(a not in (1, b) for a, b in zip(data.shape[:n_batch], shape[:n_batch])):
        raise ValueError(f"data batch dimensions not compatible for data.shape={data.shape}, "
                         f"shape={shape}")
    if tuple(data.shape[n_batch:]) != (nse,) + shape[n_batch + n_sparse:]:
        raise ValueError(f"Invalid data.shape={data.shape} for nse={nse}, n_batch={n_batch}, "
                         f"n_dense={n_dense}")
    return props


def _replace(tup, i, val):
    return tuple(val if j == i else t for j, t in enumerate(tup))


def _full_batch(x, batch_shape):
    """``x`` with its (possibly size-1) leading batch axes broadcast out."""
    shape = tuple(batch_shape) + tuple(x.shape[len(batch_shape):])
    return x if tuple(x.shape) == shape else jnp.broadcast_to(x, shape)


def _sparse_coords(indices):
    return tuple(indices[:, i] for i in range(indices.shape[-1]))


# -- bcoo_todense

bcoo_todense_p = core.Primitive("bcoo_todense")


def _bcoo_todense(data, indices, *, spinfo):
    return bcoo_todense_p.bind(jnp.asarray(data), jnp.asarray(indices), spinfo=spinfo)


def _todense_impl(data, indices, *, spinfo):
    shape = tuple(spinfo.shape)
    n_batch, n_sparse, _, _ = _validate_bcoo(data, indices, shape)

    def one(d, i):
        inner = shape[n_batch:]
        if not n_sparse:
            return d.sum(0, dtype=d.dtype)
        return jnp.zeros(inner, d.dtype).at[_sparse_coords(i)].add(d)
    out = nfold_vmap(one, n_batch)(data, indices)
    return _full_batch(out, shape[:n_batch])


def _todense_abstract_eval(data, indices, *, spinfo):
    _validate_bcoo(data, indices, spinfo.shape)
    return core.ShapedArray(tuple(spinfo.shape), data.dtype)


def _todense_transpose(ct, data, indices, *, spinfo):
    if ad.is_undefined_primal(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    assert ad.is_undefined_primal(data)
    return _bcoo_extract(indices, ct), indices


def _batch_dims_to_front(args, dims, spinfo, size=None):
    """Both buffers with the vmapped axis first (a size-1 axis where one is
    unmapped): the vmapped axis becomes a new leading batch dimension."""
    data, indices = args
    n_batch = indices.ndim - 2 + (dims[1] is None)
    if not all(d is None or 0 <= d < n_batch for d in dims):
        raise NotImplementedError("batch_dims must be None or satisfy 0 < dim < n_batch. "
                                  f"Got batch_dims={tuple(dims)} for n_batch={n_batch}.")
    data, indices = (lax.expand_dims(x, [0]) if d is None else jnp.moveaxis(x, d, 0)
                     for x, d in ((data, dims[0]), (indices, dims[1])))
    if size is None:
        size = max(x.shape[d] for x, d in zip(args, dims) if d is not None)
    return data, indices, SparseInfo((size, *spinfo.shape), spinfo.indices_sorted,
                                     spinfo.unique_indices)


def _todense_batch(args, dims, *, spinfo):
    data, indices, spinfo = _batch_dims_to_front(args, dims, spinfo)
    return _bcoo_todense(data, indices, spinfo=spinfo), 0


bcoo_todense_p.def_abstract_eval(_todense_abstract_eval)
ad.defjvp(bcoo_todense_p, lambda t, data, indices, *, spinfo:
          _bcoo_todense(t, indices, spinfo=spinfo), None)
ad.transpose_rules[bcoo_todense_p] = _todense_transpose
batching.batch_rules[bcoo_todense_p] = _todense_batch
mlir.register_lowering(bcoo_todense_p, mlir.lower_fun(_todense_impl, multiple_results=False))


# -- bcoo_fromdense

bcoo_fromdense_p = core.Primitive("bcoo_fromdense")
bcoo_fromdense_p.multiple_results = True

TRACED_NSE_ERROR = """
The error arose for the nse argument of bcoo_fromdense. In order for
BCOO.fromdense() to be used in traced/compiled code, you must pass a concrete
value to the nse (number of stored elements) argument.
"""


def _bcoo_fromdense(mat, *, nse, n_batch=0, n_dense=0, index_dtype=np.int32):
    mat = jnp.asarray(mat)
    nse = core.concrete_or_error(operator.index, nse, TRACED_NSE_ERROR)
    return bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                 index_dtype=index_dtype)


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
    n_sparse = mat.ndim - n_batch - n_dense
    mask = mat != 0
    if n_dense:
        mask = mask.any(tuple(range(mat.ndim - n_dense, mat.ndim)))

    def nonzero(m):
        if not n_sparse:
            return jnp.zeros((nse, 0), index_dtype)
        found = jnp.nonzero(m, size=nse, fill_value=m.shape)
        return jnp.stack([f.astype(index_dtype) for f in found], axis=1)
    indices = nfold_vmap(nonzero, n_batch, broadcasted=False)(mask)
    data = _bcoo_extract(indices, mat)
    count = mask.sum(tuple(range(n_batch, mask.ndim)))[..., None]
    stored = lax.broadcasted_iota(count.dtype, (1,) * n_batch + (nse,), n_batch) < count
    stored = stored.reshape(stored.shape + (1,) * n_dense)
    return jnp.where(stored, data, jnp.zeros((), data.dtype)), indices


def _fromdense_abstract_eval(mat, *, nse, n_batch, n_dense, index_dtype):
    n_sparse = mat.ndim - n_batch - n_dense
    return (core.ShapedArray(mat.shape[:n_batch] + (nse,) + mat.shape[n_batch + n_sparse:],
                             mat.dtype),
            core.ShapedArray(mat.shape[:n_batch] + (nse, n_sparse), np.dtype(index_dtype)))


def _fromdense_jvp(primals, tangents, *, nse, n_batch, n_dense, index_dtype):
    (mat,), (mat_dot,) = primals, tangents
    data, indices = _bcoo_fromdense(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                    index_dtype=index_dtype)
    data_dot = (ad.Zero.from_primal_value(data) if type(mat_dot) is ad.Zero
                else _bcoo_extract(indices, mat_dot))
    return (data, indices), (data_dot, ad.Zero.from_primal_value(indices))


def _fromdense_transpose(ct, mat, *, nse, n_batch, n_dense, index_dtype):
    data, indices = ct
    if type(indices) is ad.Zero:
        raise ValueError("Cannot transpose with respect to sparse indices")
    return (_bcoo_todense(data, indices, spinfo=SparseInfo(mat.aval.shape)),)


def _fromdense_batch(args, dims, *, nse, n_batch, n_dense, index_dtype):
    (mat,), (bdim,) = args, dims
    if not 0 <= bdim <= n_batch:
        raise ValueError(f"Expected 0 < bdim <= n_batch; got bdim={bdim}, n_batch={n_batch}")
    return _bcoo_fromdense(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense,
                           index_dtype=index_dtype), (bdim, bdim)


bcoo_fromdense_p.def_abstract_eval(_fromdense_abstract_eval)
# JAX prints a scalar-type index_dtype as the class itself: <class 'numpy.int32'>
core.pp_param_rules[bcoo_fromdense_p] = lambda params: dict(sorted({
    **params, "index_dtype": repr(params["index_dtype"]) if isinstance(params["index_dtype"], type)
    else params["index_dtype"]}.items()))
ad.jvp_rules[bcoo_fromdense_p] = _fromdense_jvp
ad.transpose_rules[bcoo_fromdense_p] = _fromdense_transpose
batching.batch_rules[bcoo_fromdense_p] = _fromdense_batch
mlir.register_lowering(bcoo_fromdense_p, mlir.lower_fun(_fromdense_impl, multiple_results=True))


# -- bcoo_extract

bcoo_extract_p = core.Primitive("bcoo_extract")


def _bcoo_extract(indices, arr, *, assume_unique=True):
    return bcoo_extract_p.bind(indices, arr, assume_unique=assume_unique)


def _extract_impl(indices, arr, *, assume_unique):
    arr = jnp.asarray(arr)
    n_batch, n_sparse, _, nse = _validate_bcoo_indices(indices, arr.shape)

    def one(i, a):
        if not n_sparse:
            return jnp.broadcast_to(a[None], (nse,) + a.shape)
        return a.at[_sparse_coords(i)].get(mode="fill", fill_value=0)

    def first_only(i, a):
        """Each distinct index's value at its first occurrence, 0 elsewhere."""
        if not n_sparse:
            return jnp.zeros((nse,) + a.shape, a.dtype).at[:1].set(a[None])
        uniq, first = _unique_rows(i, a.shape[:n_sparse], with_first=True)[::2]
        vals = a.at[_sparse_coords(uniq)].get(mode="fill", fill_value=0)
        return jnp.zeros_like(vals).at[first].add(vals)
    out = nfold_vmap(one if assume_unique else first_only, n_batch)(indices, arr)
    return _full_batch(out, arr.shape[:n_batch])


def _extract_abstract_eval(indices, arr, *, assume_unique):
    n_batch, _, n_dense, nse = _validate_bcoo_indices(indices, arr.shape)
    return core.ShapedArray(arr.shape[:n_batch] + (nse,) + arr.shape[arr.ndim - n_dense:],
                            arr.dtype)


def _extract_transpose(ct, indices, arr, *, assume_unique):
    if not assume_unique:
        raise NotImplementedError("transpose of bcoo_extract with assume_unique=False")
    if ad.is_undefined_primal(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    return indices, _bcoo_todense(ct, indices, spinfo=SparseInfo(arr.aval.shape))


def _extract_batch(args, dims, *, assume_unique):
    indices, arr = args
    if dims[0] is None:
        bdim = dims[1]
        indices = lax.expand_dims(indices, (bdim,))
    elif dims[1] is None:
        bdim = dims[0]
        shape = list(arr.shape)
        shape.insert(bdim, indices.shape[bdim])
        arr = lax.broadcast_in_dim(arr, shape, tuple(d for d in range(len(shape)) if d != bdim))
    else:
        if dims[0] != dims[1]:
            raise NotImplementedError("bcoo_extract with unequal batch dimensions.")
        bdim = dims[0]
    if bdim >= indices.ndim - 2:
        raise ValueError(f"batch_dims={tuple(dims)} out of range for indices with "
                         f"n_batch={indices.ndim - 2}")
    return _bcoo_extract(indices, arr, assume_unique=assume_unique), bdim


bcoo_extract_p.def_abstract_eval(_extract_abstract_eval)
ad.defjvp(bcoo_extract_p, None, lambda t, indices, arr, *, assume_unique:
          _bcoo_extract(indices, t, assume_unique=assume_unique))
ad.transpose_rules[bcoo_extract_p] = _extract_transpose
batching.batch_rules[bcoo_extract_p] = _extract_batch
mlir.register_lowering(bcoo_extract_p, mlir.lower_fun(_extract_impl, multiple_results=False))


# -- bcoo_transpose

bcoo_transpose_p = core.Primitive("bcoo_transpose")
bcoo_transpose_p.multiple_results = True


def _bcoo_transpose(data, indices, *, permutation, spinfo):
    permutation = tuple(permutation)
    if permutation == tuple(range(len(spinfo.shape))):
        return data, indices
    return bcoo_transpose_p.bind(data, indices, permutation=permutation, spinfo=spinfo)


def _validate_permutation(data, indices, permutation, shape):
    if not isinstance(permutation, (tuple, list, np.ndarray)):
        raise TypeError("transpose permutation must be a tuple/list/ndarray, "
                        f"got {type(permutation)}.")
    if tuple(sorted(permutation)) != tuple(range(len(shape))):
        raise TypeError("transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {permutation} for shape {shape}.")
    n_batch, n_sparse, n_dense, _ = _validate_bcoo(data, indices, shape)
    batch = tuple(permutation[:n_batch])
    sparse = [p - n_batch for p in permutation[n_batch:n_batch + n_sparse]]
    dense = [p - n_batch - n_sparse for p in permutation[n_batch + n_sparse:]]
    if n_batch and tuple(sorted(batch)) != tuple(range(n_batch)):
        raise NotImplementedError("transpose permutation cannot permute batch axes with "
                                  f"non-batch axes; got permutation {permutation}, with "
                                  f"n_batch={n_batch}.")
    if n_dense and tuple(sorted(dense)) != tuple(range(n_dense)):
        raise NotImplementedError("transpose permutation cannot permute dense axes with "
                                  f"non-dense axes; got permutation {permutation}, with "
                                  f"n_dense={n_dense}.")
    return batch, sparse, dense


def _transpose_impl(data, indices, *, permutation, spinfo):
    batch, sparse, dense = _validate_permutation(data, indices, permutation, spinfo.shape)
    nb = len(batch)
    indices = jnp.take(indices, np.array(sparse, dtype=np.int32), axis=-1)
    indices = indices.transpose(*batch, nb, nb + 1)
    data = data.transpose(*batch, nb, *(d + nb + 1 for d in dense))
    return data, indices


def _transpose_abstract_eval(data, indices, *, permutation, spinfo):
    batch, _, dense = _validate_permutation(data, indices, permutation, spinfo.shape)
    nb = len(batch)
    ishape = tuple(indices.shape[i] for i in (*batch, nb, nb + 1))
    dshape = tuple(data.shape[i] for i in (*batch, nb, *(d + nb + 1 for d in dense)))
    return core.ShapedArray(dshape, data.dtype), core.ShapedArray(ishape, indices.dtype)


def _transpose_jvp(primals, tangents, *, permutation, spinfo):
    data, indices = primals
    out = _bcoo_transpose(data, indices, permutation=permutation, spinfo=spinfo)
    t = tangents[0]
    t_out = (ad.Zero.from_primal_value(out[0]) if type(t) is ad.Zero else
             _bcoo_transpose(t, indices, permutation=permutation, spinfo=spinfo)[0])
    return out, (t_out, ad.Zero.from_primal_value(out[1]))


def _transpose_transpose(ct, data, indices, *, permutation, spinfo):
    data_ct, indices_ct = ct
    if ad.is_undefined_primal(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    ct_info = SparseInfo(tuple(spinfo.shape[p] for p in permutation))
    back = [int(i) for i in np.argsort(permutation)]
    # only the data is transposed back; stand-in indices of the right layout suffice
    stand_in = jnp.zeros([1] * (indices.ndim - 2) + list(indices.shape[-2:]), dtype=int)
    data_back, _ = _bcoo_transpose(data_ct, stand_in, permutation=back, spinfo=ct_info)
    return data_back, indices_ct


def _transpose_batch(args, dims, *, permutation, spinfo):
    data, indices, spinfo = _batch_dims_to_front(args, dims, spinfo)
    perm = (0, *(p + 1 for p in permutation))
    outs = _bcoo_transpose(data, indices, permutation=perm, spinfo=spinfo)
    out_dims = [None if d is None else 0 for d in dims]
    return [lax.squeeze(x, [0]) if d is None else x for x, d in zip(outs, out_dims)], out_dims


bcoo_transpose_p.def_abstract_eval(_transpose_abstract_eval)
ad.jvp_rules[bcoo_transpose_p] = _transpose_jvp
ad.transpose_rules[bcoo_transpose_p] = _transpose_transpose
batching.batch_rules[bcoo_transpose_p] = _transpose_batch
mlir.register_lowering(bcoo_transpose_p, mlir.lower_fun(_transpose_impl, multiple_results=True))


# -- unique indices (shared by sum_duplicates and extract with duplicates)

def _unique_rows(indices, sparse_shape, *, with_first=False):
    """Sorted distinct rows of ``indices`` (nse, n_sparse), out-of-bound rows
    folded into the fill row ``sparse_shape`` (sorting last), padded to nse
    with that fill row; with the group of each input row and the count of
    distinct in-bound rows, or (with ``with_first``) the first position of
    each distinct row."""
    nse, n_sparse = indices.shape
    fill = jnp.array(sparse_shape, indices.dtype)
    oob = (indices >= fill[None, :]).any(-1, keepdims=True)
    indices = jnp.where(oob, fill[None, :], indices)
    if nse == 0:
        zero = jnp.zeros(0, np.int32)
        return indices, zero, jnp.int32(0) if not with_first else zero
    *cols, perm = lax.sort((*_sparse_coords(indices), lax.iota(np.int32, nse)),
                           num_keys=n_sparse)
    rows = jnp.stack(cols, axis=1)
    new = jnp.concatenate([jnp.ones(1, bool), (rows[1:] != rows[:-1]).any(-1)])
    group = jnp.cumsum(new.astype(np.int32)) - 1
    uniq = jnp.broadcast_to(fill[None, :], (nse, n_sparse)).at[group].set(rows)
    if with_first:
        return uniq, None, jnp.full(nse, nse, np.int32).at[group].min(perm)
    inverse = jnp.zeros(nse, np.int32).at[perm].set(group)
    true_size = group[-1] + 1 - oob.any().astype(np.int32)
    return uniq, inverse, true_size


def _unique_indices(indices, *, shape):
    """Per batch element: unique rows, inverse mapping, count of in-bound rows."""
    n_batch, n_sparse, _, _ = _validate_bcoo_indices(indices, shape)

    def one(i):
        if not n_sparse:
            return jnp.zeros((1, 0), i.dtype), jnp.zeros(i.shape[0], np.int32), jnp.int32(1)
        return _unique_rows(i, shape[n_batch:n_batch + n_sparse])
    return nfold_vmap(one, n_batch, broadcasted=False)(indices)


def _adjust_indices_nse(indices, *, nse, shape):
    """``indices`` cut or padded (with the out-of-bound fill row) to ``nse``."""
    n_batch, n_sparse, _, cur = _validate_bcoo_indices(indices, shape)
    if nse <= cur:
        return indices[..., :nse, :]
    fill = lax.broadcast_in_dim(jnp.array(shape[n_batch:n_batch + n_sparse], indices.dtype),
                                (*indices.shape[:-2], nse - cur, n_sparse), (indices.ndim - 1,))
    return lax.concatenate([indices, fill], indices.ndim - 2)


# -- bcoo_sort_indices

bcoo_sort_indices_p = core.Primitive("bcoo_sort_indices")
bcoo_sort_indices_p.multiple_results = True


def _sort_rows(indices):
    *cols, perm = lax.sort((*_sparse_coords(indices), lax.iota(indices.dtype, indices.shape[0])),
                           num_keys=indices.shape[1])
    return jnp.stack(cols, axis=1).astype(indices.dtype), perm


def _sorted(data, indices, n_batch):
    indices, perm = nfold_vmap(_sort_rows, n_batch, broadcasted=False)(indices)
    return indices, perm, nfold_vmap(lambda d, p: d[p], n_batch)


def _sort_indices_impl(data, indices, *, spinfo):
    props = _validate_bcoo(data, indices, spinfo.shape)
    if not props.n_sparse:
        return data, indices
    indices, perm, permute = _sorted(data, indices, props.n_batch)
    return permute(data, perm), indices


def _sort_indices_abstract_eval(data, indices, *, spinfo):
    props = _validate_bcoo(data, indices, spinfo.shape)
    if not props.n_sparse:
        return data, indices
    batch = tuple(map(max, indices.shape[:props.n_batch], data.shape[:props.n_batch]))
    return (core.ShapedArray(batch + data.shape[props.n_batch:], data.dtype,
                             weak_type=data.weak_type), indices)


def _sort_indices_jvp(primals, tangents, *, spinfo):
    data, indices = primals
    props = _validate_bcoo(data, indices, spinfo.shape)
    if not props.n_sparse:
        return primals, tangents
    indices_out, perm, permute = _sorted(data, indices, props.n_batch)
    data_out = permute(data, perm)
    t = tangents[0]
    t_out = ad.Zero.from_primal_value(data_out) if type(t) is ad.Zero else permute(t, perm)
    return (data_out, indices_out), (t_out, ad.Zero.from_primal_value(indices_out))


def _sort_indices_batch(args, dims, *, spinfo):
    data, indices, spinfo = _batch_dims_to_front(args, dims, spinfo)
    data_out, indices_out = bcoo_sort_indices_p.bind(data, indices, spinfo=spinfo)
    if dims[1] is None:  # unmapped indices stay unmapped; data comes out mapped
        return (data_out, indices_out[0]), (0, None)
    return (data_out, indices_out), (0, 0)


bcoo_sort_indices_p.def_abstract_eval(_sort_indices_abstract_eval)
ad.jvp_rules[bcoo_sort_indices_p] = _sort_indices_jvp
batching.batch_rules[bcoo_sort_indices_p] = _sort_indices_batch
mlir.register_lowering(bcoo_sort_indices_p,
                       mlir.lower_fun(_sort_indices_impl, multiple_results=True))


# -- bcoo_sum_duplicates

bcoo_sum_duplicates_p = core.Primitive("bcoo_sum_duplicates")
bcoo_sum_duplicates_p.multiple_results = True

_NSE_NEEDED = ("bcoo_sum_duplicates: nse must be specified when using the function within "
               "jit, vmap, and other transformations requiring abstract evaluation.")


def _bcoo_sum_duplicates(data, indices, *, spinfo, nse):
    if nse is not None:
        nse = core.concrete_or_error(operator.index, nse, "nse argument of bcoo_sum_duplicates.")
    return bcoo_sum_duplicates_p.bind(data, indices, spinfo=spinfo, nse=nse)


def _summed(data, indices, spinfo, nse, data_dot=None):
    """(data, indices[, data_dot]) with duplicates summed into ``nse`` slots;
    entries whose slot is past ``nse`` are dropped."""
    props = _validate_bcoo(data, indices, spinfo.shape)
    indices_out, mapping, counts = _unique_indices(indices, shape=spinfo.shape)
    if nse is None:
        nse = 1 if not props.n_sparse else int(counts.max())
    indices_out = _adjust_indices_nse(indices_out, nse=nse, shape=spinfo.shape)
    nb = props.n_batch
    batch = tuple(map(max, indices.shape[:nb], data.shape[:nb]))
    zeros = jnp.zeros(batch + (nse,) + data.shape[nb + 1:], data.dtype)
    if zeros.size:
        scatter = nfold_vmap(lambda out, m, d: out.at[m].add(d, mode="drop"), nb)
    else:  # scatter-add into an empty array is ill defined: nothing to add
        scatter = lambda out, m, d: out
    outs = []
    for d in (data, data_dot):
        if d is not None:
            if not props.n_sparse:
                d = d.sum(nb, keepdims=True, dtype=d.dtype)
            outs.append(scatter(zeros, mapping, d))
    return outs[0], indices_out, outs[1:]


def _sum_duplicates_impl(data, indices, *, spinfo, nse):
    if nse is None:
        counts = _jit_unique(indices, shape=tuple(spinfo.shape))[2]
        nse = 1 if not indices.shape[-1] else int(counts.max())
    return _jit_summed(data, indices, spinfo=spinfo, nse=nse)


_jit_unique = jit(_unique_indices, static_argnames=("shape",))
_jit_summed = jit(lambda data, indices, *, spinfo, nse: _summed(data, indices, spinfo, nse)[:2],
                  static_argnames=("spinfo", "nse"))


def _sum_duplicates_abstract_eval(data, indices, *, spinfo, nse):
    if nse is None:
        raise ValueError(_NSE_NEEDED)
    props = _validate_bcoo(data, indices, spinfo.shape)
    nb = props.n_batch
    batch = tuple(map(max, indices.shape[:nb], data.shape[:nb]))
    return (core.ShapedArray(batch + (nse,) + data.shape[nb + 1:], data.dtype,
                             weak_type=data.weak_type),
            core.ShapedArray(indices.shape[:nb] + (nse, props.n_sparse), indices.dtype,
                             weak_type=indices.weak_type))


def _sum_duplicates_jvp(primals, tangents, *, spinfo, nse):
    data, indices = primals
    t = tangents[0]
    if nse is None:
        raise ValueError(_NSE_NEEDED)
    data_out, indices_out, t_out = _summed(data, indices, spinfo, nse,
                                           None if type(t) is ad.Zero else t)
    t_out = t_out[0] if t_out else ad.Zero.from_primal_value(data_out)
    return (data_out, indices_out), (t_out, ad.Zero.from_primal_value(indices_out))


def _sum_duplicates_batch(args, dims, *, spinfo, nse):
    data, indices, spinfo = _batch_dims_to_front(args, dims, spinfo)
    data_out, indices_out = bcoo_sum_duplicates_p.bind(data, indices, spinfo=spinfo, nse=nse)
    if dims[1] is None:  # unmapped indices stay unmapped; data comes out mapped
        return (data_out, lax.squeeze(indices_out, [0])), (0, None)
    return (data_out, indices_out), (0, 0)


bcoo_sum_duplicates_p.def_impl(_sum_duplicates_impl)
bcoo_sum_duplicates_p.def_abstract_eval(_sum_duplicates_abstract_eval)
ad.jvp_rules[bcoo_sum_duplicates_p] = _sum_duplicates_jvp
batching.batch_rules[bcoo_sum_duplicates_p] = _sum_duplicates_batch
mlir.register_lowering(bcoo_sum_duplicates_p, mlir.lower_fun(
    lambda data, indices, *, spinfo, nse: _summed(data, indices, spinfo, nse)[:2],
    multiple_results=True))
