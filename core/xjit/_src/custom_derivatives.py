"""User-defined derivatives: ``custom_jvp`` and ``custom_vjp``.

As in JAX, a call is processed lazily by the current trace, which decides
what to run (``_custom_jvp_at`` / ``_custom_vjp_at``):

* outside any transformation the function itself runs, on the values given
  (Python floats stay Python floats);
* a JVP trace runs only the rule (``jvp``, or ``fwd`` and later ``bwd``), on
  the primal values of its parent: concrete values under eager ``grad``;
* a batch trace batches the function *and* the rules and hands the batched
  triple on to its parent, so the rules survive any ``vmap``;
* a jaxpr trace (``jit``, ``make_jaxpr``) stages the function as a
  ``custom_jvp_call``/``custom_vjp_call`` equation carrying the rules. The
  equation's own rules (JVP, batching) reuse the steps above.

Under differentiation a ``custom_vjp`` function runs ``fwd`` and records a
``custom_lin`` equation whose transpose calls ``bwd`` on the residuals.
"""
from __future__ import annotations

import functools
import inspect
import weakref

from xjit._src import core, errors, linear_util as lu, tree_util
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero
from xjit._src.interpreters.partial_eval import DebugInfo, close_jaxpr, trace_to_jaxpr
from xjit._src.closure_convert import closure_convert  # noqa: F401  (JAX exports it here)
from xjit._src.custom_rule_outputs import (  # noqa: F401  (JAX exports SymbolicZero here)
    SymbolicZero, check_fwd_output, check_jvp_output, flatten_bwd_output)

not_mapped = batching.not_mapped


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


def _fun_name(f):
    return getattr(f, "name", None) or getattr(f, "__name__", type(f).__name__)


class CustomVJPPrimal:
    """A primal handed to a ``custom_vjp`` fwd rule with ``symbolic_zeros``:
    its ``value`` and whether it is ``perturbed`` (has a nonzero tangent)."""

    __slots__ = ("value", "perturbed")

    def __init__(self, value, perturbed):
        self.value, self.perturbed = value, perturbed

    def __repr__(self):
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed!r})"


def zero_from_primal(val, symbolic_zeros=False):
    """A zero tangent for each leaf of ``val``: ``SymbolicZero``s, or arrays."""
    def zero(x):
        aval = ad.tangent_aval(core.aval_of(x))
        return SymbolicZero(aval) if symbolic_zeros else ad.zeros_like_aval(aval)
    return tree_util.tree_map(zero, val)


def custom_vjp_primal_tree_values(tree):
    """``tree`` with each ``CustomVJPPrimal`` leaf replaced by its value."""
    def value(leaf):
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value
    return tree_util.tree_map(value, tree)


def _stage(fun, args, what):
    """Trace flat ``fun`` at ``args``' avals: (closed jaxpr, consts that are
    outer tracers and so become leading arguments)."""
    avals = [core.aval_of(x) for x in args]
    jaxpr, consts = trace_to_jaxpr(fun, avals, DebugInfo(fun, what))
    return close_jaxpr(jaxpr, consts)


def _split_nondiff(args, nondiff_argnums):
    static = tuple(args[i] for i in nondiff_argnums)
    dyn = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return static, dyn


def _merge(static, dyn, nondiff_argnums):
    it_s, it_d = iter(static), iter(dyn)
    n = len(static) + len(dyn)
    return [next(it_s) if i in nondiff_argnums else next(it_d) for i in range(n)]


_signatures: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _signature(fun):
    """``(signature, whether a parameter has a default)`` of a custom rule's
    function, once per function; a ``functools.partial`` is opaque, as JAX
    treats it (its bound arguments are not looked into)."""
    try:
        return _signatures[fun]
    except (KeyError, TypeError):
        pass
    if isinstance(fun, functools.partial):
        sig = inspect.signature(lambda *args, **kwargs: None)
    else:
        try:
            sig = inspect.signature(fun)
        except (TypeError, ValueError):  # no signature to resolve by
            sig = None
    out = sig, sig is not None and any(
        p.default is not p.empty for p in sig.parameters.values())
    try:
        _signatures[fun] = out
    except TypeError:
        pass
    return out


