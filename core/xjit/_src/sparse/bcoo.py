"""The ``BCOO`` array and the functions on it.

JAX derives BCOO's arithmetic (``@``, ``*``, ``-``, ``sum``, ``astype``,
``reshape``) from ``sparsify`` applied to the jnp functions. xjit has no
sparsify; these methods instead follow the same steps jnp takes (promotion,
rank promotion, the dot_general dimension numbers of ``matmul``, the
reduction dtypes of ``sum``) and apply JAX's sparse rule where that step
reaches the sparse operand, so they bind the same primitives in the same
order. A step JAX's rules handle but xjit does not (squeezing or
broadcasting a sparse operand, products of two sparse arrays) raises
NotImplementedError naming it."""
from __future__ import annotations

import abc
import math
import operator

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import core, dtypes
from xjit._src.interpreters import batching
from xjit._src.numpy import util as np_util
from xjit._src.sparse.bcoo_dot import (  # noqa: F401  (re-exported by the public module)
    _bcoo_dot_general,
    _bcoo_rdot_general,
    bcoo_dot_general_p,
    bcoo_dot_general_sampled,
    bcoo_dot_general_sampled_p,
)
from xjit._src.sparse.bcoo_prims import (  # noqa: F401
    TRACED_NSE_ERROR,
    _bcoo_extract,
    _bcoo_fromdense,
    _bcoo_sum_duplicates,
    _bcoo_todense,
    _bcoo_transpose,
    _validate_bcoo,
    _validate_permutation,
    bcoo_extract_p,
    bcoo_fromdense_p,
    bcoo_sort_indices_p,
    bcoo_sum_duplicates_p,
    bcoo_todense_p,
    bcoo_transpose_p,
)
from xjit._src.sparse.util import SparseInfo, _count_stored_elements, nfold_vmap
from xjit._src.tree_util import register_pytree_node_class


class JAXSparse(abc.ABC):
    """Base class of the sparse array types."""

    __hash__ = None

    @property
    @abc.abstractmethod
    def dtype(self): ...

    @property
    @abc.abstractmethod
    def nse(self): ...

    def __init__(self, args, *, shape):
        self.shape = core.canonicalize_shape(shape)

    def __len__(self):
        return self.shape[0]

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def T(self):
        return self.transpose()

    def block_until_ready(self):
        for buf in self.tree_flatten()[0]:
            buf.block_until_ready()
        return self

    @abc.abstractmethod
    def tree_flatten(self): ...

    @abc.abstractmethod
    def transpose(self, axes=None): ...

    @abc.abstractmethod
    def todense(self): ...


def _unsupported(what):
    def method(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.{what} is not supported by xjit's "
                                  "jax.experimental.sparse")
    method.__name__ = what
    return method


