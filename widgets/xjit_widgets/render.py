"""HTML and plain-text renderings of xjit.inspect data.

Every user-provided string (function and variable names, file names, printed
values, messages) goes through ``html.escape`` before it reaches markup: the
views build HTML, never evaluate it. The plain-text forms carry the same
information for terminals, nbconvert and GitHub.
"""
from __future__ import annotations

import html
import os
import re

FOLD_RUN = 20        # consecutive equations from one line folded beyond this many
MAX_INLINE = 2000    # equations rendered before the rest is folded away

_STYLE = """<style>
.xjit-jaxpr{font-family:monospace;font-size:12px;line-height:1.45;white-space:pre}
.xjit-jaxpr .p{color:#7a3e9d;font-weight:bold}.xjit-jaxpr .v{color:#1f5fa8}
.xjit-jaxpr .t{color:#777}.xjit-jaxpr .k{color:#a33}.xjit-jaxpr .src{color:#999;float:right;padding-left:2em}
.xjit-jaxpr .eq:hover,.xjit-jaxpr .eq.hl{background:#fff3b0}
.xjit-jaxpr details>summary{cursor:pointer;color:#555}
.xjit-lint td,.xjit-timing td{padding:2px 8px;vertical-align:top}
.xjit-lint .kind{font-family:monospace;color:#a33}
</style>"""

_TOKEN = re.compile(r"(?P<type>:[a-z0-9_]+\[[0-9,]*\])|(?P<var>\b[a-z]+\b)")


def esc(s) -> str:
    return html.escape(str(s), quote=True)


def short_file(filename) -> str:
    if not filename:
        return "?"
    return os.path.basename(filename) if not filename.startswith("<") else filename


def _highlight_eqn(rec) -> str:
    """Syntax-highlighted equation text with type tooltips on variables."""
    types = dict(rec.outvars + rec.invars)
    text = rec.text
    out, pos = [], 0
    prim_at = text.find(" = ") + 3 if rec.outvars else 0
    for m in _TOKEN.finditer(text):
        out.append(esc(text[pos:m.start()]))
        tok = m.group(0)
        if m.group("type"):
            out.append(f'<span class="t">{esc(tok)}</span>')
        elif m.start() == prim_at and tok == rec.primitive.split("[")[0]:
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


def _eqn_html(rec, cell_label) -> str:
    src = (f'<span class="src">{esc(cell_label(rec.filename))}:{rec.lineno}</span>'
           if rec.lineno is not None else "")
    body = _highlight_eqn(rec)
    if rec.nested and "\n" in rec.text:  # fold the sub-jaxpr under its first line
        first, rest = body.split("\n", 1)
        body = f"<details><summary>{first}{src}</summary>{rest}</details>"
        src = ""
    key = esc(f"{rec.filename}:{rec.lineno}")
    return (f'<div class="eq" data-src="{key}" '
            f'onmouseover="this.parentNode.querySelectorAll(\'[data-src=&quot;\'+this.dataset.src+\'&quot;]\').forEach(e=>e.classList.add(\'hl\'))" '
            f'onmouseout="this.parentNode.querySelectorAll(\'.hl\').forEach(e=>e.classList.remove(\'hl\'))">'
            f"    {body}{src}</div>")


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


def jaxpr_html(listing, cell_label=short_file) -> str:
    """The jaxpr as HTML: highlighted, sub-jaxprs foldable, each equation
    tagged with its source line; long runs from one line (unrolled loops) and
    very long jaxprs are folded so the view stays light."""
    parts = [_STYLE, '<div class="xjit-jaxpr">', esc(listing.header)]
    shown = 0
    for run in _runs(listing.eqns):
        rows = "".join(_eqn_html(r, cell_label) for r in run)
        if len(run) > FOLD_RUN or shown > MAX_INLINE:
            where = f"{esc(cell_label(run[0].filename))}:{run[0].lineno}"
            parts.append(f"<details><summary>    … {len(run)} equations from {where}</summary>"
                         f"{rows}</details>")
        else:
            parts.append(rows)
        shown += len(run)
    parts.append("  " + esc(listing.footer) + "</div>")
    return "".join(parts)


def jaxpr_text(listing) -> str:
    return listing.text


def lint_html(findings, cell_label=short_file) -> str:
    if not findings:
        return "<div class='xjit-lint'>No findings.</div>"
    rows = "".join(
        f"<tr><td class='kind'>{esc(f.kind)}</td><td>{esc(cell_label(f.filename))}:"
        f"{esc(f.lineno)}</td><td>{esc(f.message)}<br><i>{esc(f.suggestion)}</i></td></tr>"
        for f in findings)
    return f"{_STYLE}<table class='xjit-lint'>{rows}</table>"


def lint_text(findings, cell_label=short_file) -> str:
    if not findings:
        return "No findings."
    return "\n".join(f"[{f.kind}] {cell_label(f.filename)}:{f.lineno}: {f.message}\n"
                     f"    suggestion: {f.suggestion}" for f in findings)


PHASES = ("trace", "lower", "compile", "transfer", "run")


def timing_rows(timing) -> list:
    """(label, value) rows of a Timing summary, in display order."""
    rows = [(f"{p} (first call)", timing.first.get(p)) for p in PHASES]
    rows.append(("run (steady state, min)", timing.steady_s))
    rows.append(("calls", timing.calls))
    rows.append(("cache hits / misses", f"{timing.cache_hits} / {timing.cache_misses}"))
    if timing.flops is not None:
        rows.append(("flops", f"{timing.flops:.3g}"))
    if timing.memory:
        rows += [(k, f"{v} B") for k, v in timing.memory.items()]
    for r in timing.reasons:
        rows.append(("recompile reason", r))
    return rows


def _fmt(v):
    if isinstance(v, float):
        return f"{v * 1e3:.3f} ms"
    return "" if v is None else str(v)


def timing_html(timing) -> str:
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{esc(_fmt(v))}</td></tr>"
                   for k, v in timing_rows(timing))
    return f"{_STYLE}<table class='xjit-timing'>{rows}</table>"


def timing_text(timing) -> str:
    return "\n".join(f"{k:<26}{_fmt(v)}" for k, v in timing_rows(timing))
