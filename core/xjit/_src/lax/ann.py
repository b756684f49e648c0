"""Approximate top-k (``approx_max_k`` / ``approx_min_k``): one primitive,
computed exactly with ``top_k`` (as JAX does on CPU and GPU), with its JVP
(tangents gathered at the chosen indices) and batching rules."""
from __future__ import annotations

import operator

import numpy as np

from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero
from xjit._src.interpreters.batching import moveaxis
from xjit._src.core import ShapedArray
from xjit._src.lax import elementwise as ew
from xjit._src.lax import lax
from .slicing import lower_fun
from .sorting import top_k


def _approx_eval(x, *, k, reduction_dimension, is_max_k, **_):
    if not ew._kind_ok(x.dtype, ew.FLOAT):
        raise ValueError("operand must be a floating type")
    dim = reduction_dimension % x.ndim
    if k > x.shape[dim]:
        raise ValueError(f"k must be smaller than the size of reduction_dim {x.shape[dim]}, "
                         f"got {k}")
    shape = x.shape[:dim] + (k,) + x.shape[dim + 1:]
    return [x.update(shape=shape), ShapedArray(shape, np.int32)]


def _approx_impl(x, *, k, reduction_dimension, is_max_k, **_):
    dim = reduction_dimension % x.ndim
    vals, idx = top_k(x if is_max_k else lax.neg(x), k, axis=dim)
    return [vals if is_max_k else lax.neg(vals), idx]


approx_top_k_p = lowering.define_primitive("approx_top_k", _approx_eval,
                                           lower_fun(_approx_impl, True), multiple_results=True)


def _approx_jvp(primals, tangents, **params):
    take_along_axis = lax.numpy_ops.take_along_axis
    vals, idx = approx_top_k_p.bind(primals[0], **params)
    if type(tangents[0]) is Zero:
        return [vals, idx], [Zero.from_primal_value(vals), Zero.from_primal_value(idx)]
    dim = params["reduction_dimension"] % vals.ndim
    return [vals, idx], [take_along_axis(tangents[0], idx, axis=dim),
                         Zero.from_primal_value(idx)]


def _approx_batch(args, dims, *, reduction_dimension, **params):
    x = moveaxis(args[0], dims[0], 0)
    dim = reduction_dimension % (x.ndim - 1) + 1
    return approx_top_k_p.bind(x, reduction_dimension=dim, **params), [0, 0]


ad.jvp_rules[approx_top_k_p] = _approx_jvp
batching.batch_rules[approx_top_k_p] = _approx_batch


def _approx_top_k(operand, k, reduction_dimension, recall_target, is_max_k,
                  reduction_input_size_override, aggregate_to_topk):
    operand = lax.asarray_device(operand)
    lax._canon_axis(reduction_dimension, operand.ndim)
    return approx_top_k_p.bind(operand, k=operator.index(k),
                               reduction_dimension=operator.index(reduction_dimension),
                               recall_target=float(recall_target), is_max_k=is_max_k,
                               reduction_input_size_override=reduction_input_size_override,
                               aggregate_to_topk=aggregate_to_topk)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` largest values along ``reduction_dimension`` and their indices."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, True,
                         reduction_input_size_override, aggregate_to_topk)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` smallest values along ``reduction_dimension`` and their indices."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, False,
                         reduction_input_size_override, aggregate_to_topk)
