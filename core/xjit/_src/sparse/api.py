"""Format-generic entry points: ``todense`` (a primitive over any sparse
pytree, so it appears as one equation and is differentiable in the data),
``empty`` and ``eye``."""
from __future__ import annotations

import operator
from functools import partial

from xjit._src import core
from xjit._src.interpreters import ad, batching, mlir
from xjit._src.interpreters.batching import vmap
from xjit._src.sparse.bcoo import BCOO, JAXSparse, _bcoo_extract
from xjit._src.tree_util import tree_flatten, tree_unflatten

todense_p = core.Primitive("todense")


def todense(arr):
    """The dense array of a sparse array; a dense input passes through."""
    bufs, tree = tree_flatten(arr)
    return todense_p.bind(*bufs, tree=tree)


def _todense_impl(*bufs, tree):
    arr = tree_unflatten(tree, bufs)
    return arr.todense() if isinstance(arr, JAXSparse) else arr


def _todense_abstract_eval(*bufs, tree):
    arr = tree_unflatten(tree, bufs)
    if isinstance(arr, core.ShapedArray):
        return arr
    return core.ShapedArray(arr.shape, arr.dtype,
                            weak_type=bool(getattr(arr.data, "weak_type", False)))


def _todense_jvp(primals, tangents, *, tree):
    out = todense_p.bind(*primals, tree=tree)
    if type(tangents[0]) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    return out, todense_p.bind(tangents[0], *primals[1:], tree=tree)


def _todense_transpose(ct, *bufs, tree):
    marker = object()
    obj = tree_unflatten(tree, [marker] * len(bufs))
    if obj is marker:
        return (ct,)
    if isinstance(obj, BCOO):
        return _bcoo_extract(bufs[1], ct), bufs[1]
    raise NotImplementedError(f"todense_transpose for {type(obj)}")


def _todense_batch(args, dims, *, tree):
    return vmap(partial(_todense_impl, tree=tree), tuple(dims))(*args), 0


todense_p.def_abstract_eval(_todense_abstract_eval)
ad.jvp_rules[todense_p] = _todense_jvp
ad.transpose_rules[todense_p] = _todense_transpose
batching.batch_rules[todense_p] = _todense_batch
mlir.register_lowering(todense_p, mlir.lower_fun(_todense_impl, multiple_results=False))

_FORMATS = ("bcsr", "bcoo", "coo", "csr", "csc")


def _format(sparse_format, known):
    if sparse_format not in known:
        raise ValueError(f"sparse_format={sparse_format!r} not recognized; must be one of "
                         f"{list(known)}")
    if sparse_format != "bcoo":
        raise NotImplementedError(f"sparse_format={sparse_format!r}: only 'bcoo' is supported "
                                  "by xjit")
    return BCOO


def empty(shape, dtype=None, index_dtype="int32", sparse_format="bcoo", **kwds):
    """An all-zero sparse array (nse=0 unless given)."""
    cls = _format(sparse_format, _FORMATS)
    return cls._empty(tuple(shape), dtype=dtype, index_dtype=index_dtype, **kwds)


def eye(N, M=None, k=0, dtype=None, index_dtype="int32", sparse_format="bcoo", **kwds):
    """A sparse 2D array with ones on the ``k``-th diagonal."""
    if M is None:
        M = N
    N = core.concrete_or_error(operator.index, N)
    M = core.concrete_or_error(operator.index, M)
    k = core.concrete_or_error(operator.index, k)
    cls = _format(sparse_format, ("bcoo", "coo", "csr", "csc"))
    return cls._eye(M=M, N=N, k=k, dtype=dtype, index_dtype=index_dtype, **kwds)