@register_pytree_node_class
class BCOO(JAXSparse):
    """Batched-coordinate sparse array: ``data`` (batch + (nse,) + dense) and
    ``indices`` (batch + (nse, n_sparse)); duplicate indices are summed."""

    def __init__(self, args, *, shape, indices_sorted=False, unique_indices=False):
        self.data, self.indices = map(jnp.asarray, args)
        self.indices_sorted = indices_sorted
        self.unique_indices = unique_indices
        super().__init__(args, shape=tuple(shape))
        _validate_bcoo(self.data, self.indices, self.shape)

    _info = property(lambda self: SparseInfo(self.shape, self.indices_sorted,
                                             self.unique_indices))
    _bufs = property(lambda self: (self.data, self.indices))
    nse = property(lambda self: self.indices.shape[-2])
    dtype = property(lambda self: self.data.dtype)
    n_batch = property(lambda self: self.indices.ndim - 2)
    n_sparse = property(lambda self: self.indices.shape[-1])
    n_dense = property(lambda self: self.data.ndim - 1 - self.n_batch)

    def __repr__(self):
        name = type(self).__name__
        try:
            extra = f", nse={self.nse}"
            if self.n_batch:
                extra += f", n_batch={self.n_batch}"
            if self.n_dense:
                extra += f", n_dense={self.n_dense}"
            text = f"{name}({self.dtype}{list(self.shape)}{extra})"
        except (AttributeError, IndexError, TypeError):  # a half-built array (e.g. unflattened from avals)
            text = f"{name}(<invalid>)"
        if isinstance(self.data, core.Tracer):
            text = f"{type(self.data).__name__}[{text}]"
        return text

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
        """Create a BCOO array from a (dense) array."""
        return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0):
        """Create a BCOO array from a scipy.sparse matrix or array."""
        if n_dense != 0 or n_batch != 0:
            raise NotImplementedError("BCOO.fromscipy with nonzero n_dense/n_batch")
        mat = mat.tocoo()
        indices = jnp.column_stack((mat.row, mat.col)).astype(index_dtype or jnp.int32)
        return cls((jnp.asarray(mat.data), indices), shape=mat.shape)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense=0, n_batch=0, nse=0):
        shape = tuple(shape)
        n_sparse = len(shape) - n_dense - n_batch
        if n_sparse < 0 or n_dense < 0 or n_batch < 0 or nse < 0:
            raise ValueError(f"Invalid inputs: shape={shape}, n_dense={n_dense}, "
                             f"n_batch={n_batch}, nse={nse}")
        batch, sparse, dense = (shape[:n_batch], shape[n_batch:n_batch + n_sparse],
                                shape[n_batch + n_sparse:])
        data = jnp.zeros((*batch, nse, *dense), dtype)
        indices = jnp.full((*batch, nse, n_sparse), jnp.array(sparse), index_dtype)
        return cls((data, indices), shape=shape, indices_sorted=True, unique_indices=True)

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32", n_batch=0, n_dense=0):
        if 2 - n_batch - n_dense < 0 or n_dense < 0 or n_batch < 0:
            raise ValueError(f"Invalid inputs: shape={(N, M)}, n_dense={n_dense}, "
                             f"n_batch={n_batch}")
        diag = min(N, M - k) if k > 0 else min(N + k, M)
        if diag <= 0:
            return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype, n_batch=n_batch,
                              n_dense=n_dense)
        if n_dense > 0 or n_batch > 1:  # every zero is stored anyway
            return cls.fromdense(jnp.eye(N, M, k, dtype=dtype), n_batch=n_batch,
                                 n_dense=n_dense, index_dtype=index_dtype)
        if n_batch == 0:
            idx = jnp.arange(diag, dtype=index_dtype)
            data = jnp.ones(diag, dtype=dtype)
            indices = jnp.column_stack([idx + max(-k, 0), idx + max(k, 0)])
        else:
            data = jnp.ones(N, dtype=dtype)
            indices = jnp.arange(N, dtype=index_dtype) + k
            if k < 0:
                data = data.at[:-k].set(0)
                indices = indices.at[:-k].set(M)
            elif k > 0:  # (JAX resets only the index at M - k)
                data = data.at[M - k:].set(0)
                indices = indices.at[M - k].set(M)
            data, indices = data[:, None], indices[:, None, None]
        return cls((data, indices), shape=(N, M), indices_sorted=True, unique_indices=True)

    def sum_duplicates(self, nse=None, remove_zeros=True):
        """A copy with duplicate indices summed and indices sorted (explicit
        zeros dropped too with ``remove_zeros``); ``nse`` fixes the output
        size, which transformations need."""
        if remove_zeros:
            return bcoo_eliminate_zeros(self, nse=nse)
        return bcoo_sum_duplicates(self, nse=nse)

    def sort_indices(self):
        """A copy with indices sorted."""
        return bcoo_sort_indices(self)

    def todense(self):
        """The dense array."""
        return bcoo_todense(self)

    def transpose(self, axes=None):
        """The array with axes permuted (reversed by default)."""
        perm = list(range(self.ndim)[::-1] if axes is None else axes)
        out = bcoo_transpose(self, permutation=perm)
        sparse_perm = [p - self.n_batch for p in perm[self.n_batch:self.n_batch + self.n_sparse]]
        keeps_order = tuple(sparse_perm) == tuple(range(self.n_sparse))
        return BCOO(out._bufs, shape=out.shape,
                     indices_sorted=self.indices_sorted if keeps_order else False,
                     unique_indices=self.unique_indices)

    def tree_flatten(self):
        return (self.data, self.indices), self._info._asdict()

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        obj = object.__new__(cls)
        obj.data, obj.indices = children
        if aux_data.keys() != {"shape", "indices_sorted", "unique_indices"}:
            raise ValueError(f"BCOO.tree_unflatten: invalid aux_data={aux_data}")
        obj.__dict__.update(**aux_data)
        _check_fits(obj.data, obj.indices, obj.shape)
        return obj

    def __matmul__(self, other):
        return _matmul(self, other)

    def __rmatmul__(self, other):
        return _matmul(other, self)

    def __mul__(self, other):
        return _multiply(self, other)

    def __rmul__(self, other):
        return _multiply(other, self)

    def __neg__(self):
        return BCOO((lax.neg(self.data), self.indices), shape=self.shape,
                    indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

    def __pos__(self):
        return BCOO(self._bufs, **self._info._asdict())

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
            promote_integers=True):
        """Sum over ``axis`` (a dense array when every axis is summed)."""
        return _sum(self, axis, dtype, out, keepdims, initial, where, promote_integers)

    def astype(self, dtype, copy=False, device=None):
        """The array with its data cast to ``dtype``."""
        dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
        return _convert(self, dtype, False)

    def reshape(self, *args, **kwargs):
        """The array with a new shape (batch, sparse and dense axes kept apart)."""
        shape = args[0] if len(args) == 1 and not isinstance(args[0], int) else args
        shape = kwargs.pop("shape", shape)
        if kwargs:
            raise NotImplementedError(f"BCOO.reshape with {sorted(kwargs)}")
        shape = _resolve_shape(self.shape, shape)
        if shape == self.shape:
            return self
        return bcoo_reshape(self, new_sizes=shape)

    __abs__ = _unsupported("__abs__")
    __add__ = __radd__ = _unsupported("__add__")
    __sub__ = __rsub__ = _unsupported("__sub__")
    __truediv__ = _unsupported("__truediv__")
    __getitem__ = _unsupported("__getitem__")
    update_layout = _unsupported("update_layout")


