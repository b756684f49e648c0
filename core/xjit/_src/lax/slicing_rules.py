"""JVP, transpose and batching rules for gather/scatter, sort, top_k and the
cumulative reductions.

Gather is linear in its operand; its transpose scatter-adds the cotangent
back. Batching moves the batch axis to the front and turns it into an
operand/indices batching dimension (or an offset/window dimension when only
one side is batched).
"""
from __future__ import annotations

import numpy as np

from xjit._src.interpreters import ad
from xjit._src.interpreters.ad import Zero, is_undefined_primal, jvp_rules, transpose_rules
from xjit._src.interpreters.batching import batch_rules, bdim_at_front, moveaxis, not_mapped
from xjit._src.lax import lax
from . import slicing as sl
from . import sorting as so

SDN, GDN = sl.ScatterDimensionNumbers, sl.GatherDimensionNumbers


def _aval(x):
    return x.aval


def _plus1(ds):
    return tuple(d + 1 for d in ds)


# --------------------------------------------------------------------------
# gather


def _gather_jvp(primals, tangents, **params):
    x, idx = primals
    out = sl.gather_p.bind(x, idx, **params)
    t = tangents[0]
    if type(t) is Zero:
        return out, Zero.from_primal_value(out)
    fill = 0 if params["mode"] == sl.GatherScatterMode.FILL_OR_DROP else None
    return out, sl.gather_p.bind(t, idx, **dict(params, fill_value=fill))


def _scatter_dn_of(dn: GDN) -> SDN:
    return SDN(update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
               scatter_dims_to_operand_dims=dn.start_index_map,
               operand_batching_dims=dn.operand_batching_dims,
               scatter_indices_batching_dims=dn.start_indices_batching_dims)


def _gather_transpose(ct, x, idx, *, dimension_numbers, slice_sizes, indices_are_sorted,
                      unique_indices, mode, fill_value):
    a = x.aval
    if type(ct) is Zero:
        return [Zero(a), None]
    zeros = lax.full(a.shape, 0, a.dtype)
    return [sl.scatter_add(zeros, idx, ct, _scatter_dn_of(dimension_numbers),
                           indices_are_sorted=indices_are_sorted,
                           unique_indices=unique_indices, mode=mode), None]


def _gather_batch(args, dims, *, dimension_numbers, slice_sizes, **params):
    x, idx = args
    xd, idd = dims
    dn = dimension_numbers
    if idd is not_mapped:
        x = moveaxis(x, xd, 0)
        new = GDN(offset_dims=(0,) + _plus1(dn.offset_dims),
                  collapsed_slice_dims=_plus1(dn.collapsed_slice_dims),
                  start_index_map=_plus1(dn.start_index_map),
                  operand_batching_dims=_plus1(dn.operand_batching_dims),
                  start_indices_batching_dims=dn.start_indices_batching_dims)
        sizes = (_aval(x).shape[0],) + tuple(slice_sizes)
        return sl.gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=sizes, **params), 0
    idx = moveaxis(idx, idd, 0)
    if xd is not_mapped:
        new = dn._replace(offset_dims=_plus1(dn.offset_dims),
                          start_indices_batching_dims=_plus1(dn.start_indices_batching_dims))
        return sl.gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=slice_sizes,
                                **params), 0
    x = moveaxis(x, xd, 0)
    new = GDN(offset_dims=_plus1(dn.offset_dims),
              collapsed_slice_dims=_plus1(dn.collapsed_slice_dims),
              start_index_map=_plus1(dn.start_index_map),
              operand_batching_dims=(0,) + _plus1(dn.operand_batching_dims),
              start_indices_batching_dims=(0,) + _plus1(dn.start_indices_batching_dims))
    return sl.gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=(1,) + tuple(slice_sizes),
                            **params), 0


jvp_rules[sl.gather_p] = _gather_jvp
transpose_rules[sl.gather_p] = _gather_transpose
batch_rules[sl.gather_p] = _gather_batch


# --------------------------------------------------------------------------
# scatter family


