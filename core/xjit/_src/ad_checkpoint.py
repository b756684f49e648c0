"""``checkpoint``/``remat`` and the checkpoint policies.

``checkpoint(f)`` stages ``f`` as a ``remat2`` equation. When it is
linearized, the policy decides, for each equation of the primal computation
that the derivative needs, whether its outputs are *saved* (computed now,
kept as residuals) or *recomputed* in the backward pass from saved values
and the inputs (which are always saved). ``checkpoint_name`` marks a value
with a ``name`` equation so policies can pick values by name, and
``print_saved_residuals`` lists what a function's derivative keeps.
"""
from __future__ import annotations

import dataclasses

from xjit._src import core, dtypes, sharding_in_types, traceback_util, tree_util, util
from xjit._src.ad_jit import jvp_jaxpr, transpose_jaxpr
from xjit._src.pjit import jit_p
from xjit._src.custom_derivatives import _merge, _split_nondiff, _stage
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero
from xjit._src.core import Literal
from xjit._src.state import utils as state_utils

remat_p = core.Primitive("remat2")
remat_p.multiple_results = True
core.abstract_eval_rules[remat_p] = lambda *avals, jaxpr, **_: jaxpr.out_avals
core.impl_rules[remat_p] = lambda *args, jaxpr, **_: core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts,
                                                                     *args)
lowering.rules[remat_p] = lambda ctx, ai, ao, *args, jaxpr, **_: lowering.lower_jaxpr(
    ctx, jaxpr.jaxpr, jaxpr.consts, args)


# --------------------------------------------------------------------------
# checkpoint_name: an identity equation carrying a name for policies

name_p = core.Primitive("name")
name_p.def_impl(lambda x, *, name: x)
name_p.def_abstract_eval(lambda x, *, name: x)
lowering.rules[name_p] = lambda ctx, ai, ao, x, *, name: x
# the tangent is not named: only primal values are candidates for saving
ad.jvp_rules[name_p] = lambda primals, tangents, *, name: (name_p.bind(*primals, name=name),
                                                           tangents[0])
batching.batch_rules[name_p] = lambda args, dims, *, name: (name_p.bind(*args, name=name), dims[0])
sharding_in_types.sharding_rules[name_p] = sharding_in_types.unary_rule  # keeps x's type


def checkpoint_name(x, name):
    """``x`` (a pytree) marked with ``name`` for ``save_only_these_names`` and
    the other name-based policies; the values are unchanged."""
    return tree_util.tree_map(lambda v: name_p.bind(v, name=name), x)


# --------------------------------------------------------------------------
# Policies: policy(prim, *avals, **params) -> saveable?


class _Decision:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


Saveable = _Decision("Saveable")
Recompute = _Decision("Recompute")


@dataclasses.dataclass(frozen=True)
class Offloadable:
    """Keep the value in another memory space (``dst``). There is one memory
    space per device here, so an offloaded value is simply saved."""
    src: str
    dst: str


def _saves(decision) -> bool:
    return decision is True or decision is Saveable or isinstance(decision, Offloadable)


def everything_saveable(*_, **__) -> bool:
    """Save every residual (as if there were no ``checkpoint``)."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Recompute everything but the inputs (``checkpoint``'s default)."""
    return False


def _is_dot(prim):  # by name: the lax layer sits above this module
    return prim.name == "dot_general"


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
    """Save the results of matrix multiplications (and convolutions), or
    only of those without batch dimensions."""
    only_if_no_batch_dims: bool

    def __call__(self, prim, *avals, **params):
        if self.only_if_no_batch_dims:
            if _is_dot(prim):
                (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
                return not lhs_b and not rhs_b
            return False
        return _is_dot(prim) or prim.name == "conv_general_dilated"


dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """``dots_with_no_batch_dims_saveable``, offloading instead of saving."""
    def policy(prim, *_, **params):
        if _is_dot(prim):
            (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
            if not lhs_b and not rhs_b:
                return Offloadable(offload_src, offload_dst)
        return Recompute
    return policy


def save_anything_except_these_names(*names_not_to_save):
    """Save every value. (JAX 0.10.2's policy ignores the names; so does this.)"""
    return lambda *_, **__: True


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    saveable_names: frozenset

    def __call__(self, prim, *_, **params):
        return prim is name_p and params["name"] in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    names: frozenset

    def __call__(self, prim, *_, **params):
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names_which_can_be_saved):
    """Save only values named (``checkpoint_name``) with one of these names."""
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))


