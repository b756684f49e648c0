"""Staging Python functions into jaxprs (what ``jit`` and ``make_jaxpr`` use).

``JaxprTrace`` records one equation per primitive application. Scalar
constants become literals, other constants become constvars, and tracers of
enclosing traces (values closed over from an outer ``jit`` or transformation)
become constvars too; ``trace_to_jaxpr`` reports them so the caller can pass
them in as arguments.
"""
from __future__ import annotations

import inspect

import numpy as np

from xjit._src import core, errors
from xjit._src.sharding_in_types import VaryingMismatchError
from xjit._src.config import config
from xjit._src.core import JaxprEqn, Literal, ShapedArray, Tracer, Var


class DebugInfo:
    """What the user's function was: for error messages and the inspect layer."""

    __slots__ = ("fun_name", "location", "arg_names", "traced_for", "fun", "hi")

    def __init__(self, fun, traced_for="jit", arg_names=None):
        self.fun = fun
        self.hi = False  # the trace met hijax values (its jaxpr holds their state)
        self.fun_name = getattr(fun, "__name__", type(fun).__name__)
        self.traced_for = traced_for
        self.arg_names = arg_names
        self.location = _fun_location(fun)

    def describe(self):
        loc = f" at {self.location}" if self.location else ""
        return f"{self.fun_name}{loc}"


def _fun_location(fun):
    f = inspect.unwrap(fun) if callable(fun) else fun
    code = getattr(f, "__code__", None)
    if code is None:
        return None
    return f"{code.co_filename}:{code.co_firstlineno}"


def arg_names_of(fun, args, kwargs, static_argnums=()):
    """Flat argument names, one per array leaf (``x``, ``params['w']``)."""
    try:
        sig = inspect.signature(fun)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    from xjit._src import tree_util
    names = []
    for i, (name, val) in enumerate(bound.arguments.items()):
        param = sig.parameters[name]
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            for j, v in enumerate(val):
                names.extend(_leaf_names(f"{name}[{j}]", v, tree_util))
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            for k, v in val.items():
                names.extend(_leaf_names(k, v, tree_util))
        else:
            names.extend(_leaf_names(name, val, tree_util))
    return names


def _leaf_names(name, val, tree_util):
    paths, _ = tree_util.tree_flatten_with_path(val)
    return [name + tree_util.keystr(p) for p, _ in paths]


class DynamicJaxprTracer(Tracer):
    # ``aval`` is a slot copied from the var (not a property): it is read
    # several times per traced operation.
    __slots__ = ("var", "aval")

    def __init__(self, trace, var):
        self._trace = trace
        self.var = var
        self.aval = var.aval


# Hijax primitives (``hijax_lowering`` registers them): under a JaxprTrace such
# a primitive on high-typed values runs its ``to_lojax`` at once, so jaxprs
# hold only ordinary types. ``rule(trace, primitive, args, params)``.
hi_rules: dict = {}
# ``(trace, outs) -> [(value, aval, qdd, lo_values)]``: the mutable high-typed
# values from outside a trace that it wrote to, with their final state.
hi_finish = None


class HiTrace(Exception):
    """Raised by ``jit``'s ordinary path when its trace met hijax values: the
    call goes again through the path that carries their state in and out."""


