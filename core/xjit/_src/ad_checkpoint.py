"""``checkpoint``/``remat``: a ``remat2`` equation; when linearized, the
primal part runs now and the linear part is a differentiated ``remat2``
that recomputes what the policy did not save."""
from __future__ import annotations

import functools

from xjit._src import core, tree_util
from xjit._src.ad_jit import jvp_jaxpr, transpose_jaxpr
from xjit._src.custom_derivatives import _merge, _split_nondiff, _stage
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero

remat_p = core.Primitive("remat2")
remat_p.multiple_results = True
core.abstract_eval_rules[remat_p] = lambda *avals, jaxpr, **_: jaxpr.out_avals
core.impl_rules[remat_p] = lambda *args, jaxpr, **_: core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts,
                                                                     *args)
lowering.rules[remat_p] = lambda ctx, ai, ao, *args, jaxpr, **_: lowering.lower_jaxpr(
    ctx, jaxpr.jaxpr, jaxpr.consts, args)


def nothing_saveable(prim, *avals, **params):
    """Recompute everything in the backward pass."""
    return False


def everything_saveable(prim, *avals, **params):
    """Save every residual (no recomputation)."""
    return True


class checkpoint_policies:
    nothing_saveable = staticmethod(nothing_saveable)
    everything_saveable = staticmethod(everything_saveable)


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """``fun`` whose intermediate values are recomputed, not stored, for its
    derivative (``policy`` decides which ones may be saved)."""
    if policy not in (None, nothing_saveable, everything_saveable):
        raise NotImplementedError("checkpoint supports the policies None, nothing_saveable and "
                                  "everything_saveable")

    @functools.wraps(fun)
    def remat_f(*args):
        static, dyn = _split_nondiff(args, tuple(static_argnums))
        leaves, in_tree = tree_util.tree_flatten(dyn)
        out_store = []

        def flat(*xs):
            full = _merge(static, tree_util.tree_unflatten(in_tree, list(xs)), static_argnums)
            o, t = tree_util.tree_flatten(fun(*full))
            out_store.append(t)
            return o

        closed, tracer_consts = _stage(flat, leaves, "checkpoint")
        outs = remat_p.bind(*tracer_consts, *leaves, jaxpr=closed, prevent_cse=prevent_cse,
                            differentiated=False, policy=policy)
        return tree_util.tree_unflatten(out_store[0], outs)

    return remat_f


remat = checkpoint


def _remat_jvp(primals, tangents, *, jaxpr, **params):
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp_closed, out_nz = jvp_jaxpr(jaxpr, nonzeros)
    outs = remat_p.bind(*primals, *[t for t in tangents if type(t) is not Zero],
                        jaxpr=jvp_closed, **params)
    n = len(jaxpr.out_avals)
    it = iter(outs[n:])
    return outs[:n], [next(it) if nz else Zero(ad.tangent_aval(a))
                      for a, nz in zip(jaxpr.out_avals, out_nz)]


def _remat_partial_eval(trace, args, params):
    closed, policy = params["jaxpr"], params["policy"]
    unknowns = [trace.is_unknown(x) for x in args]
    known, unknown, out_unknowns, num_res = ad.partial_eval_jaxpr(closed, unknowns)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    unknown_args = [x for x, u in zip(args, unknowns) if u]
    n_known = len(out_unknowns) - sum(out_unknowns)
    new = dict(params, differentiated=True)
    if policy is everything_saveable:
        with core.set_current_trace(trace.parent):
            kouts = core.eval_jaxpr(known.jaxpr, known.consts, *known_args)
        res = kouts[n_known:]
        uouts = trace.record(remat_p, res + unknown_args, dict(new, jaxpr=unknown))
    else:  # save nothing but the inputs: the linear part recomputes the rest
        kj = ad.dce_jaxpr(known.jaxpr, [True] * n_known + [False] * num_res)
        with core.set_current_trace(trace.parent):
            kouts = core.eval_jaxpr(kj, known.consts, *known_args)
        full = closed.jaxpr
        order = [v for v, u in zip(full.invars, unknowns) if not u] + \
                [v for v, u in zip(full.invars, unknowns) if u]
        lin = ad.dce_jaxpr(core.Jaxpr(full.constvars, order, full.outvars, full.eqns,
                                      full.debug_info), out_unknowns)
        uouts = trace.record(remat_p, known_args + unknown_args,
                             dict(new, jaxpr=core.ClosedJaxpr(lin, closed.consts)))
    kit, uit = iter(kouts[:n_known]), iter(uouts)
    return [next(uit) if u else next(kit) for u in out_unknowns]


def _remat_transpose(cts, *args, jaxpr, **params):
    undefined = [ad.is_undefined_primal(x) for x in args]
    ct_nz = [type(c) is not Zero for c in cts]
    if not any(ct_nz):
        return [Zero(x.aval) if u else None for x, u in zip(args, undefined)]
    t_closed = transpose_jaxpr(jaxpr, undefined, ct_nz)
    targs = [x for x, u in zip(args, undefined) if not u] + [c for c in cts if type(c) is not Zero]
    outs = iter(remat_p.bind(*targs, jaxpr=t_closed, **params))
    return [next(outs) if u else None for u in undefined]


ad.jvp_rules[remat_p] = _remat_jvp
ad.partial_eval_rules[remat_p] = _remat_partial_eval
ad.transpose_rules[remat_p] = _remat_transpose




def _remat_batch(axis_data, args, dims, *, jaxpr, **params):
    batched, out_dims = batching.batch_jaxpr2(jaxpr, axis_data, dims)
    return remat_p.bind(*args, jaxpr=batched, **params), out_dims


batching.axis_batch_rules[remat_p] = _remat_batch
