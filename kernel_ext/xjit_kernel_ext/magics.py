"""``%%xjit`` and friends: run a cell as usual, then show one panel per jitted
function the cell traced, compiled or called (Jaxpr / Lint / Timing, and
Profile with ``--profile``).

Only xjit's public API is used: ``xjit.inspect.subscribe`` to see which
functions a cell traced or compiled, ``functions()`` (call counters) for the
ones it merely called, and ``jaxpr_listing``, ``lint_function``,
``abstract_args``, ``profile`` and ``device_profile`` to fill the panels
(see ``panels``).
"""
from __future__ import annotations

import ast
import re
import shlex
import sys
import time

from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

import xjit
import xjit.inspect as xi

from .cells import cell_label_for, running_cell_count
from .panels import PanelBook
from .timing import time_statement


class _Collector:
    """Which functions a cell touched, in first-touched order: those traced
    or compiled (from events) and those merely called (from the call counts,
    so the cell's calls pay for no per-call event)."""

    def __init__(self):
        self.fun_ids: list[int] = []
        self.compiled: set[int] = set()  # compiled while collecting
        self._sub = None

    def __call__(self, event):
        if event.fun_id and event.fun_id not in self.fun_ids:
            self.fun_ids.append(event.fun_id)
        if event.kind == "compile":
            self.compiled.add(event.fun_id)

    def __enter__(self):
        self._calls_before = {i.fun_id: i.calls for i in xi.functions()}
        self._sub = xi.subscribe(self, kinds={"cache_miss", "trace", "compile"})
        return self

    def __exit__(self, *exc):
        self._sub.unsubscribe()
        self.infos = {}
        for info in xi.functions():
            self.infos[info.fun_id] = info
            if info.calls > self._calls_before.get(info.fun_id, 0) and \
                    info.fun_id not in self.fun_ids:
                self.fun_ids.append(info.fun_id)


_USAGE = "--repeat takes a positive integer, e.g. %%xjit --repeat 10"


def _parse(line):
    opts = {"nans": False, "repeat": 5, "lint": True, "quiet": False, "profile": False}
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
        elif w == "--profile":
            opts["profile"] = True
        elif w == "--repeat":
            i += 1
            try:
                opts["repeat"] = int(words[i])
            except (IndexError, ValueError):
                raise ValueError(_USAGE) from None
            if opts["repeat"] < 1:
                raise ValueError(_USAGE)
        else:
            raise ValueError(f"unknown %%xjit option {w!r}; options: --nans, --repeat N, "
                             "--no-lint, --quiet, --profile")
        i += 1
    return opts


def _cell_map():
    """The channel's cell ids (None when it is not running)."""
    from . import channel
    ch = channel()
    return ch.cells if ch is not None else None


def _publish(panel):
    from IPython.display import display
    display(panel._repr_mimebundle_(), raw=True)


