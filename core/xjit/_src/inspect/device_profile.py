"""Where a jitted function's device time goes: per kernel, per jaxpr
equation and per line of the user's source (``xjit.inspect.device_profile``);
and where the live device memory was allocated (``memory_profile``).

Lowering gives every op the location of its equation (``mlir.eqn_loc``:
``jit(f)/<scope>/<primitive>#<n>`` and the user's file, line and function);
XLA keeps it as each HLO instruction's metadata through fusion. A profiler
session around a few calls records one device event per executed kernel
(thunk on CPU, kernel on GPU) named after its top-level HLO instruction. We
join the two: an event's time goes to the instructions it ran (the fused
computation's, for a fusion), split among them by their arithmetic, and from
there to their equations and lines.
"""
from __future__ import annotations

import collections
import dataclasses
import html
import linecache
import math
import os
import re
import statistics
import time

import numpy as np

from xjit._src import profiler, traceback_util, tree_util

# -- the optimized HLO module's text ------------------------------------------

_COMPUTATION = re.compile(r"^(?:ENTRY )?%(\S+) .*\{$")
_INSTRUCTION = re.compile(r"^\s*(?:ROOT )?%(\S+) = (.+?) ([a-z][a-z0-9-]*)\((.*)$")
_OPERAND = re.compile(r"%([\w.-]+)")
_CALLS = re.compile(r"\bcalls=%([\w.-]+)")
_METADATA = re.compile(r'metadata=\{((?:[^}"]|"(?:[^"\\]|\\.)*")*)\}')
_OP_NAME = re.compile(r'\bop_name="((?:[^"\\]|\\.)*)"')
_FRAME = re.compile(r"stack_frame_id=(\d+)")
_SOURCE = re.compile(r'source_file="((?:[^"\\]|\\.)*)" source_line=(\d+)')
_ARRAY = re.compile(r"\b[a-z]+\d*\[([\d,]*)\]")
_CONTRACTING = re.compile(r"lhs_contracting_dims=\{([\d,]*)\}")
_EQN_NAME = re.compile(r"^(.*?)([^/]+)#(\d+)$")
_TABLE_ROW = re.compile(r'^(\d+) (?:"((?:[^"\\]|\\.)*)"|\{(.*)\})$')
_STR = r'"((?:[^"\\]|\\.)*)"'
_MLIR_LOC = re.compile(rf' loc\({_STR}\({_STR}\({_STR}:(\d+):0\)\)\)')
_NO_WORK = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "copy-start",
            "copy-done", "after-all", "partition-id", "replica-id", "broadcast", "reshape"}
# elementwise ops costing several multiply-adds per element (XLA's cost
# analysis counts them apart, as "transcendentals")
_TRANSCENDENTAL = {"exponential", "exponential-minus-one", "log", "log-plus-one", "tanh",
                   "logistic", "sine", "cosine", "tan", "power", "sqrt", "rsqrt", "cbrt",
                   "atan2", "erf", "divide"}


@dataclasses.dataclass(frozen=True)
class _Instr:
    name: str
    opcode: str
    shape: str        # the result type, as printed
    dims: tuple       # the first array shape of the result
    operands: tuple
    calls: str | None  # the fused computation, for a fusion
    op_name: str | None
    source: tuple | None  # (file, line, function)
    rest: str


def _unescape(s):
    return re.sub(r"\\(.)", r"\1", s)