def _resolve_kwargs(fun, args, kwargs, what):
    """The arguments as positions by ``fun``'s signature, defaults filled in
    (a ``nondiff_argnums`` entry may name a defaulted parameter), as JAX's."""
    sig, has_defaults = _signature(fun)
    if sig is None or not (kwargs or has_defaults):
        return args
    try:
        ba = sig.bind(*args, **kwargs)
        ba.apply_defaults()
        passed = [k for k in ba.kwargs if k in kwargs]
        if passed:
            raise TypeError("The following keyword arguments could not be resolved to "
                            f"positions: {', '.join(passed)}")
    except TypeError as e:
        raise TypeError(f"The input arguments to the {what}-decorated function "
                        f"{_fun_name(fun)} could not be resolved to positional-only arguments. "
                        f"Binding failed with the error:\n{e}") from e
    return ba.args


def _call_prim(name, cls=core.Primitive):
    p = cls(name)
    p.multiple_results = True
    core.abstract_eval_rules[p] = lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals
    core.impl_rules[p] = lambda *args, call_jaxpr, **_: core.eval_jaxpr(
        call_jaxpr.jaxpr, call_jaxpr.consts, *args)
    lowering.rules[p] = lambda ctx, ai, ao, *args, call_jaxpr, **_: lowering.lower_jaxpr(
        ctx, call_jaxpr.jaxpr, call_jaxpr.consts, args)
    return p


def _jaxpr_fun(closed):
    return lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs)


def _owned_by_pe(trace, args):
    return any(trace.is_unknown(x) for x in args)


# --------------------------------------------------------------------------
# Batching the function and its rules (shared by custom_jvp and custom_vjp)


def _to_front(vals, dims):
    return [v if d is not_mapped or d == 0 else batching.moveaxis(v, d, 0)
            for v, d in zip(vals, dims)]


def _batched_fun(fun, axis_data, in_dims, box):
    """``fun`` on batched operands (batch axes at ``in_dims``), its outputs'
    batch axes moved to the front and recorded in ``box``."""
    def batched(*xs):
        outs, dims = batching.batch_flat(fun, axis_data, list(xs), in_dims)
        box.append([not_mapped if d is not_mapped else 0 for d in dims])
        return _to_front(outs, dims)
    return batched


def _force_dims(axis_data, vals, dims, batched):
    return [batching.matchaxis(axis_data, d, 0 if b else not_mapped, v)
            for v, d, b in zip(vals, dims, batched)]


def _outs_batched(dims, box):
    """An output is batched if the rule batches it or the staged function did."""
    known = box[0] if box else [not_mapped] * len(dims)
    return [d is not not_mapped or k is not not_mapped for d, k in zip(dims, known)]


# --------------------------------------------------------------------------
# custom_jvp

