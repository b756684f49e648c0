"""Jaxpr printing in JAX's text format.

Layout uses a small Wadler/Lindig pretty printer (text, nest, group, break):
a group is printed flat when it fits in the remaining width, otherwise all of
its breaks become newlines. The jaxpr documents are built with the same shape
as JAX's so line breaking agrees with JAX's output.
"""
from __future__ import annotations

import numpy as np

from . import core

WIDTH = 80

# --------------------------------------------------------------------------
# Documents: ("t", text) | ("c", [docs]) | ("n", indent, doc) | ("g", doc) | ("b", text)


def text(s):
    return ("t", s)


def concat(*docs):
    return ("c", docs)


def nest(n, doc):
    return ("n", n, doc)


def group(doc):
    return ("g", doc)


def brk(s=" "):
    return ("b", s)


def join(sep, docs):
    out = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return ("c", out)


def _flat_width(doc, limit):
    """Width of ``doc`` printed flat, stopping early once past ``limit``."""
    total = 0
    stack = [doc]
    while stack:
        d = stack.pop()
        k = d[0]
        if k == "t" or k == "b":
            total += len(d[1])
            if total > limit:
                return total
        elif k == "c":
            stack.extend(reversed(d[1]))
        elif k == "n":
            stack.append(d[2])
        else:
            stack.append(d[1])
    return total


def render(doc, width=WIDTH) -> str:
    out: list[str] = []
    col = 0
    stack = [(0, False, doc)]  # (indent, break_mode, doc)
    while stack:
        indent, brk_mode, d = stack.pop()
        k = d[0]
        if k == "t":
            out.append(d[1])
            col += len(d[1])
        elif k == "b":
            if brk_mode:
                out.append("\n" + " " * indent)
                col = indent
            else:
                out.append(d[1])
                col += len(d[1])
        elif k == "c":
            for sub in reversed(d[1]):
                stack.append((indent, brk_mode, sub))
        elif k == "n":
            stack.append((indent + d[1], brk_mode, d[2]))
        else:
            # a group breaks when it alone does not fit in the rest of the line
            fits = _flat_width(d[1], width - col) <= width - col
            stack.append((indent, not fits, d[1]))
    return "".join(out)


# --------------------------------------------------------------------------
# Naming


def _encode_name(n: int) -> str:
    s = ""
    while True:
        s = chr(ord("a") + n % 26) + s
        n //= 26
        if n == 0:
            return s


class Context:
    __slots__ = ("names", "count", "defs")

    def __init__(self):
        self.names: dict = {}
        self.count = 0
        self.defs: dict = {}  # id(jaxpr) -> name for hoisted jaxprs

    def fresh(self):
        name = _encode_name(self.count)
        self.count += 1
        return name

    def name(self, v) -> str:
        if type(v) is core.DropVar:
            return "_"
        n = self.names.get(v)
        if n is None:
            n = self.names[v] = self.fresh()
        return n


def _literal_str(lit: core.Literal) -> str:
    val = lit.val
    if isinstance(val, np.ndarray):
        val = val[()]
    return f"{val}:{lit.aval.str_short()}"


def pp_atom(v, ctx) -> str:
    if type(v) is core.Literal:
        return _literal_str(v)
    return ctx.name(v)


def pp_vars(vs, ctx, shapes: bool, sep=""):
    if shapes:
        items = [text(f"{ctx.name(v)}:{v.aval.str_short()}") for v in vs]
    else:
        items = [text(pp_atom(v, ctx)) for v in vs]
    return nest(2, group(join(concat(text(sep), group(brk())), items)))


# --------------------------------------------------------------------------
# Params


def _pp_value(v, ctx):
    if isinstance(v, core.ClosedJaxpr):
        v = v.jaxpr
    if isinstance(v, core.Jaxpr):
        hoisted = ctx.defs.get(id(v))
        return text(hoisted) if hoisted is not None else _pp_jaxpr_doc(v, ctx)
    if isinstance(v, tuple) and v and all(isinstance(x, (core.ClosedJaxpr, core.Jaxpr)) for x in v):
        items = [_pp_value(x, ctx) for x in v]  # one per line unless all fit (cond branches)
        return group(concat(nest(2, concat(text("("), brk(""), join(brk(), items))), brk(""),
                            text(")")))
    if isinstance(v, np.dtype):
        return text(v.name)
    if isinstance(v, type) and issubclass(v, np.generic):
        return text(np.dtype(v).name)
    return text(str(v))


def pp_kv_pairs(params, ctx, ordered=False):
    """``[k=v ...]``; sorted by key unless a primitive's print rule fixed the order."""
    if not params:
        return text("")
    pairs = params.items() if ordered else sorted(params.items())
    items = [concat(text(f"{k}="), _pp_value(v, ctx)) for k, v in pairs]
    return group(concat(nest(2, concat(text("["), brk(""), join(brk(), items))), brk(""), text("]")))