def _resolve_shape(old, new):
    new = [operator.index(d) for d in new]
    if new.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in new:
        rest = math.prod(d for d in new if d != -1)
        new[new.index(-1)] = math.prod(old) // rest if rest else 0
    if math.prod(new) != math.prod(old):
        raise TypeError(f"cannot reshape array of shape {tuple(old)} (size {math.prod(old)}) "
                        f"into shape {tuple(new)} (size {math.prod(new)})")
    return tuple(new)


# -- functions on BCOO arrays

def bcoo_todense(mat):
    """The dense array of a BCOO array."""
    return _bcoo_todense(mat.data, mat.indices, spinfo=mat._info)


def bcoo_fromdense(mat, *, nse=None, n_batch=0, n_dense=0, index_dtype=jnp.int32):
    """A BCOO array holding the nonzeros of ``mat`` (``nse`` of them per batch
    element; counted when not given, which needs a concrete ``mat``)."""
    mat = jnp.asarray(mat)
    if nse is None:
        nse = _count_stored_elements(mat, n_batch, n_dense)
    nse = core.concrete_or_error(operator.index, nse, TRACED_NSE_ERROR)
    bufs = _bcoo_fromdense(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                           index_dtype=index_dtype)
    return BCOO(bufs, shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_extract(sparr, arr, *, assume_unique=None):
    """The values of ``arr`` at the indices of ``sparr``, as a BCOO array."""
    if not isinstance(sparr, BCOO):
        raise TypeError("First argument to bcoo_extract should be a BCOO array. "
                        f"Got type(sparr)={type(sparr)}")
    a = jnp.asarray(arr)
    if a.shape != sparr.shape:
        raise ValueError(f"shape mismatch: sparr.shape={sparr.shape} a.shape={a.shape}")
    if assume_unique is None:
        assume_unique = sparr.unique_indices
    data = _bcoo_extract(sparr.indices, a, assume_unique=assume_unique)
    return BCOO((data, sparr.indices), **sparr._info._asdict())


def bcoo_transpose(mat, *, permutation):
    """``mat`` with axes permuted (batch, sparse and dense axes each among themselves)."""
    bufs = _bcoo_transpose(mat.data, mat.indices, permutation=permutation, spinfo=mat._info)
    return BCOO(bufs, shape=tuple(mat.shape[p] for p in permutation),
                unique_indices=mat.unique_indices)


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """``lax.dot_general`` with a BCOO operand on either side (dense result)."""
    if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):
        raise NotImplementedError("bcoo_dot_general of two BCOO arrays (bcoo_spdot_general) "
                                  "is not supported by xjit")
    if isinstance(lhs, BCOO):
        return _bcoo_dot_general(lhs.data, lhs.indices, rhs, lhs_spinfo=lhs._info,
                                 dimension_numbers=dimension_numbers,
                                 preferred_element_type=preferred_element_type)
    if isinstance(rhs, BCOO):
        return _bcoo_rdot_general(lhs, rhs.data, rhs.indices, rhs_spinfo=rhs._info,
                                  dimension_numbers=dimension_numbers,
                                  preferred_element_type=preferred_element_type)
    return lax.dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                           preferred_element_type=preferred_element_type)