class JaxprTrace(core.Trace):
    tracer_name = "JitTracer"
    hi_scope = None  # hijax_lowering's stand-ins for high-typed values from outside

    def __init__(self, parent, debug_info: DebugInfo | None = None):
        self.parent = parent
        self.debug_info = debug_info
        self.eqns: list[JaxprEqn] = []
        self.const_vars: dict[int, Var] = {}
        self.const_vals: list = []
        self.const_order: list[Var] = []
        self.invars: list[Var] = []
        self.active = True

    def __repr__(self):
        return "DynamicJaxprTrace"

    def fun_desc(self):
        d = self.debug_info
        return f"{d.describe()} traced for {d.traced_for}" if d else "an unknown function"

    def new_arg(self, aval) -> DynamicJaxprTracer:
        v = Var(aval)
        self.invars.append(v)
        return DynamicJaxprTracer(self, v)

    def _ancestors(self):
        t = self.parent
        while t is not None:
            yield t
            t = t.parent

    def to_atom(self, x):
        if type(x) is DynamicJaxprTracer and x._trace is self:
            return x.var
        if isinstance(x, Tracer):
            t = x._trace
            if t is self:
                return x.var
            if not getattr(t, "active", True) or t not in self._ancestors():
                raise errors.UnexpectedTracerError(core._leak_message(x))
            return self._const_var(x, x.aval)
        aval = core.aval_of(x)
        # a scalar Ref, or a key (an extended dtype), is no literal
        if not aval.shape and type(aval) is ShapedArray and isinstance(aval.dtype, np.dtype):
            return Literal(x, aval)
        return self._const_var(x, aval)

    def _const_var(self, x, aval):
        v = self.const_vars.get(id(x))
        if v is None:
            v = self.const_vars[id(x)] = Var(aval)
            self.const_vals.append(x)
            self.const_order.append(v)
        return v

    def fresh_const(self, x) -> DynamicJaxprTracer:
        """A tracer for ``x`` as a constant of its own, never shared with
        other uses of ``x`` (nor a literal): a high-typed value's state read
        in from outside, which a caller may turn into a loop carry."""
        v = Var(core.aval_of(x))
        self.const_vals.append(x)
        self.const_order.append(v)
        return DynamicJaxprTracer(self, v)

    def process_primitive(self, primitive, args, params):
        if primitive in hi_rules:
            return hi_rules[primitive](self, primitive, args, params)
        return self.stage(primitive, args, params)

    def stage(self, primitive, args, params):
        """Record one equation applying ``primitive`` to ``args``."""
        if not self.active:
            raise errors.UnexpectedTracerError("a trace was used after its transformation ended")
        atoms = [x.var if type(x) is DynamicJaxprTracer and x._trace is self else self.to_atom(x)
                 for x in args]
        try:
            out_avals = primitive.abstract_eval(*[a.aval for a in atoms], **params)
        except VaryingMismatchError:  # operands vary over different manual axes: as JAX,
            with core.set_current_trace(self):  # pvary the others to their union first
                args = core.lax_ops.insert_pvary(args)
            return self.process_primitive(primitive, args, params)
        # an equation staged while another is interpreted (its transpose, an
        # inlined jaxpr) keeps that one's line, as JAX attributes gradients
        src = core.eqn_source.value or core.current_source_info()
        if primitive.multiple_results:
            outvars = [Var(a) for a in out_avals]
            self.eqns.append(JaxprEqn(atoms, outvars, primitive, params, src))
            return [DynamicJaxprTracer(self, v) for v in outvars]
        v = Var(out_avals)
        self.eqns.append(JaxprEqn(atoms, [v], primitive, params, src))
        return DynamicJaxprTracer(self, v)

    # -- error provenance
    def origin_message(self, tracer):
        d = self.debug_info
        head = (f"The error occurred while tracing the function {d.describe()} for "
                f"{d.traced_for}. " if d else "")
        deps = self._arg_dependencies(tracer.var)
        names = d.arg_names if d else None
        if deps and names and all(i < len(names) for i in deps):
            dep_names = [names[i] for i in deps]
            if len(dep_names) == 1:
                return head + ("This concrete value was not available in Python because it "
                               f"depends on the value of the argument {dep_names[0]}.")
            joined = ", ".join(dep_names[:-1]) + " and " + dep_names[-1]
            return head + ("This concrete value was not available in Python because it "
                           f"depends on the values of the arguments {joined}.")
        lines = self._provenance_lines(tracer.var)
        if lines:
            return head + "This value became a tracer due to JAX operations on these lines:\n\n" + lines
        return head.rstrip()

    def _arg_dependencies(self, var):
        producers = {}
        for e in self.eqns:
            for o in e.outvars:
                producers[o] = e
        pos = {v: i for i, v in enumerate(self.invars)}
        seen, stack, deps = set(), [var], set()
        while stack:
            v = stack.pop()
            if v in seen or type(v) is Literal:
                continue
            seen.add(v)
            if v in pos:
                deps.add(pos[v])
            e = producers.get(v)
            if e is not None:
                stack.extend(e.invars)
        return sorted(deps)

    def _provenance_lines(self, var):
        from xjit._src.pretty import pp_eqn_str
        producers = {o: e for e in self.eqns for o in e.outvars}
        chain, seen, stack = [], set(), [var]
        while stack:
            v = stack.pop()
            if v in seen or type(v) is Literal:
                continue
            seen.add(v)
            e = producers.get(v)
            if e is not None:
                chain.append(e)
                stack.extend(e.invars)
        chain.sort(key=self.eqns.index)
        out = []
        for e in chain[-5:]:
            s = e.source_info
            where = f"{s.filename}:{s.lineno} ({s.function})" if s else "unknown"
            out.append(f"  operation {pp_eqn_str(e)}\n    from line {where}")
        return "\n\n".join(out)

    def to_jaxpr(self, out_tracers):
        outvars = [self.to_atom(x) for x in out_tracers]
        jaxpr = core.Jaxpr(self.const_order, self.invars, outvars, self.eqns, self.debug_info)
        return jaxpr, self.const_vals


