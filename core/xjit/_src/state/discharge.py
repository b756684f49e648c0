"""Discharging state: a jaxpr with refs as one without them.

XLA has no mutable references, so before lowering, every ref becomes a value
threaded through the jaxpr (as JAX's ``discharge_state``): a ref argument
becomes an array argument whose final value is an extra result, ``new_ref``
starts a value, ``get`` indexes the current value, ``swap``/``addupdate``
replace it, and a nested ``jit`` taking refs is discharged the same way with
its refs' final values as extra results. Loops and conditionals never hold
refs: ``lax.scan``/``while_loop``/``cond`` carry the values of the refs their
functions close over (``control_flow.common.threading_refs``, built on
``discharge_state``). Refs inside other higher-order primitives (custom
rules) are not supported yet and raise. A linear jaxpr that makes tangent
refs (reverse mode through ``new_ref``) is discharged before transposing.
"""
from __future__ import annotations

import weakref

from xjit._src import core
from xjit._src.interpreters import ad, mlir
from xjit._src.interpreters import partial_eval as pe
from xjit._src import pjit
from xjit._src.pjit import jit_p, mesh_param
from xjit._src.state import primitives as sp
from xjit._src.state.utils import is_ref


class _Cell:
    """A ref being discharged: its current value."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


_has_state_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _jaxpr_has_state(jaxpr: core.Jaxpr) -> bool:
    if any(is_ref(v.aval) for v in jaxpr.invars + jaxpr.constvars):
        return True
    for eqn in jaxpr.eqns:
        if eqn.primitive in sp.STATE_PRIMITIVES:
            return True
        if any(_jaxpr_has_state(j) for j in core.jaxprs_in_params(eqn.params)):
            return True
    return False


def has_state(closed: core.ClosedJaxpr) -> bool:
    """Whether ``closed`` (or a jaxpr inside it) uses refs."""
    found = _has_state_cache.get(closed)
    if found is None:
        found = _has_state_cache[closed] = _jaxpr_has_state(closed.jaxpr)
    return found


def _interpret(jaxpr, consts, args):
    """Evaluate ``jaxpr`` with its refs as ``_Cell``s (``args`` holds cells for
    ref arguments) under the current trace."""
    env = {}

    def read(v):
        return v.val if type(v) is core.Literal else env[v]

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    saved = core.eqn_source.value
    try:
        for eqn in jaxpr.eqns:
            core.eqn_source.value = eqn.source_info  # discharged equations keep the user's line
            ins = [read(v) for v in eqn.invars]
            outs = _discharge_eqn(eqn, ins)
            for v, x in zip(eqn.outvars, outs):
                env[v] = x
    finally:
        core.eqn_source.value = saved
    return [read(v) for v in jaxpr.outvars]


def _discharge_eqn(eqn, ins):
    prim, params = eqn.primitive, eqn.params
    if prim is sp.new_ref_p:
        return [_Cell(ins[0])]
    if prim is sp.get_p:
        return [sp.read(ins[0].value, params["indexer"], ins[1:])]
    if prim is sp.swap_p:
        cell, val, *idx = ins
        old = sp.read(cell.value, params["indexer"], idx)
        cell.value = sp.write(cell.value, params["indexer"], val, idx)
        return [old]
    if prim is sp.addupdate_p:
        cell, val, *idx = ins
        cell.value = sp.accumulate(cell.value, params["indexer"], val, idx)
        return []
    if prim is sp.freeze_p:
        return [ins[0].value]
    if prim is sp.empty_ref_p:  # unspecified contents: zeros
        return [_Cell(core.lax_ops.full(params["ty"].shape, 0, params["ty"].dtype))]
    if prim is sp.free_ref_p:
        return []
    if prim is jit_p and has_state(params["jaxpr"]):
        inner = discharge_state(params["jaxpr"])
        vals = [x.value if type(x) is _Cell else x for x in ins]
        outs = jit_p.bind(*vals, jaxpr=inner, name=params["name"],
                          **mesh_param(params),
                          donated_invars=(False,) * len(vals))
        n = len(params["jaxpr"].out_avals)
        for cell, new in zip([x for x in ins if type(x) is _Cell], outs[n:]):
            cell.value = new
        return outs[:n]
    subjaxprs = list(core.jaxprs_in_params(params))
    if not subjaxprs and any(type(x) is _Cell for x in ins):
        raise TypeError(f"'{prim.name}' takes arrays, not a Ref (mutable array reference); "
                        "read the ref with ref[...] first.")
    if any(type(x) is _Cell for x in ins) or any(_jaxpr_has_state(j) for j in subjaxprs):
        raise NotImplementedError(
            f"xjit does not support mutable array references (Refs) inside '{prim.name}' yet; "
            "use Refs directly in the jitted function or in nested jits.")
    outs = prim.bind(*ins, **params)
    return outs if prim.multiple_results else [outs]


_discharged: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def discharge_state(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """``closed`` without refs: each ref argument becomes its array, and the
    refs' final values follow the results (in argument order)."""
    out = _discharged.get(closed)
    if out is not None:
        return out
    jaxpr = closed.jaxpr
    if any(is_ref(v.aval) for v in jaxpr.constvars):
        raise NotImplementedError("xjit cannot discharge a jaxpr that closes over a Ref constant")
    in_avals = [v.aval.inner_aval if is_ref(v.aval) else v.aval for v in jaxpr.invars]

    def fun(*vals):
        args = [_Cell(x) if is_ref(v.aval) else x for v, x in zip(jaxpr.invars, vals)]
        outs = _interpret(jaxpr, closed.consts, args)
        return outs + [a.value for a in args if type(a) is _Cell]

    new, consts = pe.trace_to_jaxpr(fun, in_avals, jaxpr.debug_info)
    out, tracer_consts = pe.close_jaxpr(new, consts)
    assert not tracer_consts, "a discharged jaxpr closes over no tracers"
    _discharged[closed] = out
    return out


