"""User-defined derivatives.

* ``custom_jvp``: the function is staged as a ``custom_jvp_call`` equation
  carrying its jaxpr and the user's JVP function; differentiating the
  equation calls that function instead of differentiating the jaxpr.
* ``custom_vjp``: a ``custom_vjp_call`` equation carrying ``fwd``/``bwd``.
  When linearized, ``fwd`` runs on the primals and the tangent map is a
  ``custom_lin`` equation whose transpose calls ``bwd`` on the residuals.
"""
from __future__ import annotations

import functools

from xjit._src.interpreters import ad, mlir as lowering
from xjit._src import core, tree_util
from xjit._src.interpreters.ad import Zero
from .ad_jit import jvp_jaxpr, transpose_jaxpr
from xjit._src.interpreters.partial_eval import DebugInfo, close_jaxpr, trace_to_jaxpr


class _Named:
    """A user function as a primitive parameter: printed by its name."""

    __slots__ = ("fun", "name")

    def __init__(self, fun, name=None):
        self.fun = fun
        self.name = name or getattr(fun, "__name__", type(fun).__name__)

    def __repr__(self):
        return self.name

    def __call__(self, *args):
        return self.fun(*args)


def _stage(fun, args, what):
    """Trace flat ``fun`` at ``args``' avals: (closed jaxpr, consts that are
    outer tracers and so become leading arguments)."""
    avals = [core.aval_of(x) for x in args]
    jaxpr, consts = trace_to_jaxpr(fun, avals, DebugInfo(fun, what))
    return close_jaxpr(jaxpr, consts)


def _call_eval(*args, call_jaxpr, num_consts=0, **_):
    return core.eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)


def _call_prim(name):
    p = core.Primitive(name)
    p.multiple_results = True
    core.abstract_eval_rules[p] = lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals
    core.impl_rules[p] = _call_eval
    lowering.rules[p] = lambda ctx, ai, ao, *args, call_jaxpr, **_: lowering.lower_jaxpr(
        ctx, call_jaxpr.jaxpr, call_jaxpr.consts, args)
    return p


def _split_nondiff(args, nondiff_argnums):
    static = tuple(args[i] for i in nondiff_argnums)
    dyn = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return static, dyn


def _merge(static, dyn, nondiff_argnums):
    it_s, it_d = iter(static), iter(dyn)
    n = len(static) + len(dyn)
    return [next(it_s) if i in nondiff_argnums else next(it_d) for i in range(n)]


# --------------------------------------------------------------------------
# custom_jvp

custom_jvp_call_p = _call_prim("custom_jvp_call")
core.pp_param_rules[custom_jvp_call_p] = lambda p: {
    "name": p["name"], "call_jaxpr": p["call_jaxpr"], "jvp": p["jvp"],
    "symbolic_zeros": p["symbolic_zeros"]}


class custom_jvp:
    """A function with a user-defined JVP (``defjvp`` or ``defjvps``)."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp = None
        self.symbolic_zeros = False

    def defjvp(self, jvp, symbolic_zeros=False):
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One tangent function per argument, ``fn(g, ans, *args)``; their
        contributions are summed."""
        def jvp(primals, tangents):
            ans = self(*primals)
            out = None
            for fn, t in zip(jvps, tangents):
                if fn is None:
                    continue
                c = fn(t, ans, *primals)
                out = c if out is None else tree_util.tree_map(lambda a, b: a + b, out, c)
            return ans, out
        self.defjvp(_Named(jvp, "jvp"))

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} using "
                                 "defjvp.")
        if kwargs:
            raise TypeError("custom_jvp functions take positional arguments only")
        static, dyn = _split_nondiff(args, self.nondiff_argnums)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        out_store = []

        def flat(*xs):
            full = _merge(static, tree_util.tree_unflatten(in_tree, list(xs)), self.nondiff_argnums)
            out = self.fun(*full)
            o, t = tree_util.tree_flatten(out)
            out_store.append(t)
            return o

        closed, tracer_consts = _stage(flat, leaves, "custom_jvp")
        user_jvp, nondiff = self.jvp, self.nondiff_argnums
        n_consts = len(tracer_consts)

        def flat_jvp(primals, tangents):
            p = tree_util.tree_unflatten(in_tree, primals[n_consts:])
            t = tree_util.tree_unflatten(in_tree, [ad.instantiate_zeros(x)
                                                   for x in tangents[n_consts:]])
            out, tout = user_jvp(*static, tuple(p), tuple(t)) if nondiff else \
                user_jvp(tuple(p), tuple(t))
            outs, touts = tree_util.tree_leaves(out), tree_util.tree_leaves(tout)
            return outs, touts

        outs = custom_jvp_call_p.bind(
            *tracer_consts, *leaves, call_jaxpr=closed, jvp=_Named(flat_jvp, _fun_name(user_jvp)),
            num_consts=n_consts, symbolic_zeros=self.symbolic_zeros, name=self.__name__)
        return tree_util.tree_unflatten(out_store[0], outs)


def _fun_name(f):
    return getattr(f, "name", None) or getattr(f, "__name__", type(f).__name__)


def _custom_jvp_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, symbolic_zeros, name):
    return jvp(list(primals), list(tangents))


ad.jvp_rules[custom_jvp_call_p] = _custom_jvp_jvp


