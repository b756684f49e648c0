"""The Timing tab's chart as inline SVG: where one function's time goes.

Two horizontal bars on one linear scale: the first call, stacked by phase
(trace, lower, compile, transfer, run), and a later call (run only, the mean
of the timed runs). A legend names each phase's colour with its time, so the
numbers stay readable when a phase is too thin to see. Plain SVG with
presentation attributes and no script: it renders in JupyterLab, nbconvert
HTML and any browser, and keeps working in a reopened notebook.
"""
from __future__ import annotations

from html import escape

from .units import seconds

PHASES = ("trace", "lower", "compile", "transfer", "run")
COLORS = {"trace": "#4e79a7", "lower": "#f28e2b", "compile": "#e15759",
          "transfer": "#76b7b2", "run": "#59a14f"}

WIDTH = 560
LABEL_W = 96
BAR_H = 18
ROW_GAP = 10


def _rect(x, y, w, h, fill, title) -> str:
    return (f'<rect x="{x:.1f}" y="{y}" width="{max(w, 0.0):.1f}" height="{h}" fill="{fill}">'
            f"<title>{escape(title)}</title></rect>")


def _text(x, y, text, anchor="start", size=11, fill="#333") -> str:
    return (f'<text x="{x:.1f}" y="{y}" font-size="{size}" fill="{fill}" text-anchor="{anchor}" '
            f'font-family="sans-serif">{escape(text)}</text>')


def timing_svg(first: dict, steady_s, title: str = "") -> str:
    """``first``: phase -> seconds of the first call (missing phases are
    skipped); ``steady_s``: a later call's run time (or None)."""
    phases = [(p, float(first[p])) for p in PHASES if isinstance(first.get(p), (int, float))
              and first[p] >= 0]
    first_total = sum(v for _, v in phases)
    scale_max = max(first_total, steady_s or 0.0) or 1.0
    plot_w = WIDTH - LABEL_W - 90
    x_of = lambda s: plot_w * s / scale_max  # noqa: E731

    parts = []
    y = 22 if title else 4
    if title:
        parts.append(_text(0, 14, title, size=12, fill="#111"))
    rows = [("first call", phases, first_total)]
    if steady_s is not None:
        rows.append(("later call", [("run", float(steady_s))], float(steady_s)))
    for label, segs, total in rows:
        parts.append(_text(LABEL_W - 6, y + BAR_H - 5, label, anchor="end"))
        x = float(LABEL_W)
        for phase, v in segs:
            w = x_of(v)
            parts.append(_rect(x, y, w, BAR_H, COLORS[phase], f"{label}: {phase} {seconds(v)}"))
            x += w
        parts.append(_text(x + 6, y + BAR_H - 5, seconds(total)))
        y += BAR_H + ROW_GAP

    # legend: one swatch per phase shown, with its first-call time
    lx, ly = float(LABEL_W), y + 4
    for phase, v in phases:
        entry = f"{phase} {seconds(v)}"
        parts.append(f'<rect x="{lx:.1f}" y="{ly}" width="10" height="10" fill="{COLORS[phase]}"/>')
        parts.append(_text(lx + 14, ly + 9, entry))
        lx += 14 + 6.5 * len(entry) + 14
        if lx > WIDTH - 80:
            lx, ly = float(LABEL_W), ly + 16
    height = ly + 16
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="xjit-chart" width="{WIDTH}" '
            f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
            f'aria-label="{escape(title or "timing")}">' + "".join(parts) + "</svg>")
