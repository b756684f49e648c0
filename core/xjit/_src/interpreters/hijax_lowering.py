"""Hijax high types inside transformations, lowered where a trace meets them.

A high-typed value (flax's hijax Variable) is a Python object holding
ordinary arrays, its state; its type's ``lo_ty_qdd``/``read_loval``/
``new_from_loval``/``update_from_loval`` convert between the object and that
state. JAX stages hijax primitives into "high" jaxprs and lowers them when
the jaxpr runs; here a jaxpr trace lowers them on the spot (``to_lojax``), so
every jaxpr holds ordinary types only and each transformation works unchanged.

What that needs is a *stand-in* per trace: inside a trace, an object from
outside is never touched (its arrays would become tracers of a finished
trace). On first use the trace reads the object's state at its parent level,
makes those arrays constants of its own and builds a stand-in from them
(``new_from_loval``); its hijax primitives then act on the stand-in. Stand-ins
are looked up from the outermost trace in, so a nested trace stands in for its
parent's stand-in. At the end of the trace (``finish``) a stand-in whose state
changed is a write: the trace's caller must carry the new state out and write
it back (``jit`` and ``scan`` do: see ``jit_call`` and ``thread_in``), anyone
else raises ``NotImplementedError``. ``jit`` and ``scan`` carry the values
they write as explicit inputs and outputs (``thread_in``/``read_out``), as
JAX's lowering of a jaxpr with mutable hi inputs does.

Immutable high-typed values (no QDD) need no stand-in: their arrays are read
as they are (constants, or tracers of an enclosing trace).
"""
from __future__ import annotations

from xjit._src import core, tree_util
from xjit._src.interpreters import partial_eval as pe
from xjit._src.interpreters.partial_eval import DynamicJaxprTracer, JaxprTrace

# value class -> function giving its (high) type, as ``register_hitype`` records
registered_hitypes: dict = {}


def is_hi(x) -> bool:
    return type(x) in registered_hitypes


def hi_aval(x):
    return registered_hitypes[type(x)](x)


class _Scope:
    """One trace's stand-ins: id(outside value) -> (value, stand-in); the
    values it made itself (``owned``); the captured ones, to check for writes."""

    __slots__ = ("proxies", "owned", "captures")

    def __init__(self):
        self.proxies: dict = {}
        self.owned: dict = {}
        self.captures: list = []


def _scope(trace):
    sc = trace.hi_scope
    if sc is None:
        sc = trace.hi_scope = _Scope()
    return sc


def _chain(trace):
    out = []
    while trace is not None:
        out.append(trace)
        trace = getattr(trace, "parent", None)
    return out


def resolve(trace, x):
    """What ``x`` (a value from some level) is at ``trace``: the stand-ins of
    ``trace`` and its ancestors applied from the outermost in."""
    for t in reversed(_chain(trace)):
        sc = getattr(t, "hi_scope", None)
        if sc is not None:
            hit = sc.proxies.get(id(x))
            if hit is not None and hit[0] is x:
                x = hit[1]
    return x


def cur_qdd(x):
    """The current quasi-dynamic data of mutable high-typed ``x`` where it is
    used now: its stand-in's under a trace, its own outside."""
    if isinstance(x, core.Tracer):
        raise NotImplementedError(
            "xjit does not support hijax values as tracers (a high type passed through "
            f"vmap or as a differentiated argument); got a {type(x).__name__}")
    y = resolve(core.trace_ctx.trace, x)
    with core.set_current_trace(core.eval_trace):
        return y.cur_qdd()


def _own(trace, obj):
    _scope(trace).owned[id(obj)] = obj


