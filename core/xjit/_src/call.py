"""``closed_call_p`` and ``call_p``: a call of a closed jaxpr, or of a
function, that transformations see through (JAX's call primitives, which
libraries' jaxpr interpreters dispatch on: numpyro's provenance tracking).

Staged, ``closed_call`` stays one equation holding its jaxpr and is lowered
inline; under evaluation, ``jvp``, ``vmap`` and linearization its body is
evaluated in place, so every rule comes from the primitives inside it.
``call_p.bind(f, *args)`` calls ``f`` in place under every trace, as does a
user's ``CallPrimitive``.
"""
from __future__ import annotations

from xjit._src import core
from xjit._src.interpreters import mlir as lowering
from xjit._src.interpreters.partial_eval import JaxprTrace


class _ClosedCall(core.Primitive):
    multiple_results = True
    call_primitive = True

    def bind(self, *args, call_jaxpr):
        if isinstance(core.trace_ctx.trace, JaxprTrace):  # staged: one equation
            return super().bind(*args, call_jaxpr=call_jaxpr)
        return core.eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)


closed_call_p = _ClosedCall("closed_call")
core.abstract_eval_rules[closed_call_p] = lambda *avals, call_jaxpr: list(call_jaxpr.out_avals)
core.impl_rules[closed_call_p] = lambda *args, call_jaxpr: core.eval_jaxpr(
    call_jaxpr.jaxpr, call_jaxpr.consts, *args)
lowering.rules[closed_call_p] = lambda ctx, ai, ao, *args, call_jaxpr: lowering.lower_jaxpr(
    ctx, call_jaxpr.jaxpr, call_jaxpr.consts, list(args))


class CallPrimitive(core.Primitive):
    """A primitive whose first operand is a function, called in place under
    every trace (JAX's class for call primitives, which users subclass to mark
    regions their own jaxpr interpreters recognise)."""
    multiple_results = True
    call_primitive = True

    def bind(self, fun, *args, **params):
        return list(call_impl(fun, *args, **params))


def call_impl(f, *args, **params):
    """Calls ``f`` on ``args``: ``params`` describe the call, not ``f``."""
    del params
    return (getattr(f, "call_wrapped", None) or f)(*args)


call_p = CallPrimitive("call")
