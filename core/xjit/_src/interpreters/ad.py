"""Automatic differentiation as interpreters.

Forward mode (``jvp``): a ``JVPTracer`` pairs a primal with a tangent, and
``JVPTrace`` applies each primitive's rule from ``jvp_rules``

    jvp_rules[prim](primals, tangents, **params) -> (primal_out, tangent_out)

with symbolic ``Zero`` tangents for values that do not depend on the inputs.

Reverse mode is linearize + transpose, as in JAX. ``linearize`` runs the same
JVP interpreter, but its tangents are tracers of a *partial-evaluation* trace
(``PETrace``): an operation on primal values only (``sin x``, ``cos x``) is
passed down to the enclosing trace and so computed now, while an operation
involving a tangent is recorded into the linear jaxpr, with the primal values
it uses becoming residuals. ``backward_pass`` then interprets that linear
jaxpr backwards with ``transpose_rules``

    transpose_rules[prim](ct, *args, **params) -> [ct per arg]

where linear arguments are ``UndefinedPrimal(aval)`` placeholders and the
returned entry for a non-linear argument is None.

Primitives with sub-jaxprs (``jit``) partially evaluate themselves through
``partial_eval_rules[prim](trace, args, params)``; ``partial_eval_jaxpr``
splits a jaxpr into its known and unknown halves for them. ``ad_jit`` has the
matching ``jvp_jaxpr`` and ``transpose_jaxpr`` (cached per jaxpr), which
control-flow rules can reuse for their bodies.
"""
from __future__ import annotations

import weakref

import numpy as np

from xjit._src import core, dtypes
from xjit._src.ad_util import (  # noqa: F401  (the interpreters' names for them)
    Zero, add_any_p, instantiate as instantiate_zeros, stop_gradient_p, tangent_aval,
    zeros_like_aval)
from xjit._src.interpreters import batching, mlir as lowering
from xjit._src.core import Literal, Tracer
from xjit._src.interpreters.partial_eval import (
    DynamicJaxprTracer,
    JaxprTrace,
    close_jaxpr,
    trace_to_jaxpr,
)

jvp_rules: dict = {}
trace_jvp_rules: dict = {}  # rules that need the JVPTrace: fn(trace, primals, tangents, **params)
transpose_rules: dict = {}
partial_eval_rules: dict = {}


# --------------------------------------------------------------------------
# Undefined primals (symbolic zeros are ad_util's)


