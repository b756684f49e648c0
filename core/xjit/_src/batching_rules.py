"""Batching rules for the lax primitives and ``jit``: one entry per primitive
in ``batching.batch_rules``. Each rule receives the raw batched values and
their batch axes and binds ordinary primitives (under the parent trace); the
equation forms match JAX's so ``make_jaxpr(vmap(f))`` prints the same."""
from __future__ import annotations

import numpy as np

from . import core
from xjit._src.interpreters.batching import (
    axis_batch_rules,
    batch_jaxpr2,
    batch_rules,
    bdim_at_front,
    moveaxis,
    not_mapped,
)
from xjit._src.lax import lax
from .lax import elementwise as ew
from .lax import structural as st


def _ndim(x):
    return len(core.aval_of(x).shape)


def _shape(x):
    return core.aval_of(x).shape


def _size_of(args, dims):
    return next(_shape(x)[d] for x, d in zip(args, dims) if d is not not_mapped)


# --------------------------------------------------------------------------
# Elementwise


def vectorized_batcher(prim):
    """Unary elementwise: apply as is; the batch axis stays where it is."""
    def rule(args, dims, **params):
        return prim.bind(*args, **params), dims[0]
    return rule


def _expand_trailing(x, nd):
    """A batched operand with fewer dims than the others gets trailing unit
    axes, so that lax's size-1 broadcasting lines it up."""
    n = _ndim(x)
    if n == nd:
        return x
    return lax.expand_dims(x, tuple(range(n, nd)))


def broadcast_batcher(prim):
    """n-ary elementwise with lax broadcasting (equal ranks, size-1 dims or
    scalars). If all non-scalar operands agree on shape and batch axis, bind
    as is; otherwise move batch axes to the front (unbatched operands get a
    unit axis there) and let the primitive broadcast."""
    def rule(args, dims, **params):
        shape, dim = next((_shape(x), d) for x, d in zip(args, dims) if d is not not_mapped)
        if all(_shape(x) == shape and d == dim for x, d in zip(args, dims) if _ndim(x)):
            return prim.bind(*args, **params), dim
        args = [bdim_at_front(x, d, 1) if _ndim(x) else x for x, d in zip(args, dims)]
        nd = max(_ndim(x) for x in args)
        args = [x if d is not_mapped else _expand_trailing(x, nd) for x, d in zip(args, dims)]
        return prim.bind(*args, **params), 0
    return rule


_BINARY = {ew.add_p, ew.sub_p, ew.mul_p, ew.div_p, ew.rem_p, ew.pow_p, ew.max_p, ew.min_p,
           ew.atan2_p, ew.nextafter_p, ew.and_p, ew.or_p, ew.xor_p, ew.shift_left_p,
           ew.shift_right_arithmetic_p, ew.shift_right_logical_p, ew.complex_p, ew.eq_p,
           ew.ne_p, ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p}

for _p in vars(ew).values():
    if isinstance(_p, core.Primitive):
        batch_rules[_p] = broadcast_batcher(_p) if _p in _BINARY else vectorized_batcher(_p)

batch_rules[st.convert_element_type_p] = vectorized_batcher(st.convert_element_type_p)
batch_rules[st.copy_p] = vectorized_batcher(st.copy_p)


# --------------------------------------------------------------------------
# Shapes and data movement


def _broadcast_in_dim_rule(args, dims, *, shape, broadcast_dimensions, sharding=None):
    x, = args
    x = moveaxis(x, dims[0], 0)
    new_shape = (_shape(x)[0],) + tuple(shape)
    new_dims = (0,) + tuple(np.add(1, broadcast_dimensions))
    return lax.broadcast_in_dim(x, new_shape, new_dims), 0


def _reshape_rule(args, dims, *, new_sizes, dimensions=None, sharding=None):
    x = moveaxis(args[0], dims[0], 0)
    if dimensions is not None:  # the batch axis stays first in the read order
        dimensions = (0,) + tuple(d + 1 for d in dimensions)
    return lax.reshape(x, _shape(x)[:1] + tuple(new_sizes), dimensions), 0


def _transpose_rule(args, dims, *, permutation):
    bdim = dims[0]
    perm = (bdim,) + tuple(i if i < bdim else i + 1 for i in permutation)
    return lax.transpose(args[0], perm), 0