def bcoo_sort_indices(mat):
    """``mat`` with its indices in lexicographic order."""
    data, indices = bcoo_sort_indices_p.bind(mat.data, mat.indices, spinfo=mat._info)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True,
                unique_indices=mat.unique_indices)


def bcoo_sum_duplicates(mat, nse=None):
    """``mat`` with duplicate indices summed and sorted; ``nse`` (required
    under transformations) pads with out-of-bound indices or drops entries."""
    data, indices = _bcoo_sum_duplicates(mat.data, mat.indices, spinfo=mat._info, nse=nse)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_eliminate_zeros(mat, nse=None):
    """``bcoo_sum_duplicates`` after moving explicit zeros out of bounds."""
    data, indices, shape = mat.data, mat.indices, mat.shape
    n_batch, n_sparse, _, _ = _validate_bcoo(data, indices, shape)
    mask = (data == 0).all(tuple(range(n_batch + 1, data.ndim)))
    shared = tuple(i for i, s in enumerate(indices.shape[:n_batch]) if s == 1)
    mask = mask.all(shared, keepdims=True)
    fill = jnp.array(shape[n_batch:n_batch + n_sparse], dtype=indices.dtype)
    indices = nfold_vmap(lambda i, m: jnp.where(m[:, None], fill[None, :], i), n_batch)(
        indices, mask)
    return bcoo_sum_duplicates(BCOO((data, indices), shape=shape), nse=nse)


def bcoo_reduce_sum(mat, *, axes):
    """Sum over ``axes``: summed sparse axes drop their index column, summed
    batch axes are folded into nse."""
    shape = mat.shape
    data, indices = mat.data, mat.indices
    assert all(0 <= a < len(shape) for a in axes)
    n_batch, n_sparse, _, nse = _validate_bcoo(data, indices, shape)
    axes = sorted(set(axes))
    data = data.sum(tuple(a - n_sparse + 1 for a in axes if a >= n_batch + n_sparse))
    if n_sparse:  # padding entries must not count
        bound = jnp.expand_dims(jnp.array(shape[n_batch:n_batch + n_sparse], indices.dtype),
                                range(indices.ndim - 1))
        mask = jnp.all(indices < bound, -1)
        if data.ndim > mask.ndim:
            mask = lax.expand_dims(mask, tuple(range(mask.ndim, data.ndim)))
        data = jnp.where(mask, data, 0)
    kept = [i for i in range(n_sparse) if i + n_batch not in axes]
    if kept:
        indices = indices[..., np.array(kept)]
    else:
        indices = jnp.zeros(indices.shape[:n_batch + 1] + (0,), indices.dtype)
    summed_batch = [a for a in axes if a < n_batch]
    for ax in summed_batch:  # a shared (size-1) batch axis: counted or broadcast first
        if data.shape[ax] == 1:
            if indices.shape[ax] == 1:
                data = data * shape[ax]
            else:
                data = lax.broadcast_in_dim(
                    data, data.shape[:ax] + (shape[ax],) + data.shape[ax + 1:],
                    tuple(range(data.ndim)))
        elif indices.shape[ax] == 1:
            data = data.sum(ax)
    kept_batch = [i for i in range(n_batch) if i not in summed_batch]
    new_nse = nse * math.prod(data.shape[i] for i in summed_batch)
    order = (*kept_batch, *summed_batch)
    data = lax.reshape(data, (*(data.shape[i] for i in kept_batch), new_nse,
                              *data.shape[n_batch + 1:]),
                       (*order, *range(n_batch, data.ndim)))
    indices = lax.reshape(indices, (*(data.shape[i] for i in range(len(kept_batch))), new_nse,
                                    *indices.shape[n_batch + 1:]),
                          (*order, *range(n_batch, indices.ndim)))
    return BCOO((data, indices), shape=tuple(s for i, s in enumerate(shape) if i not in axes))