class UndefinedPrimal:
    """A linear input of an equation being transposed."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x):
    return type(x) is UndefinedPrimal


# -- add_any: tangent accumulation (JAX prints it as its own primitive)
lowering.rules[add_any_p] = lambda ctx, ai, ao, x, y: ctx.op(
    "stablehlo.add", [x, y], [lowering.ttype(ai[0])] * 2, lowering.ttype(ao[0]))


def add_tangents(x, y):
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_any_p.bind(x, y)


# --------------------------------------------------------------------------
# The JVP interpreter


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent", "aval")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent
        self.aval = core.aval_of(primal)

    def __repr__(self):
        if self._trace.linearizing:
            return f"GradTracer(primal={self.primal}, typeof(tangent)={self.tangent.aval.str_short()})"
        return f"JVPTracer(primal={self.primal}, tangent={self.tangent})"

    __str__ = __repr__


class JVPTrace(core.Trace):
    """Rules run with ``tangent_trace`` current: the parent itself for forward
    mode, a ``PETrace`` over the parent when linearizing."""

    def __init__(self, parent, tangent_trace=None):
        self.parent = parent
        self.linearizing = tangent_trace is not None
        self.tangent_trace = parent if tangent_trace is None else tangent_trace
        # custom_vjp functions may only be linearized; a JVP jaxpr staged for
        # later partial evaluation (jit under grad) may hold their linear part
        self.allow_custom_lin = self.linearizing
        self.active = True

    tracer_name = property(lambda self: "LinearizeTracer" if self.linearizing else "JVPTracer")

    def __repr__(self):
        return "LinearizeTrace" if self.linearizing else "JVPTrace"

    def fun_desc(self):
        return "a function transformed by jvp/grad"

    def origin_message(self, tracer):
        return ""

    def process_primitive(self, primitive, args, params):
        primals, tangents, nonzero = [], [], False
        for x in args:
            if type(x) is JVPTracer and x._trace is self:
                primals.append(x.primal)
                tangents.append(x.tangent)
                nonzero = nonzero or type(x.tangent) is not Zero
            else:
                primals.append(x)
                tangents.append(None)
        if not nonzero and primitive not in jvp_even_if_zero:
            with core.set_current_trace(self.parent):
                return primitive.bind(*primals, **params)
        # JAX's rules get tuples
        primals = tuple(primals)
        tangents = tuple(Zero.from_primal_value(p) if t is None else t
                         for p, t in zip(primals, tangents))
        rule = jvp_rules.get(primitive)
        saved = core.eqn_source.value
        if saved is None:  # primal, tangent (and so transposed) equations share one line
            core.eqn_source.value = core.current_source_info()
        try:
            with core.set_current_trace(self.tangent_trace):
                if rule is not None:
                    out, tout = rule(primals, tangents, **params)
                elif primitive in trace_jvp_rules:
                    out, tout = trace_jvp_rules[primitive](self, primals, tangents, **params)
                else:
                    raise NotImplementedError(
                        f"Differentiation rule for '{primitive.name}' not implemented")
        finally:
            core.eqn_source.value = saved
        if primitive.multiple_results:
            return [self.new(p, t) for p, t in zip(out, tout)]
        return self.new(out, tout)

    def new(self, primal, tangent):
        return primal if type(tangent) is Zero else JVPTracer(self, primal, tangent)

    def unpack(self, x):
        if type(x) is JVPTracer and x._trace is self:
            return x.primal, x.tangent
        return x, Zero.from_primal_value(x)


# Primitives whose JVP rule runs even when every tangent is zero: as in JAX,
# a ref made inside a differentiated function (``new_ref``) always gets a
# tangent ref, so a differentiated value may be written to it later.
jvp_even_if_zero: set = set()


# --------------------------------------------------------------------------
# Partial evaluation: known operations run now, unknown ones are recorded


class PETrace(JaxprTrace):
    """Records only operations that involve its own tracers; the rest are
    handed to the parent trace (they are "known")."""

    tracer_name = "JaxprTracer"

    def to_atom(self, x):
        """Known arrays, even scalars, are residuals (constants), as in JAX:
        ``vjp``'s function lists them as its leaves. Python scalars stay
        literals."""
        if not isinstance(x, (Tracer, int, float, complex, np.generic)):
            return self._const_var(x, core.aval_of(x))
        return JaxprTrace.to_atom(self, x)

    def process_primitive(self, primitive, args, params):
        for x in args:
            if type(x) is DynamicJaxprTracer and x._trace is self:
                break
        else:
            with core.set_current_trace(self.parent):
                return primitive.bind(*args, **params)
        rule = partial_eval_rules.get(primitive)
        if rule is not None:
            return rule(self, args, params)
        return JaxprTrace.process_primitive(self, primitive, args, params)

    def record(self, primitive, args, params):
        """Record ``primitive`` on ``args`` (known ones become residuals)."""
        return JaxprTrace.process_primitive(self, primitive, args, params)

    def is_unknown(self, x):
        return type(x) is DynamicJaxprTracer and x._trace is self


def partial_eval_jaxpr(closed, unknowns, instantiate=False):
    """Split ``closed`` given which inputs are unknown.

    Returns ``(known, unknown, out_unknowns, num_res)``: ``known`` takes the
    known inputs and returns the known outputs followed by ``num_res``
    residuals; ``unknown`` takes the residuals followed by the unknown inputs
    and returns the unknown outputs. ``instantiate`` (a bool or one per
    output) forces outputs to be unknown."""
    key = (tuple(unknowns), instantiate if isinstance(instantiate, bool) else tuple(instantiate))
    cache = _pe_cache.setdefault(closed, {})
    hit = cache.get(key)
    if hit is not None:
        return hit
    n_out = len(closed.out_avals)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    known_avals = [a for a, u in zip(closed.in_avals, unknowns) if not u]
    unknown_avals = [a for a, u in zip(closed.in_avals, unknowns) if u]
    box = []

    def known_fun(*kargs):
        ut = PETrace(core.trace_ctx.trace, closed.jaxpr.debug_info)
        kit = iter(kargs)
        uargs = [ut.new_arg(a) for a in unknown_avals]
        uit = iter(uargs)
        args = [next(uit) if u else next(kit) for u in unknowns]
        try:
            with core.set_current_trace(ut):
                outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
            out_unknowns = [ut.is_unknown(o) or i for o, i in zip(outs, inst)]
            ujaxpr, res = ut.to_jaxpr([o for o, u in zip(outs, out_unknowns) if u])
        finally:
            ut.active = False
        box.append((ujaxpr, out_unknowns, len(res)))
        return [o for o, u in zip(outs, out_unknowns) if not u] + list(res)

    with core.set_current_trace(core.eval_trace):
        kjaxpr, kconsts = trace_to_jaxpr(known_fun, known_avals, closed.jaxpr.debug_info)
    ujaxpr, out_unknowns, num_res = box[0]
    known = core.ClosedJaxpr(kjaxpr, kconsts)
    unknown = core.ClosedJaxpr(_constvars_to_invars(ujaxpr), [])
    result = (known, unknown, out_unknowns, num_res)
    cache[key] = result
    return result


_pe_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def dce_jaxpr(jaxpr, used_outputs):
    """``jaxpr`` keeping only the outputs marked in ``used_outputs`` and the
    equations they need (inputs are all kept)."""
    live = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and type(v) is not Literal}
    eqns = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in live for v in eqn.outvars):
            eqns.append(eqn)
            live.update(v for v in eqn.invars if type(v) is not Literal)
    outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    return core.Jaxpr(jaxpr.constvars, jaxpr.invars, outvars, eqns[::-1], jaxpr.debug_info)


def _constvars_to_invars(jaxpr):
    return core.Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns,
                      jaxpr.debug_info)


# --------------------------------------------------------------------------
# Flat entry points


def jvp_flat(fun, primals, tangents, allow_custom_lin=False):
    """``fun(*primals)`` and its directional derivative along ``tangents``
    (which may be ``Zero``); tangent outputs may be ``Zero``."""
    trace = JVPTrace(core.trace_ctx.trace)
    trace.allow_custom_lin = allow_custom_lin
    tracers = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
    try:
        with core.set_current_trace(trace):
            outs = fun(*tracers)
        pairs = [trace.unpack(o) for o in outs]
    finally:
        trace.active = False
    return [p for p, _ in pairs], [t for _, t in pairs]


class Linearized:
    """The linear map of ``linearize``: a jaxpr over the tangent inputs whose
    constants are the residuals, plus which outputs are symbolically zero."""

    __slots__ = ("jaxpr", "consts", "in_avals", "in_zero", "out_avals", "out_zero")

    def __init__(self, jaxpr, consts, in_avals, in_zero, out_avals, out_zero):
        self.jaxpr, self.consts = jaxpr, consts
        self.in_avals, self.in_zero = in_avals, in_zero
        self.out_avals, self.out_zero = out_avals, out_zero

    def transpose(self, cts):
        """Cotangents of the inputs (``Zero`` where none flows) for output
        cotangents ``cts`` (values or ``Zero``)."""
        live = [c for c, z in zip(cts, self.out_zero) if not z]
        undef = [UndefinedPrimal(v.aval) for v in self.jaxpr.invars]
        res = iter(backward_pass(self.jaxpr, self.consts, undef, live))
        return [Zero(a) if z else next(res) for a, z in zip(self.in_avals, self.in_zero)]

    def apply(self, tangents):
        args = [t for t, z in zip(tangents, self.in_zero) if not z]
        outs = iter(core.eval_jaxpr(self.jaxpr, self.consts, *args))
        return [Zero(a) if z else next(outs) for a, z in zip(self.out_avals, self.out_zero)]


def linearize_flat(fun, primals):
    """Primal outputs of ``fun`` and a ``Linearized`` map of its derivative.
    Integer inputs get ``Zero`` float0 tangents."""
    parent = core.trace_ctx.trace
    tt = PETrace(parent)
    trace = JVPTrace(parent, tt)
    in_avals = [tangent_aval(core.aval_of(p)) for p in primals]
    in_zero = [a.dtype == dtypes.float0 for a in in_avals]
    tracers = [JVPTracer(trace, p, Zero(a) if z else tt.new_arg(a))
               for p, a, z in zip(primals, in_avals, in_zero)]
    try:
        with core.set_current_trace(trace):
            outs = fun(*tracers)
        pairs = [trace.unpack(o) for o in outs]
        out_zero = [type(t) is Zero for _, t in pairs]
        jaxpr, consts = tt.to_jaxpr([t for _, t in pairs if type(t) is not Zero])
    finally:
        trace.active = False
        tt.active = False
    out_avals = [tangent_aval(core.aval_of(p)) for p, _ in pairs]
    return [p for p, _ in pairs], Linearized(jaxpr, consts, in_avals, in_zero, out_avals, out_zero)


# --------------------------------------------------------------------------
# Transposition


# Passes the state layer adds: ``(jaxpr, consts)`` of a linear jaxpr that
# makes refs of tangents (reverse mode through ``new_ref``) as one without
# refs, so its transpose is the ordinary one (JAX discharges them first too).
transpose_prepasses: list = []
# Primitives whose transpose runs even when only zero cotangents reach it, as
# long as its outputs feed the result (JAX transposes every live linear
# equation): a custom_vjp's bwd may turn zero cotangents into nonzero ones.
transpose_on_zero_cts: set = set()


def backward_pass(jaxpr, consts, args, cts_out):
    """Cotangents of ``jaxpr``'s linear inputs (``UndefinedPrimal`` entries of
    ``args``) given cotangents of its outputs; evaluated with the current
    trace. Equations without linear inputs are evaluated forwards first."""
    for prepare in transpose_prepasses:
        jaxpr, consts = prepare(jaxpr, consts)
    primal_env = {}
    for v, x in zip(jaxpr.constvars, consts):
        primal_env[v] = x
    linear = set()
    for v, x in zip(jaxpr.invars, args):
        if type(x) is UndefinedPrimal:
            linear.add(v)
        else:
            primal_env[v] = x

    def read(v):
        return v.val if type(v) is Literal else primal_env[v]

    lin_eqns = []
    saved = core.eqn_source.value
    for eqn in jaxpr.eqns:
        if any(type(v) is not Literal and v in linear for v in eqn.invars):
            linear.update(eqn.outvars)
            lin_eqns.append(eqn)
        else:
            core.eqn_source.value = eqn.source_info or saved  # the forward line's
            try:
                outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            finally:
                core.eqn_source.value = saved
            if not eqn.primitive.multiple_results:
                outs = [outs]
            primal_env.update(zip(eqn.outvars, outs))

    # the equations transposed on zero cotangents too that feed the outputs
    # (any output, when any cotangent is nonzero)
    live_eqns = set()
    if transpose_on_zero_cts and any(e.primitive in transpose_on_zero_cts for e in lin_eqns) \
            and any(ct is not None and type(ct) is not Zero for ct in cts_out):
        live = {v for v in jaxpr.outvars if type(v) is not Literal}
        for eqn in reversed(lin_eqns):
            if any(v in live for v in eqn.outvars):
                if eqn.primitive in transpose_on_zero_cts:
                    live_eqns.add(id(eqn))
                live.update(v for v in eqn.invars if type(v) is not Literal and v in linear)

    ct_env = {}

    def write_ct(v, ct):
        if type(v) is Literal or v not in linear or ct is None or type(ct) is Zero:
            return
        prev = ct_env.get(v)
        ct_env[v] = ct if prev is None else add_any_p.bind(prev, ct)

    for v, ct in zip(jaxpr.outvars, cts_out):
        write_ct(v, ct)
    try:
        for eqn in reversed(lin_eqns):
            cts = [ct_env.pop(v, None) for v in eqn.outvars]
            if all(c is None for c in cts) and id(eqn) not in live_eqns:
                continue
            core.eqn_source.value = eqn.source_info
            args_in = [UndefinedPrimal(v.aval) if type(v) is not Literal and v in linear
                       else read(v) for v in eqn.invars]
            rule = transpose_rules.get(eqn.primitive)
            if rule is None:
                raise NotImplementedError(
                    f"Transpose rule (for reverse-mode differentiation) for "
                    f"'{eqn.primitive.name}' not implemented")
            if eqn.primitive.multiple_results:
                ct = [Zero(v.aval) if c is None else c for v, c in zip(eqn.outvars, cts)]
            else:
                ct = cts[0]
            cts_in = rule(ct, *args_in, **eqn.params)
            for v, c in zip(eqn.invars, cts_in):
                write_ct(v, c)
    finally:
        core.eqn_source.value = saved
    out = []
    for v, x in zip(jaxpr.invars, args):
        if type(x) is UndefinedPrimal:
            c = ct_env.get(v)
            out.append(Zero(x.aval) if c is None else c)
    return out


# --------------------------------------------------------------------------
# Helpers for rules


def defjvp(prim, *jvp_fns):
    """One tangent function per argument, ``fn(g, *primals, **params)``
    (None for arguments the output does not depend on); the contributions
    are summed with ``add_any``."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        acc = None
        for fn, t in zip(jvp_fns, tangents):
            if fn is None or type(t) is Zero:
                continue
            c = fn(t, *primals, **params)
            acc = c if acc is None else add_any_p.bind(acc, c)
        return out, (Zero.from_primal_value(out) if acc is None else acc)
    jvp_rules[prim] = rule