def _parse_hlo(text: str):
    """``{instruction name: _Instr}`` and ``{computation: [names]}`` of an
    HLO module's text, with each instruction's source from the module's
    stack-frame tables."""
    tables = collections.defaultdict(dict)
    section = None
    instrs, comps, comp = {}, {}, None
    raw = []
    for line in text.splitlines():
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            section = line
            continue
        if section is not None:
            m = _TABLE_ROW.match(line)
            if m:
                tables[section][int(m[1])] = _unescape(m[2]) if m[2] is not None else m[3]
                continue
            section = None
        m = _COMPUTATION.match(line)
        if m:
            comp = comps.setdefault(m[1], [])
            continue
        m = _INSTRUCTION.match(line)
        if m and comp is not None:
            comp.append(m[1])
            raw.append(m)
    frames = _frames(tables)
    for m in raw:
        name, shape, opcode, rest = m[1], m[2], m[3], m[4]
        dims = _ARRAY.search(shape)
        dims = tuple(int(d) for d in dims[1].split(",") if d) if dims else ()
        args = rest.split(")", 1)[0]
        meta = _METADATA.search(rest)
        op_name = source = None
        if meta:
            n = _OP_NAME.search(meta[1])
            op_name = _unescape(n[1]) if n else None
            f = _FRAME.search(meta[1])
            s = _SOURCE.search(meta[1])
            if f:
                source = frames.get(int(f[1]))
            elif s:
                source = (_unescape(s[1]), int(s[2]), None)
        calls = _CALLS.search(rest)
        instrs[name] = _Instr(name, opcode, shape, dims, tuple(_OPERAND.findall(args)),
                              calls[1] if calls else None, op_name, source, rest)
    return instrs, comps


def _mlir_locations(text: str) -> dict:
    """``{op name: (file, line, function)}`` from the lowered module's
    locations (``mlir.eqn_loc``): the source of every equation, also where
    XLA merged two instructions and dropped their frames."""
    return {_unescape(m[1]): (_unescape(m[3]), int(m[4]), _unescape(m[2]))
            for m in _MLIR_LOC.finditer(text)}


def _frames(tables):
    """Stack frame id -> (file, line, function) of the frame itself."""
    out = {}
    for fid, frame in tables["StackFrames"].items():
        loc = _fields(frame).get("file_location_id")
        fl = _fields(tables["FileLocations"].get(loc, ""))
        if fl:
            out[fid] = (tables["FileNames"].get(fl.get("file_name_id")), fl.get("line"),
                        tables["FunctionNames"].get(fl.get("function_name_id")))
    return out


def _fields(s):
    return {k: int(v) for k, v in (kv.split("=") for kv in s.split() if "=" in kv)}


def _work(ins: _Instr, instrs) -> float:
    """The instruction's arithmetic, to split a fused kernel's time among its
    parts: output elements, times the contracted extent for a dot or a
    convolution, and a few times more for a transcendental function; nothing
    for instructions that compute nothing (inside a fusion a broadcast or
    reshape is only indexing). A model, not a measurement: XLA times kernels."""
    if ins.opcode in _NO_WORK:
        return 0.0
    n = float(math.prod(ins.dims))
    if ins.opcode in _TRANSCENDENTAL:
        n *= 8
    elif ins.opcode == "dot" and ins.operands:
        lhs = instrs.get(ins.operands[0])
        m = _CONTRACTING.search(ins.rest)
        if lhs is not None and m:
            n *= math.prod(lhs.dims[int(d)] for d in m[1].split(",") if d)
    elif ins.opcode == "convolution" and len(ins.operands) > 1:
        rhs = instrs.get(ins.operands[1])
        if rhs is not None and rhs.dims:
            n *= math.prod(rhs.dims) / max(rhs.dims)
    return n


def _members(ins: _Instr, instrs, comps):
    """The located instructions a kernel runs: a fusion's fused computation
    (nested fusions included), or the instruction itself."""
    if ins.calls is None:
        return [ins]
    out = []
    for name in comps.get(ins.calls, ()):
        inner = instrs[name]
        out.extend(_members(inner, instrs, comps) if inner.opcode == "fusion" else [inner])
    return out


# -- the result ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class OpTime:
    """One kernel: a top-level HLO instruction (often a fusion) and the
    equations XLA compiled into it."""
    name: str
    opcode: str
    time_s: float   # per run
    share: float
    count: int      # executions per run
    equations: tuple  # EqnTime.label of each equation it computes


