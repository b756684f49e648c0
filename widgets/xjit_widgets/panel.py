"""One panel per jitted function: tabs Jaxpr / Lint / Timing, Sharding
(shardings and collectives) when it ran over many devices, and Profile
(device time per source line and kernel) when the data carries a profile.

A ``FunctionPanel`` displays as a self-contained ``text/html`` fragment
(CSS tabs, the timing chart as inline SVG, no script; see ``static``) with
a ``text/plain`` twin. The same output is what JupyterLab shows live, what
a reopened notebook shows without a kernel, and what nbconvert, GitHub and
the exported HTML show: there is no widget model to restore and nothing
to download, so the panel is on screen as soon as its output message is.

Renderings are cached per panel: a panel is rebuilt only when its data
changes (the kernel extension keeps one per function and signature).
"""
from __future__ import annotations

import dataclasses

from . import profile, render, sharding
from .static import new_uid, panel_html


@dataclasses.dataclass
class Timing:
    """Where one function's time went, for the Timing tab."""
    first: dict                   # phase -> seconds of the first call (trace/lower/compile/transfer/run)
    steady_s: float | None        # typical run time of later calls: median (or mean with a std)
    calls: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    reasons: list = dataclasses.field(default_factory=list)  # recompile reasons, oldest first
    flops: float | None = None
    memory: dict = dataclasses.field(default_factory=dict)   # label -> bytes
    steady_std_s: float | None = None   # with steady_s the mean: %timeit's mean ± std
    steady_min_s: float | None = None   # with steady_s the median: fastest of the runs
    steady_runs: int = 0
    note: str = ""                      # why something was not measured
    history: list = dataclasses.field(default_factory=list)  # (n, signature, what changed) per compile
    budget_warning: str | None = None   # the recompile budget was exceeded


def notebook_label(filename) -> str:
    return render.short_file(filename)


@dataclasses.dataclass
class PanelData:
    name: str
    filename: str | None
    lineno: int | None
    listing: object | None       # xjit.inspect.JaxprListing
    findings: list | None        # list of xjit.inspect.Finding, None when lint is off
    timing: Timing
    cell_label: object = notebook_label
    profile: object | None = None  # xjit.inspect.DeviceProfile: adds the Profile tab
    profile_note: str = ""         # why a requested profile is missing (the tab says so)
    perfetto_trace: str | None = None  # the profile's perfetto_trace.json.gz, when written
    sharding: object | None = None  # xjit.inspect.ShardingInfo: adds the Sharding tab

    @property
    def profiled(self) -> bool:
        return self.profile is not None or bool(self.profile_note)


class FunctionPanel:
    """Tabs for one function, rendered on demand and cached."""

    def __init__(self, data: PanelData):
        self.data = data
        self.uid = new_uid()
        self._jaxpr_html: str | None = None
        self._lint_html: str | None = None

    def title(self) -> str:
        d = self.data
        return f"{d.name} ({render.where(d.cell_label, d.filename, d.lineno)})"

    def update_timing(self, timing: Timing) -> None:
        """New call statistics; the Jaxpr and Lint renderings are kept."""
        self.data.timing = timing

    # -- tab contents
    def jaxpr_html(self) -> str:
        if self._jaxpr_html is None:
            d = self.data
            self._jaxpr_html = (render.jaxpr_html(d.listing, d.cell_label, f"{self.uid}-j")
                                if d.listing else "<i>not traced</i>")
        return self._jaxpr_html

    def lint_html(self) -> str:
        if self._lint_html is None:
            d = self.data
            self._lint_html = (render.lint_html(d.findings, d.cell_label)
                               if d.findings is not None else "<i>lint disabled</i>")
        return self._lint_html

    def _source_attrs(self) -> str:
        d = self.data
        return render.source_attrs(d.cell_label, d.filename, d.lineno)

    def timing_html(self) -> str:
        d = self.data
        defined = ""
        if d.lineno is not None:
            defined = (f'<div class="xjit-defined"{self._source_attrs()}>defined at '
                       f'<span class="xjit-loc">{render.esc(render.where(d.cell_label, d.filename, d.lineno))}'
                       "</span></div>")
        return defined + render.timing_html(d.timing, f"{d.name}: where the time goes")

    def set_profile(self, prof, note: str = "", perfetto_trace: str | None = None) -> None:
        """Show (or, with None and no note, hide) the Profile tab."""
        d = self.data
        d.profile, d.profile_note, d.perfetto_trace = prof, note, perfetto_trace

    def profile_html(self) -> str:
        d = self.data
        if d.profile is None:
            return f"<i>{render.esc(d.profile_note)}</i>"
        return profile.profile_html(d.profile, d.cell_label, d.perfetto_trace)

    def tabs(self) -> list:
        out = [("Jaxpr", self.jaxpr_html()), ("Lint", self.lint_html()),
               ("Timing", self.timing_html())]
        if self.data.sharding is not None:
            out.append(("Sharding", sharding.sharding_html(self.data.sharding,
                                                           self.data.cell_label)))
        if self.data.profiled:
            out.append(("Profile", self.profile_html()))
        return out

    # -- whole-panel renderings
    def text(self) -> str:
        d = self.data
        parts = [f"== xjit: {self.title()} ==", "-- Jaxpr --",
                 render.jaxpr_text(d.listing) if d.listing else "(not traced)",
                 "-- Lint --",
                 render.lint_text(d.findings, d.cell_label) if d.findings is not None
                 else "(lint disabled)",
                 "-- Timing --", render.timing_text(d.timing)]
        if d.sharding is not None:
            parts += ["-- Sharding --", sharding.sharding_text(d.sharding, d.cell_label)]
        if d.profiled:
            parts += ["-- Profile --", profile.profile_text(d.profile, d.cell_label, d.perfetto_trace)
                      if d.profile is not None else f"({d.profile_note})"]
        return "\n".join(parts)

    def html(self) -> str:
        tabs = self.tabs()  # a profile the cell asked for opens first
        return panel_html(self.title(), tabs, uid=self.uid, title_attrs=self._source_attrs(),
                          selected=len(tabs) - 1 if self.data.profiled else 0)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.text(), "text/html": self.html()}
