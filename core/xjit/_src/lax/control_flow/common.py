"""What the control-flow primitives share: staging the user's functions into
closed jaxprs (with JAX's forwarding and pruning of outputs), and the
helpers their JVP and batching rules use on those jaxprs."""
from __future__ import annotations

import weakref

from xjit._src import core, dispatch, dtypes, tree_util
from xjit._src.interpreters import ad
from xjit._src.interpreters.ad import Zero
from xjit._src.interpreters.partial_eval import (
    DebugInfo, arg_names_of, close_jaxpr, trace_to_jaxpr)
from xjit._src.lax import lax
from xjit._src.state.types import AbstractRef


# --------------------------------------------------------------------------
# Staging the user's functions


class Traced:
    """A user function staged out: its jaxpr (constants as leading invars),
    the constant values, and the output pytree structure."""

    __slots__ = ("jaxpr", "consts", "out_tree", "debug")

    def __init__(self, jaxpr, consts, out_tree, debug):
        self.jaxpr, self.consts, self.out_tree, self.debug = jaxpr, consts, out_tree, debug

    out_avals = property(lambda self: [v.aval for v in self.jaxpr.outvars])


class _OutLeaf:
    """What a cached trace gives back for an output leaf: its type (the
    output checks only read types)."""

    __slots__ = ("aval", "weak_type")

    def __init__(self, aval):
        self.aval, self.weak_type = aval, aval.weak_type


# fun -> {(input tree, input types, caller, trace flags and mesh): Traced}. As
# JAX's staging cache: outside any transformation, a loop, scan or cond of the
# same function on the same types reuses its jaxpr (and constants) instead of
# running the Python function again.
_traced_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def trace_fun(fun, in_tree, in_avals, traced_for, args_for_names=None, hi_writes=None):
    """Stage ``fun(*unflatten(in_tree, args))`` into a jaxpr; returns the
    Traced and the function's output (its leaves are tracers, or stand-ins
    carrying their types when the trace came from the cache). ``hi_writes``:
    see ``trace_to_jaxpr`` (a trace using hijax values is never cached: its
    constants are their current state)."""
    if core.trace_ctx.trace is not core.eval_trace:
        return _trace_fun(fun, in_tree, in_avals, traced_for, args_for_names, hi_writes)
    key = (in_tree, tuple(in_avals), traced_for, dispatch.trace_token)
    try:
        per_fun = _traced_cache.get(fun)
        traced = None if per_fun is None else per_fun.get(key)
    except TypeError:  # a function that cannot be weakly referenced or hashed
        return _trace_fun(fun, in_tree, in_avals, traced_for, args_for_names, hi_writes)
    if traced is None:
        traced, out = _trace_fun(fun, in_tree, in_avals, traced_for, args_for_names, hi_writes)
        if traced.debug.hi:
            return traced, out
        if per_fun is None:
            per_fun = _traced_cache[fun] = {}
        per_fun[key] = traced
        return traced, out
    return traced, tree_util.tree_unflatten(traced.out_tree,
                                            [_OutLeaf(a) for a in traced.out_avals])


def _trace_fun(fun, in_tree, in_avals, traced_for, args_for_names, hi_writes=None):
    names = arg_names_of(fun, args_for_names, {}) if args_for_names is not None else None
    debug = DebugInfo(fun, traced_for, names)
    store = []

    def flat_fun(*args):
        out = fun(*tree_util.tree_unflatten(in_tree, args))
        leaves, tree = tree_util.tree_flatten(out)
        store.append((out, tree))
        return leaves

    jaxpr, consts = trace_to_jaxpr(flat_fun, in_avals, debug, hi_writes=hi_writes)
    jaxpr = core.Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns, debug)
    return Traced(jaxpr, list(consts), store[0][1], debug), store[0][0]


def _closed(jaxpr):
    return core.ClosedJaxpr(jaxpr, [])


# --------------------------------------------------------------------------
# Refs closed over by a loop body: carried as values (discharged), written back


def closed_over_refs(traced):
    """The refs (unique, in order) among the constants of ``traced`` functions."""
    refs, seen = [], set()
    for t in traced:
        for c in t.consts:
            if type(core.aval_of(c)) is AbstractRef and id(c) not in seen:
                seen.add(id(c))
                refs.append(c)
    return refs


def threading_refs(traced, refs):
    """``traced``'s function as ``fun(ref_values, *args) -> (outs, ref_values)``:
    its reads and writes of the closed-over ``refs`` act on values passed in
    and returned (the jaxpr discharged), so a loop can carry them, as JAX
    discharges a loop's refs."""
    from xjit._src.state.discharge import discharge_state
    disc = discharge_state(_closed(traced.jaxpr))
    n_out = len(traced.jaxpr.outvars)
    ref_ids = [id(c) for c in traced.consts if type(core.aval_of(c)) is AbstractRef]

    def fun(ref_values, *args):
        by_id = dict(zip(map(id, refs), ref_values))
        ins = [by_id.get(id(c), c) for c in traced.consts]
        outs = core.eval_jaxpr(disc.jaxpr, disc.consts, *ins, *args)
        final = dict(zip(ref_ids, outs[n_out:]))
        return outs[:n_out], [final.get(id(r), v) for r, v in zip(refs, ref_values)]
    return fun


def write_back(refs, values):
    for r, v in zip(refs, values):
        r[...] = v