def _gather_dn_of(dn: SDN) -> GDN:
    return GDN(offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
               start_index_map=dn.scatter_dims_to_operand_dims,
               operand_batching_dims=dn.operand_batching_dims,
               start_indices_batching_dims=dn.scatter_indices_batching_dims)


def _gather_updates(ct, idx, upd_aval, operand_aval, params):
    """The slices of ``ct`` the scatter wrote: the cotangent of the updates."""
    dn = params["dimension_numbers"]
    sizes = sl._scatter_window_sizes(operand_aval, upd_aval, dn)
    return sl.gather_p.bind(ct, idx, dimension_numbers=_gather_dn_of(dn), slice_sizes=tuple(sizes),
                            indices_are_sorted=params["indices_are_sorted"],
                            unique_indices=params["unique_indices"], mode=params["mode"],
                            fill_value=0 if params["mode"] == sl.GatherScatterMode.FILL_OR_DROP
                            else None)


def _linear_scatter_jvp(prim):
    """scatter / scatter-add are linear in (operand, updates) jointly."""
    def rule(primals, tangents, **params):
        x, idx, u = primals
        out = prim.bind(x, idx, u, **params)
        tx, tu = tangents[0], tangents[2]
        if type(tx) is Zero and type(tu) is Zero:
            return out, Zero.from_primal_value(out)
        return out, prim.bind(ad.instantiate_zeros(tx), idx, ad.instantiate_zeros(tu), **params)
    return rule


def _scatter_add_transpose(ct, x, idx, u, **params):
    xa, ua = _aval(x), _aval(u)
    if type(ct) is Zero:
        return [Zero(xa) if is_undefined_primal(x) else None, None,
                Zero(ua) if is_undefined_primal(u) else None]
    t_x = ct if is_undefined_primal(x) else None
    t_u = _gather_updates(ct, idx, ua, xa, params) if is_undefined_primal(u) else None
    return [t_x, None, t_u]


def _scatter_transpose(ct, x, idx, u, **params):
    xa, ua = _aval(x), _aval(u)
    if type(ct) is Zero:
        return [Zero(xa) if is_undefined_primal(x) else None, None,
                Zero(ua) if is_undefined_primal(u) else None]
    t_x = t_u = None
    if is_undefined_primal(x):  # overwritten positions get no cotangent
        t_x = sl.scatter_p.bind(ct, idx, lax.full(ua.shape, 0, ua.dtype), **params)
    if is_undefined_primal(u):
        t_u = _gather_updates(ct, idx, ua, xa, params)
    return [t_x, None, t_u]


def _scatter_mul_jvp(primals, tangents, **params):
    x, idx, u = primals
    out = sl.scatter_mul_p.bind(x, idx, u, **params)
    tx, tu = tangents[0], tangents[2]
    if type(tu) is not Zero:
        raise NotImplementedError("differentiation of scatter-mul with respect to the updates "
                                  "is not implemented in xjit")
    if type(tx) is Zero:
        return out, Zero.from_primal_value(out)
    return out, sl.scatter_mul_p.bind(tx, idx, u, **params)


def _scatter_batch(prim):
    def rule(args, dims, *, dimension_numbers, **params):
        x, idx, u = args
        xd, idd, ud = dims
        dn = dimension_numbers
        size = next(_aval(a).shape[d] for a, d in zip(args, dims) if d is not not_mapped)
        x, u = bdim_at_front(x, xd, size), bdim_at_front(u, ud, size)
        if idd is not_mapped:
            new = SDN(update_window_dims=(0,) + _plus1(dn.update_window_dims),
                      inserted_window_dims=_plus1(dn.inserted_window_dims),
                      scatter_dims_to_operand_dims=_plus1(dn.scatter_dims_to_operand_dims),
                      operand_batching_dims=_plus1(dn.operand_batching_dims),
                      scatter_indices_batching_dims=dn.scatter_indices_batching_dims)
        else:
            idx = moveaxis(idx, idd, 0)
            new = SDN(update_window_dims=_plus1(dn.update_window_dims),
                      inserted_window_dims=_plus1(dn.inserted_window_dims),
                      scatter_dims_to_operand_dims=_plus1(dn.scatter_dims_to_operand_dims),
                      operand_batching_dims=(0,) + _plus1(dn.operand_batching_dims),
                      scatter_indices_batching_dims=(0,) + _plus1(
                          dn.scatter_indices_batching_dims))
        return prim.bind(x, idx, u, dimension_numbers=new, **params), 0
    return rule