def bcoo_multiply_dense(sp_mat, v):
    """Elementwise ``sp_mat * v`` for a dense ``v`` broadcasting to
    ``sp_mat``'s shape: the new BCOO data."""
    data, indices, shape = sp_mat.data, sp_mat.indices, sp_mat.shape
    if np.ndim(v) == 0:
        return lax.mul(data, v)
    if shape == v.shape:  # duplicates need no care: multiplication distributes
        return lax.mul(data, _bcoo_extract(indices, v))
    if lax.broadcast_shapes(v.shape, shape) != shape:
        raise NotImplementedError(
            "multiplication between sparse and dense is only implemented for cases where "
            f"the output shape matches the sparse matrix shape. Got shape={shape}, "
            f"v.shape={v.shape}")
    v = lax.expand_dims(v, range(len(shape) - v.ndim))
    n_batch, n_sparse, _, _ = _validate_bcoo(data, indices, shape)

    def mul(d, i, w):
        cols = tuple(i[:, j] for j in range(n_sparse))
        return d * w[tuple(c if s != 1 else 0 for c, s in zip(cols, w.shape))]
    return nfold_vmap(mul, n_batch)(data, indices, v)


def bcoo_reshape(mat, *, new_sizes, dimensions=None, sharding=None):
    """``lax.reshape`` of a BCOO array; batch, sparse and dense axes must
    reshape among themselves."""
    nb, ns = mat.n_batch, mat.n_sparse
    if mat.indices.shape[:nb] != mat.data.shape[:nb] != mat.shape[:nb]:
        raise NotImplementedError("reshape of arrays with broadcasted batch dimensions.")
    batch_shape, sparse_shape = mat.shape[:nb], mat.shape[nb:nb + ns]
    batch_perm, sparse_perm, dense_perm = _validate_permutation(
        mat.data, mat.indices, dimensions or tuple(range(mat.ndim)), mat.shape)
    batch_size, sparse_size = math.prod(batch_shape), math.prod(sparse_shape)
    cum = np.cumprod(new_sizes)
    if batch_size != 1 and batch_size not in cum:
        raise ValueError("bcoo_reshape: new shape cannot mix batch and sparse dimensions; "
                         f"got shape={mat.shape} new_shape={new_sizes} with n_batch={nb}")
    if sparse_size != 1 and batch_size * sparse_size not in cum:
        raise ValueError("bcoo_reshape: new shape cannot mix sparse and dense dimensions; "
                         f"got shape={mat.shape} new_shape={new_sizes} with "
                         f"n_dense={mat.n_dense}")
    i1 = int(cum.searchsorted(batch_size, side="right"))
    i2 = int(cum.searchsorted(batch_size * sparse_size, side="right"))
    new_batch, new_sparse = tuple(new_sizes[:i1]), tuple(new_sizes[i1:i2])
    new_dense = tuple(new_sizes[i2:])
    data = lax.reshape(mat.data, (*new_batch, mat.nse, *new_dense),
                       (*batch_perm, nb, *(p + nb + 1 for p in dense_perm)))
    indices = lax.reshape(mat.indices, (*new_batch, mat.nse, ns), (*batch_perm, nb, nb + 1))
    if not new_sparse:
        indices = jnp.zeros_like(indices, shape=(*new_batch, mat.nse, 0))
    elif sparse_shape:
        cols = tuple(indices[..., i] for i in sparse_perm)
        dims = tuple(int(mat.shape[nb + i]) for i in sparse_perm)
        flat = jnp.ravel_multi_index(cols, dims=dims, mode="clip")
        oob = (indices >= jnp.array(sparse_shape, dtype=indices.dtype)).any(-1, keepdims=True)
        new_cols = jnp.unravel_index(flat, new_sparse)
        indices = jnp.concatenate([c[..., None] for c in new_cols], axis=-1)
        indices = jnp.where(oob, jnp.array(new_sparse, dtype=indices.dtype), indices)
    return BCOO((data, indices), shape=tuple(new_sizes))


