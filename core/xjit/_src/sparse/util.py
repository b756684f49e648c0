"""Shared helpers of ``jax.experimental.sparse``: the static description of a
sparse operand (``SparseInfo``, a primitive parameter, so it must hash and
print as JAX's), the efficiency warnings, and vmap applied over leading
batch dimensions, broadcasting the ones of size 1."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src.core import ShapedArray
from xjit._src.interpreters.batching import vmap
from xjit._src.lax import dot_general as _dg
from xjit._src.tree_util import tree_flatten, tree_unflatten


class SparseEfficiencyError(ValueError):
    pass


class SparseEfficiencyWarning(UserWarning):
    pass


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
    pass


Shape = tuple[int, ...]


class SparseInfo(NamedTuple):
    shape: Shape
    indices_sorted: bool = False
    unique_indices: bool = False


def nfold_vmap(fun, N, *, broadcasted=True):
    """``fun`` mapped over ``N`` leading axes; with ``broadcasted``, operands
    whose axis has size 1 are broadcast instead of mapped (BCOO stores a
    batch dimension shared by every batch element with size 1)."""
    wrap = broadcasting_vmap if broadcasted else vmap
    for _ in range(N):
        fun = wrap(fun)
    return fun


def broadcasting_vmap(fun):
    """``vmap(fun)`` over axis 0 of every operand, broadcasting size-1 axes."""
    def batched(*args):
        flat, tree = tree_flatten(args)
        axes = [0] * len(flat)
        size = max(x.shape[a] for x, a in zip(flat, axes) if a is not None)
        if size > 1:
            if any(a is not None and x.shape[a] not in (1, size) for x, a in zip(flat, axes)):
                raise ValueError("broadcasting_vmap: mismatched input shapes")
            pairs = [(x, None) if a is None else
                     (lax.squeeze(x, (a,)), None) if x.shape[a] == 1 else (x, a)
                     for x, a in zip(flat, axes)]
            flat, axes = [p[0] for p in pairs], [p[1] for p in pairs]
        return vmap(fun, in_axes=tuple(tree_unflatten(tree, axes)))(*tree_unflatten(tree, flat))
    return batched


def _count_stored_elements_per_batch(mat, n_batch=0, n_dense=0):
    mask = jnp.asarray(mat) != 0
    if n_dense > 0:
        mask = mask.any(tuple(-(i + 1) for i in range(n_dense)))
    return mask.sum(tuple(range(n_batch, mask.ndim)))


def _count_stored_elements(mat, n_batch=0, n_dense=0):
    """The nse ``fromdense`` picks: the most nonzeros of any batch element."""
    return _count_stored_elements_per_batch(mat, n_batch, n_dense).max(initial=0)


def _dot_general_validated_shape(lhs_shape, rhs_shape, dimension_numbers):
    """The output shape of ``dot_general`` (raising its TypeErrors)."""
    out = _dg._dot_general_eval(ShapedArray(tuple(lhs_shape), np.dtype(np.float32)),
                                ShapedArray(tuple(rhs_shape), np.dtype(np.float32)),
                                dimension_numbers)
    return tuple(out.shape)