def _rename_inner(eqn, inner: core.Jaxpr, ctx):
    """Name an inlined jit body's binders as JAX does: an outer result shares
    its name with the inner result it returns (unless that is a binder fed by
    an outer variable, or returned twice), those names come first, then the
    other outer results, then the inner binders, which take their outer
    argument's name (fresh for literals and repeated arguments)."""
    fed = {v for outer, v in zip(eqn.invars, inner.invars) if type(outer) is not core.Literal}
    shared = set()
    for outer, v in zip(eqn.outvars, inner.outvars):
        if type(v) is not core.Var or v in fed or v in shared or v in ctx.names:
            continue
        shared.add(v)
        ctx.names[v] = "_" if type(outer) is core.DropVar else ctx.name(outer)
    for outer in eqn.outvars:
        ctx.name(outer)
    taken = set()
    for outer, v in zip(eqn.invars, inner.invars):
        if v in ctx.names:
            continue
        name = ctx.name(outer) if type(outer) is not core.Literal else None
        ctx.names[v] = ctx.fresh() if name is None or name in taken else name
        taken.add(ctx.names[v])


def pp_eqn(eqn, ctx):
    if eqn.primitive in core.pp_eqn_rules:  # e.g. `b[0] <- x` for ref writes
        return core.pp_eqn_rules[eqn.primitive](eqn, ctx)
    rule = core.pp_param_rules.get(eqn.primitive)
    params = rule(eqn.params) if rule is not None else eqn.params
    sub = params.get("jaxpr")
    if eqn.primitive.name in ("jit", "pjit", "closed_call", "core_call") and sub is not None:
        inner = sub.jaxpr if isinstance(sub, core.ClosedJaxpr) else sub
        if id(inner) not in ctx.defs:
            _rename_inner(eqn, inner, ctx)
    lhs = pp_vars(eqn.outvars, ctx, True)
    rhs = concat(text(eqn.primitive.name), pp_kv_pairs(params, ctx, rule is not None),
                 text(" "), pp_vars(eqn.invars, ctx, False))
    if not eqn.outvars:  # effects only: JAX prints no binder
        return rhs
    return concat(lhs, text(" = "), rhs)


def _name_unused(jaxpr, ctx):
    """Results of the printed (outermost) jaxpr that nothing reads print as
    ``_`` and take no letter, as in JAX; sub-jaxprs only inherit ``_`` from
    the outer results they are named after."""
    used = {v for e in jaxpr.eqns for v in e.invars if type(v) is not core.Literal}
    used.update(v for v in jaxpr.outvars if type(v) is not core.Literal)
    for e in jaxpr.eqns:
        for v in e.outvars:
            if v not in used and v not in ctx.names:
                ctx.names[v] = "_"


def _pp_jaxpr_doc(jaxpr: core.Jaxpr, ctx, hoisting=None):
    saved = ctx.defs.pop(hoisting, None) if hoisting is not None else None
    constvars = pp_vars(jaxpr.constvars, ctx, True)
    invars = pp_vars(jaxpr.invars, ctx, True)
    eqns = join(brk("; "), [pp_eqn(e, ctx) for e in jaxpr.eqns])
    outs = [text(pp_atom(v, ctx)) for v in jaxpr.outvars]
    outvars = concat(text("("), nest(2, group(join(concat(text(","), group(brk())), outs))),
                     text(",)" if len(outs) == 1 else ")"))
    if saved is not None:
        ctx.defs[hoisting] = saved
    return group(concat(nest(2, concat(
        text("{ lambda "), constvars, text("; "), invars, text(". let"),
        nest(2, concat(brk(), eqns)), brk(), text("in "), outvars)), text(" }")))


def _collect_subjaxprs(jaxpr, counts, names):
    """Count uses of each sub-jaxpr (breadth first, as printed) and remember
    the name of the first equation that uses it."""
    queue = [jaxpr]
    while queue:
        j = queue.pop(0)
        counts[id(j)] = counts.get(id(j), 0) + 1
        names.setdefault(id(j), (j, "jaxpr"))
        for eqn in j.eqns:
            name = eqn.params.get("name")
            for v in eqn.params.values():
                for x in (v if isinstance(v, tuple) else (v,)):
                    if isinstance(x, core.ClosedJaxpr):
                        x = x.jaxpr
                    if isinstance(x, core.Jaxpr):
                        queue.append(x)
                        if isinstance(name, str) and names.get(id(x), (0, "jaxpr"))[1] == "jaxpr":
                            names[id(x)] = (x, name.strip("<>"))


MAX_INLINE_EQNS = 10


def pp_jaxpr(jaxpr: core.Jaxpr, width=WIDTH) -> str:
    """Sub-jaxprs used more than once, or longer than ``MAX_INLINE_EQNS``, are
    printed first as ``let name = {...} in`` and referred to by name."""
    ctx = Context()
    counts, names = {}, {}
    _collect_subjaxprs(jaxpr, counts, names)
    defs, used = [], {}
    for key, (sub, name) in names.items():
        if sub is jaxpr or (counts[key] == 1 and len(sub.eqns) <= MAX_INLINE_EQNS):
            continue
        if name in used:
            used[name] += 1
            name = f"{name}{used[name] - 1}"
        used[name] = used.get(name, 0) + 1
        defs.append((key, name, sub))
    for key, name, sub in defs:
        ctx.defs[key] = name
    docs = [concat(text(f"let {name} = "), _pp_jaxpr_doc(sub, ctx, hoisting=key), text(" in"))
            for key, name, sub in defs]
    _name_unused(jaxpr, ctx)
    body = _pp_jaxpr_doc(jaxpr, ctx)
    return "\n".join([render(d, width) for d in docs] + [render(body, width)])


def pp_eqn_str(eqn) -> str:
    return render(pp_eqn(eqn, Context()))