@magics_class
class XjitMagics(Magics):
    def __init__(self, shell):
        super().__init__(shell)
        self.book = PanelBook()

    @property
    def panels(self) -> dict:
        """Function name -> its latest panel."""
        return self.book.by_name

    # -- running code the way IPython would
    def _run(self, source, ns, first_line: int = 1):
        """Execute ``source`` as part of the running cell (its line numbers
        and ``In [N]`` those of the cell); return the value of a trailing
        expression. ``first_line``: the cell line ``source`` starts at."""
        __tracebackhide__ = True  # noqa: F841 (IPython hides this frame)
        padded = "\n" * (first_line - 1) + source
        filename = self.shell.compile.cache(padded, running_cell_count(self.shell))
        tree = ast.parse(padded, filename)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, filename, "exec"), ns)
        if last is not None:
            return eval(compile(last, filename, "eval"), ns)
        return None

    def _observe(self, source, opts, first_line: int = 2):
        __tracebackhide__ = True  # noqa: F841
        ns = self.shell.user_ns
        with _Collector() as col:
            if opts["nans"]:
                with xjit.debug_nans(True):  # as jax_debug_nans: an inf is not an error
                    value = self._run(source, ns, first_line)
            else:
                value = self._run(source, ns, first_line)
        return value, col

    def _panels(self, col, opts):
        label = cell_label_for(self.shell, _cell_map())
        self.book.forget_dead(col.infos)  # functions the engine dropped (garbage collected)
        out = []
        for fid in col.fun_ids:
            info = col.infos.get(fid)
            if info is not None:
                out.append(self.book.panel(info, lint=opts["lint"], repeat=opts["repeat"],
                                           cell_label=label, profile=opts["profile"]))
        return out

    @cell_magic
    def xjit(self, line, cell):
        """Run the cell, then show Jaxpr / Lint / Timing panels for each jitted
        function it used. Options: --nans (as ``jax_debug_nans`` for the
        cell), --repeat N, --no-lint, --quiet,
        --profile (a Profile tab: device time per source line and kernel)."""
        __tracebackhide__ = True  # noqa: F841
        opts = _parse(line)
        try:
            value, col = self._observe(cell, opts)
        except BaseException as e:
            tb = xi.filter_traceback(e.__traceback__)
            raise e.with_traceback(tb) from None
        if value is not None and not cell.rstrip().endswith(";"):  # `;` hides it, as in IPython
            self.shell.displayhook(value)
        panels = self._panels(col, opts)
        if not opts["quiet"]:
            for p in panels:
                _publish(p)
        return None

    @line_magic
    def xjit_show(self, line):
        """Show the panels collected by earlier %%xjit cells (optionally one by name)."""
        name = line.strip()
        if name and name not in self.panels:
            known = ", ".join(sorted(self.panels)) or "none yet"
            raise KeyError(f"no xjit panel for {name!r}; known: {known}")
        for n, p in self.panels.items():
            if not name or n == name:
                _publish(p)

    @line_magic
    def xjit_jaxpr(self, line):
        """%xjit_jaxpr f(x, y): the jaxpr viewer for one call."""
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
        _publish(FunctionPanel(PanelData(name, None, None, xi.listing(closed),
                                         xi.lint(fun, *args, **kwargs), Timing({}, None),
                                         cell_label_for(self.shell, _cell_map()))))

    @line_magic
    def xjit_time(self, line):
        """%xjit_time [-n LOOPS] [-r RUNS] stmt: time ``stmt`` as %timeit does
        (mean ± std. dev. over RUNS runs of LOOPS loops, each waiting for
        the results with block_until_ready), after a first call split into
        trace / lower / compile / transfer / run for each jitted function."""
        loops, runs, stmt = _parse_time(line)
        ns = self.shell.user_ns
        with _Collector() as col:
            t0 = time.perf_counter()
            value = self._run(stmt, ns)
            xjit.block_until_ready(value)
            first = time.perf_counter() - t0
        code = _compile_statement(stmt)
        report = time_statement(lambda: xjit.block_until_ready(code(ns)), loops, runs)
        panels = self._panels(col, {"lint": False, "repeat": 5, "profile": False})
        lines = [f"first call: {_fmt(first)}"]
        for fid, p in zip([f for f in col.fun_ids if f in col.infos], panels):
            earlier = "" if fid in col.compiled else "compiled earlier, its first call: "
            lines.append(f"  {p.data.name}: {earlier}" + _first_split(p.data.timing))
        lines.append(report.summary())
        sys.stdout.write("\n".join(lines) + "\n")
        return None


def _fmt(s):
    from xjit_widgets.units import seconds
    return seconds(s)


def _first_split(t) -> str:
    from xjit_widgets.chart import PHASES
    parts = [f"{p} {_fmt(t.first[p])}" for p in PHASES if t.first.get(p) is not None]
    return ", ".join(parts) + (f" ({t.note})" if t.note else "")


_TIME_OPTION = re.compile(r"\s*-([nr])(?:\s+|(?=\d))(\S+)")


def _parse_time(line):
    """``[-n LOOPS] [-r RUNS] stmt`` -> (loops or None, runs, stmt)."""
    loops, runs, rest = None, 7, line
    while (m := _TIME_OPTION.match(rest)) is not None:
        try:
            value = int(m.group(2))
        except ValueError:
            value = 0
        if value < 1:
            raise ValueError(f"%xjit_time -{m.group(1)} takes a positive integer")
        if m.group(1) == "n":
            loops = value
        else:
            runs = value
        rest = rest[m.end():]
    if not rest.strip():
        raise ValueError("%xjit_time expects a statement, e.g. %xjit_time f(x)")
    return loops, runs, rest.strip()


def _compile_statement(stmt):
    """A callable running ``stmt`` in a namespace and returning the value of
    its last expression (None for a statement)."""
    tree = ast.parse(stmt, "<xjit_time>")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = compile(ast.Expression(tree.body.pop().value), "<xjit_time>", "eval")
    body = compile(tree, "<xjit_time>", "exec") if tree.body else None

    def run(ns):
        if body is not None:
            exec(body, ns)
        return eval(last, ns) if last is not None else None
    return run


def load(ipython):
    """Register the magics (called by ``%load_ext xjit``)."""
    ipython.register_magics(XjitMagics)