@dataclasses.dataclass(frozen=True)
class EqnTime:
    """One jaxpr equation (numbered in lowering order) and its device time."""
    number: int
    primitive: str
    scope: str      # "jit(f)/block/..." without the primitive
    filename: str | None
    lineno: int | None
    function: str | None
    time_s: float
    share: float
    kernels: tuple  # OpTime.name of each kernel that computes it

    @property
    def label(self):  # "(unattributed)": XLA's own instructions (copies, ...)
        return f"{self.primitive}#{self.number}" if self.number >= 0 else self.primitive


@dataclasses.dataclass(frozen=True)
class ScopeTime:
    """One scope path of the op names (``named_scope``s, and a nested
    ``jit(g)`` or loop body as in JAX's), relative to the jitted function,
    with the device time of its equations and of its sub-scopes'."""
    scope: str      # "block/attn"
    time_s: float
    share: float
    equations: tuple  # EqnTime.label of each equation under it


@dataclasses.dataclass(frozen=True)
class LineTime:
    filename: str | None
    lineno: int | None
    function: str | None
    time_s: float
    share: float
    equations: tuple

    @property
    def source(self) -> str:
        if self.filename is None:
            return ""
        return linecache.getline(self.filename, self.lineno).strip()

    @property
    def where(self) -> str:
        if self.filename is None:
            return "(no source line)"
        return f"{os.path.basename(self.filename)}:{self.lineno} ({self.function})"


