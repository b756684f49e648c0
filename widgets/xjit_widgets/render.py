"""HTML and plain-text renderings of xjit.inspect data, one per tab.

Every element that stands for a source line (an equation, a finding, a
function's definition) carries it as data attributes (``source_attrs``):
the JupyterLab extension turns clicks on them into a jump to the line; a
page without it (GitHub, nbconvert) ignores them.

Every user-provided string (function and variable names, file names, printed
values, messages) goes through ``html.escape`` before it reaches markup: the
views build HTML, never evaluate it, and carry no script. The plain-text
forms hold the same information for terminals and logs.
"""
from __future__ import annotations

import html
import os
import re
import textwrap

from .chart import PHASES, timing_svg
from .units import nbytes, seconds

FOLD_RUN = 20         # consecutive equations from one line folded beyond this many
FOLD_SHOW = 100       # equations written inside one fold
MAX_RENDERED = 2000   # equations written in all

_TOKEN = re.compile(r"(?P<type>:[a-z0-9_]+\[[0-9,]*\])|(?P<var>\b[a-z]+\b)")


def esc(s) -> str:
    return html.escape(str(s), quote=True)


def short_file(filename) -> str:
    if not filename:
        return "?"
    return os.path.basename(filename) if not filename.startswith("<") else filename


def where(cell_label, filename, lineno) -> str:
    """``In [3], line 7`` for notebook code, ``file.py:7`` otherwise."""
    label = cell_label(filename)
    if lineno is None:
        return label
    return f"{label}, line {lineno}" if label.startswith("In [") else f"{label}:{lineno}"


def source_attrs(cell_label, filename, lineno) -> str:
    """``data-xjit-file``/``-line`` for a known position, plus
    ``data-xjit-cell`` (the ``In [N]``) and ``data-xjit-cell-id`` when the
    labeller can place the file in a notebook cell (a ``cell_label`` with a
    ``locate(filename) -> (count, cell_id)`` method; see
    ``xjit_kernel_ext.cells.CellLabels``). Empty when the line is unknown."""
    if lineno is None or not filename:
        return ""
    out = f' data-xjit-file="{esc(filename)}" data-xjit-line="{int(lineno)}"'
    locate = getattr(cell_label, "locate", None)
    count, cell_id = locate(filename) if locate is not None else (None, None)
    if count is not None:
        out += f' data-xjit-cell="{int(count)}"'
    if cell_id:
        out += f' data-xjit-cell-id="{esc(cell_id)}"'
    return out


def _highlight_eqn(rec) -> str:
    """Syntax-highlighted equation text with type tooltips on variables."""
    types = dict(rec.outvars + rec.invars)
    text = rec.text
    out, pos = [], 0
    prim_at = text.find(" = ") + 3 if rec.outvars else 0
    prim = rec.primitive.split("[")[0]
    for m in _TOKEN.finditer(text):
        out.append(esc(text[pos:m.start()]))
        tok = m.group(0)
        if m.group("type"):
            out.append(f'<span class="t">{esc(tok)}</span>')
        elif m.start() == prim_at and tok == prim:
            out.append(f'<span class="p">{esc(tok)}</span>')
        elif tok in types:
            out.append(f'<span class="v" title="{esc(tok)}: {esc(types[tok])}">{esc(tok)}</span>')
        elif tok in ("lambda", "let", "in"):
            out.append(f'<span class="k">{esc(tok)}</span>')
        else:
            out.append(esc(tok))
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


# where a summary's open/closed marker goes: in the indent, so folded and
# plain lines align (the static style draws ▸/▾ there)
_MARK = '  <span class="mk"></span> '


class _Sources:
    """A short CSS class per source line, so hovering one equation can light
    up every equation from the same line with CSS alone (``:has``)."""

    def __init__(self):
        self.classes: dict = {}

    def cls(self, rec) -> str:
        key = (rec.filename, rec.lineno)
        if key not in self.classes:
            self.classes[key] = f"s{len(self.classes)}"
        return self.classes[key]

    def style(self, uid: str) -> str:
        if not self.classes:
            return ""
        rules = ",".join(f"#{uid}:has(.{c}:hover) .{c}" for c in self.classes.values())
        return f"<style>{rules}{{background:#fff3b0}}</style>"


def _eqn_html(rec, cell_label, sources) -> str:
    src = (f'<span class="src xjit-loc">{esc(where(cell_label, rec.filename, rec.lineno))}</span>'
           if rec.lineno is not None else "")
    attrs = source_attrs(cell_label, rec.filename, rec.lineno)
    body = "    " + _highlight_eqn(rec).replace("\n", "\n    ")  # each line indented
    if rec.nested and "\n" in rec.text:  # fold the sub-jaxpr under its first line
        first, rest = body.split("\n", 1)
        return (f'<details class="eq {sources.cls(rec)}"{attrs}><summary>{_MARK}{first[4:]}{src}'
                f"</summary>{rest}</details>")
    return f'<div class="eq {sources.cls(rec)}"{attrs}>{body}{src}</div>'


def _runs(eqns):
    """Group consecutive equations that share a source line."""
    run = []
    for rec in eqns:
        if run and (rec.filename, rec.lineno) != (run[0].filename, run[0].lineno):
            yield run
            run = []
        run.append(rec)
    if run:
        yield run