# --------------------------------------------------------------------------
# custom_vjp

custom_vjp_call_p = _call_prim("custom_vjp_call")
core.pp_param_rules[custom_vjp_call_p] = lambda p: {
    "name": p["name"], "bwd": p["bwd"], "call_jaxpr": p["call_jaxpr"], "fwd": p["fwd"],
    "symbolic_zeros": p["symbolic_zeros"]}


class custom_vjp:
    """A function with a user-defined VJP (``defvjp(fwd, bwd)``)."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self.symbolic_zeros = False

    def defvjp(self, fwd, bwd, symbolic_zeros=False):
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {self.__name__} using "
                                 "defvjp.")
        if kwargs:
            raise TypeError("custom_vjp functions take positional arguments only")
        static, dyn = _split_nondiff(args, self.nondiff_argnums)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        out_store = []
        nondiff = self.nondiff_argnums

        def flat(*xs):
            full = _merge(static, tree_util.tree_unflatten(in_tree, list(xs)), nondiff)
            o, t = tree_util.tree_flatten(self.fun(*full))
            out_store.append(t)
            return o

        closed, tracer_consts = _stage(flat, leaves, "custom_vjp")
        n_consts = len(tracer_consts)
        fwd, bwd = self.fwd, self.bwd

        def flat_fwd(primals):
            full = _merge(static, tree_util.tree_unflatten(in_tree, primals[n_consts:]), nondiff)
            out, res = fwd(*full)
            res_leaves, res_tree = tree_util.tree_flatten(res)
            return tree_util.tree_leaves(out), res_leaves, res_tree

        def flat_bwd(res_tree, res_leaves, cts):
            res = tree_util.tree_unflatten(res_tree, res_leaves)
            ct = tree_util.tree_unflatten(out_store[0], cts)
            out = bwd(*static, res, ct) if nondiff else bwd(res, ct)
            if not isinstance(out, tuple):
                raise TypeError("Custom VJP bwd rule must produce a tuple, got "
                                f"{type(out).__name__}")
            if len(out) != len(dyn):
                raise TypeError(f"Custom VJP bwd rule must produce an output with the same "
                                f"length as the number of primal inputs, got {len(out)} outputs "
                                f"for {len(dyn)} inputs.")
            cts_in = []
            for c, d in zip(out, dyn):  # None stands for zeros of a whole argument
                n = len(tree_util.tree_leaves(d))
                cts_in.extend([None] * n if c is None else tree_util.tree_leaves(c))
            return cts_in

        outs = custom_vjp_call_p.bind(
            *tracer_consts, *leaves, call_jaxpr=closed, fwd=_Named(flat_fwd, _fun_name(fwd)),
            bwd=_Named(flat_bwd, _fun_name(bwd)), num_consts=n_consts,
            symbolic_zeros=self.symbolic_zeros, name=self.__name__)
        return tree_util.tree_unflatten(out_store[0], outs)


custom_lin_p = core.Primitive("custom_lin")
custom_lin_p.multiple_results = True
core.abstract_eval_rules[custom_lin_p] = lambda *avals, out_avals, **_: list(out_avals)


_NO_FORWARD = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."


def _custom_lin_impl(*args, **params):
    raise TypeError(_NO_FORWARD)


core.impl_rules[custom_lin_p] = _custom_lin_impl
lowering.rules[custom_lin_p] = lambda ctx, *args, **params: _custom_lin_impl()


def _custom_vjp_jvp(trace, primals, tangents, *, call_jaxpr, fwd, bwd, num_consts,
                    symbolic_zeros, name):
    if not trace.allow_custom_lin:
        raise TypeError(_NO_FORWARD)
    outs, res, res_tree = fwd(list(primals))
    out_avals = [ad.tangent_aval(core.aval_of(o)) for o in outs]
    diff_ts = [ad.instantiate_zeros(t) for t in tangents[num_consts:]]
    touts = custom_lin_p.bind(*res, *diff_ts, num_res=len(res), bwd=bwd, res_tree=res_tree,
                              out_avals=tuple(out_avals))
    return outs, touts


def _custom_lin_transpose(cts, *args, num_res, bwd, res_tree, out_avals):
    res, lin = args[:num_res], args[num_res:]
    cts = [ad.instantiate_zeros(c) for c in cts]
    cts_in = bwd(res_tree, list(res), cts)
    out = []
    for x, c in zip(lin, cts_in):
        out.append(Zero(x.aval) if c is None else c)
    return [None] * num_res + out


ad.trace_jvp_rules[custom_vjp_call_p] = _custom_vjp_jvp
ad.transpose_rules[custom_lin_p] = _custom_lin_transpose


def _register_batching():
    from xjit._src.interpreters import batching

    def call_rule(prim, param):
        def rule(axis_data, args, dims, **params):
            closed = params[param]
            batched, out_dims = batching.batch_jaxpr2(closed, axis_data, dims)
            outs = core.eval_jaxpr(batched.jaxpr, batched.consts, *args)
            return outs, out_dims
        return rule

    batching.axis_batch_rules[custom_jvp_call_p] = call_rule(custom_jvp_call_p, "call_jaxpr")
    batching.axis_batch_rules[custom_vjp_call_p] = call_rule(custom_vjp_call_p, "call_jaxpr")


_register_batching()
