"""``closure_convert``: a function's closed-over traced values made explicit
arguments, which custom derivative rules (``custom_vjp``'s ``bwd``,
``custom_root``'s solvers) need in order to see the values they differentiate."""
from __future__ import annotations

import functools
import weakref

from xjit._src import core, dtypes, tree_util
from xjit._src.config import config
from xjit._src.interpreters.partial_eval import trace_to_jaxpr


# The same function, argument structure and avals give the same converted
# function, as JAX caches it (unless tracer leaks are being checked): callers
# pass it on as a static argument (odeint's solver, custom_root), and a new
# one would compile again on every call. A function closing over a trace's
# tracers is made anew in each trace, so it does not hit across traces.
_converted: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def closure_convert(fun, *example_args):
    """``(converted, consts)``: ``converted(*args, *consts)`` computes
    ``fun(*args)`` with the traced floating-point values ``fun`` closes over
    (e.g. values being differentiated) passed explicitly instead, as custom
    derivative rules need."""
    leaves, in_tree = tree_util.tree_flatten(example_args)
    avals = [core.aval_of(x) for x in leaves]
    if config.jax_check_tracer_leaks:
        return _convert(fun, in_tree, avals)
    key = (in_tree, tuple(avals), config.trace_key)
    try:
        per_fun = _converted.setdefault(fun, {})
    except TypeError:  # not weakly referenceable, or unhashable
        return _convert(fun, in_tree, avals)
    if key not in per_fun:
        per_fun[key] = _convert(fun, in_tree, avals)
    return per_fun[key]


def _convert(fun, in_tree, avals):
    store = []

    def flat(*xs):
        out = fun(*tree_util.tree_unflatten(in_tree, list(xs)))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        store.append(out_tree)
        return out_leaves
    jaxpr, consts = trace_to_jaxpr(flat, avals)
    out_tree = store[0]
    hoist = [isinstance(c, core.Tracer) and (c.aval.dtype.kind in "fc" or dtypes.is_float(
        c.aval.dtype)) for c in consts]
    kept = [c for c, h in zip(consts, hoist) if not h]
    hoisted = [c for c, h in zip(consts, hoist) if h]

    def converted(*args):
        n = len(args) - len(hoisted)
        arg_leaves, tree = tree_util.tree_flatten(args[:n])
        if tree != in_tree:
            raise TypeError(f"closure_convert: expected arguments {in_tree}, got {tree}")
        it_h, it_k = iter(args[n:]), iter(kept)
        all_consts = [next(it_h) if h else next(it_k) for h in hoist]
        outs = core.eval_jaxpr(jaxpr, all_consts, *arg_leaves)
        return tree_util.tree_unflatten(out_tree, outs)
    functools.update_wrapper(converted, fun, updated=())
    return converted, hoisted
