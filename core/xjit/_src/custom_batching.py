"""``custom_vmap``: a function with a user-defined batching rule.

The function is staged into a jaxpr and bound as one ``custom_vmap_call``
equation; evaluating or compiling it runs that jaxpr, and under ``vmap`` the
user's rule ``rule(axis_size, in_batched, *args) -> (out, out_batched)``
runs instead (batched arguments with their batch axis first).
"""
from __future__ import annotations

import functools

from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src import core, tree_util
from xjit._src.interpreters.partial_eval import close_jaxpr, trace_to_jaxpr

custom_vmap_call_p = core.Primitive("custom_vmap_call")
custom_vmap_call_p.multiple_results = True
core.abstract_eval_rules[custom_vmap_call_p] = lambda *avals, call, **_: list(call.out_avals)
core.pp_param_rules[custom_vmap_call_p] = lambda p: {
    "call": p["call"], "in_tree": p["in_tree"], "out_tree": p["out_tree"], "rule": p["rule"]}


def _impl(*args, call, **_):
    return core.eval_jaxpr(call.jaxpr, call.consts, *args)


core.impl_rules[custom_vmap_call_p] = _impl
lowering.rules[custom_vmap_call_p] = lambda ctx, ai, ao, *args, call, **_: lowering.lower_jaxpr(
    ctx, call.jaxpr, call.consts, list(args))


def _jvp(primals, tangents, *, call, **_):
    """Differentiates the function itself (its batching rule does not apply)."""
    return ad.jvp_flat(lambda *xs: core.eval_jaxpr(call.jaxpr, call.consts, *xs), primals,
                       tangents)


ad.jvp_rules[custom_vmap_call_p] = _jvp


def _batch(axis_data, args, dims, *, call, rule, in_tree, out_tree):
    size = axis_data.size
    batched = [d is not batching.not_mapped for d in dims]
    moved = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(args, dims, batched)]
    in_args = tree_util.tree_unflatten(in_tree, moved)
    in_flags = tree_util.tree_unflatten(in_tree, batched)
    out, out_batched = rule(size, list(in_flags), *in_args)
    out_leaves, tree = tree_util.tree_flatten(out)
    if tree != out_tree:
        raise ValueError(f"structure of output value and output batching specification returned "
                         f"by custom vmap rule ({tree}) do not match that of original custom "
                         f"vmapped function ({out_tree})")
    flags = tree_util.tree_leaves(out_batched) if not isinstance(out_batched, bool) else \
        [out_batched] * len(out_leaves)
    if len(flags) != len(out_leaves):
        raise ValueError("custom vmap rule's output batching specification must match its "
                         "output structure")
    return out_leaves, [0 if b else batching.not_mapped for b in flags]


batching.axis_batch_rules[custom_vmap_call_p] = _batch


class custom_vmap:
    """Decorate a function, then give its batching rule with ``def_vmap``."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule = None

    def def_vmap(self, rule):
        self.vmap_rule = rule
        return rule

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError("custom_vmap functions take positional arguments only")
        if self.vmap_rule is None:
            raise AttributeError(f"No batching rule defined for custom_vmap function "
                                 f"{self.__name__} using def_vmap.")
        from xjit._src.lax.lax import asarray_device
        leaves, in_tree = tree_util.tree_flatten(args)
        leaves = [asarray_device(x) for x in leaves]
        store = []

        def flat(*xs):
            out_leaves, out_tree = tree_util.tree_flatten(
                self.fun(*tree_util.tree_unflatten(in_tree, list(xs))))
            store.append(out_tree)
            return out_leaves
        jaxpr, consts = trace_to_jaxpr(flat, [core.aval_of(x) for x in leaves])
        closed, tracer_consts = close_jaxpr(jaxpr, consts)
        rule = self.vmap_rule
        if tracer_consts:  # closes over values being transformed: run it inline
            outs = core.eval_jaxpr(jaxpr, consts, *leaves)
        else:
            outs = custom_vmap_call_p.bind(*leaves, call=closed, rule=rule, in_tree=in_tree,
                                           out_tree=store[0])
        return tree_util.tree_unflatten(store[0], outs)


def sequential_vmap(f):
    """``f`` batched by mapping it over the examples one at a time."""
    from .lax.control_flow import map as lax_map
    fn = custom_vmap(f)

    @fn.def_vmap
    def rule(axis_size, in_batched, *args):
        flags = tree_util.tree_leaves(in_batched)
        leaves, tree = tree_util.tree_flatten(args)
        mapped = [x for x, b in zip(leaves, flags) if b]

        def one(xs):
            it = iter(xs)
            full = [next(it) if b else x for x, b in zip(leaves, flags)]
            return f(*tree_util.tree_unflatten(tree, full))
        out = lax_map(one, mapped)
        return out, tree_util.tree_map(lambda _: True, out)
    return fn