def trace_to_jaxpr(fun, in_avals, debug_info=None, check_leaks=False, hi_writes=None):
    """Stage ``fun(*flat_args) -> flat_outs`` out into a jaxpr.

    Returns ``(jaxpr, consts)``; consts may include tracers of enclosing traces.
    Mutable hijax values from outside that ``fun`` writes to: a caller that can
    write them back passes a list as ``hi_writes``, which gets
    ``(value, aval, qdd, n)`` per value while their ``n`` final low values
    join the outputs; for any other caller that is an error.
    """
    parent = core.trace_ctx.trace
    trace = JaxprTrace(parent, debug_info)
    args = [trace.new_arg(a) for a in in_avals]
    scopes, core.name_stack.value = core.name_stack.value, None  # named_scope paths start
    try:                                                         # at each staged jaxpr, as JAX's
        with core.set_current_trace(trace):
            outs = fun(*args)
            if trace.hi_scope is not None:
                outs = _hi_outputs(trace, outs, hi_writes, debug_info)
            jaxpr, consts = trace.to_jaxpr(outs)
    finally:
        trace.active = False
        core.name_stack.value = scopes
    if check_leaks and _flags["jax_check_tracer_leaks"]:  # user-facing traces only
        del args, outs
        from xjit._src.leak_check import check
        check(trace)
    return jaxpr, consts


_flags = config._values


def _hi_outputs(trace, outs, hi_writes, debug_info):
    if debug_info is not None:
        debug_info.hi = True  # its constants are a hijax value's state now: not cacheable
    written = hi_finish(trace, outs)
    if not written:
        return outs
    if hi_writes is None:
        what = debug_info.traced_for if debug_info is not None else "this transformation"
        raise NotImplementedError(
            f"xjit does not support writing to a hijax value (e.g. a flax hijax Variable) "
            f"created outside a function traced for {what}; jit and scan support it, "
            f"or pass the value in and return its new state")
    outs = list(outs)
    for value, aval, qdd, lo in written:
        hi_writes.append((value, aval, qdd, len(lo)))
        outs.extend(lo)
    return outs


def convert_constvars_jaxpr(jaxpr: core.Jaxpr) -> core.Jaxpr:
    """Turn constvars into leading invars."""
    return core.Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns,
                      jaxpr.debug_info)


def close_jaxpr(jaxpr, consts):
    """Split consts into host values (kept as closed-over constants) and outer
    tracers (returned so the caller passes them as extra leading arguments)."""
    if not any(isinstance(c, Tracer) for c in consts):
        return core.ClosedJaxpr(jaxpr, consts), []
    return core.ClosedJaxpr(convert_constvars_jaxpr(jaxpr), []), list(consts)


def abstractify(x) -> ShapedArray:
    return core.aval_of(x)


def is_scalar_literal(x):
    return isinstance(x, (int, float, bool, complex, np.generic)) or (
        hasattr(x, "shape") and x.shape == ())


def is_staging() -> bool:
    """Whether a jaxpr is being staged out (``jit``, ``make_jaxpr``, a control
    flow body) under the current trace: values made now become tracers."""
    t = core.trace_ctx.trace
    while t is not None:
        if isinstance(t, JaxprTrace):
            return True
        t = t.parent
    return False
