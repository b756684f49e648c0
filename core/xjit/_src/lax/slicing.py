"""``dynamic_slice`` / ``dynamic_update_slice`` with their rules, and
``lower_fun``, the lowering helper for rules written as lax code.

Under vmap both batch, as in JAX, into a gather / scatter (``gather_scatter``)
whose index vector stacks the start indices.
"""
from __future__ import annotations

import numpy as np

from xjit._src import core, sharding_in_types as sit
from xjit._src.interpreters import ad, batching, mlir as lowering, partial_eval as tracing
from xjit._src.interpreters.ad import Zero, is_undefined_primal
from xjit._src.interpreters.batching import bdim_at_front, moveaxis, not_mapped
from ..core import ShapedArray
from xjit._src.interpreters.mlir import i64_array, ttype


# -- lowering helper: a lowering written as lax code, traced and inlined
def lower_fun(fun, multiple_results=False):
    """A lowering rule that stages ``fun(*operands, **params)`` (lax calls)
    into a jaxpr and emits it inline."""
    def rule(ctx, avals_in, avals_out, *args, **params):
        jaxpr, consts = tracing.trace_to_jaxpr(lambda *xs: _as_list(fun(*xs, **params)),
                                               avals_in)
        outs = lowering.lower_jaxpr(ctx, jaxpr, consts, list(args))
        return outs if multiple_results else outs[0]
    return rule


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


# --------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice

def _dynamic_slice_eval(x, *idx, slice_sizes):
    if len(idx) != x.ndim or len(slice_sizes) != x.ndim:
        raise TypeError(f"dynamic_slice: length of start_indices ({len(idx)}) must match the number "
                        f"of dimensions of the operand ({x.ndim})")
    for s, d in zip(slice_sizes, x.shape):
        if not 0 <= s <= d:
            raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                            f"slice_sizes {tuple(slice_sizes)} for operand shape {x.shape}.")
    _check_index_dtypes(idx, "dynamic_slice must be integers of the same type, got: ")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _check_index_dtypes(idx, message):
    """Start indices share one integer dtype (XLA's rule), or JAX's TypeError."""
    if any(i.dtype != idx[0].dtype or not np.issubdtype(i.dtype, np.integer) for i in idx):
        raise TypeError(f"index arguments to {message}" + ", ".join(i.dtype.name for i in idx))


def _dynamic_slice_lower(ctx, ai, ao, x, *idx, slice_sizes):
    return ctx.op("stablehlo.dynamic_slice", [x, *idx], [ttype(a) for a in ai], ttype(ao[0]),
                  attrs=f"slice_sizes = {i64_array(slice_sizes)}")


dynamic_slice_p = lowering.define_primitive("dynamic_slice", _dynamic_slice_eval,
                                             _dynamic_slice_lower)


def _dus_eval(x, update, *idx):
    if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape)):
        raise TypeError("dynamic_update_slice update shape must be smaller than operand shape, got "
                        f"update shape {update.shape} for operand shape {x.shape}.")
    if update.dtype != x.dtype:
        raise TypeError("lax.dynamic_update_slice requires arguments to have the same dtypes, got "
                        f"{x.dtype.name}, {update.dtype.name}.")
    _check_index_dtypes(idx, "dynamic_update_slice must be integers of the same type, got ")
    return x


def _dus_lower(ctx, ai, ao, x, update, *idx):
    return ctx.op("stablehlo.dynamic_update_slice", [x, update, *idx], [ttype(a) for a in ai],
                  ttype(ao[0]))


dynamic_update_slice_p = lowering.define_primitive("dynamic_update_slice", _dus_eval, _dus_lower)
from . import sharding_rules as _sr  # noqa: E402  (JAX 0.10.2's sharding rules)
sit.sharding_rules.update({dynamic_slice_p: _sr.dynamic_slice,
                           dynamic_update_slice_p: _sr.dynamic_update_slice})


# --------------------------------------------------------------------------
# JVP, transpose and batching rules (they call the lax API, which imports
# this module). dynamic_slice / dynamic_update_slice batch, as in JAX, into a
# gather / scatter whose index vector stacks the start indices.

from xjit._src.lax import lax  # noqa: E402
from .gather_scatter import (  # noqa: E402
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers, gather, scatter)

GDN, SDN = GatherDimensionNumbers, ScatterDimensionNumbers


def _size_of(args, dims):
    return next(core.aval_of(x).shape[d] for x, d in zip(args, dims) if d is not not_mapped)


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    x, *idx = primals
    if type(tangents[0]) is Zero:
        out = dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes)
        return out, Zero.from_primal_value(out)
    t = dynamic_slice_p.bind(tangents[0], *idx, slice_sizes=slice_sizes)
    return dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes), t


def _dynamic_slice_transpose(ct, x, *idx, slice_sizes):
    a = x.aval
    zeros = lax.full(a.shape, 0, a.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *idx)] + [None] * len(idx)