def save_any_names_but_these(*names_not_to_save):
    """Save only named values, except those with these names."""
    return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src, offload_dst):
    """Save the values with the first names, offload those with the second."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    both = saved & offloaded
    if both:
        raise ValueError(
            "The names should be exclusive and should not intersect in "
            "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
            f"names_which_can_be_saved={saved}, names_which_can_be_offloaded={offloaded} and "
            f"the intersection={both}")

    def policy(prim, *_, **params):
        if prim is name_p and params["name"] in saved:
            return Saveable
        if prim is name_p and params["name"] in offloaded:
            return Offloadable(offload_src, offload_dst)
        return Recompute
    return policy


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves (both must answer with bools)."""
    def policy(prim, *args, **params):
        out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(
                "The return value of the policies should be a boolean. Got: "
                f"{out1} and {out2}. Please write a custom policy function directly, "
                "rather than using this helper function.")
        return out1 or out2
    return policy


class checkpoint_policies:
    everything_saveable = staticmethod(everything_saveable)
    nothing_saveable = staticmethod(nothing_saveable)
    dots_saveable = checkpoint_dots = dots_saveable
    dots_with_no_batch_dims_saveable = dots_with_no_batch_dims_saveable
    checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable
    offload_dot_with_no_batch_dims = staticmethod(offload_dot_with_no_batch_dims)
    save_anything_except_these_names = staticmethod(save_anything_except_these_names)
    save_any_names_but_these = staticmethod(save_any_names_but_these)
    save_only_these_names = staticmethod(save_only_these_names)
    save_from_both_policies = staticmethod(save_from_both_policies)
    save_and_offload_only_these_names = staticmethod(save_and_offload_only_these_names)


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """``fun`` whose intermediate values are recomputed, not stored, for its
    derivative (``policy`` decides which ones may be saved)."""
    @util.wraps(fun)
    @traceback_util.api_boundary
    def fun_remat(*args):
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

    return fun_remat


remat = checkpoint


def _remat_jvp(primals, tangents, *, jaxpr, **params):
    state_utils.refuse_refs(jaxpr, "a differentiated checkpoint (remat)")  # writes dropped/replayed
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp_closed, out_nz = jvp_jaxpr(jaxpr, nonzeros)
    outs = remat_p.bind(*primals, *[t for t in tangents if type(t) is not Zero],
                        jaxpr=jvp_closed, **params)
    n = len(jaxpr.out_avals)
    it = iter(outs[n:])
    return outs[:n], [next(it) if nz else Zero(ad.tangent_aval(a))
                      for a, nz in zip(jaxpr.out_avals, out_nz)]


