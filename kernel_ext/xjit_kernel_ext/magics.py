"""``%%xjit`` and friends: run a cell as usual, then show one panel per jitted
function the cell traced, compiled or called (Jaxpr / Lint / Timing).

Only xjit's public inspection API is used: ``xjit.inspect.subscribe`` to see
which functions a cell touched, ``functions()``, ``jaxpr_listing``,
``lint_function`` and ``profile`` to fill the panels.
"""
from __future__ import annotations

import ast
import shlex
import sys
import time

from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

import xjit
import xjit.inspect as xi


class _Collector:
    """Which functions a cell touched, in first-touched order: those traced
    or compiled (from events) and those merely called (from the call counts,
    so the cell's calls pay for no per-call event)."""

    def __init__(self):
        self.fun_ids: list[int] = []
        self._sub = None

    def __call__(self, event):
        if event.fun_id and event.fun_id not in self.fun_ids:
            self.fun_ids.append(event.fun_id)

    def __enter__(self):
        from xjit._src.inspect import events
        self._events = events
        self._prev_capture = events.state.capture_args
        self._calls_before = {i.fun_id: i.calls for i in xi.functions()}
        events.state.capture_args = True
        self._sub = xi.subscribe(self, kinds={"cache_miss", "trace", "compile"})
        return self

    def __exit__(self, *exc):
        self._sub.unsubscribe()
        self._events.state.capture_args = self._prev_capture
        for info in xi.functions():
            if info.calls > self._calls_before.get(info.fun_id, 0) and \
                    info.fun_id not in self.fun_ids:
                self.fun_ids.append(info.fun_id)


def _parse(line):
    opts = {"nans": False, "repeat": 5, "lint": True, "quiet": False}
    words = shlex.split(line)
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--nans":
            opts["nans"] = True
        elif w == "--no-lint":
            opts["lint"] = False
        elif w == "--quiet":
            opts["quiet"] = True
        elif w == "--repeat":
            i += 1
            try:
                opts["repeat"] = int(words[i])
            except (IndexError, ValueError):
                raise ValueError("--repeat takes a positive integer, e.g. %%xjit --repeat 10") from None
            if opts["repeat"] < 1:
                raise ValueError("--repeat takes a positive integer, e.g. %%xjit --repeat 10")
        else:
            raise ValueError(f"unknown %%xjit option {w!r}; options: --nans, --repeat N, "
                             "--no-lint, --quiet")
        i += 1
    return opts


def cell_label_for(shell):
    """Name a source file the way a notebook user knows it (``In[3]``)."""
    fmap = getattr(getattr(shell, "compile", None), "_filename_map", {}) or {}

    def label(filename):
        if filename in fmap and fmap[filename] is not None:
            return f"In[{fmap[filename]}]"
        from xjit_widgets.render import short_file
        return short_file(filename)
    return label


def build_panel(info, *, lint=True, repeat=5, label=None):
    """A FunctionPanel for one jitted function (as reported by inspect)."""
    from xjit._src.inspect import events
    from xjit_widgets import FunctionPanel, PanelData, Timing
    listing = xi.jaxpr_listing(info.fun_id)
    findings = None
    if lint:
        try:
            findings = xi.lint_function(info.fun_id)
        except Exception as e:  # lint is advisory: report, don't fail the cell
            findings = [xi.Finding("lint-error", f"lint failed: {type(e).__name__}: {e}",
                                   info.filename, info.lineno)]
    first = {"trace": info.trace_s, "lower": info.lower_s, "compile": info.compile_s}
    steady, flops, memory = None, None, {}
    saved = events.last_args.get(info.fun_id)
    fun = xi.function(info.fun_id)
    if saved is not None and fun is not None and repeat:
        args, kwargs = saved
        try:
            prof = xi.profile(fun, *args, repeat=repeat, **kwargs)
        except Exception:  # e.g. donated arguments that are gone: show what we have
            prof = None
        if prof is not None:
            first.update(transfer=prof.transfer_in_s + prof.transfer_out_s, run=prof.run_s)
            steady, flops = prof.run_s, prof.flops
            memory = {k: v for k, v in (("argument bytes", prof.argument_bytes),
                                        ("output bytes", prof.output_bytes),
                                        ("temp bytes", prof.temp_bytes)) if v is not None}
    timing = Timing(first, steady, info.calls, info.cache_hits, info.cache_misses,
                    list(info.recompile_reasons), flops, memory)
    return FunctionPanel(PanelData(info.name, info.filename, info.lineno, listing, findings,
                                   timing, label or cell_label_for(None)))