def run_with_refs(plain_impl, args, jaxpr, name):
    """Run a jit equation whose arguments include refs: the discharged body
    on the refs' arrays, then hand each ref its final array."""
    inner = discharge_state(jaxpr)
    vals = [sp._live(x)._value if is_ref(core.aval_of(x)) else x for x in args]
    outs = plain_impl(*vals, jaxpr=inner, name=name, donated_invars=(False,) * len(vals))
    n = len(jaxpr.out_avals)
    for ref, new in zip([x for x in args if is_ref(core.aval_of(x))], outs[n:]):
        ref._value = new
    return outs[:n]


def _discharge_for_lowering(closed):
    """Refs created and used inside a jitted function need no caller: lower
    the same function without them."""
    if not has_state(closed):
        return closed
    if any(is_ref(a) for a in closed.in_avals):
        raise NotImplementedError(
            "xjit cannot lower a function taking Ref arguments on its own; call it, and its "
            "refs' final values are written back.")
    return discharge_state(closed)


def _discharge_for_transpose(jaxpr, consts):
    """A linear jaxpr that makes its own refs (the tangent refs of reverse
    mode through ``new_ref``) as one without them. Its constants (residuals,
    maybe tracers of an enclosing jit) are passed as arguments while
    discharging, and stay its constants."""
    if not _jaxpr_has_state(jaxpr) or any(is_ref(v.aval) for v in jaxpr.constvars + jaxpr.invars):
        return jaxpr, consts
    n = len(jaxpr.constvars)
    opened = core.Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns,
                        jaxpr.debug_info)
    out = discharge_state(core.ClosedJaxpr(opened, []))
    new = out.jaxpr
    return (core.Jaxpr(new.constvars + new.invars[:n], new.invars[n:], new.outvars, new.eqns,
                       new.debug_info), list(out.consts) + list(consts))


mlir.prepare_rules.append(_discharge_for_lowering)
ad.transpose_prepasses.append(_discharge_for_transpose)
pjit.run_with_refs = run_with_refs