def _policy_split(jaxpr: core.Jaxpr, unknowns, policy):
    """Split ``jaxpr`` for linearization under ``policy``.

    Known equations (no unknown input) run now. A known value the unknown
    equations need is a residual if it is a known input or the output of an
    equation the policy saves; otherwise its equation is recomputed in the
    unknown half, needing its own inputs in turn. Returns ``(known,
    unknown, out_unknowns, num_res)``: ``known`` maps the known inputs to
    the known outputs then the residuals; ``unknown`` maps the residuals then
    the unknown inputs to the unknown outputs (both keep the constvars)."""
    unknown_vars = {v for v, u in zip(jaxpr.invars, unknowns) if u}
    known_inputs = {v: i for i, (v, u) in enumerate(zip(jaxpr.invars, unknowns)) if not u}
    jaxpr = jaxpr.replace(eqns=[s for e in jaxpr.eqns for s in _split_nested(e, unknown_vars)])
    position, producer, unknown_eqns, known_eqns = {}, {}, [], set()
    for i, e in enumerate(jaxpr.eqns):
        position[e] = i
        if any(type(v) is not Literal and v in unknown_vars for v in e.invars):
            unknown_eqns.append(e)
            unknown_vars.update(e.outvars)
        else:
            known_eqns.add(e)
            producer.update((o, e) for o in e.outvars)
    out_unknowns = [type(v) is not Literal and v in unknown_vars for v in jaxpr.outvars]
    residuals, recompute, seen = [], set(), set()
    stack = [v for e in unknown_eqns for v in e.invars]
    while stack:
        v = stack.pop()
        if type(v) is Literal or v in seen or v in unknown_vars or v in jaxpr.constvars:
            continue
        seen.add(v)
        e = producer.get(v)
        if e is None or _saves(policy(e.primitive, *[x.aval for x in e.invars], **e.params)):
            residuals.append(v)
        elif e not in recompute:
            recompute.add(e)
            stack.extend(e.invars)
    residuals.sort(key=lambda v: (1, known_inputs[v], 0) if v in known_inputs
                   else (0, position[producer[v]], producer[v].outvars.index(v)))
    known_outs = [v for v, u in zip(jaxpr.outvars, out_unknowns) if not u]
    known = _dce_keeping_effects(core.Jaxpr(
        jaxpr.constvars, list(known_inputs), known_outs + residuals,
        [e for e in jaxpr.eqns if e in known_eqns], jaxpr.debug_info))
    unknown = core.Jaxpr(jaxpr.constvars,
                         residuals + [v for v, u in zip(jaxpr.invars, unknowns) if u],
                         [v for v, u in zip(jaxpr.outvars, out_unknowns) if u],
                         [r for e in jaxpr.eqns if e in recompute or e not in known_eqns
                          for r in (_recomputed(e) if e in recompute else [e])],
                         jaxpr.debug_info)
    return known, unknown, out_unknowns, len(residuals)


def _dce_keeping_effects(jaxpr):
    """``jaxpr`` without the equations no output needs, but with those that
    have no outputs at all (``debug.print``, ``checkify.check``): they are
    there for their effect, which JAX's forward pass keeps."""
    live = {v for v in jaxpr.outvars if type(v) is not Literal}
    eqns = []
    for eqn in reversed(jaxpr.eqns):
        if not eqn.outvars or any(v in live for v in eqn.outvars):
            if eqn.primitive is jit_p and not all(v in live for v in eqn.outvars):
                eqn = _prune_jit_outputs(eqn, [v in live for v in eqn.outvars])
            eqns.append(eqn)
            live.update(v for v in eqn.invars if type(v) is not Literal)
    return jaxpr.replace(eqns=eqns[::-1])


def _prune_jit_outputs(eqn, used):
    """A ``jit`` equation giving only the ``used`` outputs (JAX's DCE of a
    jit: a split jit's residuals that the policy recomputes are not needed)."""
    closed = eqn.params["jaxpr"]
    pruned = core.ClosedJaxpr(ad.dce_jaxpr(closed.jaxpr, used), closed.consts)
    return eqn.replace(outvars=[v for v, u in zip(eqn.outvars, used) if u],
                       params=dict(eqn.params, jaxpr=pruned))


def _split_nested(eqn, unknown_vars):
    """A ``remat2`` equation nested in the one being split, with both known
    and unknown inputs (the primal and tangent inputs of its JVP), becomes a
    known ``remat2`` giving its known outputs and its residuals under its own
    policy, then an unknown one taking those residuals: whole, its primal
    computation would sit among the linear equations of the backward pass.
    Other equations pass through; ``unknown_vars`` is updated as a whole
    equation's would be."""
    unknowns = [type(v) is not Literal and v in unknown_vars for v in eqn.invars]
    if eqn.primitive is jit_p and any(unknowns) and not all(unknowns):
        return _split_jit(eqn, unknowns, unknown_vars)
    if eqn.primitive is not remat_p or all(unknowns) or not any(unknowns):
        if any(unknowns):
            unknown_vars.update(eqn.outvars)
        return [eqn]
    closed, policy = eqn.params["jaxpr"], eqn.params["policy"]
    known, unknown, out_unknowns, num_res = _policy_split(closed.jaxpr, unknowns,
                                                          policy or nothing_saveable)
    known_args = [v for v, u in zip(eqn.invars, unknowns) if not u]
    n_known_outs = len(known.outvars) - num_res
    # a residual that is a known input is passed along, not returned
    forwarded = {v: a for v, a in zip(known.invars, known_args)}
    res, new_res = [], []
    for v in known.outvars[n_known_outs:]:
        res.append(forwarded[v] if v in forwarded else core.Var(v.aval))
        if v not in forwarded:
            new_res.append(res[-1])
    known = ad.dce_jaxpr(known.replace(outvars=known.outvars[:n_known_outs] + [
        v for v in known.outvars[n_known_outs:] if v not in forwarded]),
        [True] * (n_known_outs + len(new_res)))
    known_eqn = core.JaxprEqn(
        known_args, [o for o, u in zip(eqn.outvars, out_unknowns) if not u] + new_res, remat_p,
        dict(eqn.params, jaxpr=core.ClosedJaxpr(known, closed.consts)), eqn.source_info)
    unknown_outs = [o for o, u in zip(eqn.outvars, out_unknowns) if u]
    unknown_eqn = core.JaxprEqn(
        res + [v for v, u in zip(eqn.invars, unknowns) if u], unknown_outs, remat_p,
        dict(eqn.params, differentiated=True, jaxpr=core.ClosedJaxpr(unknown, closed.consts)),
        eqn.source_info)
    unknown_vars.update(unknown_outs)
    return [known_eqn, unknown_eqn]