def _stand_in(trace, x):
    """``x`` as the hijax primitives of ``trace`` see it (see the docstring)."""
    x = resolve(trace.parent, x)
    sc = _scope(trace)
    hit = sc.proxies.get(id(x))
    if hit is not None and hit[0] is x:
        return hit[1]
    if sc.owned.get(id(x)) is x:
        return x
    aval = hi_aval(x)
    if not aval.has_qdd:
        return x
    qdd, lo = read_state(trace.parent, x, aval)
    consts = [trace.fresh_const(v) for v in lo]
    with core.set_current_trace(trace):
        proxy = aval.new_from_loval(qdd, *consts)
    sc.proxies[id(x)] = (x, proxy)
    _own(trace, proxy)
    sc.captures.append((x, aval, qdd, proxy, [c.var for c in consts]))
    return proxy


def read_state(trace, x, aval=None):
    """``(qdd, low values)`` of mutable high-typed ``x`` at ``trace``."""
    aval = hi_aval(x) if aval is None else aval
    with core.set_current_trace(trace):
        qdd = cur_qdd(x)
        lo = list(aval.read_loval(qdd, x))
    return qdd, lo


def _lower_rule(trace, primitive, args, params):
    """A hijax primitive under a jaxpr trace: lowered now when it touches
    high-typed values (or says it is high), staged as an equation otherwise."""
    hi = [is_hi(x) for x in args]
    if not any(hi):
        try:
            high = primitive.is_high(*[core.aval_of(x) for x in args], **params)
        except TypeError:
            high = True
        if not high:
            return trace.stage(primitive, args, params)
    if type(trace) is not JaxprTrace:  # a partial-evaluation trace: tangents into hi values
        raise NotImplementedError(
            f"xjit does not support differentiating hijax primitive '{primitive.name}' "
            "with respect to a high-typed value")
    args = [_stand_in(trace, x) if h else x for x, h in zip(args, hi)]
    with core.set_current_trace(trace):
        out = primitive.to_lojax(*args, **params)
    for o in (out if primitive.multiple_results else [out]):
        if is_hi(o):
            _own(trace, o)
    if trace.debug_info is not None:
        trace.debug_info.hi = True
    return out


def register_primitive(primitive) -> None:
    pe.hi_rules[primitive] = _lower_rule


def _finish(trace, outs):
    """The captured values ``trace`` wrote to: ``(value, aval, qdd, lo)``."""
    d = trace.debug_info
    check_no_hi(outs, f"returned from a function traced for {d.traced_for if d else 'jit'}")
    written = []
    for x, aval, qdd0, proxy, vars0 in trace.hi_scope.captures:
        qdd, lo = read_state(trace, proxy, aval)
        same = qdd == qdd0 and len(lo) == len(vars0) and all(
            type(t) is DynamicJaxprTracer and t._trace is trace and t.var is v
            for t, v in zip(lo, vars0))
        if not same:
            written.append((x, aval, qdd, lo))
    return written


pe.hi_finish = _finish


# --------------------------------------------------------------------------
# Carrying mutable high-typed values through a traced function explicitly


def thread_in(values, avals, qdds, lo_tracers):
    """Inside a trace, stand-ins for ``values`` built from ``lo_tracers`` (the
    trace's own inputs carrying their state): what ``jit`` and ``scan`` bodies
    use in place of reading the state as constants."""
    trace = core.trace_ctx.trace
    sc = _scope(trace)
    lo_tracers, proxies = iter(lo_tracers), []
    for x, aval, qdd in zip(values, avals, qdds):
        n = len(aval.lo_ty_qdd(qdd))
        proxy = aval.new_from_loval(qdd, *[next(lo_tracers) for _ in range(n)])
        x = resolve(trace.parent, x)
        sc.proxies[id(x)] = (x, proxy)
        _own(trace, proxy)
        proxies.append(proxy)
    if trace.debug_info is not None:
        trace.debug_info.hi = True
    return proxies


def read_out(proxies, avals):
    """``(qdds, lo value lists)`` of the stand-ins at the end of a trace."""
    trace = core.trace_ctx.trace
    states = [read_state(trace, p, a) for p, a in zip(proxies, avals)]
    return [q for q, _ in states], [lo for _, lo in states]