def _dus_jvp(primals, tangents):
    x, u, *idx = primals
    tx, tu = tangents[:2]
    out = dynamic_update_slice_p.bind(x, u, *idx)
    if type(tx) is Zero and type(tu) is Zero:
        return out, Zero.from_primal_value(out)
    return out, dynamic_update_slice_p.bind(ad.instantiate_zeros(tx), ad.instantiate_zeros(tu),
                                               *idx)


def _dus_transpose(ct, x, u, *idx):
    ua = (u.aval if is_undefined_primal(u) else core.aval_of(u))
    t_x = t_u = None
    if is_undefined_primal(x):
        t_x = dynamic_update_slice_p.bind(ct, lax.full(ua.shape, 0, ua.dtype), *idx)
    if is_undefined_primal(u):
        t_u = dynamic_slice_p.bind(ct, *idx, slice_sizes=ua.shape)
    return [t_x, t_u] + [None] * len(idx)


ad.jvp_rules[dynamic_slice_p] = _dynamic_slice_jvp
ad.transpose_rules[dynamic_slice_p] = _dynamic_slice_transpose
ad.jvp_rules[dynamic_update_slice_p] = _dus_jvp
ad.transpose_rules[dynamic_update_slice_p] = _dus_transpose


def _stack_indices(idx, idx_dims, size):
    if all(d is not_mapped for d in idx_dims):
        parts = [lax.broadcast_in_dim(i, (1,), ()) for i in idx]
        return lax.concatenate(parts, 0), not_mapped
    parts = [lax.broadcast_in_dim(moveaxis(i, d, 0) if d is not not_mapped else i, (size, 1),
                                  (0,) if d is not not_mapped else ())
             for i, d in zip(idx, idx_dims)]
    return lax.concatenate(parts, 1), 0


def _dynamic_slice_rule(args, dims, *, slice_sizes):
    x, *idx = args
    xd, *idd = dims
    if not idx:  # a 0-d operand: the slice is the operand
        return lax.asarray_device(x), xd
    size = _size_of(args, dims)
    index, id_ = _stack_indices(idx, idd, size)
    nd = len(slice_sizes)
    mode = GatherScatterMode.CLIP
    if id_ is not_mapped:
        x = moveaxis(x, xd, 0)
        dn = GDN(
            offset_dims=(0,) + tuple(np.add(1, range(nd))), collapsed_slice_dims=(),
            start_index_map=tuple(np.add(1, range(nd))))
        return gather(x, index, dn, (core.aval_of(x).shape[0],) + tuple(slice_sizes), unique_indices=True,
                        indices_are_sorted=True, mode=mode, fill_value=None), 0
    if xd is not_mapped:
        dn = GDN(offset_dims=tuple(range(1, nd + 1)), collapsed_slice_dims=(),
                                      start_index_map=tuple(range(nd)))
        return gather(x, index, dn, tuple(slice_sizes), unique_indices=False,
                        indices_are_sorted=False, mode=mode, fill_value=None), 0
    x = moveaxis(x, xd, 0)
    dn = GDN(
        offset_dims=tuple(np.add(1, range(nd))), collapsed_slice_dims=(),
        start_index_map=tuple(np.add(1, range(nd))), operand_batching_dims=(0,),
        start_indices_batching_dims=(0,))
    lead = 0 if core.aval_of(x).shape[0] == 0 else 1  # a batch of none: slices of none
    return gather(x, index, dn, (lead,) + tuple(slice_sizes), unique_indices=True,
                  indices_are_sorted=True, mode=mode, fill_value=None), 0


def _dynamic_update_slice_rule(args, dims):
    x, upd, *idx = args
    xd, ud, *idd = dims
    size = _size_of(args, dims)
    if not idx:  # a 0-d operand: the update replaces it
        dx, du = core.aval_of(x).dtype, core.aval_of(upd).dtype
        if dx != du:
            raise TypeError("lax.dynamic_update_slice requires arguments to have the same "
                            f"dtypes, got {dx}, {du}.")
        return lax.asarray_device(bdim_at_front(upd, ud, size)), 0
    index, id_ = _stack_indices(idx, idd, size)
    nd = len(core.aval_of(upd).shape) - (ud is not not_mapped)
    x, upd = bdim_at_front(x, xd, size), bdim_at_front(upd, ud, size)
    mode = GatherScatterMode.CLIP
    if id_ is not_mapped:
        dn = SDN(
            update_window_dims=(0,) + tuple(np.add(1, range(nd))), inserted_window_dims=(),
            scatter_dims_to_operand_dims=tuple(np.add(1, range(nd))))
    else:
        dn = SDN(
            update_window_dims=tuple(np.add(1, range(nd))), inserted_window_dims=(),
            scatter_dims_to_operand_dims=tuple(np.add(1, range(nd))), operand_batching_dims=(0,),
            scatter_indices_batching_dims=(0,))
    return scatter(x, index, upd, dn, indices_are_sorted=True, unique_indices=True,
                     mode=mode), 0


batching.batch_rules[dynamic_slice_p] = _dynamic_slice_rule
batching.batch_rules[dynamic_update_slice_p] = _dynamic_update_slice_rule
