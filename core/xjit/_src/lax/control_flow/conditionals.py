"""``cond`` / ``switch``: one primitive whose parameters hold the traced
branches as closed jaxprs (``cond[branches=(b0, b1, ...)] index, *operands``),
with its lowering (``stablehlo.case``) and its rules:

* JVP: branches take ``(primals, nonzero tangents)``.
* Partial evaluation (linearize): a known ``cond`` computed now returns every
  branch's residuals; the unknown one is recorded for the backward pass.
* Transpose: each branch is transposed.
* Batching: a batched index evaluates every branch and selects.

Values the user's functions close over become leading operands, and outputs
that merely forward an input are taken out of the primitive, as in JAX.
"""
from __future__ import annotations

import numpy as np

from xjit._src import core, tree_util
from xjit._src.ad_jit import transpose_jaxpr
from xjit._src.config import config
from xjit._src.core import Tracer
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero, is_undefined_primal
from xjit._src.interpreters.mlir import lower_jaxpr, ttype
from xjit._src.lax import lax
from . import errors as errs
from .common import (
    _closed, _eval, _forwarded, _join_consts, _nonzero, _prune_outputs, _trace_closed,
    closed_over_refs, jvp_jaxpr, threading_refs, trace_fun, write_back)

_flags = config._values

cond_p = core.Primitive("cond")
cond_p.multiple_results = True
core.abstract_eval_rules[cond_p] = lambda index, *ops, branches: list(branches[0].out_avals)
core.pp_param_rules[cond_p] = lambda p: {"branches": p["branches"]}


# --------------------------------------------------------------------------
# cond / switch