@magics_class
class XjitMagics(Magics):
    def __init__(self, shell):
        super().__init__(shell)
        self.panels: dict[str, object] = {}  # function name -> latest panel

    # -- running code the way IPython would
    def _run(self, source, ns):
        """Execute ``source``; return the value of a trailing expression."""
        __tracebackhide__ = True  # noqa: F841 (IPython hides this frame)
        filename = self.shell.compile.cache(source, self.shell.execution_count)
        tree = ast.parse(source, filename)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, filename, "exec"), ns)
        if last is not None:
            return eval(compile(last, filename, "eval"), ns)
        return None

    def _observe(self, source, opts):
        __tracebackhide__ = True  # noqa: F841
        ns = self.shell.user_ns
        with _Collector() as col:
            if opts["nans"]:
                with xjit.debug_nans(True), xjit.debug_infs(True):
                    value = self._run(source, ns)
            else:
                value = self._run(source, ns)
        return value, col.fun_ids

    def _panels(self, fun_ids, opts):
        label = cell_label_for(self.shell)
        infos = {i.fun_id: i for i in xi.functions()}
        out = []
        for fid in fun_ids:
            if fid in infos:
                p = build_panel(infos[fid], lint=opts["lint"], repeat=opts["repeat"], label=label)
                self.panels[infos[fid].name] = p
                out.append(p)
        return out

    @cell_magic
    def xjit(self, line, cell):
        """Run the cell, then show Jaxpr / Lint / Timing panels for each jitted
        function it used. Options: --nans, --repeat N, --no-lint, --quiet."""
        __tracebackhide__ = True  # noqa: F841
        opts = _parse(line)
        try:
            value, fun_ids = self._observe(cell, opts)
        except BaseException as e:
            tb = xi.filter_traceback(e.__traceback__)
            raise e.with_traceback(tb) from None
        if value is not None:
            self.shell.displayhook(value)
        panels = self._panels(fun_ids, opts)
        if not opts["quiet"]:
            from IPython.display import display
            for p in panels:
                display(p)
        return None

    @line_magic
    def xjit_show(self, line):
        """Show the panels collected by earlier %%xjit cells (optionally one by name)."""
        from IPython.display import display
        name = line.strip()
        if name and name not in self.panels:
            known = ", ".join(sorted(self.panels)) or "none yet"
            raise KeyError(f"no xjit panel for {name!r}; known: {known}")
        for n, p in self.panels.items():
            if not name or n == name:
                display(p)

    @line_magic
    def xjit_jaxpr(self, line):
        """%xjit_jaxpr f(x, y): the jaxpr viewer for one call."""
        from IPython.display import display
        from xjit_widgets import FunctionPanel, PanelData, Timing
        call = ast.parse(line.strip(), mode="eval").body
        if not isinstance(call, ast.Call):
            raise ValueError("%xjit_jaxpr expects a call, e.g. %xjit_jaxpr f(x)")
        ns = self.shell.user_ns
        fun = eval(compile(ast.Expression(call.func), "<xjit_jaxpr>", "eval"), ns)
        args = [eval(compile(ast.Expression(a), "<xjit_jaxpr>", "eval"), ns) for a in call.args]
        kwargs = {k.arg: eval(compile(ast.Expression(k.value), "<xjit_jaxpr>", "eval"), ns)
                  for k in call.keywords}
        closed = xjit.make_jaxpr(fun)(*args, **kwargs)
        name = getattr(fun, "__name__", "function")
        panel = FunctionPanel(PanelData(name, None, None, xi.listing(closed),
                                        xi.lint(fun, *args, **kwargs), Timing({}, None),
                                        cell_label_for(self.shell)))
        display(panel)

    @line_magic
    def xjit_time(self, line):
        """%xjit_time stmt: like %timeit, split into trace / lower / compile /
        transfer / run, with block_until_ready handled for you."""
        ns = self.shell.user_ns
        with _Collector() as col:
            t0 = time.perf_counter()
            value = self._run(line, ns)
            xjit.block_until_ready(value)
            total = time.perf_counter() - t0
        panels = self._panels(col.fun_ids, {"lint": False, "repeat": 7})
        lines = [f"first run (incl. compile): {total * 1e3:.3f} ms"]
        for p in panels:
            t = p.data.timing
            phases = ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in t.first.items() if v is not None)
            steady = f"; steady run {t.steady_s * 1e6:.1f} µs" if t.steady_s else ""
            lines.append(f"{p.data.name}: {phases}{steady}")
        sys.stdout.write("\n".join(lines) + "\n")
        return None


def load(ipython):
    """Register the magics (called by ``%load_ext xjit``)."""
    ipython.register_magics(XjitMagics)