jvp_rules[sl.scatter_p] = _linear_scatter_jvp(sl.scatter_p)
jvp_rules[sl.scatter_add_p] = _linear_scatter_jvp(sl.scatter_add_p)
jvp_rules[sl.scatter_sub_p] = _linear_scatter_jvp(sl.scatter_sub_p)
jvp_rules[sl.scatter_mul_p] = _scatter_mul_jvp
transpose_rules[sl.scatter_p] = _scatter_transpose
transpose_rules[sl.scatter_add_p] = _scatter_add_transpose
for _p in (sl.scatter_p, sl.scatter_add_p, sl.scatter_sub_p, sl.scatter_mul_p, sl.scatter_min_p,
           sl.scatter_max_p):
    batch_rules[_p] = _scatter_batch(_p)


# --------------------------------------------------------------------------
# sort / top_k: tangents follow the permutation


def _take_along(t, perm, axis):
    nd = len(_aval(t).shape)
    others = tuple(d for d in range(nd) if d != axis)
    dn = GDN(offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
             operand_batching_dims=others, start_indices_batching_dims=others)
    return sl.gather(t, lax.expand_dims(perm, (nd,)), dn, (1,) * nd,
                     mode=sl.GatherScatterMode.PROMISE_IN_BOUNDS)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = _aval(primals[0]).shape
    iota = lax.broadcasted_iota(np.int32, shape, dimension)
    *outs, perm = so.sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                                 num_keys=num_keys)
    touts = [Zero.from_primal_value(o) if type(t) is Zero else _take_along(t, perm, dimension)
             for o, t in zip(outs, tangents)]
    return outs, touts


def _top_k_jvp(primals, tangents, *, k, axis):
    vals, idx = so.top_k_p.bind(primals[0], k=k, axis=axis)
    t = tangents[0]
    tv = Zero.from_primal_value(vals) if type(t) is Zero else _take_along(t, idx, axis)
    return [vals, idx], [tv, Zero.from_primal_value(idx)]


def _sort_batch(args, dims, *, dimension, **params):
    size = next(_aval(a).shape[d] for a, d in zip(args, dims) if d is not not_mapped)
    args = [bdim_at_front(a, d, size) for a, d in zip(args, dims)]
    return so.sort_p.bind(*args, dimension=dimension + 1, **params), [0] * len(args)


def _top_k_batch(args, dims, *, k, axis):
    x = moveaxis(args[0], dims[0], 0)
    return so.top_k_p.bind(x, k=k, axis=axis + 1), [0, 0]


jvp_rules[so.sort_p] = _sort_jvp
jvp_rules[so.top_k_p] = _top_k_jvp
batch_rules[so.sort_p] = _sort_batch
batch_rules[so.top_k_p] = _top_k_batch


# --------------------------------------------------------------------------
# cumulative reductions


def _cumsum_transpose(ct, x, *, axis, reverse):
    if type(ct) is Zero:
        return [ct]
    return [so.cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


def _cumsum_jvp(primals, tangents, *, axis, reverse):
    out = so.cumsum_p.bind(primals[0], axis=axis, reverse=reverse)
    t = tangents[0]
    if type(t) is Zero:
        return out, Zero.from_primal_value(out)
    return out, so.cumsum_p.bind(t, axis=axis, reverse=reverse)


def _cum_batch(prim):
    def rule(args, dims, *, axis, reverse):
        (x,), (d,) = args, dims
        return prim.bind(x, axis=axis + (d <= axis), reverse=reverse), d
    return rule


jvp_rules[so.cumsum_p] = _cumsum_jvp
transpose_rules[so.cumsum_p] = _cumsum_transpose
for _p in (so.cumsum_p, so.cumprod_p, so.cummax_p, so.cummin_p, so.cumlogsumexp_p):
    batch_rules[_p] = _cum_batch(_p)
del _p
