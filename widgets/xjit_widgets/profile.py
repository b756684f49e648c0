"""The Profile tab: where a function's device time goes, per line of the
user's source and per kernel, from an ``xjit.inspect.DeviceProfile``.

The lines read as line_profiler's do: the source in file order, time and
share beside each line that has device time, one line of context around
those and a gap marker where lines are skipped; time XLA could not place
on a line (its own copies) comes last.

Shares are drawn as bars in plain CSS (a sized ``div``), so the tab stays
script-free like the rest of the panel; every row that stands for a source
line carries ``render.source_attrs`` (click-to-line). A kernel's equations
each carry their own line, since XLA may fuse equations of several lines
into one kernel.
"""
from __future__ import annotations

import linecache

from .render import esc, source_attrs, where
from .units import seconds

MAX_KERNELS = 10   # kernels listed; the rest are summed in one row
PERFETTO_UI = "https://ui.perfetto.dev"
CONTEXT = 1        # source lines shown around each line with device time

STYLE = (".xjit-panel table.xjit-profile td,.xjit-panel table.xjit-profile th{padding:2px 8px;"
         "vertical-align:top;text-align:left;background:none}"
         ".xjit-panel table.xjit-profile td.num{text-align:right;white-space:nowrap}"
         ".xjit-panel table.xjit-profile td.src{font-family:monospace;white-space:pre}"
         ".xjit-panel table.xjit-profile caption{text-align:left;font-weight:bold}"
         ".xjit-panel .xjit-bar{width:120px;height:9px;background:#eee;display:inline-block}"
         ".xjit-panel .xjit-bar>div{height:9px;background:#4c78a8}"
         ".xjit-panel .xjit-eqn{font-family:monospace;margin-right:6px;white-space:nowrap}")


def _line_where(cell_label, row) -> str:
    if row.filename is None:
        return "(no source line)"
    return where(cell_label, row.filename, row.lineno)


def _bar(share) -> str:
    width = max(0.0, min(1.0, share)) * 100
    return f'<span class="xjit-bar"><div style="width:{width:.1f}%"></div></span>'


def _source_rows(prof):
    """(filename, lineno, LineTime or None, text) in file order: the lines
    with device time and ``CONTEXT`` lines around them; (None, None, None,
    "") marks a gap. Lines without a file come last."""
    per_file, placeless = {}, []
    for r in prof.lines:
        if r.filename is None:
            placeless.append(r)
        else:
            per_file.setdefault(r.filename, {})[r.lineno] = r
    rows = []
    for filename, timed in per_file.items():
        shown = sorted({n + d for n in timed for d in range(-CONTEXT, CONTEXT + 1)
                        if n + d >= 1 and (n + d in timed or linecache.getline(filename, n + d))})
        for i, n in enumerate(shown):
            if rows and (i == 0 or n != shown[i - 1] + 1):
                rows.append((None, None, None, ""))
            rows.append((filename, n, timed.get(n), linecache.getline(filename, n).rstrip()))
    return rows + [(None, None, r, "") for r in placeless]


def _header(prof) -> str:
    where = prof.platform if getattr(prof, "devices", 1) == 1 else \
        f"{prof.devices} {prof.platform} devices (summed over them)"
    return (f"{seconds(prof.device_s)} device time per run on {where} "
            f"(wall {seconds(prof.wall_s)}; mean of {prof.repeat} runs)")


def _kernels(prof):
    """The top kernels, then one (count, seconds, share) for the rest."""
    top, rest = prof.ops[:MAX_KERNELS], prof.ops[MAX_KERNELS:]
    return top, (len(rest), sum(o.time_s for o in rest), sum(o.share for o in rest))


def _perfetto_hint(path) -> str:
    """How to open the written trace: Perfetto loads a local file only
    through its own "Open trace file" (the page cannot reach the kernel's
    disk); the ``.xplane.pb`` beside it is XProf/TensorBoard's."""
    return (f"Perfetto trace: {path}. To see it on a timeline, open {PERFETTO_UI} and choose "
            "'Open trace file' with this file (XProf/TensorBoard read the .xplane.pb beside it).")