class _CustomJVPCallPrimitive(core.Primitive):
    """``custom_jvp_call``, also in JAX's re-binding form: ``get_bind_params``
    gives ``subfuns=(fun, jvp)``, ``WrappedFun``s over flat arguments (the rule
    takes primals then tangents and returns outputs then tangents, zeros as
    ``SymbolicZero``), which jaxpr interpreters (equinox's) call or bind."""

    def get_bind_params(self, params):
        new = dict(params)
        closed, jvp, _ = new.pop("call_jaxpr"), new.pop("jvp"), new.pop("num_consts")

        def flat_jvp(*xs):
            n = len(xs) // 2
            outs, touts = jvp(list(xs[:n]), [_to_zero(t) for t in xs[n:]])
            return [*outs, *[SymbolicZero(t.aval) if type(t) is Zero else t for t in touts]]
        fun = _jaxpr_fun(closed)
        fun.__name__, flat_jvp.__name__ = new.pop("name"), _fun_name(jvp)
        new["subfuns"] = (lu.wrap_init(fun), lu.wrap_init(flat_jvp))
        return new

    def bind(self, *args, subfuns=None, **params):
        if subfuns is None:
            return super().bind(*args, **params)
        fun, flat_jvp = subfuns

        def jvp(primals, tangents):
            ts = [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
            out = flat_jvp.call_wrapped(*primals, *ts)
            return out[:len(out) // 2], [_to_zero(t) for t in out[len(out) // 2:]]
        params = {"name": _fun_name(fun), "num_consts": 0,
                  "symbolic_zeros": params.get("symbolic_zeros", False)}
        return _custom_jvp_at(core.trace_ctx.trace, fun.call_wrapped,
                              _Named(jvp, _fun_name(flat_jvp)), list(args), params)


def _to_zero(t):
    return Zero(t.aval) if type(t) is SymbolicZero else t


custom_jvp_call_p = _call_prim("custom_jvp_call", _CustomJVPCallPrimitive)


def _pp_custom_jvp(p):
    out = {"name": p["name"], "call_jaxpr": p["call_jaxpr"], "jvp": p["jvp"]}
    if p["num_consts"]:
        out["num_consts"] = p["num_consts"]
    out["symbolic_zeros"] = p["symbolic_zeros"]
    return out


core.pp_param_rules[custom_jvp_call_p] = _pp_custom_jvp


def _custom_jvp_at(trace, fun, jvp, args, params):
    """Process a custom_jvp call with ``trace`` (JAX's ``process_custom_jvp_call``).
    ``fun(*args)`` and ``jvp(primals, tangents)`` are flat; ``params`` holds
    ``name``, ``symbolic_zeros`` and ``num_consts`` (leading arguments that
    are closed-over values, which ``jvp`` ignores)."""
    kind = type(trace)
    if kind is core.EvalTrace:
        with core.set_current_trace(trace):
            return fun(*args)
    if kind is ad.JVPTrace:
        primals, tangents, nonzero = [], [], False
        for x in args:
            p, t = trace.unpack(x)
            primals.append(p)
            tangents.append(t)
            nonzero = nonzero or type(t) is not Zero
        if not nonzero:
            return _custom_jvp_at(trace.parent, fun, jvp, primals, params)
        with core.set_current_trace(trace.tangent_trace):
            outs, touts = jvp(primals, tangents)
        return [trace.new(p, t) for p, t in zip(outs, touts)]
    if kind is batching.BatchTrace:
        vals, dims = zip(*[trace.to_batch_info(x) for x in args]) if args else ((), ())
        if all(d is not_mapped for d in dims):
            return _custom_jvp_at(trace.parent, fun, jvp, list(vals), params)
        with core.set_current_trace(trace.parent):
            outs, out_dims = _batch_custom_jvp(trace.axis_data, list(vals), list(dims), fun, jvp,
                                               params)
        return [trace._wrap(v, d) for v, d in zip(outs, out_dims)]
    if kind is ad.PETrace and not _owned_by_pe(trace, args):
        return _custom_jvp_at(trace.parent, fun, jvp, args, params)
    with core.set_current_trace(trace):
        closed, consts = _stage(fun, args, "custom_jvp")
        n = len(consts)
        return custom_jvp_call_p.bind(
            *consts, *args, call_jaxpr=closed,
            jvp=_Named(lambda p, t: jvp(p[n:], t[n:]), _fun_name(jvp)),
            num_consts=n + params["num_consts"], symbolic_zeros=params["symbolic_zeros"],
            name=params["name"])


def _batch_custom_jvp(axis_data, vals, dims, fun, jvp, params):
    """Batch ``fun`` and ``jvp`` and process the batched pair with the
    current trace. Returns the outputs and their batch axes."""
    vals = _to_front(vals, dims)
    in_dims = [not_mapped if d is not_mapped else 0 for d in dims]
    fun_box, jvp_box = [], []
    per_example = [ad.tangent_aval(a) for a in _unbatched_avals(vals, in_dims)]

    def batched_jvp(primals, tangents):
        nz = [type(t) is not Zero for t in tangents]
        n = len(primals)

        def one(*xs):
            it = iter(xs[n:])
            ts = [next(it) if z else Zero(a) for z, a in zip(nz, per_example)]
            outs, touts = jvp(list(xs[:n]), ts)
            one.zeros = [type(t) is Zero for t in touts]
            return list(outs) + [t for t in touts if type(t) is not Zero]

        ins = list(primals) + [t for t, z in zip(tangents, nz) if z]
        t_dims = [d for d, z in zip(in_dims, nz) if z]
        res, res_dims = batching.batch_flat(one, axis_data, ins, in_dims + t_dims)
        m = len(one.zeros)
        outs, touts_nz = res[:m], res[m:]
        it_d = iter(res_dims[m:])
        t_out_dims = [not_mapped if z else next(it_d) for z in one.zeros]
        batched = _outs_batched([d if td is not_mapped else td for d, td in
                                 zip(res_dims[:m], t_out_dims)], fun_box)
        jvp_box.append([0 if b else not_mapped for b in batched])
        outs = _force_dims(axis_data, outs, res_dims[:m], batched)
        it_t = iter(touts_nz)
        touts = []
        for z, d, b, o in zip(one.zeros, t_out_dims, batched, outs):
            touts.append(Zero(ad.tangent_aval(core.aval_of(o))) if z else
                         batching.matchaxis(axis_data, d, 0 if b else not_mapped, next(it_t)))
        return outs, touts

    outs = _custom_jvp_at(core.trace_ctx.trace, _batched_fun(fun, axis_data, in_dims, fun_box),
                          _Named(batched_jvp, _fun_name(jvp)), vals, params)
    return outs, (jvp_box or fun_box)[-1]


def _unbatched_avals(vals, in_dims):
    avals = []
    for v, d in zip(vals, in_dims):
        a = core.aval_of(v)
        avals.append(a if d is not_mapped else a.update(shape=a.shape[1:]))
    return avals


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, **params):
    return jvp(list(primals), list(tangents))


def _custom_jvp_call_batch(axis_data, args, dims, *, call_jaxpr, jvp, **params):
    return _batch_custom_jvp(axis_data, list(args), list(dims), _jaxpr_fun(call_jaxpr), jvp,
                             params)


def _custom_jvp_call_transpose(cts, *args, call_jaxpr, **params):
    """A custom_jvp function applied to linear values (a rule calling one on
    its tangents) transposes as its function does."""
    cts_in = iter(ad.backward_pass(call_jaxpr.jaxpr, call_jaxpr.consts, list(args), list(cts)))
    return [next(cts_in) if ad.is_undefined_primal(a) else None for a in args]


ad.jvp_rules[custom_jvp_call_p] = _custom_jvp_call_jvp
ad.transpose_rules[custom_jvp_call_p] = _custom_jvp_call_transpose
batching.axis_batch_rules[custom_jvp_call_p] = _custom_jvp_call_batch


class custom_jvp:
    """A function with a user-defined JVP (``defjvp`` or ``defjvps``)."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp = None
        self.symbolic_zeros = False

    def __get__(self, instance, owner=None):
        return self if instance is None else functools.partial(self, instance)

    def defjvp(self, jvp, symbolic_zeros=False):
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One tangent function per argument, ``fn(g, ans, *args)``; their
        contributions are summed."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            ans = self(*primals)
            out = None
            for fn, t in zip(jvps, tangents):
                if fn is None:
                    continue
                c = fn(t, ans, *primals)
                out = c if out is None else tree_util.tree_map(lambda a, b: a + b, out, c)
            if out is None:
                out = tree_util.tree_map(lambda a: ad.zeros_like_aval(
                    ad.tangent_aval(core.aval_of(a))), ans)
            return ans, out
        self.defjvp(_Named(jvp, "jvp"))

    def __call__(self, *args, **kwargs):
        name = self.__name__
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_jvp")
        nondiff = self.nondiff_argnums
        if nondiff:
            from xjit._src.ad_api import stop_gradient
            args = tuple(tree_util.tree_map(
                lambda x: stop_gradient(x) if isinstance(x, core.Tracer) else x, a)
                if i in nondiff else a for i, a in enumerate(args))
        static, dyn = _split_nondiff(args, nondiff)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        store = []

        def flat_fun(*xs):
            out = self.fun(*_merge(static, tree_util.tree_unflatten(in_tree, list(xs)), nondiff))
            o, t = tree_util.tree_flatten(out)
            if not store:
                store.append((t, o))
            return o

        user_jvp, jvp_name, sz = self.jvp, _fun_name(self.jvp), self.symbolic_zeros

        def flat_jvp(primals, tangents):
            if sz:
                ts = [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
            else:
                ts = [ad.instantiate_zeros(t) for t in tangents]
            p = tree_util.tree_unflatten(in_tree, list(primals))
            t = tree_util.tree_unflatten(in_tree, ts)
            pair = user_jvp(*static, p, t)
            return check_jvp_output(pair, name, jvp_name, store)

        outs = _custom_jvp_at(core.trace_ctx.trace, flat_fun, _Named(flat_jvp, jvp_name), leaves,
                              {"name": name, "symbolic_zeros": sz, "num_consts": 0})
        return tree_util.tree_unflatten(store[0][0], outs)


# --------------------------------------------------------------------------
# custom_vjp

custom_vjp_call_p = _call_prim("custom_vjp_call")


def _pp_custom_vjp(p):
    out = {"name": p["name"], "bwd": p["bwd"], "call_jaxpr": p["call_jaxpr"], "fwd": p["fwd"]}
    if p["num_consts"]:
        out["num_consts"] = p["num_consts"]
    out["symbolic_zeros"] = p["symbolic_zeros"]
    return out


core.pp_param_rules[custom_vjp_call_p] = _pp_custom_vjp

_NO_FORWARD = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."
_CLOSED_OVER = ("Detected differentiation of a custom_vjp function with respect to a closed-over "
                "value. That isn't supported because the custom VJP rule only specifies how to "
                "differentiate the custom_vjp function with respect to explicit input "
                "parameters. Try passing the closed-over value into the custom_vjp function as "
                "an argument, and adapting the custom_vjp fwd and bwd rules.")


class CustomVJPException(Exception):
    def __init__(self):
        super().__init__(_CLOSED_OVER)


def _custom_vjp_at(trace, fun, fwd, bwd, args, params):
    """Process a custom_vjp call with ``trace``. ``fwd(primals, perturbed) ->
    (outs, residuals, res_tree)`` and ``bwd(res_tree, residuals, cts) ->``
    one cotangent (or ``Zero``) per argument are flat."""
    kind = type(trace)
    if kind is core.EvalTrace:
        with core.set_current_trace(trace):
            return fun(*args)
    if kind is ad.JVPTrace:
        pairs = [trace.unpack(x) for x in args]
        if all(type(t) is Zero for _, t in pairs):
            return _custom_vjp_at(trace.parent, fun, fwd, bwd, [p for p, _ in pairs], params)
        outs, touts = _linearize_custom_vjp(trace, [p for p, _ in pairs],
                                            [t for _, t in pairs], fwd, bwd)
        return [trace.new(p, t) for p, t in zip(outs, touts)]
    if kind is batching.BatchTrace:
        vals, dims = zip(*[trace.to_batch_info(x) for x in args]) if args else ((), ())
        if all(d is not_mapped for d in dims):
            return _custom_vjp_at(trace.parent, fun, fwd, bwd, list(vals), params)
        with core.set_current_trace(trace.parent):
            outs, out_dims = _batch_custom_vjp(trace.axis_data, list(vals), list(dims), fun, fwd,
                                               bwd, params)
        return [trace._wrap(v, d) for v, d in zip(outs, out_dims)]
    if kind is ad.PETrace and not _owned_by_pe(trace, args):
        return _custom_vjp_at(trace.parent, fun, fwd, bwd, args, params)
    with core.set_current_trace(trace):
        closed, consts = _stage(fun, args, "custom_vjp")
        n = len(consts)
        const_zeros = [Zero(ad.tangent_aval(core.aval_of(c))) for c in consts]

        def fwd_(primals, perturbed):
            if any(perturbed[:n]):
                raise CustomVJPException()
            return fwd(primals[n:], perturbed[n:])
        return custom_vjp_call_p.bind(
            *consts, *args, call_jaxpr=closed, fwd=_Named(fwd_, _fun_name(fwd)),
            bwd=_Named(lambda rt, res, cts: const_zeros + list(bwd(rt, res, cts)), _fun_name(bwd)),
            num_consts=n + params["num_consts"], symbolic_zeros=params["symbolic_zeros"],
            name=params["name"])


def _linearize_custom_vjp(trace, primals, tangents, fwd, bwd):
    """``fwd`` on the primals now; the tangent map is a ``custom_lin``
    equation whose transpose runs ``bwd``. Returns (outputs, tangents)."""
    in_zeros = tuple(type(t) is Zero for t in tangents)
    with core.set_current_trace(trace.parent):
        outs, res, res_tree = fwd(primals, [not z for z in in_zeros])
    if not trace.allow_custom_lin:
        raise TypeError(_NO_FORWARD)
    out_avals = tuple(ad.tangent_aval(core.aval_of(o)) for o in outs)
    with core.set_current_trace(trace.tangent_trace):
        touts = custom_lin_p.bind(*res, *[t for t in tangents if type(t) is not Zero],
                                  num_res=len(res), bwd=bwd, res_tree=res_tree,
                                  out_avals=out_avals, in_zeros=in_zeros)
    return outs, touts


def _batch_custom_vjp(axis_data, vals, dims, fun, fwd, bwd, params):
    """Batch ``fun``, ``fwd`` and ``bwd`` and process them with the current
    trace. Cotangents of unbatched arguments are summed over the batch."""
    vals = _to_front(vals, dims)
    in_dims = [not_mapped if d is not_mapped else 0 for d in dims]
    arg_avals = [core.aval_of(v) for v in vals]
    fun_box, fwd_box = [], []

    def batched_fwd(primals, perturbed):
        def one(*xs):
            outs, res, res_tree = fwd(list(xs), perturbed)
            one.info = (len(outs), res_tree)
            return list(outs) + list(res)
        got, got_dims = batching.batch_flat(one, axis_data, list(primals), in_dims)
        m, res_tree = one.info
        batched = _outs_batched(got_dims[:m], fun_box)
        fwd_box.append([0 if b else not_mapped for b in batched])
        outs = _force_dims(axis_data, got[:m], got_dims[:m], batched)
        res_b = tuple(d is not not_mapped for d in got_dims[m:])
        return outs, _to_front(got[m:], got_dims[m:]), (res_tree, res_b, tuple(batched))

    def batched_bwd(info, res, cts):
        res_tree, res_b, out_b = info
        nz = [type(c) is not Zero for c in cts]
        n_res = len(res)
        ct_avals = [c.aval.update(shape=c.aval.shape[1:]) if b else c.aval
                    for c, b in zip(cts, out_b) if type(c) is Zero]

        def one(*xs):
            it, itz = iter(xs[n_res:]), iter(ct_avals)
            cs = [next(it) if z else Zero(next(itz)) for z in nz]
            cts_in = bwd(res_tree, list(xs[:n_res]), cs)
            one.zeros = [type(c) is Zero for c in cts_in]
            return [c for c in cts_in if type(c) is not Zero]
        ins = list(res) + [c for c in cts if type(c) is not Zero]
        ins_dims = [0 if b else not_mapped for b in res_b] + \
            [0 if b else not_mapped for b, z in zip(out_b, nz) if z]
        got, got_dims = batching.batch_flat(one, axis_data, ins, ins_dims)
        it = iter(zip(got, got_dims))
        out = []
        for z, a, d_in in zip(one.zeros, arg_avals, in_dims):
            if z:
                out.append(Zero(ad.tangent_aval(a)))
                continue
            c, d = next(it)
            if d_in is not_mapped and d is not not_mapped:
                c = core.lax_ops.reduce_sum(c, (d,))
            else:
                c = batching.matchaxis(axis_data, d, d_in, c)
            out.append(c)
        return out

    outs = _custom_vjp_at(core.trace_ctx.trace, _batched_fun(fun, axis_data, in_dims, fun_box),
                          _Named(batched_fwd, _fun_name(fwd)), _Named(batched_bwd, _fun_name(bwd)),
                          vals, params)
    return outs, (fwd_box or fun_box)[-1]


def _custom_vjp_call_jvp(trace, primals, tangents, *, call_jaxpr, fwd, bwd, **params):
    return _linearize_custom_vjp(trace, list(primals), list(tangents), fwd, bwd)


def _custom_vjp_call_batch(axis_data, args, dims, *, call_jaxpr, fwd, bwd, **params):
    return _batch_custom_vjp(axis_data, list(args), list(dims), _jaxpr_fun(call_jaxpr), fwd, bwd,
                             params)


ad.trace_jvp_rules[custom_vjp_call_p] = _custom_vjp_call_jvp
batching.axis_batch_rules[custom_vjp_call_p] = _custom_vjp_call_batch


class custom_vjp:
    """A function with a user-defined VJP (``defvjp(fwd, bwd)``)."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self.symbolic_zeros = False

    def __get__(self, instance, owner=None):
        return self if instance is None else functools.partial(self, instance)

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __call__(self, *args, **kwargs):
        name = self.__name__
        if self.fwd is None or self.bwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_vjp")
        nondiff = self.nondiff_argnums
        for i in nondiff:
            if any(isinstance(x, core.Tracer) for x in tree_util.tree_leaves(args[i])):
                raise errors.UnexpectedTracerError(
                    "Found a JAX Tracer object passed as an argument to a custom_vjp function in "
                    "a position indicated by nondiff_argnums as non-differentiable. Tracers "
                    "cannot be passed as non-differentiable arguments to custom_vjp functions; "
                    "instead, nondiff_argnums should only be used for arguments that can't be or "
                    "contain JAX tracers, e.g. function-valued arguments. In particular, "
                    "array-valued arguments should typically not be indicated as "
                    "nondiff_argnums.")
        static, dyn = _split_nondiff(args, nondiff)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        in_avals = [core.aval_of(x) for x in leaves]
        store = []
        user_fwd, user_bwd, sz = self.fwd, self.bwd, self.symbolic_zeros
        fwd_name = _fun_name(user_fwd)

        def flat_fun(*xs):
            out = self.fun(*_merge(static, tree_util.tree_unflatten(in_tree, list(xs)), nondiff))
            o, t = tree_util.tree_flatten(out)
            if not store:
                store.append((t, o))
            return o

        def flat_fwd(primals, perturbed):
            xs = [CustomVJPPrimal(p, b) for p, b in zip(primals, perturbed)] if sz else primals
            pair = user_fwd(*_merge(static, tree_util.tree_unflatten(in_tree, list(xs)), nondiff))
            return check_fwd_output(pair, name, fwd_name, store)

        def flat_bwd(res_tree, res, cts):
            # a cotangent that is still a host constant (grad's seed of 1, a scalar
            # zero) reaches the rule as an array, as JAX's always do
            cts = [SymbolicZero(c.aval) if sz and type(c) is Zero
                   else core.lax_ops.asarray_device(ad.instantiate_zeros(c)) for c in cts]
            py_res = tree_util.tree_unflatten(res_tree, list(res))
            py_ct = tree_util.tree_unflatten(store[0][0], cts)
            out = user_bwd(*static, py_res, py_ct)
            return flatten_bwd_output(out, in_tree, in_avals)

        outs = _custom_vjp_at(core.trace_ctx.trace, flat_fun, _Named(flat_fwd, fwd_name),
                              _Named(flat_bwd, _fun_name(user_bwd)), leaves,
                              {"name": name, "symbolic_zeros": sz, "num_consts": 0})
        return tree_util.tree_unflatten(store[0][0], outs)


custom_lin_p = core.Primitive("custom_lin")
custom_lin_p.multiple_results = True
core.abstract_eval_rules[custom_lin_p] = lambda *avals, out_avals, **_: list(out_avals)


def _custom_lin_impl(*args, **params):
    raise TypeError(_NO_FORWARD)


core.impl_rules[custom_lin_p] = _custom_lin_impl
ad.transpose_on_zero_cts.add(custom_lin_p)  # bwd may return cotangents for zero ones
lowering.rules[custom_lin_p] = lambda ctx, *args, **params: _custom_lin_impl()
# evaluating the tangent map forward (batched or not) is forward mode
batching.batch_rules[custom_lin_p] = _custom_lin_impl


def _custom_lin_transpose(cts, *args, num_res, bwd, res_tree, out_avals, in_zeros):
    res = args[:num_res]
    cts_in = bwd(res_tree, list(res), list(cts))
    return [None] * num_res + [c for c, z in zip(cts_in, in_zeros) if not z]


ad.transpose_rules[custom_lin_p] = _custom_lin_transpose
