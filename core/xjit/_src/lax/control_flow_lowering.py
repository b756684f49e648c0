"""StableHLO lowering of ``cond`` (``stablehlo.case``), ``while``
(``stablehlo.while``) and ``scan`` (a counted ``stablehlo.while`` that slices
``xs`` and writes ``ys`` with dynamic slices).

Loop constants travel through the ``while`` as part of its state (the
regions see only their block arguments), as JAX lowers them.
"""
from __future__ import annotations

import numpy as np

from xjit._src.interpreters import mlir as lowering
from ..core import ShapedArray
from xjit._src.interpreters.mlir import i64_array, lower_jaxpr, ttype
from .control_flow import cond_p, scan_p, while_p

_I32 = ShapedArray((), np.int32)
_BOOL = ShapedArray((), np.bool_)


def _cond_lowering(ctx, avals_in, avals_out, index, *ops, branches):
    def branch(br):
        return lambda: [(o, a) for o, a in zip(lower_jaxpr(ctx, br.jaxpr, br.consts, ops),
                                               avals_out)]

    regions = [ctx.region([], branch(br)) for br in branches]
    return ctx.op("stablehlo.case", [index], [ttype(avals_in[0])],
                  [ttype(a) for a in avals_out], regions=regions)


def _while_lowering(ctx, avals_in, avals_out, *args, cond_jaxpr, cond_nconsts, body_jaxpr,
                    body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    types = [ttype(a) for a in avals_in]

    pred_aval = cond_jaxpr.out_avals[0]  # batched (vmap) predicates have a shape

    def predicate(xs):
        pred, = lower_jaxpr(ctx, cond_jaxpr.jaxpr, cond_jaxpr.consts, [*xs[:nc], *xs[nc + nb:]])
        return pred

    def cond_region(*xs):
        pred = predicate(xs)
        if pred_aval.shape:
            pred = _reduce_or(ctx, pred, pred_aval)
        return [(pred, _BOOL)]

    def body_region(*xs):
        new = lower_jaxpr(ctx, body_jaxpr.jaxpr, body_jaxpr.consts, xs[nc:])
        if pred_aval.shape:
            pred = predicate(xs)
            new = [_select(ctx, pred, pred_aval, n, old, a)
                   for n, old, a in zip(new, xs[nc + nb:], avals_in[nc + nb:])]
        return [*zip(xs[:nc + nb], avals_in), *zip(new, avals_in[nc + nb:])]

    outs = ctx.op("stablehlo.while", list(args), types, types,
                  regions=[ctx.region(avals_in, cond_region), ctx.region(avals_in, body_region)])
    return outs[nc + nb:]


def _reduce_or(ctx, pred, aval):
    t = ttype(_BOOL)
    false = ctx.constant(np.bool_(False), _BOOL)
    body = ctx.region([_BOOL, _BOOL],
                      lambda a, b: [(ctx.op("stablehlo.or", [a, b], [t, t], t), _BOOL)])
    return ctx.op("stablehlo.reduce", [pred, false], [ttype(aval), t], t, regions=[body],
                  attrs=f"dimensions = {i64_array(range(aval.ndim))}")


def _select(ctx, pred, pred_aval, on_true, on_false, aval):
    """``on_true`` where the (leading-axis) predicate holds, else ``on_false``."""
    p = _physical(aval)
    mask_aval = p.update(dtype=np.dtype(bool))
    if p.shape != pred_aval.shape:
        pred = ctx.op("stablehlo.broadcast_in_dim", [pred], [ttype(pred_aval)], ttype(mask_aval),
                      attrs=f"broadcast_dimensions = {i64_array(range(pred_aval.ndim))}")
    return ctx.op("stablehlo.select", [pred, on_true, on_false],
                  [ttype(mask_aval), ttype(p), ttype(p)], ttype(p))


def _physical(aval):
    dt = aval.dtype
    return dt.physical_aval(aval) if getattr(dt, "extended", False) else aval


def _scan_lowering(ctx, avals_in, avals_out, *args, jaxpr, length, reverse, num_consts,
                   num_carry, **_):
    nk, nc = num_consts, num_carry
    consts, init, xs = args[:nk], args[nk:nk + nc], args[nk + nc:]
    x_avals = avals_in[nk + nc:]
    y_avals = avals_out[nc:]
    bufs = []
    for a in y_avals:
        p = _physical(a)
        z = ctx.constant(np.zeros((), p.dtype), p.update(shape=()))
        bufs.append(ctx.op("stablehlo.broadcast_in_dim", [z], [ttype(p.update(shape=()))],
                           ttype(p), attrs="broadcast_dimensions = array<i64>"))
    if length == 0:
        return [*init, *bufs]
    state_avals = [_I32, *avals_in, *y_avals]
    types = [ttype(a) for a in state_avals]

    def cond_region(i, *_):
        n = ctx.constant(np.int32(length), _I32)
        attrs = ("comparison_direction = #stablehlo<comparison_direction LT>, "
                 "compare_type = #stablehlo<comparison_type SIGNED>")
        t = ttype(_I32)
        return [(ctx.op("stablehlo.compare", [i, n], [t, t], ttype(_BOOL), attrs=attrs), _BOOL)]

    def body_region(i, *state):
        t = ttype(_I32)
        ks, carry, xs_, ys = (state[:nk], state[nk:nk + nc], state[nk + nc:nk + nc + len(xs)],
                              state[nk + nc + len(xs):])
        zero = ctx.constant(np.int32(0), _I32)
        idx = i
        if reverse:
            last = ctx.constant(np.int32(length - 1), _I32)
            idx = ctx.op("stablehlo.subtract", [last, i], [t, t], t)
        elems = []
        for x, a in zip(xs_, x_avals):
            p = _physical(a)
            zeros = [zero] * (p.ndim - 1)
            one = p.update(shape=(1, *p.shape[1:]))
            s = ctx.op("stablehlo.dynamic_slice", [x, idx, *zeros], [ttype(p)] + [t] * p.ndim,
                       ttype(one), attrs=f"slice_sizes = {i64_array(one.shape)}")
            elems.append(ctx.op("stablehlo.reshape", [s], [ttype(one)],
                                ttype(p.update(shape=p.shape[1:]))))
        outs = lower_jaxpr(ctx, jaxpr.jaxpr, jaxpr.consts, [*ks, *carry, *elems])
        new_ys = []
        for buf, y, a in zip(ys, outs[nc:], y_avals):
            p = _physical(a)
            one = p.update(shape=(1, *p.shape[1:]))
            y1 = ctx.op("stablehlo.reshape", [y], [ttype(p.update(shape=p.shape[1:]))], ttype(one))
            zeros = [zero] * (p.ndim - 1)
            new_ys.append(ctx.op("stablehlo.dynamic_update_slice", [buf, y1, idx, *zeros],
                                 [ttype(p), ttype(one)] + [t] * p.ndim, ttype(p)))
        one = ctx.constant(np.int32(1), _I32)
        i1 = ctx.op("stablehlo.add", [i, one], [t, t], t)
        return [(i1, _I32), *zip(ks, avals_in), *zip(outs[:nc], avals_in[nk:nk + nc]),
                *zip(xs_, x_avals), *zip(new_ys, y_avals)]

    start = ctx.constant(np.int32(0), _I32)
    outs = ctx.op("stablehlo.while", [start, *args, *bufs], types, types,
                  regions=[ctx.region(state_avals, cond_region),
                           ctx.region(state_avals, body_region)])
    return [*outs[1 + nk:1 + nk + nc], *outs[1 + len(args):]]


lowering.rules[cond_p] = _cond_lowering
lowering.rules[while_p] = _while_lowering
lowering.rules[scan_p] = _scan_lowering