# -- the jnp steps of BCOO's operators (see the module docstring)

def _convert(mat, dtype, weak_type):
    """``convert_element_type`` on a BCOO: not zero-preserving-linear, so
    duplicates are summed first (JAX's sparse rule)."""
    if mat.dtype == dtype and bool(getattr(mat.data, "weak_type", False)) == weak_type:
        return mat
    if not mat.unique_indices:
        mat = bcoo_sum_duplicates(mat, nse=mat.nse)
    data = np_util.convert(mat.data, dtype, weak_type)
    return BCOO((data, mat.indices), **mat._info._asdict())


def _matmul(a, b):
    if isinstance(a, BCOO) and isinstance(b, BCOO):
        raise NotImplementedError("matmul of two BCOO arrays (bcoo_spdot_general) is not "
                                  "supported by xjit")
    np_util.check_arraylike("matmul", *(x for x in (a, b) if not isinstance(x, BCOO)))
    for i, x in enumerate((a, b)):
        if len(np.shape(x)) < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it "
                             f"has ndim {len(np.shape(x))}")
    pet, weak = dtypes.result_type(*(x.data if isinstance(x, BCOO) else x for x in (a, b)),
                                   return_weak_type_flag=True)
    sa, sb = tuple(np.shape(a)), tuple(np.shape(b))
    a_mat, b_mat = len(sa) > 1, len(sb) > 1
    ab, bb = (sa[:-2] if a_mat else ()), (sb[:-2] if b_mat else ())
    n = max(len(ab), len(bb))
    ab, bb = (None,) * (n - len(ab)) + ab, (None,) * (n - len(bb)) + bb
    a_sq, b_sq, both_sq, a_batch, b_batch = [], [], [], [], []
    idx_batch, idx_a, idx_b = [], [], []
    for i, (x, y) in enumerate(zip(ab, bb)):
        if x is None:
            idx_b.append(i)
        elif y is None:
            idx_a.append(i)
        elif x == 1 and y == 1:
            a_sq.append(len(idx_batch) + len(idx_a) + len(a_sq))
            b_sq.append(len(idx_batch) + len(idx_b) + len(b_sq))
            both_sq.append(i)
        elif x == 1:
            idx_b.append(i)
            a_sq.append(len(idx_batch) + len(idx_a) + len(a_sq))
        elif y == 1:
            idx_a.append(i)
            b_sq.append(len(idx_batch) + len(idx_b) + len(b_sq))
        elif x == y:
            a_batch.append(len(idx_batch) + len(idx_a))
            b_batch.append(len(idx_batch) + len(idx_b))
            idx_batch.append(i)
        else:
            raise ValueError(f"Incompatible types for matmul arguments: {_type_str(a)} and "
                             f"{_type_str(b)}")
    if a_mat:
        idx_a.append(n)
    if b_mat:
        idx_b.append(n + a_mat)
    perm = np.argsort(np.concatenate([idx_batch, idx_a, idx_b]))
    a, b = _squeeze(a, a_sq), _squeeze(b, b_sq)
    out = bcoo_dot_general(a, b, dimension_numbers=(
        ((len(np.shape(a)) - 1,), (len(np.shape(b)) - 1 - b_mat,)), (a_batch, b_batch)),
        preferred_element_type=pet)
    out = lax.transpose(out, perm)
    if both_sq:
        out = lax.expand_dims(out, tuple(both_sq))
    return np_util.convert(out, pet, weak)


