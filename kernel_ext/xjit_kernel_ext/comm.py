"""The kernel end of the ``xjit`` comm: engine events out, panel requests in.

One ``XjitChannel`` per kernel. It

* registers the comm target ``xjit`` (the panel opens a comm when it attaches
  to a kernel that already has the extension loaded) and also opens a comm
  itself when loaded (for a panel that attached earlier);
* subscribes to ``xjit.inspect`` for everything but per-call ``execute``
  events (those would cost every jitted call a Python callback); calls are
  read from the engine's counters instead. A flusher thread sends one
  ``batch`` per interval while a cell runs (and soon after events outside
  cells, e.g. from widget callbacks; it polls the counters once a second
  when idle), and IPython's ``post_run_cell`` hook flushes at cell end
  (see ``batching``);
* validates every message it sends and receives against the ``xjit/2``
  schema. An invalid incoming message is dropped with a logged warning: the
  only actions a panel can trigger are the three fixed requests below, and no
  field of a message is ever evaluated or executed.

``xjit.debug.breakpoint()`` stopping and resuming is sent at once as a
``breakpoint`` message (the stopped frame and its locals' reprs).

Requests: ``request_state`` (full snapshot), ``select_function`` (jaxpr,
per-equation source positions and, over many devices, the shardings and
collectives), ``run_debug`` (``%debug``, with the kernel's
stdin forwarded to the panel so pdb can prompt there).
"""
from __future__ import annotations

import collections
import logging
import sys
import threading
import time

from . import serialize
from .batching import CallCounter, EventBatcher
from .cells import CellMap
from .signature_cache import findings_for, reply_for, sharding_for
from .protocol import TARGET, ProtocolError, message, validate_incoming, validate_outgoing

log = logging.getLogger("xjit_kernel_ext")

RECENT_EVENTS = 500  # kept for state snapshots (the schema allows 1000)
EVENT_KINDS = frozenset({"trace", "lower", "compile", "cache_miss", "nan"})
BREAKPOINT_KINDS = frozenset({"breakpoint", "breakpoint_continue"})
MAX_DEVICE_RUNS = 20  # device events sent per profile and device (its latest runs)