def _perfetto_html(path) -> str:
    if path is None:
        return ""
    link = f'<a href="{PERFETTO_UI}" target="_blank" rel="noopener">{PERFETTO_UI}</a>'
    return f"<div class='xjit-perfetto'>{esc(_perfetto_hint(path)).replace(PERFETTO_UI, link)}</div>"


def profile_html(prof, cell_label, perfetto_trace=None) -> str:
    """The tab's HTML: the lines table, then the kernels with their
    equations, then where the Perfetto trace was written."""
    eqns = {e.label: e for e in prof.equations}
    lines = []
    for filename, n, r, text in _source_rows(prof):
        if filename is None and r is None:
            lines.append("<tr><td colspan=5>⋮</td></tr>")
            continue
        loc = _line_where(cell_label, r) if r is not None else where(cell_label, filename, n)
        cells = (f"<td class='num'>{esc(seconds(r.time_s))}</td><td class='num'>{r.share:.1%}"
                 f"</td><td>{_bar(r.share)}</td>" if r is not None else "<td></td>" * 3)
        lines.append(f"<tr{source_attrs(cell_label, filename, n)}>{cells}"
                     f"<td class='xjit-loc'>{esc(loc)}</td><td class='src'>{esc(text)}</td></tr>")
    lines = "".join(lines)
    rows = []
    top, (n_rest, t_rest, sh_rest) = _kernels(prof)
    for op in top:
        chips = []
        for label in op.equations:
            e = eqns.get(label)
            attrs = source_attrs(cell_label, e.filename, e.lineno) if e is not None else ""
            tip = f' title="{esc(_line_where(cell_label, e))}"' if e is not None else ""
            chips.append(f'<span class="xjit-eqn"{attrs}{tip}>{esc(label)}</span>')
        rows.append(f"<tr><td class='num'>{esc(seconds(op.time_s))}</td>"
                    f"<td class='num'>{op.share:.1%}</td><td>{_bar(op.share)}</td>"
                    f"<td><code>{esc(op.name)}</code> ({esc(op.opcode)}, ×{op.count})</td>"
                    f"<td>{''.join(chips)}</td></tr>")
    if n_rest:
        rows.append(f"<tr><td class='num'>{esc(seconds(t_rest))}</td>"
                    f"<td class='num'>{sh_rest:.1%}</td><td>{_bar(sh_rest)}</td>"
                    f"<td colspan=2><i>{n_rest} more kernels</i></td></tr>")
    head = "<tr><th>time</th><th>share</th><th></th><th>{}</th><th>{}</th></tr>"
    return (f"<style>{STYLE}</style><div>{esc(_header(prof))}</div>"
            f"<table class='xjit-profile'><caption>By source line</caption>"
            f"{head.format('line', 'source')}{lines}</table>"
            f"<table class='xjit-profile'><caption>Top kernels</caption>"
            f"{head.format('kernel', 'equations fused into it')}{''.join(rows)}</table>"
            f"{_perfetto_html(perfetto_trace)}")


def profile_text(prof, cell_label, perfetto_trace=None) -> str:
    """The same as plain text."""
    out = [_header(prof), "By source line:"]
    for filename, n, r, text in _source_rows(prof):
        if filename is None and r is None:
            out.append("  ⋮")
            continue
        loc = _line_where(cell_label, r) if r is not None else where(cell_label, filename, n)
        cost = f"{seconds(r.time_s):>10} {r.share:6.1%}" if r is not None else " " * 17
        out.append(f"  {cost}  {loc}  {text}".rstrip())
    out.append("Top kernels:")
    top, (n_rest, t_rest, sh_rest) = _kernels(prof)
    out += [f"  {seconds(o.time_s):>10} {o.share:6.1%}  {o.name} ({o.opcode}, x{o.count}): "
            + " ".join(o.equations) for o in top]
    if n_rest:
        out.append(f"  {seconds(t_rest):>10} {sh_rest:6.1%}  {n_rest} more kernels")
    if perfetto_trace is not None:
        out.append(_perfetto_hint(perfetto_trace))
    return "\n".join(out)