def defjvp2(prim, *jvp_fns):
    """Like ``defjvp``, but each function also receives the output:
    ``fn(g, ans, *primals, **params)``."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        acc = None
        for fn, t in zip(jvp_fns, tangents):
            if fn is None or type(t) is Zero:
                continue
            c = fn(t, out, *primals, **params)
            acc = c if acc is None else add_any_p.bind(acc, c)
        return out, (Zero.from_primal_value(out) if acc is None else acc)
    jvp_rules[prim] = rule


def defjvp_zero(prim):
    """The output does not depend differentiably on the inputs."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if prim.multiple_results:
            return out, [Zero.from_primal_value(o) for o in out]
        return out, Zero.from_primal_value(out)
    jvp_rules[prim] = rule


def deflinear(prim, transpose_fn):
    """A primitive linear in all its arguments: the tangent is the primitive
    applied to the tangents, the transpose is ``transpose_fn(ct, **params)``."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        ts = [instantiate_zeros(t) for t in tangents]
        return out, prim.bind(*ts, **params)
    jvp_rules[prim] = rule
    transpose_rules[prim] = lambda ct, *args, **params: transpose_fn(ct, **params)


def deflinear2(prim, transpose_fn):
    """Like ``deflinear``, but the transpose also receives the arguments
    (``UndefinedPrimal`` for the linear ones), to read their avals:
    ``transpose_fn(ct, *args, **params)``."""
    deflinear(prim, None)
    transpose_rules[prim] = transpose_fn


def defbilinear(prim, lhs_rule, rhs_rule):
    """A primitive linear in each of its two arguments (a product): the
    tangent is the primitive with one argument replaced by its tangent; the
    transpose for a linear ``x`` is ``lhs_rule(ct, x, y, **params)``, for a
    linear ``y`` ``rhs_rule(ct, x, y, **params)``."""
    defjvp(prim, lambda g, x, y, **params: prim.bind(g, y, **params),
           lambda g, x, y, **params: prim.bind(x, g, **params))

    def transpose(ct, x, y, **params):
        if is_undefined_primal(x):
            out = Zero(x.aval) if type(ct) is Zero else lhs_rule(ct, x, y, **params)
            return [out, None]
        out = Zero(y.aval) if type(ct) is Zero else rhs_rule(ct, x, y, **params)
        return [None, out]
    transpose_rules[prim] = transpose


# -- add_any's rules; stop_gradient (an identity whose tangent is zero)
deflinear2(add_any_p, lambda ct, x, y: [ct, ct])


def _add_any_batcher(args, dims):
    """add_any does not broadcast: an unbatched operand is broadcast to the
    other's batch axis; of two batch axes, the first operand's moves to the
    second's (as JAX's rule, so the programs are the same)."""
    (x, y), (dx, dy) = args, dims
    if dx == dy:
        return add_any_p.bind(x, y), dx
    if dx is None:
        return add_any_p.bind(batching.broadcast(x, core.aval_of(y).shape[dy], dy), y), dy
    if dy is None:
        return add_any_p.bind(x, batching.broadcast(y, core.aval_of(x).shape[dx], dx)), dx
    return add_any_p.bind(batching.moveaxis(x, dx, dy), y), dy


batching.batch_rules[add_any_p] = _add_any_batcher

lowering.rules[stop_gradient_p] = lambda ctx, ai, ao, x: x
defjvp_zero(stop_gradient_p)
batching.defvectorized(stop_gradient_p)