def write_back(values, avals, qdds, lo_lists):
    """Give ``values`` their new state (at the current trace)."""
    for x, aval, qdd, lo in zip(values, avals, qdds, lo_lists):
        aval.update_from_loval(qdd, x, *lo)


def mutable_values(leaves):
    """The distinct mutable high-typed values among ``leaves``."""
    out, seen = [], set()
    for x in leaves:
        if is_hi(x) and id(x) not in seen and hi_aval(x).has_qdd:
            seen.add(id(x))
            out.append(x)
    return out


def check_no_hi(leaves, what):
    for x in leaves:
        if is_hi(x):
            raise NotImplementedError(
                f"xjit does not support a hijax value (a {type(x).__name__}) {what}")


# --------------------------------------------------------------------------
# jit of functions that use high-typed values


def jit_call(pjf, jit_p, args, kwargs, eval_shape=None):
    """``pjf(*args, **kwargs)`` when hijax values are among the arguments or
    the function uses ones from outside: mutable ones are read into the
    program as inputs and written back from its outputs. Retraced per call
    (the values' state types may change between calls). With ``eval_shape``
    (aval -> output leaf) nothing runs and nothing is written back."""
    dyn, dkw, static_key = pjf._split(args, kwargs)
    leaves, treedef = tree_util.tree_flatten((dyn, dkw))
    threaded = mutable_values(leaves)
    for _ in range(3):
        writes = []
        out = _jit_traced(pjf, jit_p, leaves, treedef, static_key, threaded, writes, eval_shape)
        if not writes:
            return out
        threaded = threaded + [w[0] for w in writes if all(w[0] is not t for t in threaded)]
    raise NotImplementedError("xjit could not carry the hijax values this jit writes to")


def _jit_traced(pjf, jit_p, leaves, treedef, static_key, threaded, writes, eval_shape):
    caller = core.trace_ctx.trace
    avals_hi = [hi_aval(x) for x in threaded]
    states = [read_state(caller, x, a) for x, a in zip(threaded, avals_hi)]
    qdds = [q for q, _ in states]
    lo_in = [v for _, lo in states for v in lo]
    lo_leaves = [x for x in leaves if not is_hi(x)]
    n = len(lo_leaves)
    store = []

    def flat_fun(*tracers):
        it = iter(tracers[:n])
        full = [x if is_hi(x) else next(it) for x in leaves]
        proxies = thread_in(threaded, avals_hi, qdds, tracers[n:])
        a, k = tree_util.tree_unflatten(treedef, full)
        a, k = pjf._merge(a, k, static_key)
        out = pjf._fun(*a, **k)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        fqs, los = read_out(proxies, avals_hi)
        store.append((out_tree, len(out_leaves), fqs, [len(lo) for lo in los]))
        return list(out_leaves) + [v for lo in los for v in lo]

    debug = pe.DebugInfo(pjf._fun, "jit", None)
    debug.fun = None
    jaxpr, consts = pe.trace_to_jaxpr(flat_fun, [core.aval_of(x) for x in lo_leaves + lo_in],
                                      debug, check_leaks=True, hi_writes=writes)
    if writes:
        return None
    out_tree, n_out, fqs, sizes = store[0]
    if eval_shape is not None:
        return tree_util.tree_unflatten(out_tree, [eval_shape(v.aval) for v in jaxpr.outvars[:n_out]])
    closed, tracer_consts = pe.close_jaxpr(jaxpr, consts)
    nin = len(closed.jaxpr.invars)
    outs = jit_p.bind(*tracer_consts, *lo_leaves, *lo_in, jaxpr=closed, name=pjf._name,
                      donated_invars=(False,) * nin)
    rest, lo_lists = iter(outs[n_out:]), []
    for k in sizes:
        lo_lists.append([next(rest) for _ in range(k)])
    write_back(threaded, avals_hi, fqs, lo_lists)
    return tree_util.tree_unflatten(out_tree, list(outs[:n_out]))
