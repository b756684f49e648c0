"""A jaxpr as structured data for viewers: one record per top-level equation
with its printed text (named consistently with the whole jaxpr), its
operands' and results' types, its source line, and whether it holds
sub-jaxprs (cond branches, loop bodies, jit bodies) that a viewer may fold.

The sidebar lists jaxprs of 10,000 equations and more, so most equations
skip the document printer: an equation without sub-jaxprs whose one-line
form fits the printer's width prints as exactly that line (every group of
the document fits, so none breaks); the others go through ``pp_eqn``."""
from __future__ import annotations

import dataclasses
import functools
import weakref

import numpy as np

from .. import core
from ..pretty import WIDTH, Context, _pp_value, pp_eqn, pp_vars, render


@dataclasses.dataclass(slots=True)
class EqnRecord:
    index: int
    text: str
    primitive: str
    filename: str | None
    lineno: int | None
    function: str | None
    outvars: list  # [(name, type string)]
    invars: list   # [(name, type string)] (literals as their printed value)
    nested: bool   # holds sub-jaxprs


@dataclasses.dataclass
class JaxprListing:
    header: str   # "{ lambda a:f32[3]; b:f32[]. let"
    eqns: list
    footer: str   # "in (c,) }"
    closed: dataclasses.InitVar[object]

    def __post_init__(self, closed):
        # held weakly: a listing kept by a notebook panel must not keep the
        # jaxpr's constants alive (a bare Jaxpr has none, and no weakref)
        try:
            self._closed = weakref.ref(closed)
        except TypeError:
            self._closed = lambda: closed

    @functools.cached_property
    def text(self) -> str:
        """The whole jaxpr exactly as printed, made on first use (viewers of
        long jaxprs only ever show the equations); once the jaxpr is gone,
        the listed lines."""
        closed = self._closed()
        if closed is not None:
            return str(closed)
        eqns = ["    " + e.text.replace("\n", "\n    ") for e in self.eqns]
        return "\n".join([self.header, *eqns, "  " + self.footer])

    def lines_by_source(self) -> dict:
        """(filename, lineno) -> indices of the equations it produced."""
        out: dict = {}
        for e in self.eqns:
            out.setdefault((e.filename, e.lineno), []).append(e.index)
        return out


def _is_jaxpr(v) -> bool:
    if isinstance(v, tuple):
        return any(isinstance(x, (core.Jaxpr, core.ClosedJaxpr)) for x in v)
    return isinstance(v, (core.Jaxpr, core.ClosedJaxpr))


class _Printer:
    """Names and type strings shared by every equation of one listing."""

    def __init__(self):
        self.ctx = Context()
        self._types: dict = {}

    def type_of(self, aval) -> str:
        # equal avals print alike (ShapedArray hashes cheaply); other kinds
        # by identity, as the listed jaxpr keeps them alive meanwhile
        key = aval if type(aval) is core.ShapedArray else id(aval)
        s = self._types.get(key)
        if s is None:
            s = self._types[key] = aval.str_short()
        return s

    def var(self, v) -> tuple:
        if type(v) is core.Literal:
            val = v.val
            return str(val[()] if isinstance(val, np.ndarray) else val), self.type_of(v.aval)
        return self.ctx.name(v), self.type_of(v.aval)

    def one_line(self, eqn, outs, ins) -> str | None:
        """The equation as printed when it fits on one line, else None (for
        an equation without sub-jaxprs, its results named before its operands
        as ``pp_eqn`` names them)."""
        prim = eqn.primitive
        if prim in core.pp_eqn_rules:
            return None
        rule = core.pp_param_rules.get(prim)
        params = rule(eqn.params) if rule is not None else eqn.params
        if params:
            pairs = params.items() if rule is not None else sorted(params.items())
            # a value that is no jaxpr prints as one text document: ("t", its text)
            kv = "[" + " ".join(f"{k}={_pp_value(v, self.ctx)[1]}" for k, v in pairs) + "]"
        else:
            kv = ""
        args = " ".join(f"{n}:{t}" if type(v) is core.Literal else n
                        for v, (n, t) in zip(eqn.invars, ins))
        rhs = f"{prim.name}{kv} {args}"
        line = f"{' '.join(f'{n}:{t}' for n, t in outs)} = {rhs}" if outs else rhs
        return line if len(line) <= WIDTH else None


def listing(closed) -> JaxprListing:
    jaxpr = closed.jaxpr if isinstance(closed, core.ClosedJaxpr) else closed
    p = _Printer()
    ctx = p.ctx
    consts = render(pp_vars(jaxpr.constvars, ctx, True), 10**9)
    ins = render(pp_vars(jaxpr.invars, ctx, True), 10**9)
    header = f"{{ lambda {consts}; {ins}. let"
    eqns = []
    for i, e in enumerate(jaxpr.eqns):
        nested = any(_is_jaxpr(v) for v in e.params.values())
        if nested:  # pp_eqn names an inlined jit's results after its body's
            text = render(pp_eqn(e, ctx))
        outs = [p.var(v) for v in e.outvars]
        args = [p.var(v) for v in e.invars]
        if not nested:
            text = p.one_line(e, outs, args) or render(pp_eqn(e, ctx))
        src = e.source_info
        eqns.append(EqnRecord(
            i, text, e.primitive.name, src.filename if src else None, src.lineno if src else None,
            src.function if src else None, outs, args, nested))
    outs = ", ".join(ctx.name(v) if type(v) is not core.Literal else f"{v.val}:{v.aval.str_short()}"
                     for v in jaxpr.outvars)
    footer = f"in ({outs}{',' if len(jaxpr.outvars) == 1 else ''}) }}"
    return JaxprListing(header, eqns, footer, closed)
