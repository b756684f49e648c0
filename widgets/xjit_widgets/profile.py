"""The Profile tab: where a function's device time goes, per line of the
user's source and per kernel, from an ``xjit.inspect.DeviceProfile``.

Shares are drawn as bars in plain CSS (a sized ``div``), so the tab stays
script-free like the rest of the panel; every row that stands for a source
line carries ``render.source_attrs`` (click-to-line). A kernel's equations
each carry their own line, since XLA may fuse equations of several lines
into one kernel.
"""
from __future__ import annotations

from .render import esc, source_attrs, where
from .units import seconds

MAX_KERNELS = 10   # kernels listed; the rest are summed in one row

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


def _header(prof) -> str:
    return (f"{seconds(prof.device_s)} device time per run on {prof.platform} "
            f"(wall {seconds(prof.wall_s)}; mean of {prof.repeat} runs)")


def _kernels(prof):
    """The top kernels, then one (count, seconds, share) for the rest."""
    top, rest = prof.ops[:MAX_KERNELS], prof.ops[MAX_KERNELS:]
    return top, (len(rest), sum(o.time_s for o in rest), sum(o.share for o in rest))


def profile_html(prof, cell_label) -> str:
    """The tab's HTML: the lines table, then the kernels with their equations."""
    eqns = {e.label: e for e in prof.equations}
    lines = "".join(
        f"<tr{source_attrs(cell_label, r.filename, r.lineno)}>"
        f"<td class='num'>{esc(seconds(r.time_s))}</td><td class='num'>{r.share:.1%}</td>"
        f"<td>{_bar(r.share)}</td><td class='xjit-loc'>{esc(_line_where(cell_label, r))}</td>"
        f"<td class='src'>{esc(r.source)}</td></tr>" for r in prof.lines)
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
            f"{head.format('kernel', 'equations fused into it')}{''.join(rows)}</table>")


def profile_text(prof, cell_label) -> str:
    """The same as plain text."""
    out = [_header(prof), "By source line:"]
    out += [f"  {seconds(r.time_s):>10} {r.share:6.1%}  {_line_where(cell_label, r)}  {r.source}"
            for r in prof.lines]
    out.append("Top kernels:")
    top, (n_rest, t_rest, sh_rest) = _kernels(prof)
    out += [f"  {seconds(o.time_s):>10} {o.share:6.1%}  {o.name} ({o.opcode}, x{o.count}): "
            + " ".join(o.equations) for o in top]
    if n_rest:
        out.append(f"  {seconds(t_rest):>10} {sh_rest:6.1%}  {n_rest} more kernels")
    return "\n".join(out)