@dataclasses.dataclass
class DeviceProfile:
    """Device time of ``repeat`` runs of one compiled function, per run.

    ``device_s`` is the kernels' summed time, which ``ops``, ``equations``
    and ``lines`` each divide up exactly (``scopes`` too, less the time
    outside every scope, but a scope's total includes its sub-scopes');
    ``span_s`` the time from a run's first kernel start to its last kernel
    end (below ``device_s`` when kernels overlap, above when the device
    idles between them; the busy time where the profiler gives kernels no
    run id); ``wall_s`` the host time of a call until its outputs were
    ready. All are means over the runs, so they compare. ``run_spans``
    places each run in Unix time (the sidebar's device lane); for a program
    over several devices (``devices`` > 1) the times are summed over them,
    and ``device_spans`` places each device's part of each run."""
    fun_name: str
    module: str
    platform: str
    repeat: int
    device_s: float
    span_s: float
    wall_s: float
    ops: list
    equations: list
    lines: list
    xspace: bytes = dataclasses.field(repr=False)
    scopes: list = dataclasses.field(default_factory=list)
    run_spans: list = dataclasses.field(default_factory=list)  # (start, end, device s), Unix s
    devices: int = 1
    device_spans: list = dataclasses.field(default_factory=list)  # (device, start, end, busy s)

    def export(self, log_dir, create_perfetto_trace: bool = False) -> str:
        """Write the underlying trace where XProf/TensorBoard looks for it
        (``log_dir/plugins/profile/<run>/<host>.xplane.pb``), and with
        ``create_perfetto_trace`` a ``perfetto_trace.json.gz`` beside it for
        ui.perfetto.dev (as ``xjit.profiler.start_trace``); returns that run's folder."""
        profiler.export_xspace(self.xspace, str(log_dir))
        if create_perfetto_trace:
            profiler.write_perfetto_trace(log_dir)
        return str(profiler.latest_run_dir(log_dir))

    def annotated_source(self, context: int = 2) -> str:
        """The profiled source, line_profiler style: each file's lines from
        ``context`` before the first line with device time to ``context``
        after the last, each with its time and share per run."""
        out = []
        for filename, rows in self._source_blocks(context):
            out.append(f"{filename}")
            out.extend(_text_table(["time", "share", "line", "source"], rows))
        return "\n".join(out)

    def _source_blocks(self, context):
        """(file, rows of (time, share, line number, source text)) per file."""
        per_file = collections.defaultdict(dict)
        for r in self.lines:
            if r.filename is not None:
                per_file[r.filename][r.lineno] = r
        for filename, by_line in per_file.items():
            lo, hi = max(1, min(by_line) - context), max(by_line) + context
            rows = []
            for n in range(lo, hi + 1):
                text = linecache.getline(filename, n).rstrip()
                if not text and n > max(by_line):
                    break
                r = by_line.get(n)
                rows.append((_fmt(r.time_s) if r else "", f"{r.share:6.1%}" if r else "", n,
                             text))
            yield filename, rows

    def _tables(self, limit):
        """(title, column heads, rows of (seconds, share, *cells)) per view
        (by scope only where the function has scopes)."""
        scopes = [("By named scope", ["scope", "equations"],
                   [(r.time_s, r.share, r.scope, " ".join(r.equations))
                    for r in self.scopes[:limit]])] if self.scopes else []
        return (
            ("By source line", ["line", "source"],
             [(r.time_s, r.share, r.where, r.source) for r in self.lines[:limit]]),
            *scopes,
            ("By kernel", ["kernel", "equations"],
             [(r.time_s, r.share, r.name, " ".join(r.equations)) for r in self.ops[:limit]]),
            ("By equation", ["equation", "line"],
             [(r.time_s, r.share, r.label,
               f"{os.path.basename(r.filename)}:{r.lineno}" if r.filename else "")
              for r in self.equations[:limit]]),
        )

    def _header(self):
        where = self.platform if self.devices == 1 else \
            f"{self.devices} {self.platform} devices (summed)"
        return (f"Device profile of {self.fun_name} on {where}: {_fmt(self.device_s)} "
                f"device time per run (span {_fmt(self.span_s)}, wall {_fmt(self.wall_s)}; "
                f"{self.repeat} runs)")

    def __repr__(self):
        out = [self._header()]
        for title, head, rows in self._tables(12):
            out.append(f"\n{title}:")
            out.extend(_text_table(["time", "share", *head],
                                   [(_fmt(t), f"{sh:6.1%}", *cells) for t, sh, *cells in rows]))
        return "\n".join(out)

    def _repr_html_(self):
        parts = [f"<div><b>{html.escape(self._header())}</b>"]
        for filename, rows in self._source_blocks(2):
            parts.append(f"<h4>{html.escape(filename)}</h4><pre>")
            parts.extend(f"{html.escape(t):>9s} {html.escape(sh):>7s} {n:5d}  {html.escape(src)}\n"
                         for t, sh, n, src in rows)
            parts.append("</pre>")
        for title, head, rows in self._tables(20):
            parts.append(f"<h4>{title}</h4>")
            parts.append(_html_table(["time", "share", *head],
                                     [(_fmt(t), sh, *cells) for t, sh, *cells in rows],
                                     "#4c78a8"))
        return "".join(parts) + "</div>"


def _text_table(head, rows):
    """Lines of a left-aligned table (the last column unpadded)."""
    widths = [max([len(h)] + [len(str(r[i])) for r in rows]) for i, h in enumerate(head)]
    widths[-1] = 0
    return ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
            for r in [head, *rows]]


def _html_table(head, rows, color):
    """An HTML table whose second column, a share, is drawn as a bar too."""
    out = ["<table><tr>", *(f"<th>{h}</th>" for h in head), "</tr>"]
    for first, share, *cells in rows:
        out.append(f"<tr><td>{html.escape(str(first))}</td><td>{share:.1%}<div style=\""
                   f"background:{color};height:8px;width:{share * 100:.0f}px\"></div></td>")
        out.extend(f"<td><code>{html.escape(str(c))}</code></td>" for c in cells)
        out.append("</tr>")
    return "".join(out) + "</table>"