def _squeeze_rule(args, dims, *, dimensions):
    x = moveaxis(args[0], dims[0], 0)
    return lax.squeeze(x, tuple(int(d) + 1 for d in dimensions)), 0


def _rev_rule(args, dims, *, dimensions):
    bdim = dims[0]
    return lax.rev(args[0], [i + 1 if i >= bdim else i for i in dimensions]), bdim


def _slice_rule(args, dims, *, start_indices, limit_indices, strides=None):
    x, = args
    bdim = dims[0]
    start, limit = list(start_indices), list(limit_indices)
    start.insert(bdim, 0)
    limit.insert(bdim, _shape(x)[bdim])
    if strides is not None:
        strides = list(strides)
        strides.insert(bdim, 1)
    return lax.slice(x, start, limit, strides), bdim


def _concatenate_rule(args, dims, *, dimension):
    size = _size_of(args, dims)
    args = [moveaxis(x, d, 0) if d is not not_mapped else lax.broadcast(x, (size,))
            for x, d in zip(args, dims)]
    return lax.concatenate(args, dimension + 1), 0


def _stack_rule(args, dims, *, axis):
    size = _size_of(args, dims)
    args = [moveaxis(x, d, 0) if d is not not_mapped else lax.broadcast(x, (size,))
            for x, d in zip(args, dims)]
    return st.stack_p.bind(*args, axis=axis + 1), 0


def _pad_rule(args, dims, *, padding_config):
    x, pv = args
    xd, pd = dims
    if xd is not_mapped:
        xd = 0
        x = lax.broadcast(x, (_shape(pv)[pd],))
    config = list(padding_config)
    config.insert(xd, (0, 0, 0))
    if pd is not_mapped:
        return lax.pad(x, pv, config), xd
    padded = lax.pad(x, np.zeros((), core.aval_of(x).dtype)[()], config)
    mask = lax.pad(lax.full(_shape(x), True, np.bool_), False, config)
    fill = lax.broadcast_in_dim(moveaxis(pv, pd, 0), _shape(padded), (xd,))
    return lax.select(mask, padded, fill), xd


def _select_n_rule(args, dims):
    which, *cases = args
    wd, *cds = dims
    size = _size_of(args, dims)
    if all(wd == d for d in cds):
        if _shape(which) == _shape(cases[0]):
            return lax.select_n(which, *cases), wd
        which = lax.broadcast_in_dim(which, _shape(cases[0]), [wd])
        return lax.select_n(which, *cases), wd
    if _ndim(which) == 0 and all(d is not not_mapped for d in cds):
        if all(cds[0] == d for d in cds[1:]):
            return lax.select_n(which, *cases), cds[0]
        if all(_shape(cases[0]) == _shape(c) for c in cases):
            rest = [moveaxis(c, d, cds[0]) for c, d in zip(cases[1:], cds[1:])]
            return lax.select_n(which, cases[0], *rest), cds[0]
    which = bdim_at_front(which, wd, size) if _shape(which) else which
    if not all(_shape(c) == () for c in cases):
        cases = [bdim_at_front(c, d, size) for c, d in zip(cases, cds)]
    if 0 < _ndim(which) < _ndim(cases[0]):
        which = lax.broadcast_in_dim(which, _shape(cases[0]), [0])
    if _ndim(which) > _ndim(cases[0]):  # unmapped scalar cases fill the whole batch
        cases = [lax.broadcast_in_dim(c, _shape(which), [0] if _ndim(c) else []) for c in cases]
    return lax.select_n(which, *cases), 0


