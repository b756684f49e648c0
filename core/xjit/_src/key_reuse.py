"""``jax_debug_key_reuse``: raise KeyReuseError when a typed PRNG key is
consumed twice.

A key is *consumed* by ``random_bits`` and ``random_split`` (every sampler ends
in one of them); ``random_fold_in`` and ``random_clone`` make fresh keys and
consume nothing. Two checks, as in JAX:

* inside a traced function, a jaxpr variable consumed twice is an error
  (nested ``jit`` equations consume what their own jaxpr consumes);
* eagerly, each concrete key array remembers that it was consumed: passing a
  consumed key to a jitted function that consumes that argument, or to an
  eager ``random_split``/``random_bits``, is an error.

Not covered: keys captured as constants of a jitted function, and keys that
flow through control flow (cond/while/scan) or other higher-order primitives,
whose bodies are not analysed; raw ``uint32`` keys are never tracked (as in
JAX).
"""
from __future__ import annotations

import weakref

from . import core, dispatch, errors, pjit, prng
from .config import config

__all__ = ["check_call", "jaxpr_consumes"]

_flags = config._values
_SEE = "\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.KeyReuseError"
_SINKS = (prng.random_bits_p, prng.random_split_p)

# id(key array) -> weakref to it, for concrete keys already consumed (ArrayImpl
# is unhashable, and the entry goes away with the array).
_consumed: dict = {}


def _is_consumed(x) -> bool:
    ref = _consumed.get(id(x))
    return ref is not None and ref() is x


def _consume(x) -> None:
    i = id(x)
    _consumed[i] = weakref.ref(x, lambda _, i=i: _consumed.pop(i, None))


def jaxpr_consumes(jaxpr: core.Jaxpr) -> tuple:
    """Indices of ``jaxpr``'s inputs it consumes; raises KeyReuseError when one
    of its values is consumed twice."""
    used: set = set()
    for eqn in jaxpr.eqns:
        if eqn.primitive in _SINKS:
            sinks = (0,)
        else:
            sub = eqn.params.get("jaxpr") if eqn.primitive.name == "jit" else None
            sinks = jaxpr_consumes(sub.jaxpr) if sub is not None else ()
        for i in sinks:
            v = eqn.invars[i]
            if isinstance(v, core.Literal):
                continue
            if v in used:
                raise errors.KeyReuseError(
                    f"In {eqn.primitive}, argument {i} is already consumed.{_SEE}")
            used.add(v)
    return tuple(i for i, v in enumerate(jaxpr.invars) if v in used)


def check_call(closed, args, funcname="jit-compiled function") -> None:
    """Before running ``closed`` on concrete ``args``: refuse consumed keys it
    would consume, then mark them consumed."""
    sinks = [i for i in jaxpr_consumes(closed.jaxpr) if prng._is_key_aval(args[i].aval)]
    for i in sinks:
        if _is_consumed(args[i]):
            raise errors.KeyReuseError(
                f"Previously-consumed key passed to {funcname} at index {i}{_SEE}")
    for i in sinks:
        _consume(args[i])


def _sink_impl(prim):
    def impl(key, **params):
        if _flags["jax_debug_key_reuse"] and prng._is_key_aval(key.aval):
            if _is_consumed(key):
                raise errors.KeyReuseError(
                    f"Previously-consumed key passed to {prim.name} at index 0{_SEE}")
            _consume(key)
        return dispatch.apply_primitive(prim, key, **params)
    return impl


for _p in _SINKS:
    core.impl_rules[_p] = _sink_impl(_p)
pjit.check_key_reuse = check_call