class XjitChannel:
    def __init__(self, shell=None, *, interval: float = 0.1, idle_interval: float = 1.0,
                 max_events: int = 256, clock=time.monotonic, comm_manager=None,
                 create_comm=None):
        self.shell = shell
        self.cells = CellMap(shell)
        self.batcher = EventBatcher(interval=interval, max_events=max_events, clock=clock)
        self.comms: list = []
        self.findings: dict[str, list[dict]] = {}
        self._to_lint: dict[int, str] = {}  # fun_id -> name, traced in the running cell
        self._to_list: set[int] = set()  # traced by the last cell: replies built when idle
        self.last_nan: dict | None = None
        self.recent: collections.deque = collections.deque(maxlen=RECENT_EVENTS)
        self.calls = CallCounter()
        self.idle_interval = idle_interval
        self.sent = 0  # messages sent, for tests and diagnostics
        self._seq = 0
        self._in_cell = False
        self._lock = threading.RLock()
        self._flush_lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._flusher: threading.Thread | None = None
        self._subscription = None
        self._comm_manager = comm_manager
        self._create_comm = create_comm

    # -- lifecycle -------------------------------------------------------------
    def start(self, open_comm: bool = True):
        import xjit.inspect
        self._subscription = xjit.inspect.subscribe(self.on_event,
                                                    kinds=EVENT_KINDS | BREAKPOINT_KINDS)
        self._stop.clear()
        self._flusher = threading.Thread(target=self._run_flusher, name="xjit-comm-flusher",
                                         daemon=True)
        self._flusher.start()
        if self.shell is not None:
            self.shell.events.register("pre_run_cell", self.pre_run_cell)
            self.shell.events.register("post_run_cell", self.post_run_cell)
        manager = self._manager()
        if manager is not None:
            manager.register_target(TARGET, self.on_comm_open)
        if open_comm:
            self.open_comm()

    def stop(self):
        if self._subscription is not None:
            self._subscription.unsubscribe()
            self._subscription = None
        if self.shell is not None:
            for name, cb in (("pre_run_cell", self.pre_run_cell),
                             ("post_run_cell", self.post_run_cell)):
                try:
                    self.shell.events.unregister(name, cb)
                except ValueError:
                    pass
        manager = self._manager()
        if manager is not None:
            try:
                manager.unregister_target(TARGET, self.on_comm_open)
            except (KeyError, ValueError):
                pass
        self._stop.set()
        self._wake.set()
        if self._flusher is not None and self._flusher is not threading.current_thread():
            self._flusher.join(timeout=5)
        self._flusher = None
        for c in list(self.comms):
            try:
                c.close()
            except Exception:  # a comm whose kernel is going away
                log.debug("closing xjit comm failed", exc_info=True)
        self.comms.clear()

    def _manager(self):
        if self._comm_manager is None:
            try:
                import comm as comm_pkg
                self._comm_manager = comm_pkg.get_comm_manager()
            except Exception:  # no kernel (plain IPython): nothing to register with
                return None
        return self._comm_manager

    # -- comms -----------------------------------------------------------------
    def open_comm(self):
        """Open a comm towards the front end (for a panel that is already up)."""
        create = self._create_comm
        if create is None:
            try:
                from comm import create_comm as create
            except ImportError:
                return None
        c = create(target_name=TARGET, data=validate_outgoing(self._hello()))
        self.attach(c, send_hello=False)
        return c

    def on_comm_open(self, comm, open_msg):
        """Comm-target handler: the panel opened a comm to us."""
        self.attach(comm)  # sends hello + state already
        data = (open_msg or {}).get("content", {}).get("data")
        if data and data != message("request_state"):
            self.handle(data, comm)

    def attach(self, comm, send_hello: bool = True):
        with self._lock:
            self.comms.append(comm)
        comm.on_msg(lambda msg, c=comm: self.handle(msg.get("content", {}).get("data"), c))
        comm.on_close(lambda msg, c=comm: self.detach(c))
        if send_hello:
            self.send(self._hello(), [comm])
        self.send(self.state(), [comm])

    def detach(self, comm):
        with self._lock:
            if comm in self.comms:
                self.comms.remove(comm)

    def send(self, msg: dict, comms=None, validated: bool = False) -> bool:
        """Validate (unless ``validated`` already) and send to ``comms``
        (default: every open comm). An invalid outgoing message is a bug on
        this side: it is logged, never sent."""
        if not validated and self._checked(msg) is None:
            return False
        for c in list(self.comms if comms is None else comms):
            try:
                c.send(msg)
                self.sent += 1
            except Exception:
                log.warning("xjit: sending on a comm failed; dropping it", exc_info=True)
                self.detach(c)
        return True

    def _hello(self) -> dict:
        import xjit
        return message("hello", xjit_version=str(getattr(xjit, "__version__", "unknown")))

    # -- incoming ----------------------------------------------------------------
    def handle(self, data, comm=None):
        """Dispatch one panel request; anything not in the protocol is ignored."""
        try:
            msg = validate_incoming(data)
        except ProtocolError as e:
            log.warning("xjit: ignoring message from the panel: %s", e)
            return
        reply_to = [comm] if comm is not None else None
        kind = msg["type"]
        if kind == "request_state":
            self.flush()
            self.send(self.state(), reply_to)
        elif kind == "select_function":
            reply = self.function_reply(msg["fun_id"])
            if reply is not None:
                self.send(reply, reply_to, validated=True)
        elif kind == "run_debug":
            self.run_debug(reply_to)

    def state(self) -> dict:
        import xjit.inspect
        with self._lock:
            return message(
                "state",
                functions=[serialize.function(i, self.cells) for i in xjit.inspect.functions()],
                findings=[f for fs in self.findings.values() for f in fs],
                nan=self.last_nan,
                events=list(self.recent),
                executes=[dict(a) for a in self.calls.totals.values()],
            )

    def function_reply(self, fun_id: int) -> dict | None:
        """A function's whole jaxpr as structured equations (no size cap:
        the panel renders it as a virtualised list), validated, and kept
        for its signature; None (logged) if invalid."""
        import xjit.inspect
        for info in xjit.inspect.functions():
            if info.fun_id == fun_id:
                return reply_for(info, lambda lst, info=info: self._checked(message(
                    "function", **serialize.listing(fun_id, info.name, lst, self.cells),
                    sharding=serialize.sharding(sharding_for(info), self.cells))))
        return self._checked(message("error", message=f"no jitted function with id {fun_id}"))

    @staticmethod
    def _checked(msg: dict) -> dict | None:
        try:
            return validate_outgoing(msg)
        except ProtocolError as e:
            log.error("xjit: not sending invalid message: %s", e)
            return None

    def run_debug(self, reply_to=None):
        """Run ``%debug`` (the post-mortem debugger on the last exception).

        pdb reads its commands with ``input()``. ipykernel only forwards
        ``input()`` to the front end while it handles an execute request, so
        we enable the same forwarding for the duration of this comm message:
        the input requests then carry this message as parent and the panel
        answers them."""
        shell = self.shell
        if shell is None:
            self.send(message("debug", status="failed", message="no IPython shell"), reply_to)
            return
        self.send(message("debug", status="started", message="%debug"), reply_to)
        kernel = getattr(shell, "kernel", None)
        forward = kernel is not None and hasattr(kernel, "_forward_input")
        status, text = "finished", "debugger exited"
        try:
            if forward:
                kernel._forward_input(allow_stdin=True)
            shell.run_line_magic("debug", "")
        except Exception as e:  # StdinNotImplementedError and friends
            status, text = "failed", f"{type(e).__name__}: {e}"
        finally:
            if forward:
                kernel._restore_input()
                kernel._allow_stdin = False
            sys.stdout.flush()
        self.send(message("debug", status=status, message=text), reply_to)

    # -- outgoing engine events --------------------------------------------------
    def on_event(self, ev):
        """``xjit.inspect`` subscriber (trace/lower/compile/cache_miss/nan,
        and breakpoints)."""
        if ev.kind in BREAKPOINT_KINDS:
            self.on_breakpoint(ev)
            return
        if ev.kind not in EVENT_KINDS:
            return
        d = serialize.event(ev, self.cells)
        with self._lock:
            self.recent.append(d)
            if d["kind"] == "nan":
                self.last_nan = d
            if d["kind"] == "trace":
                self._to_lint[ev.fun_id] = ev.fun_name
        self.batcher.add_event(d)
        if self.batcher.due():
            self.flush()
        else:
            self._wake.set()

    def on_breakpoint(self, ev):
        """``xjit.debug.breakpoint()`` stopped (or resumed): sent at once, not
        batched. While it waits at its prompt the kernel reads stdin and
        handles no comm message; the panel's Continue answers the notebook's
        input box, and the ``continued`` message follows."""
        self.flush()  # what the cell did before it stopped comes first
        self.send(message("breakpoint", **serialize.breakpoint(ev, self.cells)))

    def flush(self) -> bool:
        """Send what changed since the last flush (queued events, new calls,
        the touched functions' summaries) as one ``batch``; nothing if
        nothing changed."""
        import xjit.inspect
        with self._flush_lock:
            try:
                infos = xjit.inspect.functions()
            except RuntimeError:  # the registry grew under us (another thread): next time
                return False
            events, touched, dropped = self.batcher.take()
            now = time.time()
            executes = []
            for i in infos:
                entry = self.calls.delta(int(i.fun_id), str(i.name), int(i.calls), i.run_s, now)
                if entry is not None:
                    executes.append(entry)
                    touched.add(i.fun_id)
            if not (events or executes or dropped):
                return False
            functions = [serialize.function(i, self.cells) for i in infos if i.fun_id in touched]
            self._seq += 1
            return self.send(message("batch", seq=self._seq, events=events, executes=executes,
                                     functions=functions, dropped=dropped))

    def _run_flusher(self):
        """Background flushes: every ``interval`` while a cell runs or events
        wait, otherwise a counter poll every ``idle_interval`` (calls made
        outside cells, e.g. from widget callbacks, have no event to wake us)."""
        while not self._stop.is_set():
            if not (self._in_cell or self.batcher.pending()):
                self._wake.wait(self.idle_interval)
                self._wake.clear()
            if self._stop.wait(self.batcher.interval):
                break
            try:
                self.flush()
                self._prepare_replies()
            except Exception:  # never let the thread die on a bad summary
                log.debug("xjit: background flush failed", exc_info=True)

    def _prepare_replies(self):
        """Between cells, build the ``function`` replies of the functions the
        last cell traced, so that clicking one in the sidebar, even a
        10,000-equation jaxpr, is answered at once."""
        while self.comms and not self._in_cell:
            with self._lock:
                if not self._to_list:
                    return
                fid = self._to_list.pop()
            self.function_reply(fid)

    # -- IPython hooks -------------------------------------------------------------
    def pre_run_cell(self, info=None):
        self._in_cell = True
        self._wake.set()
        self.cells.begin_cell(getattr(info, "cell_id", None))

    def post_run_cell(self, result=None):
        self._in_cell = False
        self.flush()
        traced = self._lint_traced()
        self.cells.end_cell(getattr(result, "execution_count", None))
        if traced:  # their replies name the cell, now numbered
            with self._lock:
                self._to_list.update(traced)
            self._wake.set()

    def _lint_traced(self):
        """Lint every function the cell traced (at its latest signature), so
        the Findings section covers all functions without being asked. The
        findings are shared with ``%%xjit``'s panels (``findings``).
        Returns them (fun_id -> name)."""
        import xjit.inspect
        with self._lock:
            todo, self._to_lint = self._to_lint, {}
        if not todo:
            return todo
        infos = {i.fun_id: i for i in xjit.inspect.functions()}
        for fid, name in todo.items():
            if fid in infos:
                self.publish_findings(str(name), findings_for(infos[fid]))
        return todo

    # -- device profiles -------------------------------------------------------------
    def publish_device(self, fun_id: int, fun_name: str, prof) -> None:
        """The runs of a ``DeviceProfile`` (``%%xjit --profile``) as ``device``
        events, which the sidebar's timeline draws in a lane under the
        function's own; a program over several devices gets a lane per
        device (each run's part there, ``details.device``)."""
        top = prof.lines[0] if prof.lines else None
        where = self.cells.location(top.filename if top else None, top.lineno if top else None)
        note = f"{top.share:.0%} at {top.where}: {top.source}" if top else ""
        spans = [(None, *span) for span in prof.run_spans[-MAX_DEVICE_RUNS:]]
        if getattr(prof, "device_spans", None):
            per = collections.defaultdict(list)
            for span in prof.device_spans:
                per[span[0]].append(span)
            spans = [span for runs in per.values() for span in runs[-MAX_DEVICE_RUNS:]]
        for device, start, end, busy in spans:
            details = {"device_s": float(busy), "note": note[:500]}
            if device is not None:
                details["device"] = int(device)
            d = {"kind": "device", "time": float(end), "fun_name": str(fun_name),
                 "fun_id": max(int(fun_id), 0), "location": where,
                 "duration_s": max(float(end - start), 0.0), "reasons": [],
                 "details": details}
            with self._lock:
                self.recent.append(d)
            self.batcher.add_event(d)
        self._wake.set()

    # -- findings ------------------------------------------------------------------
    def publish_findings(self, fun_name: str, findings) -> None:
        items = [serialize.finding(f, fun_name, self.cells) for f in findings]
        with self._lock:
            self.findings[fun_name] = items
        self.send(message("findings", fun_name=str(fun_name), findings=items))