def cond(pred, true_fun, false_fun, *operands, operand=errs.NO_OPERAND):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``,
    staged as one ``cond`` primitive (both branches traced)."""
    if not (callable(true_fun) and callable(false_fun)):
        # the old form cond(pred, true_operand, true_fun, false_operand, false_fun),
        # which JAX 0.10.2 still takes (numpyro's samplers call it)
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
            x_true, f_true, (x_false, f_false) = true_fun, false_fun, operands
            return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x), x_true, x_false)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    if operand is not errs.NO_OPERAND:
        if operands:
            raise TypeError("if `operand` is passed, no other positional operands may be passed")
        operands = (operand,)
    try:
        aval = core.aval_of(pred)
    except TypeError:
        raise TypeError(f"Pred must be a scalar, got {pred} of type {type(pred)}") from None
    if aval.shape:
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {aval.shape}.")
    if aval.dtype != np.bool_:
        if not np.issubdtype(aval.dtype, np.integer) and not np.issubdtype(aval.dtype, np.floating):
            raise TypeError(f"Pred type must be either boolean or number, got {aval.dtype.name}.")
        pred = lax.ne(pred, lax._convert(0, aval.dtype, aval.weak_type))
    if _flags["jax_disable_jit"] and not isinstance(pred, Tracer):
        return (true_fun if bool(pred) else false_fun)(*operands)
    index = lax._convert(pred, np.int32, False)
    return _bind_cond(index, [true_fun, false_fun], operands, "cond")


def switch(index, branches, *operands, operand=errs.NO_OPERAND):
    """``branches[clamp(0, index, len(branches) - 1)](*operands)``."""
    branches = list(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if operand is not errs.NO_OPERAND:
        operands = (*operands, operand)
    aval = core.aval_of(index)
    if aval.shape:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {aval.shape}.")
    if not (np.issubdtype(aval.dtype, np.integer) or aval.dtype == np.bool_):
        raise TypeError(f"Index type must be an integer, got {index} as {aval.dtype.name}")
    if len(branches) == 1:
        return branches[0](*operands)
    index = lax._convert(index, np.int32, False)
    index = lax.clamp(np.int32(0), index, np.int32(len(branches) - 1))
    if _flags["jax_disable_jit"] and not isinstance(index, Tracer):
        return branches[int(index)](*operands)
    return _bind_cond(index, branches, operands, "switch")


def _bind_cond(index, funs, operands, kind):
    """Trace every branch (in the order given), check they agree, and bind
    ``cond`` with the branches in index order (false first for ``cond``)."""
    ops, in_tree = tree_util.tree_flatten(operands)
    avals = [core.aval_of(x) for x in ops]
    traced = [trace_fun(f, in_tree, avals, kind)[0] for f in funs]
    errs.check_branches(kind, funs, traced)
    refs = closed_over_refs(traced)
    if refs:
        return _cond_threading_refs(index, traced, refs, ops, kind)
    jaxprs, consts = _join_consts(traced)
    if kind == "cond":
        jaxprs = jaxprs[::-1]
    args = consts + list(ops)
    fwd = [_forwarded(j) for j in jaxprs]
    same = [f[0] if all(g[i] == f[0] for g in fwd) else None for i, f in enumerate(zip(*fwd))]
    keep = [s is None for s in same]
    branches = tuple(_closed(_prune_outputs(j, keep)) for j in jaxprs)
    outs = iter(cond_p.bind(index, *args, branches=branches))
    flat = [next(outs) if s is None else lax.asarray_device(args[s]) for s in same]
    return tree_util.tree_unflatten(traced[0].out_tree, flat)


def _cond_threading_refs(index, traced, refs, ops, kind):
    """Branches that close over refs: the refs' values are passed in and out
    of every branch and written back after the conditional."""
    def branch(t):
        fun = threading_refs(t, refs)
        return lambda values, ops: fun(values, *ops)[::-1]
    values, outs = _bind_cond(index, [branch(t) for t in traced],
                              ([r[...] for r in refs], list(ops)), kind)
    write_back(refs, values)
    return tree_util.tree_unflatten(traced[0].out_tree, outs)


def platform_dependent(*args, default=None, **per_platform):
    """Call the function registered for the platform this runs on."""
    from xjit._src import xla_bridge as backend
    platform = backend.default_backend()
    aliases = {"cuda": ("cuda", "gpu"), "rocm": ("rocm", "gpu"), "cpu": ("cpu",),
               "tpu": ("tpu",)}.get(platform, (platform,))
    for name in aliases:
        if name in per_platform:
            return per_platform[name](*args)
    if default is None:
        raise NotImplementedError(f"Function is not lowered for platform {platform}; pass a "
                                  "`default` or an implementation for it")
    return default(*args)


# --------------------------------------------------------------------------
# Lowering and rules


def _cond_lowering(ctx, avals_in, avals_out, index, *ops, branches):
    # Each branch numbers its collectives' channels from the same start, as
    # JAX's lowering does: devices taking different branches then meet in the
    # same all-reduce (XLA hoists it out of the case) instead of waiting on
    # channels the others never open.
    module_ctx = ctx.module_ctx
    start = getattr(module_ctx, "channels", 0)
    ends = [start]

    def branch(br):
        def lower():
            module_ctx.channels = start
            outs = lower_jaxpr(ctx, br.jaxpr, br.consts, ops)
            ends.append(getattr(module_ctx, "channels", 0))
            return [(o, a) for o, a in zip(outs, avals_out)]
        return lower

    regions = [ctx.region([], branch(br)) for br in branches]
    module_ctx.channels = max(ends)
    return ctx.op("stablehlo.case", [index], [ttype(avals_in[0])],
                  [ttype(a) for a in avals_out], regions=regions)


def _cond_jvp(primals, tangents, *, branches):
    index, ops = primals[0], primals[1:]
    nz = [type(t) is not Zero for t in tangents[1:]]
    out_nz = [False] * len(branches[0].out_avals)
    for br in branches:
        out_nz = [a or b for a, b in zip(out_nz, jvp_jaxpr(br, nz, [False] * len(out_nz))[1])]
    jvps = tuple(jvp_jaxpr(br, nz, out_nz)[0] for br in branches)
    outs = cond_p.bind(index, *ops, *_nonzero(tangents[1:]), branches=jvps)
    n = len(out_nz)
    touts = iter(outs[n:])
    return outs[:n], [next(touts) if z else Zero(ad.tangent_aval(a))
                      for a, z in zip(branches[0].out_avals, out_nz)]


def _cond_partial_eval(trace, args, params):
    branches = params["branches"]
    index, ops = args[0], args[1:]
    if trace.is_unknown(index):
        return trace.record(cond_p, args, params)
    unknowns = [trace.is_unknown(x) for x in ops]
    n_out = len(branches[0].out_avals)
    out_uk = [False] * n_out
    for br in branches:
        out_uk = [a or b for a, b in zip(out_uk, ad.partial_eval_jaxpr(br, unknowns)[2])]
    splits = [ad.partial_eval_jaxpr(br, unknowns, out_uk) for br in branches]
    res_avals = [k.out_avals[len(k.out_avals) - r:] for k, _, _, r in splits]
    all_res = [a for avals in res_avals for a in avals]
    n_known = n_out - sum(out_uk)
    known_avals = [a for a, u in zip(branches[0].in_avals, unknowns) if not u]

    def known_branch(b):
        k, _, _, r = splits[b]
        before = sum(len(x) for x in res_avals[:b])

        def fun(*kargs):
            outs = _eval(k, *kargs)
            zeros = [ad.zeros_like_aval(a) for a in all_res]
            zeros[before:before + r] = outs[n_known:]
            return list(outs[:n_known]) + zeros
        return _trace_closed(fun, known_avals)

    def unknown_branch(b):
        _, u, _, r = splits[b]
        before = sum(len(x) for x in res_avals[:b])
        u_avals = [a for a, uk in zip(branches[0].in_avals, unknowns) if uk]
        return _trace_closed(lambda *xs: _eval(u, *xs[before:before + r], *xs[len(all_res):]),
                             all_res + u_avals)

    known_args = [x for x, u in zip(ops, unknowns) if not u]
    with core.set_current_trace(trace.parent):
        kouts = cond_p.bind(index, *known_args,
                            branches=tuple(known_branch(b) for b in range(len(branches))))
    residuals = kouts[n_known:]
    uargs = [index, *residuals, *[x for x, u in zip(ops, unknowns) if u]]
    uouts = trace.record(cond_p, uargs, {"branches": tuple(
        unknown_branch(b) for b in range(len(branches)))})
    kit, uit = iter(kouts[:n_known]), iter(uouts)
    return [next(uit) if u else next(kit) for u in out_uk]


def _cond_transpose(cts, index, *ops, branches):
    undefined = [is_undefined_primal(x) for x in ops]
    ct_nz = [type(c) is not Zero for c in cts]
    if not any(ct_nz):
        return [None] + [Zero(x.aval) if u else None for x, u in zip(ops, undefined)]
    tbranches = tuple(transpose_jaxpr(br, undefined, ct_nz) for br in branches)
    defined = [x for x, u in zip(ops, undefined) if not u]
    outs = iter(cond_p.bind(index, *defined, *_nonzero(cts), branches=tbranches))
    return [None] + [next(outs) if u else None for u in undefined]


def _cond_batch(axis_data, args, dims, *, branches):
    index, ops = args[0], args[1:]
    op_dims = dims[1:]
    size = axis_data.size
    if dims[0] is not batching.not_mapped:
        # every branch runs on every example, its inputs masked by
        # stop_gradient where it is not taken; the index picks per example
        from xjit._src.ad_api import stop_gradient
        index = batching.bdim_at_front(index, dims[0], size)
        ops = [batching.bdim_at_front(x, d, size) for x, d in zip(ops, op_dims)]
        outs = []
        for i, br in enumerate(branches):
            taken = lax.eq(index, np.int32(i))
            masked = [lax.select_n(_bcast(taken, core.aval_of(x).shape), stop_gradient(x), x)
                      for x in ops]
            batched, _ = batching.batch_jaxpr(br, axis_data, [True] * len(ops), True)
            outs.append(_eval(batched, *masked))
        sel = [lax.select_n(_bcast(index, core.aval_of(o[0]).shape), *o) for o in zip(*outs)]
        return sel, [0] * len(sel)
    in_b = [d is not batching.not_mapped for d in op_dims]
    ops = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
           for x, d in zip(ops, op_dims)]
    out_b = [False] * len(branches[0].out_avals)
    for br in branches:
        out_b = [a or b for a, b in zip(out_b, batching.batch_jaxpr(br, axis_data, in_b, False)[1])]
    batched = tuple(batching.batch_jaxpr(br, axis_data, in_b, out_b)[0] for br in branches)
    outs = cond_p.bind(index, *ops, branches=batched)
    return outs, [0 if b else batching.not_mapped for b in out_b]


def _bcast(pred, shape):
    """Broadcast a per-example selector over a batched value's other axes."""
    return pred if len(shape) <= 1 else lax.broadcast_in_dim(pred, shape, (0,))


lowering.rules[cond_p] = _cond_lowering
ad.jvp_rules[cond_p] = _cond_jvp
ad.partial_eval_rules[cond_p] = _cond_partial_eval
ad.transpose_rules[cond_p] = _cond_transpose
batching.axis_batch_rules[cond_p] = _cond_batch
