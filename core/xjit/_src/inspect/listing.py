"""A jaxpr as structured data for viewers: one record per top-level equation
with its printed text (named consistently with the whole jaxpr), its
operands' and results' types, its source line, and whether it holds
sub-jaxprs (cond branches, loop bodies, jit bodies) that a viewer may fold."""
from __future__ import annotations

import dataclasses

from .. import core
from ..pretty import Context, pp_eqn, pp_vars, render


@dataclasses.dataclass
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
    text: str     # the whole jaxpr exactly as printed

    def lines_by_source(self) -> dict:
        """(filename, lineno) -> indices of the equations it produced."""
        out: dict = {}
        for e in self.eqns:
            out.setdefault((e.filename, e.lineno), []).append(e.index)
        return out


def _has_subjaxpr(eqn):
    for v in eqn.params.values():
        for x in v if isinstance(v, tuple) else (v,):
            if isinstance(x, (core.Jaxpr, core.ClosedJaxpr)):
                return True
    return False


def listing(closed) -> JaxprListing:
    jaxpr = closed.jaxpr if isinstance(closed, core.ClosedJaxpr) else closed
    ctx = Context()
    consts = render(pp_vars(jaxpr.constvars, ctx, True), 10**9)
    ins = render(pp_vars(jaxpr.invars, ctx, True), 10**9)
    header = f"{{ lambda {consts}; {ins}. let"
    eqns = []
    for i, e in enumerate(jaxpr.eqns):
        text = render(pp_eqn(e, ctx))
        src = e.source_info
        eqns.append(EqnRecord(
            i, text, e.primitive.name, src.filename if src else None, src.lineno if src else None,
            src.function if src else None,
            [(ctx.name(v), v.aval.str_short()) for v in e.outvars],
            [(ctx.name(v) if type(v) is not core.Literal else str(v.val), v.aval.str_short())
             for v in e.invars],
            _has_subjaxpr(e)))
    outs = ", ".join(ctx.name(v) if type(v) is not core.Literal else f"{v.val}:{v.aval.str_short()}"
                     for v in jaxpr.outvars)
    footer = f"in ({outs}{',' if len(jaxpr.outvars) == 1 else ''}) }}"
    return JaxprListing(header, eqns, footer, str(closed))