def _clamp_rule(args, dims):
    lo, x, hi = args
    ld, xd, hd = dims
    size = _size_of(args, dims)
    if ld == xd == hd:
        if _shape(lo) == _shape(x) == _shape(hi) or _ndim(lo) == _ndim(hi) == 0:
            return lax.clamp(lo, x, hi), xd
        if _ndim(lo) == _ndim(hi) == 1:
            lo = lax.broadcast_in_dim(lo, _shape(x), [ld])
            hi = lax.broadcast_in_dim(hi, _shape(x), [hd])
            return lax.clamp(lo, x, hi), xd
    elif _ndim(lo) == 0 and _ndim(hi) == 0 and xd is not not_mapped:
        return lax.clamp(lo, x, hi), xd
    lo = bdim_at_front(lo, ld, size) if _shape(lo) else lo
    hi = bdim_at_front(hi, hd, size) if _shape(hi) else hi
    x = bdim_at_front(x, xd, size) if _shape(x) else x
    if _ndim(lo) == 0 and _ndim(x) > 0:
        lo = lax.broadcast(lo, _shape(x))
    if _ndim(hi) == 0 and _ndim(x) > 0:
        hi = lax.broadcast(hi, _shape(x))
    if 0 < _ndim(lo) < _ndim(x):
        lo = lax.broadcast_in_dim(lo, _shape(x), [0])
    if 0 < _ndim(hi) < _ndim(x):
        hi = lax.broadcast_in_dim(hi, _shape(x), [0])
    if _ndim(lo) > _ndim(x):
        x = lax.broadcast(x, _shape(lo))
    return lax.clamp(lo, x, hi), 0


batch_rules[st.broadcast_in_dim_p] = _broadcast_in_dim_rule
batch_rules[st.reshape_p] = _reshape_rule
batch_rules[st.transpose_p] = _transpose_rule
batch_rules[st.squeeze_p] = _squeeze_rule
batch_rules[st.rev_p] = _rev_rule
batch_rules[st.slice_p] = _slice_rule
batch_rules[st.concatenate_p] = _concatenate_rule
batch_rules[st.stack_p] = _stack_rule
batch_rules[st.pad_p] = _pad_rule
batch_rules[st.select_n_p] = _select_n_rule
batch_rules[st.clamp_p] = _clamp_rule


# --------------------------------------------------------------------------
# dot_general: the vmapped axis becomes a batch dimension (both operands
# batched) or a free dimension (one operand batched), never a loop.


def _bump(dims, b):
    return tuple(int(d) + (int(d) >= b) for d in dims)


def _dot_general_rule(args, dims, *, dimension_numbers, precision=None,
                      preferred_element_type=None, out_sharding=None):
    lhs, rhs = args
    lbd, rbd = dims
    (lc, rc), (lb, rb) = dimension_numbers
    if lbd is not not_mapped and rbd is not not_mapped:
        lb, rb = (lbd,) + _bump(lb, lbd), (rbd,) + _bump(rb, rbd)
        lc, rc = _bump(lc, lbd), _bump(rc, rbd)
        out_dim = 0
    elif lbd is not not_mapped:
        free = [d for d in range(_ndim(lhs)) if d not in lb and d not in lc]
        out_dim = len(lb) + sum(d < lbd for d in free)
        lb, lc = _bump(lb, lbd), _bump(lc, lbd)
    else:
        free = [d for d in range(_ndim(rhs)) if d not in rb and d not in rc]
        out_dim = _ndim(lhs) - len(lc) + sum(d < rbd for d in free)
        rb, rc = _bump(rb, rbd), _bump(rc, rbd)
    out = st.dot_general_p.bind(lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)),
                                precision=precision,
                                preferred_element_type=preferred_element_type,
                                out_sharding=out_sharding)
    return out, out_dim


batch_rules[st.dot_general_p] = _dot_general_rule


# --------------------------------------------------------------------------
# Reductions


def _reducer_batcher(prim):
    def rule(args, dims, *, axes, **params):
        x, = args
        bdim = dims[0]
        axes = tuple(np.where(np.less(axes, bdim), axes, np.add(axes, 1)))
        out_dim = int(list(np.delete(np.arange(_ndim(x)), axes)).index(bdim))
        return prim.bind(x, axes=axes, **params), out_dim
    return rule


for _p in (st.reduce_sum_p, st.reduce_prod_p, st.reduce_max_p, st.reduce_min_p,
           st.reduce_and_p, st.reduce_or_p, st.reduce_xor_p, st.argmax_p, st.argmin_p):
    batch_rules[_p] = _reducer_batcher(_p)


# --------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice: as in JAX, a gather / scatter whose
# index vector stacks the start indices (batched ones along a new axis 0).