def _join_consts(traced):
    """Give every staged function the same leading const invars: the union of
    their constants, in order of first appearance."""
    all_consts, index = [], {}
    for t in traced:
        for c in t.consts:
            if id(c) not in index:
                index[id(c)] = len(all_consts)
                all_consts.append(c)
    out = []
    for t in traced:
        n = len(t.consts)
        mine = {index[id(c)]: v for c, v in zip(t.consts, t.jaxpr.invars[:n])}
        cvars = [mine.get(i) or core.Var(core.aval_of(c)) for i, c in enumerate(all_consts)]
        j = t.jaxpr
        out.append(core.Jaxpr([], cvars + j.invars[n:], j.outvars, j.eqns, j.debug_info))
    return out, all_consts


def _forwarded(jaxpr):
    """For each output, the index of the invar it merely forwards, or None."""
    pos = {v: i for i, v in enumerate(jaxpr.invars)}
    return [pos.get(v) if type(v) is core.Var else None for v in jaxpr.outvars]


def _prune_outputs(jaxpr, keep):
    return core.Jaxpr([], jaxpr.invars, [v for v, k in zip(jaxpr.outvars, keep) if k],
                      jaxpr.eqns, jaxpr.debug_info)


def _dce(jaxpr, keep_invars):
    """Drop equations whose results are unused, and the unused invars among
    those not marked ``keep_invars``. Returns (jaxpr, kept invar flags)."""
    live = {v for v in jaxpr.outvars if type(v) is core.Var}
    eqns = []
    for e in reversed(jaxpr.eqns):
        if any(v in live for v in e.outvars):
            eqns.append(e)
            live.update(v for v in e.invars if type(v) is core.Var)
    kept = [k or v in live for v, k in zip(jaxpr.invars, keep_invars)]
    invars = [v for v, k in zip(jaxpr.invars, kept) if k]
    return core.Jaxpr([], invars, jaxpr.outvars, eqns[::-1], jaxpr.debug_info), kept


def _move_to_front(jaxpr, flags):
    front = [v for v, f in zip(jaxpr.invars, flags) if f]
    rest = [v for v, f in zip(jaxpr.invars, flags) if not f]
    return core.Jaxpr([], front + rest, jaxpr.outvars, jaxpr.eqns, jaxpr.debug_info)


def _partition(flags, xs):
    return [x for x, f in zip(xs, flags) if not f], [x for x, f in zip(xs, flags) if f]


def _promote_weak_inputs(vals, in_avals, out_avals):
    """A weakly typed initial carry takes the dtype the body gives it."""
    changed = False
    vals = list(vals)
    for i, (a, b) in enumerate(zip(in_avals, out_avals)):
        if a.weak_type and a.dtype != b.dtype:
            vals[i] = lax._convert(vals[i], dtypes.result_type(vals[i], b.dtype), False)
            changed = True
    return vals, changed




# --------------------------------------------------------------------------
# Helpers on closed jaxprs


def _trace_closed(fun, avals, debug_info=None):
    with core.set_current_trace(core.eval_trace):
        jaxpr, consts = trace_to_jaxpr(fun, avals, debug_info)
    closed, tracer_consts = close_jaxpr(jaxpr, consts)
    assert not tracer_consts
    return closed


def _eval(closed, *args):
    return core.eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _permute_inputs(closed, order):
    """``closed`` taking its inputs in the order ``[invars[i] for i in order]``."""
    j = closed.jaxpr
    return core.ClosedJaxpr(core.Jaxpr(j.constvars, [j.invars[i] for i in order], j.outvars,
                                       j.eqns, j.debug_info), closed.consts)


def jvp_jaxpr(closed, nonzeros, instantiate):
    """JVP of ``closed``: takes (primals, tangents of the ``nonzeros`` inputs),
    returns (outputs, tangents of the nonzero outputs). ``instantiate[i]``
    makes output i's tangent nonzero. Returns ``(jvp_closed, out_nonzeros)``."""
    n = len(closed.in_avals)
    t_avals = [ad.tangent_aval(a) for a, nz in zip(closed.in_avals, nonzeros) if nz]
    out_nz = []

    def fun(*args):
        ts = iter(args[n:])
        tangents = [next(ts) if nz else Zero(ad.tangent_aval(a))
                    for a, nz in zip(closed.in_avals, nonzeros)]
        # allow_custom_lin: a custom_vjp in the body linearizes (its bwd runs
        # when the staged JVP is transposed); forward mode raises at evaluation
        outs, touts = ad.jvp_flat(lambda *a: _eval(closed, *a), args[:n], tangents,
                                  allow_custom_lin=True)
        touts = [ad.instantiate_zeros(t) if inst and type(t) is Zero else t
                 for t, inst in zip(touts, instantiate)]
        out_nz[:] = [type(t) is not Zero for t in touts]
        return list(outs) + [t for t in touts if type(t) is not Zero]

    jvp = _trace_closed(fun, list(closed.in_avals) + t_avals, closed.jaxpr.debug_info)
    return jvp, out_nz


def _nonzero(ts):
    return [t for t in ts if type(t) is not Zero]


def _carry_fixpoint(step, carry_nz):
    """Grow the set of carries with property ``nz`` until the body preserves it."""
    while True:
        out = step(carry_nz)
        new = [a or b for a, b in zip(carry_nz, out)]
        if new == carry_nz:
            return carry_nz
        carry_nz = new