def _type_str(x):
    return (f"ShapedArray({x.dtype}{list(x.shape)})".replace(" ", "") if isinstance(x, BCOO)
            else str(core.aval_of(x)))


def _squeeze(x, dims):
    if not dims:
        return x
    if isinstance(x, BCOO):
        raise NotImplementedError("squeezing a BCOO operand (bcoo_squeeze) is not supported "
                                  "by xjit")
    return lax.squeeze(x, tuple(dims))


def _multiply(x, y):
    sp, other = (x, y) if isinstance(x, BCOO) else (y, x)
    if isinstance(other, BCOO):
        raise NotImplementedError("multiplication of two BCOO arrays (bcoo_multiply_sparse) "
                                  "is not supported by xjit")
    np_util.check_arraylike("multiply", other)
    dtype, weak = dtypes.result_type(sp.data, other, return_weak_type_flag=True)
    if dtype == np.bool_:
        raise NotImplementedError("sparse rule for and is not implemented.")
    first = sp is x
    sp = _convert(sp, dtype, weak)
    other = np_util.convert(other, dtype, weak)
    if np.ndim(other) > sp.ndim:  # JAX broadcasts the sparse operand up, then refuses
        shape = (1,) * (np.ndim(other) - sp.ndim) + sp.shape
        raise NotImplementedError(
            "multiplication between sparse and dense is only implemented for cases "
            f"where the output shape matches the sparse matrix shape. Got shape={shape}, "
            f"v.shape={np.shape(other)}")
    # rank promotion and its shape checks, against a zero-size stand-in of the sparse shape
    stand_in = np.broadcast_to(np.zeros((), np.int8), sp.shape)
    if first:
        other = np_util.promote_shapes("multiply", stand_in, other)[1]
    else:
        other = np_util.promote_shapes("multiply", other, stand_in)[0]
    data = bcoo_multiply_dense(sp, other)
    return BCOO((data, sp.indices), **sp._info._asdict())


def _promote_integer_dtype(dtype):
    if dtype == np.bool_:
        return dtypes.default_int_dtype()
    if jnp.issubdtype(dtype, np.signedinteger):
        default = dtypes.default_int_dtype()
        return default if np.dtype(dtype).itemsize < default.itemsize else dtype
    if jnp.issubdtype(dtype, np.unsignedinteger):
        default = dtypes.default_uint_dtype()
        return default if np.dtype(dtype).itemsize < default.itemsize else dtype
    return dtype