def _split_jit(eqn, unknowns, unknown_vars):
    """A ``jit`` equation with known and unknown inputs (a jitted function's
    JVP: primals and tangents) becomes a known ``jit`` of its known outputs
    and residuals, which the policy then saves or recomputes like any known
    equation, and an unknown one of the rest, as JAX splits it. Whole, its
    primal outputs would count as linear (``jnp.clip(x) * x`` under
    ``grad(checkpoint(...))`` could not be transposed)."""
    known, unknown, out_unknowns, num_res = ad.partial_eval_jaxpr(eqn.params["jaxpr"], unknowns)
    known_args = [v for v, u in zip(eqn.invars, unknowns) if not u]
    known_outs = [o for o, u in zip(eqn.outvars, out_unknowns) if not u]
    unknown_outs = [o for o, u in zip(eqn.outvars, out_unknowns) if u]
    if not unknown_outs:  # no residuals needed: the known outputs alone
        known = core.ClosedJaxpr(ad.dce_jaxpr(known.jaxpr, [True] * len(known_outs)
                                              + [False] * num_res), known.consts)
        num_res = 0
    res = [core.Var(a) for a in known.out_avals[len(known_outs):]]
    split = [core.JaxprEqn(known_args, known_outs + res, jit_p,
                           dict(eqn.params, jaxpr=known,
                                donated_invars=(False,) * len(known_args)), eqn.source_info)]
    if unknown_outs:
        uargs = res + [v for v, u in zip(eqn.invars, unknowns) if u]
        split.append(core.JaxprEqn(uargs, unknown_outs, jit_p,
                                   dict(eqn.params, jaxpr=unknown,
                                        donated_invars=(False,) * len(uargs)), eqn.source_info))
        unknown_vars.update(unknown_outs)
    return split


def _recomputed(eqn):
    """A known nested ``remat2`` recomputed in the backward pass: its
    equations, inlined as JAX inlines them (a copy of the equation where its
    jaxpr has constants or returns an input or one value twice)."""
    if eqn.primitive is not remat_p:
        return [eqn]
    closed = eqn.params["jaxpr"]
    inner = closed.jaxpr
    produced = {o for e in inner.eqns for o in e.outvars}
    if (closed.consts or len(set(inner.outvars)) != len(inner.outvars)
            or not all(type(v) is not Literal and v in produced for v in inner.outvars)):
        return [eqn.replace(params=dict(eqn.params, jaxpr=closed.replace(
            jaxpr=inner.replace())))]
    subst = dict(zip(inner.invars, eqn.invars))
    subst.update(zip(inner.outvars, eqn.outvars))
    return [e.replace(invars=[subst.get(v, v) if type(v) is not Literal else v for v in e.invars],
                      outvars=[subst.get(v, v) for v in e.outvars]) for e in inner.eqns]


