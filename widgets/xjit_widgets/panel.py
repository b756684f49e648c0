"""One panel per jitted function: tabs Jaxpr / Lint / Timing.

``FunctionPanel`` is an ipywidgets ``Tab`` (the Timing tab holds a plotly
``FigureWidget`` stacked bar: first call vs steady state) and also knows how
to render itself as text/plain and text/html, so it reads the same in
nbconvert output, on GitHub and in a terminal.
"""
from __future__ import annotations

import dataclasses

from . import render


@dataclasses.dataclass
class Timing:
    """Where one function's time went, for the Timing tab."""
    first: dict            # phase -> seconds for the first call (trace/lower/compile/transfer/run)
    steady_s: float | None  # minimum run time of later calls (block_until_ready)
    calls: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    reasons: list = dataclasses.field(default_factory=list)
    flops: float | None = None
    memory: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class PanelData:
    name: str
    filename: str | None
    lineno: int | None
    listing: object | None       # xjit.inspect.JaxprListing
    findings: list | None        # list of xjit.inspect.Finding, None when lint is off
    timing: Timing
    cell_label: object = render.short_file


class FunctionPanel:
    """Tabs for one function; build the widget lazily (tests and nbconvert
    use the text/html forms without a front end)."""

    TABS = ("Jaxpr", "Lint", "Timing")

    def __init__(self, data: PanelData):
        self.data = data
        self._widget = None

    # -- plain renderings
    def title(self) -> str:
        d = self.data
        return f"{d.name} ({d.cell_label(d.filename)}:{d.lineno})"

    def jaxpr_html(self):
        d = self.data
        return render.jaxpr_html(d.listing, d.cell_label) if d.listing else "<i>not traced</i>"

    def lint_html(self):
        d = self.data
        return render.lint_html(d.findings, d.cell_label) if d.findings is not None else \
            "<i>lint disabled</i>"

    def text(self) -> str:
        d = self.data
        parts = [f"== xjit: {self.title()} ==", "-- Jaxpr --",
                 render.jaxpr_text(d.listing) if d.listing else "(not traced)"]
        if d.findings is not None:
            parts += ["-- Lint --", render.lint_text(d.findings, d.cell_label)]
        parts += ["-- Timing --", render.timing_text(d.timing)]
        return "\n".join(parts)

    def html(self) -> str:
        t = render.esc(self.title())
        sections = [("Jaxpr", self.jaxpr_html())]
        if self.data.findings is not None:
            sections.append(("Lint", self.lint_html()))
        sections.append(("Timing", render.timing_html(self.data.timing)))
        body = "".join(f"<h4>{name}</h4>{content}" for name, content in sections)
        return f"<div class='xjit-panel'><h3>xjit: {t}</h3>{body}</div>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": self.text(), "text/html": self.html()}
        widget = self.widget()
        if widget is not None:
            bundle.update(widget._repr_mimebundle_(include=include, exclude=exclude) or {})
            bundle["text/plain"] = self.text()
        return bundle

    # -- the live widget
    def timing_figure(self):
        import plotly.graph_objects as go
        t = self.data.timing
        fig = go.FigureWidget()
        for phase in render.PHASES:
            first = (t.first.get(phase) or 0.0) * 1e3
            steady = ((t.steady_s or 0.0) * 1e3) if phase == "run" else 0.0
            fig.add_bar(name=phase, x=["first call", "steady state"], y=[first, steady])
        fig.update_layout(barmode="stack", height=260, margin=dict(l=40, r=10, t=30, b=30),
                          yaxis_title="ms", title=f"{self.data.name}: where the time goes")
        return fig

    def widget(self):
        if self._widget is None:
            try:
                import ipywidgets as w
            except ImportError:
                return None
            timing = w.VBox([self.timing_figure(), w.HTML(render.timing_html(self.data.timing))])
            children = [w.HTML(self.jaxpr_html()), w.HTML(self.lint_html()), timing]
            tab = w.Tab(children=children)
            for i, name in enumerate(self.TABS):
                tab.set_title(i, name)
            self._widget = w.VBox([w.HTML(f"<b>xjit: {render.esc(self.title())}</b>"), tab])
        return self._widget