def _gather_api():
    from .. import lax as public_lax
    return public_lax if hasattr(public_lax, "gather") and hasattr(public_lax, "scatter") \
        else None


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
    g = _gather_api()
    if g is None:
        if any(d is not not_mapped for d in idd):
            raise NotImplementedError("vmap of dynamic_slice with batched start indices needs "
                                      "lax.gather (xjit._src.lax.slicing)")
        zero = np.zeros((), core.aval_of(idx[0]).dtype)[()] if idx else np.int32(0)
        idx = list(idx)
        idx.insert(xd, zero)
        sizes = list(slice_sizes)
        sizes.insert(xd, _shape(x)[xd])
        return st.dynamic_slice_p.bind(x, *idx, slice_sizes=tuple(sizes)), xd
    size = _size_of(args, dims)
    index, id_ = _stack_indices(idx, idd, size)
    nd = len(slice_sizes)
    mode = g.GatherScatterMode.CLIP
    if id_ is not_mapped:
        x = moveaxis(x, xd, 0)
        dn = g.GatherDimensionNumbers(
            offset_dims=(0,) + tuple(np.add(1, range(nd))), collapsed_slice_dims=(),
            start_index_map=tuple(np.add(1, range(nd))))
        return g.gather(x, index, dn, (_shape(x)[0],) + tuple(slice_sizes), unique_indices=True,
                        indices_are_sorted=True, mode=mode, fill_value=None), 0
    if xd is not_mapped:
        dn = g.GatherDimensionNumbers(offset_dims=tuple(range(1, nd + 1)), collapsed_slice_dims=(),
                                      start_index_map=tuple(range(nd)))
        return g.gather(x, index, dn, tuple(slice_sizes), unique_indices=False,
                        indices_are_sorted=False, mode=mode, fill_value=None), 0
    x = moveaxis(x, xd, 0)
    dn = g.GatherDimensionNumbers(
        offset_dims=tuple(np.add(1, range(nd))), collapsed_slice_dims=(),
        start_index_map=tuple(np.add(1, range(nd))), operand_batching_dims=(0,),
        start_indices_batching_dims=(0,))
    return g.gather(x, index, dn, (1,) + tuple(slice_sizes), unique_indices=True,
                    indices_are_sorted=True, mode=mode, fill_value=None), 0


def _dynamic_update_slice_rule(args, dims):
    x, upd, *idx = args
    xd, ud, *idd = dims
    g = _gather_api()
    size = _size_of(args, dims)
    if g is None:
        if any(d is not not_mapped for d in idd):
            raise NotImplementedError("vmap of dynamic_update_slice with batched start indices "
                                      "needs lax.scatter (xjit._src.lax.slicing)")
        x, upd = bdim_at_front(x, xd, size), bdim_at_front(upd, ud, size)
        zero = np.zeros((), core.aval_of(idx[0]).dtype)[()] if idx else np.int32(0)
        return st.dynamic_update_slice_p.bind(x, upd, zero, *idx), 0
    index, id_ = _stack_indices(idx, idd, size)
    nd = _ndim(upd) - (ud is not not_mapped)
    x, upd = bdim_at_front(x, xd, size), bdim_at_front(upd, ud, size)
    mode = g.GatherScatterMode.CLIP
    if id_ is not_mapped:
        dn = g.ScatterDimensionNumbers(
            update_window_dims=(0,) + tuple(np.add(1, range(nd))), inserted_window_dims=(),
            scatter_dims_to_operand_dims=tuple(np.add(1, range(nd))))
    else:
        dn = g.ScatterDimensionNumbers(
            update_window_dims=tuple(np.add(1, range(nd))), inserted_window_dims=(),
            scatter_dims_to_operand_dims=tuple(np.add(1, range(nd))), operand_batching_dims=(0,),
            scatter_indices_batching_dims=(0,))
    return g.scatter(x, index, upd, dn, indices_are_sorted=True, unique_indices=True,
                     mode=mode), 0


batch_rules[st.dynamic_slice_p] = _dynamic_slice_rule
batch_rules[st.dynamic_update_slice_p] = _dynamic_update_slice_rule


# --------------------------------------------------------------------------
# jit: batch the body into a new jit equation


def _jit_rule(axis_data, args, dims, *, jaxpr, name, donated_invars=(), **params):
    from xjit._src.pjit import jit_p
    batched, out_dims = batch_jaxpr2(jaxpr, axis_data, dims)
    outs = jit_p.bind(*args, jaxpr=batched, name=name, donated_invars=donated_invars, **params)
    return outs, out_dims


def _register_jit():
    from xjit._src.pjit import jit_p
    axis_batch_rules[jit_p] = _jit_rule


_register_jit()