def _fmt(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


# -- collecting ----------------------------------------------------------------


def _wait(out):
    """Block until every array a compiled call returned is computed."""
    for x in tree_util.tree_leaves(out):
        x.block_until_ready()


def device_profile(fun, *args, repeat: int = 5, **kwargs) -> DeviceProfile:
    """Run ``jit(fun)(*args, **kwargs)`` ``repeat`` times under XLA's
    profiler (after one warm-up call) and attribute the device time to
    kernels, jaxpr equations and source lines. On a GPU the profiled build
    launches its kernels one by one rather than as a CUDA graph."""
    from xjit._src.pjit import PjitFunction
    if not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be a positive integer, got {repeat!r}")
    jf = fun if isinstance(fun, PjitFunction) else PjitFunction(fun)
    lowered = jf.lower(*args, **kwargs)
    # XLA's GPU backend replays a program's kernels as one CUDA graph, whose
    # events all name the graph ("command_buffer_1"): profile a build without
    # graphs, so each kernel names its own HLO instruction
    gpu = profiler.client_for(None).platform in ("gpu", "cuda")
    compiled = lowered.compile({"xla_gpu_enable_command_buffer": ""} if gpu else None)
    if not hasattr(compiled, "runtime_executable"):  # a program over many devices
        leaves = tree_util.tree_leaves(jf._split(args, kwargs)[:2])
        if any(compiled._entry.donated):
            leaves = [np.array(x) for x in leaves]  # laid out anew each call: none consumed
        args, kwargs = leaves, {}
    calls = [_fresh_args(compiled, args, kwargs) for _ in range(repeat + 1)]
    _wait(compiled(*calls[0][0], **calls[0][1]))
    walls = []

    def run():
        for a, k in calls[1:]:
            t0 = time.perf_counter()
            _wait(compiled(*a, **k))
            walls.append(time.perf_counter() - t0)
    options = profiler.ProfileOptions()
    options.python_tracer_level = 0  # every Python call an event: host overhead, no device time
    xspace = profiler.collect_xspace(run, options)
    exe = compiled.runtime_executable() if hasattr(compiled, "runtime_executable") else \
        compiled._exe.exe
    hlo = exe.hlo_modules()[0]
    return _attribute(xspace, hlo.name, hlo.to_string(),
                      _mlir_locations(lowered.as_text(debug_info=True)),
                      getattr(compiled, "__name__", None) or getattr(fun, "__name__",
                                                                     type(fun).__name__),
                      exe.local_devices()[0], repeat, statistics.fmean(walls))


def _fresh_args(compiled, args, kwargs):
    """The call's arguments, as host copies where arguments are donated (a
    run consumes them, and the caller's arrays must survive)."""
    info = getattr(compiled, "args_info", None)  # None: an SPMD program, its own copies
    if info is None or not any(i.donated for i in tree_util.tree_leaves(info)):
        return args, kwargs
    return tree_util.tree_map(lambda x: np.array(x) if hasattr(x, "dtype") else x,
                              (args, kwargs))


def _kernel_events(data, module: str):
    """[instruction name, run id, start ns, self ns, end ns, device] of each
    kernel of ``module`` (device: its ordinal, from the device plane's name
    or the CPU event's ``device_ordinal``). Kernels are on the device planes where there are any
    (GPU: CUPTI's kernel events; the host's launches are not device time),
    else on the host's (CPU: the thunk events of the client's threads). An
    event's self time excludes the events nested in it on its line (a while
    loop's thunk contains its body's)."""
    device, host = [], []
    for plane in data.planes:
        lines = list(plane.lines)
        on_device = plane.name.startswith("/device:")
        ordinal = int(plane.name.rsplit(":", 1)[1]) if on_device and \
            plane.name.rsplit(":", 1)[1].isdigit() else None
        if on_device:  # derived per-op line, where present, rather than the streams
            lines = [ln for ln in lines if ln.name == "XLA Ops"] or lines
        out = device if on_device else host
        for line in lines:
            evs = []
            for e in line.events:
                stats = dict(s for s in e.stats if s[0] is not None)
                if stats.get("hlo_module") == module:
                    evs.append((e.start_ns, e.start_ns + e.duration_ns,
                                stats.get("hlo_op", e.name), stats.get("run_id"),
                                stats.get("device_ordinal", ordinal)))
            evs.sort(key=lambda t: (t[0], -t[1]))
            stack = []  # (end, index into out) of the enclosing events
            for start, end, name, run_id, where in evs:
                while stack and stack[-1][0] <= start:
                    stack.pop()
                if stack:  # nested: not the enclosing event's own time
                    out[stack[-1][1]][3] -= end - start
                out.append([name, run_id, start, end - start, end, where])
                stack.append((end, len(out) - 1))
    return device or host


def _attribute(xspace, module, hlo_text, locations, fun_name, device, repeat,
               wall_s) -> DeviceProfile:
    instrs, comps = _parse_hlo(hlo_text)
    data = profiler.ProfileData.from_serialized_xspace(xspace)
    events = _kernel_events(data, module)
    runs = collections.defaultdict(list)
    run_busy = collections.Counter()
    per_device = collections.defaultdict(list)  # (device, run id) -> kernel intervals
    device_busy = collections.Counter()
    op_ns = collections.Counter()
    op_count = collections.Counter()
    for name, run_id, start, self_ns, end, where in events:
        op_ns[name] += self_ns
        op_count[name] += 1
        runs[run_id].append((start, end))
        run_busy[run_id] += self_ns
        per_device[where, run_id].append((start, end))
        device_busy[where, run_id] += self_ns
    total_ns = sum(op_ns.values())
    eqn_ns = collections.Counter()
    eqn_kernels = collections.defaultdict(dict)
    eqn_info = {}
    op_eqns = {}
    for name, ns in op_ns.items():
        ins = instrs.get(name)
        parts = []
        if ins is not None:
            for m in _members(ins, instrs, comps):
                names = m.op_name.split(";") if m.op_name else ()  # ";": XLA merged them
                for op_name in names:
                    key = _eqn_key(op_name)
                    if key is not None:
                        eqn_info.setdefault(key, locations.get(op_name, m.source))
                        parts.append((key, _work(m, instrs) / len(names)))
        if not parts:
            parts = [(None, 1.0)]
        weight = sum(w for _, w in parts)
        if not weight:  # only data movement: split evenly
            parts, weight = [(k, 1.0) for k, _ in parts], float(len(parts))
        for key, w in parts:
            eqn_ns[key] += ns * w / weight
            eqn_kernels[key][name] = None
        op_eqns[name] = tuple(dict.fromkeys(_label(k) for k, _ in parts))
    per = 1e-9 / repeat
    share = (lambda ns: ns / total_ns) if total_ns else (lambda ns: 0.0)
    ops = [OpTime(n, instrs[n].opcode if n in instrs else "?", ns * per, share(ns),
                  op_count[n] // repeat, op_eqns[n]) for n, ns in op_ns.most_common()]
    equations = []
    line_ns, scope_ns = collections.Counter(), collections.Counter()
    line_eqns, scope_eqns = collections.defaultdict(list), collections.defaultdict(list)
    for key, ns in eqn_ns.most_common():
        src = eqn_info.get(key) or (None, None, None)
        scope, prim, number = key if key is not None else ("", "(unattributed)", -1)
        eq = EqnTime(number, prim, scope, *src, ns * per, share(ns), tuple(eqn_kernels[key]))
        equations.append(eq)
        line_ns[src] += ns
        line_eqns[src].append(eq.label)
        parts = scope.split("/")[1:]  # after "jit(f)"; each enclosing scope counts it
        for i in range(1, len(parts) + 1):
            scope_ns["/".join(parts[:i])] += ns
            scope_eqns["/".join(parts[:i])].append(eq.label)
    lines = [LineTime(*src, ns * per, share(ns), tuple(line_eqns[src]))
             for src, ns in line_ns.most_common()]
    scopes = [ScopeTime(name, ns * per, share(ns), tuple(scope_eqns[name]))
              for name, ns in scope_ns.most_common()]
    start_ns = _start_ns(data)
    devices = sorted({d for d, _ in per_device if d is not None})
    device_spans = sorted((d, *span) for (d, _), span in zip(
        per_device, _run_spans(per_device, device_busy, start_ns, ordered=False))) \
        if len(devices) > 1 else []
    return DeviceProfile(fun_name, module, device.platform, repeat, total_ns * per,
                         _span_ns(runs, repeat) * 1e-9, wall_s, ops, equations, lines, xspace,
                         scopes, _run_spans(runs, run_busy, start_ns), max(len(devices), 1),
                         device_spans)


def _start_ns(data) -> int:
    """The session's start in Unix ns (event times are relative to it)."""
    for plane in data.planes:
        for key, value in plane.stats:
            if key == "profile_start_time":
                return int(value)
    return 0


def _run_spans(runs, run_busy, start_ns, ordered=True):
    """(first kernel start, last kernel end, kernels' time) of each run (or
    each device's part of it), Unix seconds, in time order unless not
    ``ordered`` (then as ``runs``; one span for all where there are no run ids)."""
    spans = [((start_ns + min(s for s, _ in iv)) * 1e-9, (start_ns + max(e for _, e in iv)) * 1e-9,
              run_busy[rid] * 1e-9) for rid, iv in runs.items()]
    return sorted(spans) if ordered else spans


def _span_ns(runs, repeat):
    """Mean first-start-to-last-end of a run; where the events carry no run
    id (``None`` key), the busy time instead: the union of the kernels'
    intervals, per run."""
    if not runs:
        return 0.0
    if None not in runs:
        return statistics.fmean(max(e for _, e in r) - min(s for s, _ in r)
                                for r in runs.values())
    busy, end = 0, None
    for s, e in sorted(runs[None]):
        if end is None or s > end:
            busy, end = busy + e - s, e
        elif e > end:
            busy, end = busy + e - end, e
    return busy / repeat


def _eqn_key(op_name: str):
    """(scope, primitive, number) from an op name ``jit(f)/scope/prim#n``."""
    m = _EQN_NAME.match(op_name)
    if m is None:
        return None
    return m[1].rstrip("/"), m[2], int(m[3])


def _label(key):
    return "(unattributed)" if key is None else f"{key[1]}#{key[2]}"


# -- memory: live buffers by the line that created them ------------------------


@dataclasses.dataclass(frozen=True)
class MemoryLine:
    """Live device buffers created at one line of the user's source."""
    filename: str | None
    lineno: int | None
    function: str | None
    bytes: int
    count: int
    share: float

    source = LineTime.source
    where = LineTime.where


@dataclasses.dataclass
class MemoryProfile:
    """The device buffers alive now, grouped by the innermost line outside
    xjit on the Python stack that created each (jaxlib records the stack of
    every buffer it allocates), and the allocator's statistics where the
    backend reports them (GPU: ``bytes_in_use``, ``peak_bytes_in_use``...)."""
    platform: str
    total_bytes: int
    lines: list
    memory_stats: dict | None

    def __repr__(self):
        out = [f"Live device memory on {self.platform}: {_fmt_bytes(self.total_bytes)} in "
               f"{sum(r.count for r in self.lines)} buffers"]
        if self.memory_stats:
            out.append("  " + ", ".join(f"{k}={_fmt_bytes(v)}" for k, v in
                                        sorted(self.memory_stats.items()) if "bytes" in k))
        out.extend(_text_table(["bytes", "share", "arrays", "line", "source"],
                               [(_fmt_bytes(r.bytes), f"{r.share:6.1%}", r.count, r.where,
                                 r.source) for r in self.lines[:15]]))
        return "\n".join(out)

    def _repr_html_(self):
        rows = [(_fmt_bytes(r.bytes), r.share, r.count, r.where, r.source)
                for r in self.lines[:30]]
        return (f"<div><b>Live device memory on {self.platform}: "
                f"{_fmt_bytes(self.total_bytes)}</b>"
                + _html_table(["bytes", "share", "arrays", "line", "source"], rows, "#f58518")
                + "</div>")


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def memory_profile(backend: str | None = None) -> MemoryProfile:
    """Where the live device memory of ``backend`` was allocated, per source line."""
    import gzip
    raw = gzip.decompress(profiler.device_memory_profile(backend))
    per_line = collections.defaultdict(lambda: [0, 0])
    for nbytes, frames in _pprof_buffers(raw):
        site = next(((f, ln, fn) for fn, f, ln in frames if traceback_util.include_filename(f)),
                    (None, None, None))
        per_line[site][0] += nbytes
        per_line[site][1] += 1
    total = sum(b for b, _ in per_line.values())
    lines = sorted((MemoryLine(*site, b, n, b / total if total else 0.0)
                    for site, (b, n) in per_line.items()), key=lambda r: -r.bytes)
    client = profiler.client_for(backend)
    stats = client.devices()[0].memory_stats()
    return MemoryProfile(client.platform, total, lines, stats)


def _pprof_buffers(raw: bytes):
    """(bytes, [(function, file, line) innermost first]) of each ``buffer``
    sample of a pprof ``Profile`` message (jaxlib's heap profile)."""
    strings, functions, locations, samples = [], {}, {}, []
    for field, value in _proto_fields(raw):
        if field == 6:
            strings.append(value.decode("utf-8", "replace"))
        elif field == 5:
            f = dict(_proto_fields(value))
            functions[f.get(1)] = (f.get(2, 0), f.get(4, 0))
        elif field == 4:
            loc_id, first = None, None
            for lf, lv in _proto_fields(value):
                if lf == 1:
                    loc_id = lv
                elif lf == 4 and first is None:
                    ln = dict(_proto_fields(lv))
                    first = (ln.get(1), ln.get(2, 0))
            locations[loc_id] = first
        elif field == 2:
            samples.append(value)
    kind = strings.index("kind") if "kind" in strings else None
    for sample in samples:
        loc_ids, values, labels = [], [], {}
        for sf, sv in _proto_fields(sample):
            if sf == 1:
                loc_ids.extend(_packed(sv) if isinstance(sv, bytes) else [sv])
            elif sf == 2:
                values.extend(_packed(sv) if isinstance(sv, bytes) else [sv])
            elif sf == 3:
                label = dict(_proto_fields(sv))
                labels[label.get(1)] = label.get(2)
        if strings[labels.get(kind, 0)] != "buffer" or len(values) < 2:
            continue
        frames = []
        for lid in loc_ids:
            func_id, line = locations.get(lid) or (None, 0)
            name, filename = functions.get(func_id, (0, 0))
            frames.append((strings[name], strings[filename], line))
        yield values[1], frames


def _proto_fields(buf: bytes):
    """(field number, value) of a protobuf message: ints for varints, bytes
    for length-delimited fields (the only wire types pprof uses)."""
    i, n = 0, len(buf)
    while i < n:
        key, i = _varint(buf, i)
        wire = key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 2:
            size, i = _varint(buf, i)
            value, i = buf[i:i + size], i + size
        else:
            raise ValueError(f"unexpected protobuf wire type {wire} in a pprof profile")
        yield key >> 3, value


def _varint(buf, i):
    out = shift = 0
    while True:
        b = buf[i]
        i += 1
        out |= (b & 0x7F) << shift
        if b < 0x80:
            return out, i
        shift += 7


def _packed(buf):
    out, i = [], 0
    while i < len(buf):
        x, i = _varint(buf, i)
        out.append(x)
    return out