def _barrier_residuals(jaxpr, first_res):
    """Round each saved inexact residual that the forward computation also
    uses through ``reduce_precision`` to its own precision, and use the
    rounded value from there on, as JAX does: XLA may keep excess precision
    in a fused forward computation, and the backward pass must see the same
    values as the rest of the forward pass."""
    import numpy as np
    from xjit._src.lax.elementwise import reduce_precision_p
    produced = {o: e for e in jaxpr.eqns for o in e.outvars}
    used = {v for e in jaxpr.eqns for v in e.invars if type(v) is not Literal}
    targets = set()
    for v in jaxpr.outvars[first_res:]:
        e = produced.get(v)
        if e is None or v not in used or not dtypes.issubdtype(v.aval.dtype, np.inexact):
            continue
        if e.primitive is reduce_precision_p and e.params == _precision_params(v.aval.dtype):
            continue
        targets.add(v)
    if not targets:
        return jaxpr
    subst, eqns = {}, []
    for e in jaxpr.eqns:
        if subst:
            e = e.replace(invars=[subst.get(v, v) if type(v) is not Literal else v
                                  for v in e.invars])
        eqns.append(e)
        for o in e.outvars:
            if o in targets:
                new = core.Var(o.aval)
                eqns.append(core.JaxprEqn([o], [new], reduce_precision_p,
                                          _precision_params(o.aval.dtype), e.source_info))
                subst[o] = new
    outvars = [subst.get(v, v) if type(v) is not Literal else v for v in jaxpr.outvars]
    return jaxpr.replace(eqns=eqns, outvars=outvars)


def _precision_params(dtype):
    info = dtypes.finfo(dtype)
    return {"exponent_bits": info.nexp, "mantissa_bits": info.nmant}


def _remat_partial_eval(trace, args, params):
    closed, policy = params["jaxpr"], params["policy"]
    unknowns = [trace.is_unknown(x) for x in args]
    known, unknown, out_unknowns, num_res = _policy_split(closed.jaxpr, unknowns,
                                                          policy or nothing_saveable)
    known = _barrier_residuals(known, len(known.outvars) - num_res)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    unknown_args = [x for x, u in zip(args, unknowns) if u]
    with core.set_current_trace(trace.parent):
        kouts = core.eval_jaxpr(known, closed.consts, *known_args)
    n_known = len(kouts) - num_res
    res = kouts[n_known:]
    uouts = trace.record(remat_p, res + unknown_args,
                         dict(params, differentiated=True,
                              jaxpr=core.ClosedJaxpr(unknown, closed.consts)))
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


# --------------------------------------------------------------------------
# What a derivative saves


def saved_residuals(f, *args, **kwargs):
    """``[(aval, where it comes from)]`` for each value ``vjp(f, *args)`` keeps
    for the backward pass: the linearization is staged, and each residual
    traced back to an argument or to the equation producing it."""
    from xjit._src import source_info_util
    from xjit._src.interpreters.partial_eval import arg_names_of, trace_to_jaxpr
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    names = arg_names_of(f, args, kwargs) or [""] * len(leaves)

    def f_flat(*xs):
        a, k = tree_util.tree_unflatten(in_tree, list(xs))
        return tree_util.tree_leaves(f(*a, **k))

    def residuals(*xs):
        _, linear = ad.linearize_flat(f_flat, list(xs))
        return list(linear.consts)

    with core.set_current_trace(core.eval_trace):
        jaxpr, _ = trace_to_jaxpr(residuals, [core.aval_of(x) for x in leaves])
    res = jaxpr.outvars
    found = [(v.aval, "from a literal") for v in res if type(v) is Literal]
    # a residual passed through the remat barrier is reported at its producer
    through = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns
               if e.primitive.name == "reduce_precision"}
    res_vars = {through.get(v, v) for v in res if type(v) is not Literal}
    found += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res_vars]
    for i, v in enumerate(jaxpr.invars):
        if v in res_vars:
            where = (f"from the argument {names[i]}" if names[i]
                     else f"from the argument at flattened index {i}")
            found.append((v.aval, where))
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            if v in res_vars:
                src = source_info_util.summarize(eqn.source_info)
                if eqn.primitive is name_p:
                    found.append((v.aval, f"named '{eqn.params['name']}' from {src}"))
                elif eqn.primitive.name == "jit":
                    found.append((v.aval, f"output of jitted function '{eqn.params['name']}' "
                                          f"from {src}"))
                else:
                    found.append((v.aval, f"output of {eqn.primitive.name} from {src}"))
    return found


def print_saved_residuals(f, *args, **kwargs):
    """Print one line per residual ``vjp(f, *args)`` saves: its type and origin."""
    for aval, where in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {where}")