def _sum(mat, axis, dtype, out, keepdims, initial, where, promote_integers):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.sum is not supported.")
    if initial is not None or where is not None:
        raise NotImplementedError("BCOO.sum with initial or where is not supported by xjit")
    axis = core.concrete_or_error(None, axis, "axis argument to jnp.sum().")
    if mat.dtype == np.bool_:  # jnp.sum casts booleans to integers first
        mat = _convert(mat, dtypes.default_int_dtype(), False)
    if axis is None:
        axes = tuple(range(mat.ndim))
    else:
        axes = tuple(np_util.canonicalize_axis(a, mat.ndim)
                     for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if dtype is None:
        result = _promote_integer_dtype(mat.dtype) if promote_integers else mat.dtype
    else:
        result = dtypes.canonicalize_dtype(np.dtype(dtype))
    compute = result
    if jnp.issubdtype(result, np.inexact) and np.dtype(result) in (
            np.dtype(np.float16), np.dtype(jnp.bfloat16)):
        compute = np.dtype(np.float32)
    mat = _convert(mat, compute, False)
    red = bcoo_reduce_sum(mat, axes=axes)
    res = red.data.sum() if red.shape == () else red
    if keepdims:
        if isinstance(res, BCOO):
            raise NotImplementedError("BCOO.sum with keepdims=True over some axes "
                                      "(bcoo_broadcast_in_dim) is not supported by xjit")
        res = lax.expand_dims(res, axes)
    if isinstance(res, BCOO):
        return _convert(res, result, False)
    return np_util.convert(res, result, False)


def _check_fits(data, indices, shape):
    """Children rebuilt into a BCOO must fit its shape. They do not when a
    transformation sliced or stacked the children leaf by leaf (``lax.map``
    or ``lax.scan`` over a BCOO adds or removes a leading axis of ``data``
    and ``indices`` but not of ``shape``; vmap maps a BCOO as one value, see
    ``_bcoo_to_elt``), so refuse rather than build a wrong array. Children
    that are not arrays (a tree_map's placeholders) are not checked."""
    dshape, ishape = getattr(data, "shape", None), getattr(indices, "shape", None)
    if not isinstance(dshape, tuple) or not isinstance(ishape, tuple) or len(ishape) < 2:
        return
    n_batch, n_sparse = len(ishape) - 2, ishape[-1]
    n_dense = len(dshape) - 1 - n_batch
    if n_dense < 0 or n_batch + n_sparse + n_dense != len(shape):
        raise NotImplementedError(
            f"BCOO data of shape {dshape} and indices of shape {ishape} do not fit shape="
            f"{tuple(shape)}: a BCOO array was sliced or stacked leaf by leaf (as lax.map and "
            "lax.scan do), which xjit refuses (map over its data and indices arrays, or use vmap)")


# -- vmap maps a BCOO as one value: its in_axes/out_axes name a batch dimension

def _batch_position(mat, axis, extra):
    """The position ``axis`` names in ``mat``'s shape, data and indices alike
    (``extra``: 1 when an axis is being inserted), or None when a negative
    ``axis`` lands on different dimensions of the three."""
    if axis >= 0:
        return axis
    pos = {len(mat.shape[:axis]) if extra else len(mat.shape) + axis,
           mat.data.ndim + extra + axis, mat.indices.ndim + extra + axis}
    return pos.pop() if len(pos) == 1 else None


def _bcoo_to_elt(cont, _, val, axis):
    """One example of ``val`` along its batch dimension ``axis``."""
    if axis is None:
        return val
    pos = _batch_position(val, axis, 0)
    if axis >= val.n_batch or pos is None or not 0 <= pos < val.n_batch:
        raise ValueError(f"Cannot map in_axis={axis} for BCOO array with n_batch={val.n_batch}. "
                         "in_axes for batched BCOO operations must correspond to a batch "
                         "dimension.")
    size = val.shape[pos]

    def one(x):  # a batch dimension of size 1 is shared by every example: unmapped
        if x.shape[pos] == 1 and size != 1:
            return cont(lax.squeeze(x, (pos,)), None)
        return cont(x, pos)
    return BCOO((one(val.data), one(val.indices)), shape=val.shape[:pos] + val.shape[pos + 1:],
                indices_sorted=val.indices_sorted, unique_indices=val.unique_indices)


def _bcoo_from_elt(cont, axis_size, elt, axis):
    """The examples ``elt`` stacked into a new batch dimension at ``axis``
    (``axis`` None: the examples must all be the same array)."""
    if axis is None:  # JAX hands back ``elt``, batched or not; a batched one must not escape
        return BCOO((cont(axis_size, elt.data, None), cont(axis_size, elt.indices, None)),
                    **elt._info._asdict())
    if axis > elt.n_batch:
        raise ValueError(f"BCOO: cannot add out_axis={axis} for BCOO array with "
                         f"n_batch={elt.n_batch}. BCOO batch axes must be a contiguous block "
                         "of leading dimensions.")
    pos = _batch_position(elt, axis, 1)
    if pos is None or not 0 <= pos <= elt.n_batch:
        raise ValueError(f"BCOO: cannot add out_axis={axis} for BCOO array with "
                         f"n_batch={elt.n_batch} and shape={elt.shape}: a negative out_axis must "
                         "name the same batch position of the shape, data and indices")
    return BCOO((cont(axis_size, elt.data, pos), cont(axis_size, elt.indices, pos)),
                shape=elt.shape[:pos] + (axis_size,) + elt.shape[pos:],
                indices_sorted=elt.indices_sorted, unique_indices=elt.unique_indices)


batching.register_vmappable(BCOO, int, int, _bcoo_to_elt, _bcoo_from_elt, None)
