"""JAX's partial-evaluation entry points over ``WrappedFun``s, for code written
against ``jax.interpreters.partial_eval``: staging a function at abstract
values (``trace_to_jaxpr_dynamic``), staging only what depends on unknown
inputs (``PartialVal`` and ``trace_to_jaxpr_nounits``, on the same
known/unknown trace linearization uses), and dead-code elimination that
reports which inputs are used (``dce_jaxpr``)."""
from __future__ import annotations

from typing import Any

from xjit._src import core
from xjit._src.interpreters import ad
from xjit._src.interpreters.partial_eval import DebugInfo, trace_to_jaxpr

Val = Any


class PartialVal(tuple):
    """``(aval, None)`` for an unknown value, ``(None, value)`` for a known one."""

    def __new__(cls, xs):
        pv, const = xs
        if pv is not None and const is not None:
            raise ValueError("a PartialVal is either known or unknown, not both")
        return tuple.__new__(cls, xs)

    @classmethod
    def known(cls, const):
        return PartialVal((None, const))

    @classmethod
    def unknown(cls, aval):
        return PartialVal((aval, None))

    def is_known(self):
        return self[0] is None

    def get_known(self):
        return self[1] if self[0] is None else None

    def get_aval(self):
        return core.aval_of(self[1]) if self[0] is None else self[0]


def _call(fun, args):
    call = getattr(fun, "call_wrapped", None)
    return call(*args) if call is not None else fun(*args)


def trace_to_jaxpr_dynamic(fun, in_avals, *, keep_inputs=None, lower=False, auto_dce=False):
    """Stage ``fun`` (a ``WrappedFun`` of flat arguments returning a flat list)
    at ``in_avals``: ``(jaxpr, out_avals, consts)``."""
    info = getattr(fun, "debug_info", None)  # ``api_util.debug_info``'s, for messages
    with core.set_current_trace(core.eval_trace):
        jaxpr, consts = trace_to_jaxpr(lambda *xs: list(_call(fun, xs)), list(in_avals),
                                       info if isinstance(info, DebugInfo) else None)
    return jaxpr, [v.aval for v in jaxpr.outvars], list(consts)


def trace_to_jaxpr_nounits(fun, pvals, instantiate=False):
    """Run ``fun`` with the known values of ``pvals`` and stage what depends on
    the unknown ones: ``(jaxpr, out_pvals, consts)``. The jaxpr takes the
    unknown inputs and returns the unknown outputs; its constvars are the
    residuals, ``consts`` their values."""
    trace = ad.PETrace(core.trace_ctx.trace)
    args = [pv.get_known() if pv.is_known() else trace.new_arg(pv.get_aval()) for pv in pvals]
    try:
        with core.set_current_trace(trace):
            outs = list(_call(fun, args))
        inst = [instantiate] * len(outs) if isinstance(instantiate, bool) else list(instantiate)
        out_pvals = [PartialVal.unknown(o.aval) if trace.is_unknown(o) or i
                     else PartialVal.known(o) for o, i in zip(outs, inst)]
        jaxpr, consts = trace.to_jaxpr([o for o, pv in zip(outs, out_pvals)
                                        if not pv.is_known()])
    finally:
        trace.active = False
    return jaxpr, out_pvals, list(consts)


def dce_jaxpr(jaxpr: core.Jaxpr, used_outputs, instantiate=False):
    """``jaxpr`` with only the outputs in ``used_outputs`` and the equations
    and inputs they need: ``(jaxpr, used_inputs)``. Inputs marked in
    ``instantiate`` are kept even when unused."""
    if isinstance(used_outputs, bool):
        used_outputs = [used_outputs] * len(jaxpr.outvars)
    pruned = ad.dce_jaxpr(jaxpr, used_outputs)
    used = {v for e in pruned.eqns for v in e.invars if type(v) is not core.Literal}
    used.update(v for v in pruned.outvars if type(v) is not core.Literal)
    inst = ([instantiate] * len(jaxpr.invars) if isinstance(instantiate, bool)
            else list(instantiate))
    used_inputs = [v in used or i for v, i in zip(jaxpr.invars, inst)]
    invars = [v for v, u in zip(jaxpr.invars, used_inputs) if u]
    return pruned.replace(invars=invars), used_inputs


def dce_jaxpr_consts(jaxpr: core.Jaxpr, used_outputs, instantiate=False):
    """``dce_jaxpr`` over constvars followed by invars:
    ``(jaxpr, used_consts, used_inputs)``."""
    n = len(jaxpr.constvars)
    inst = ([instantiate] * len(jaxpr.invars) if isinstance(instantiate, bool)
            else list(instantiate))
    full = jaxpr.replace(constvars=[], invars=jaxpr.constvars + jaxpr.invars)
    new, used = dce_jaxpr(full, used_outputs, [False] * n + inst)
    kept = new.invars
    return (new.replace(constvars=kept[:sum(used[:n])], invars=kept[sum(used[:n]):]),
            used[:n], used[n:])
