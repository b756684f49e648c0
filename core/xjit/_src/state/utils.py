"""How ``jit`` treats refs at its boundary.

A ref may be passed to a jitted function or closed over by it, but not
returned, passed twice, or both closed over and passed (the body could not
tell which writes win). A closed-over ref is not a constant: it becomes a
trailing argument of the jit equation (``jit[...] b a`` with ``a:Ref{f32[3]}``),
so the body's writes can be handed back to the caller's ref.
"""
from __future__ import annotations

from xjit._src import core
from xjit._src.state.types import AbstractRef


def is_ref(aval) -> bool:
    return type(aval) is AbstractRef


def _creation_site(jaxpr, var):
    for eqn in jaxpr.eqns:
        if var in eqn.outvars and eqn.source_info is not None:
            s = eqn.source_info
            return f"{s.filename}:{s.lineno}:{s.column} ({s.function})"
    return None


def check_traced(jaxpr, leaves, debug):
    """Raise JAX's ValueError for a returned, repeated or closed-over-and-passed ref."""
    what = f"{debug.describe()} traced for {debug.traced_for}" if debug else "the function"
    for v in jaxpr.outvars:
        if is_ref(v.aval):
            msg = (f"function {what} returned a mutable array reference of type {v.aval}, but "
                   "mutable array references cannot be returned.")
            site = _creation_site(jaxpr, v)
            if site is not None:
                msg += f"\n\nThe returned mutable array was created on line {site}."
            raise ValueError(msg)
    names = (debug.arg_names if debug else None) or [f"args[{i}]" for i in range(len(leaves))]
    seen: dict[int, int] = {}
    for i, x in enumerate(leaves):
        if not is_ref(getattr(x, "aval", None)):
            continue
        j = seen.setdefault(id(x), i)
        if j != i:
            how = f"{debug.describe()} for {debug.traced_for}" if debug else "the function"
            raise ValueError(
                "only one reference to a mutable array may be passed as an argument to a "
                f"function, but when tracing {how} the mutable array reference of type "
                f"{x.aval} appeared at both {names[j]} and {names[i]}.")


def hoist_ref_consts(jaxpr, consts, leaves=(), debug=None):
    """Move closed-over refs from ``jaxpr``'s constants to trailing arguments.

    Returns ``(jaxpr, consts, ref_consts)``; the caller passes ``ref_consts``
    after the other arguments."""
    keep = [i for i, c in enumerate(consts) if not is_ref(core.aval_of(c))]
    if len(keep) == len(consts):
        return jaxpr, consts, []
    moved = [i for i in range(len(consts)) if i not in keep]
    passed = {id(x) for x in leaves}
    for i in moved:
        if id(consts[i]) in passed:
            names = debug.arg_names if debug else None
            pos = [k for k, x in enumerate(leaves) if x is consts[i]][0]
            name = names[pos] if names and pos < len(names) else f"args[{pos}]"
            how = f"{debug.describe()} for {debug.traced_for}" if debug else "the function"
            raise ValueError(f"when tracing {how}, a mutable array reference of type "
                             f"{core.aval_of(consts[i])} was both closed over and passed as "
                             f"the argument {name}")
    jaxpr = core.Jaxpr([jaxpr.constvars[i] for i in keep],
                       jaxpr.invars + [jaxpr.constvars[i] for i in moved],
                       jaxpr.outvars, jaxpr.eqns, jaxpr.debug_info)
    return jaxpr, [consts[i] for i in keep], [consts[i] for i in moved]


def refs_as_constvars(jaxpr, ref_consts):
    """``make_jaxpr(jit(f))``: the hoisted refs, the last invars of the jaxpr
    around the jit equation, print as its constants (``{ lambda a:Ref{...}; b. ...``)."""
    n = len(jaxpr.invars) - len(ref_consts)
    return (core.Jaxpr(jaxpr.constvars + jaxpr.invars[n:], jaxpr.invars[:n], jaxpr.outvars,
                       jaxpr.eqns, jaxpr.debug_info), list(ref_consts))


def _jaxpr_uses_refs(jaxpr) -> bool:
    if any(is_ref(v.aval) for v in jaxpr.constvars + jaxpr.invars):
        return True
    return any(any(is_ref(v.aval) for v in e.invars + e.outvars if type(v) is not core.Literal)
               or any(_jaxpr_uses_refs(j) for j in core.jaxprs_in_params(e.params))
               for e in jaxpr.eqns)


def refuse_refs(closed, where):
    """Raise NotImplementedError if ``closed`` (or a jaxpr in it) uses refs:
    for transformations whose rules would drop or replay a ref's writes."""
    if _jaxpr_uses_refs(closed.jaxpr if isinstance(closed, core.ClosedJaxpr) else closed) or any(
            is_ref(core.aval_of(c)) for c in getattr(closed, "consts", ())):
        raise NotImplementedError(
            f"xjit does not support mutable array references (Refs) inside {where} yet.")
