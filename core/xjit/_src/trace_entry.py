"""One traced signature of a ``jit``: its jaxpr and, once compiled, its
executable (for the default device; ``placement`` runs it elsewhere)."""
from __future__ import annotations

import time
import warnings

from xjit._src import dispatch, monitoring, placement, tree_util
from xjit._src.array import ArrayImpl
from xjit._src.float0_plan import Float0Plan
from xjit._src.interpreters import mlir as lowering


class TraceEntry:
    """One traced signature: its jaxpr and, once compiled, its executable."""

    array_type = ArrayImpl  # what the fast path wraps each output buffer in
    __slots__ = ("closed", "out_tree", "executable", "donated", "trace_s", "lower_s",
                 "compile_s", "text", "in_avals", "name", "fid", "single_out", "ref_consts",
                 "execute", "handlers", "out_avals", "float0")

    def __init__(self, closed, out_tree, donated, trace_s, in_avals, name):
        self.closed, self.out_tree, self.donated = closed, out_tree, donated
        self.single_out = tree_util.treedef_is_leaf(out_tree) and out_tree.num_leaves == 1
        self.trace_s, self.in_avals, self.name = trace_s, in_avals, name
        self.executable = None
        self.lower_s = self.compile_s = 0.0
        self.text = None
        self.fid = 0
        self.ref_consts = ()  # closed-over refs, passed after the arguments
        self.float0 = Float0Plan.of(closed, donated)  # None for nearly every program

    def compile(self):
        if self.executable is None:
            t0 = time.perf_counter()
            if self.text is None:  # ``lower()`` may have made it already
                self.text = self.lower_text()
                self.lower_s = time.perf_counter() - t0
            t1 = time.perf_counter()
            self._warn_unusable_donations()
            device = dispatch.backend.default_device()
            self._install(dispatch.Executable(dispatch.compile_text(self.text, device),
                                              self.program().out_avals, self.text, device))
            self.compile_s = time.perf_counter() - t1
            if monitoring.has_duration_listeners():
                monitoring.record_event_duration_secs(monitoring.LOWER_DURATION, self.lower_s,
                                                      fun_name=self.name)
                monitoring.record_event_duration_secs(monitoring.COMPILE_DURATION,
                                                      self.compile_s, fun_name=self.name)
            observer = monitoring.jit_observer
            if observer is not None and self.fid:
                observer.compiled(self.fid, self)
        return self.executable

    def _install(self, exe):
        # what a call reads, one attribute away
        self.execute, self.handlers = exe.exe.execute_sharded, exe.handlers
        self.out_avals = exe.out_avals
        self.executable = exe

    def compiled_with(self, compiler_options):
        """This signature compiled with XLA options, as a new entry
        (``Lowered.compile(compiler_options=...)``); the jit's cached
        executable is left as it is."""
        other = TraceEntry(self.closed, self.out_tree, self.donated, self.trace_s,
                           self.in_avals, self.name)
        other.text = self.text if self.text is not None else self.lower_text()
        other.ref_consts = self.ref_consts
        device = dispatch.backend.default_device()
        other._install(dispatch.Executable(
            dispatch.compile_text(other.text, device, compiler_options),
            other.program().out_avals, other.text, device, compiler_options))
        return other

    def program(self):
        """The closed jaxpr the executable computes (float0 values left out)."""
        return self.closed if self.float0 is None else self.float0.closed

    def lower_text(self, platform=None):
        """The program's module text; for ``platform`` ("cpu", "gpu") rather
        than the default backend's when given."""
        donated = self.donated if self.float0 is None else self.float0.donated
        return lowering.lower_module(self.name, self.program(), donated, platform=platform)

    def run(self, bufs, describe=None):
        """Execute on the buffers of the arguments the executable takes, where
        the committed ones live; every result, float0 ones included.
        ``describe`` names the arguments for a device mismatch (placement.place)."""
        outs = placement.run(self.executable, bufs, describe or self._describe)
        return outs if self.float0 is None else self.float0.merge(outs)

    def _describe(self):
        return self.name, None, (self.in_avals if self.float0 is None
                                 else self.float0.kept(self.in_avals))

    def _warn_unusable_donations(self):
        if not any(self.donated):
            return
        aliases = lowering._donation_aliases(self.in_avals, self.closed.out_avals, self.donated)
        unused = [a.str_short(False) for i, (a, d) in enumerate(zip(self.in_avals, self.donated))
                  if d and i not in aliases]
        if unused:
            warnings.warn(f"Some donated buffers were not usable: {', '.join(unused)}.\n"
                          "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.")