def jaxpr_html(listing, cell_label=short_file, uid: str = "xjit-jaxpr") -> str:
    """The jaxpr as HTML: highlighted, sub-jaxprs foldable, each equation
    tagged with its source line. A long run of equations from one line (an
    unrolled loop) is folded under one summary line, showing its first
    ``FOLD_SHOW``; at most ``MAX_RENDERED`` equations are written in all,
    so a notebook output stays small (the sidebar lists every equation).
    ``uid`` must be unique in the page (it scopes the hover rules)."""
    sources = _Sources()
    parts = [esc(listing.header)]
    rendered = hidden = 0
    for run in _runs(listing.eqns):
        if rendered >= MAX_RENDERED:
            hidden += len(run)
            continue
        folded = len(run) > FOLD_RUN
        visible = run[:FOLD_SHOW] if folded else run
        visible = visible[:MAX_RENDERED - rendered]
        rows = "".join(_eqn_html(r, cell_label, sources) for r in visible)
        rendered += len(visible)
        hidden += len(run) - len(visible)
        if len(visible) < len(run):
            rows += (f'<div class="more">    … {len(run) - len(visible)} more equations from '
                     "this line</div>")
        if folded:
            loc = esc(where(cell_label, run[0].filename, run[0].lineno))
            attrs = source_attrs(cell_label, run[0].filename, run[0].lineno)
            parts.append(f'<details class="fold"{attrs}><summary>{_MARK}… {len(run)} equations '
                         f'from <span class="xjit-loc">{loc}</span></summary>{rows}</details>')
        else:
            parts.append(rows)
    if hidden:
        parts.append(f'<div class="more">    ({hidden} of {len(listing.eqns)} equations are not '
                     "written here; the xjit sidebar in JupyterLab lists every one)</div>")
    parts.append("  " + esc(listing.footer))
    return f'{sources.style(uid)}<div class="xjit-jaxpr" id="{esc(uid)}">{"".join(parts)}</div>'


def jaxpr_text(listing) -> str:
    """The printed jaxpr, cut after ``MAX_RENDERED`` equations."""
    if len(listing.eqns) <= MAX_RENDERED:
        return listing.text
    lines = [listing.header] + [textwrap.indent(e.text, "    ") for e in listing.eqns[:MAX_RENDERED]]
    lines.append(f"    ... {len(listing.eqns) - MAX_RENDERED} more equations")
    lines.append("  " + listing.footer)
    return "\n".join(lines)


def lint_html(findings, cell_label=short_file) -> str:
    if not findings:
        return "<div class='xjit-lint'>No findings.</div>"
    rows = "".join(
        f"<tr{source_attrs(cell_label, f.filename, f.lineno)}><td class='kind'>{esc(f.kind)}</td>"
        "<td class='where'>"
        f"{esc(where(cell_label, f.filename, f.lineno))}"
        f"</td><td>{esc(f.message)}<br><i>{esc(f.suggestion)}</i></td></tr>"
        for f in findings)
    return f"<table class='xjit-lint'>{rows}</table>"


def lint_text(findings, cell_label=short_file) -> str:
    if not findings:
        return "No findings."
    return "\n".join(f"[{f.kind}] {where(cell_label, f.filename, f.lineno)}: {f.message}\n"
                     f"    suggestion: {f.suggestion}" for f in findings)


def steady_text(timing) -> str | None:
    if timing.steady_s is None:
        return timing.note or None
    if timing.steady_std_s is not None:
        return (f"{seconds(timing.steady_s)} ± {seconds(timing.steady_std_s)} "
                f"(mean ± std. dev. of {timing.steady_runs} runs)")
    if timing.steady_min_s is not None:
        return (f"{seconds(timing.steady_s)} median, {seconds(timing.steady_min_s)} min "
                f"of {timing.steady_runs} runs")
    return seconds(timing.steady_s)


def timing_rows(timing) -> list:
    """(label, text) rows of a Timing summary, in display order."""
    rows = [(f"{p} (first call)", seconds(timing.first[p])) for p in PHASES
            if timing.first.get(p) is not None]
    steady = steady_text(timing)
    if steady is not None:
        rows.append(("run (later calls)", steady))
    if timing.budget_warning:
        rows.append(("recompile budget", timing.budget_warning))
    rows.append(("calls", str(timing.calls)))
    rows.append(("cache hits / misses", f"{timing.cache_hits} / {timing.cache_misses}"))
    if timing.flops is not None:
        rows.append(("flops", f"{timing.flops:.3g}"))
    rows += [(k, nbytes(v)) for k, v in timing.memory.items()]
    if timing.cache_misses > 1 and not timing.history:  # a first compile needs no reason
        for i, r in enumerate(timing.reasons, 1):
            label = f"recompile {i}" if len(timing.reasons) > 1 else "recompile reason"
            rows.append((label, str(r)))
    return rows


def history_rows(timing) -> list:
    """(compile number, signature, what changed) for each compile, when the
    function compiled more than once."""
    return list(timing.history) if len(timing.history) > 1 else []


def timing_html(timing, title: str = "") -> str:
    rows = "".join(
        f"<tr{' class=warn' if k == 'recompile budget' else ''}><td>{esc(k)}</td><td>{esc(v)}</td>"
        "</tr>" for k, v in timing_rows(timing))
    chart = timing_svg(timing.first, timing.steady_s, title) if timing.first else ""
    history = ""
    if history_rows(timing):
        body = "".join(f"<tr><td>{esc(n)}</td><td class='sig'>{esc(sig)}</td><td>{esc(what)}</td></tr>"
                       for n, sig, what in history_rows(timing))
        history = ("<table class='xjit-history'><caption>compiles</caption><tr><th>#</th>"
                   f"<th>signature</th><th>what changed</th></tr>{body}</table>")
    return f"{chart}<table class='xjit-timing'>{rows}</table>{history}"


def timing_text(timing) -> str:
    lines = [f"{k:<26}{v}" for k, v in timing_rows(timing)]
    lines += [f"compile {n:<18}{sig}: {what}" for n, sig, what in history_rows(timing)]
    return "\n".join(lines)
