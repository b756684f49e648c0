"""Traces of host and device activity through XLA's profiler (``xjit.profiler``).

jaxlib's ``ProfilerSession`` collects an XSpace (host threads, Python calls,
``TraceMe`` annotations and, per backend, the executed HLO ops with their
device times). ``stop_trace`` exports it where XProf/TensorBoard looks for it,
``<log_dir>/plugins/profile/<run>/<host>.xplane.pb`` (beside a Chrome-trace
``<host>.trace.json.gz``), and on request a ``perfetto_trace.json.gz`` that
ui.perfetto.dev loads. One session runs at a time in a process, so the trace
API and ``xjit.inspect.device_profile`` share one lock.
"""
from __future__ import annotations

import functools
import gzip
import http.server
import json
import os
import pathlib
import socketserver
import threading
from collections.abc import Callable
from contextlib import contextmanager

from jaxlib import _profile_data, _profiler
from jaxlib import version as jaxlib_version

from xjit._src import xla_bridge
from xjit.version import __version__

ProfileData = _profile_data.ProfileData
ProfileEvent = _profile_data.ProfileEvent
ProfilePlane = _profile_data.ProfilePlane


class ProfileOptions(_profiler.ProfileOptions):
    """Which collectors a trace runs (host/Python tracer levels, HLO protos...)."""


_ALREADY_STARTED = "Profile has already been started. Only one profile may be run at a time."


class _ProfileState:
    """The one session of the process and where ``stop_trace`` writes it."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.session = None
        self.log_dir = None
        self.create_perfetto_link = False
        self.create_perfetto_trace = False


_state = _ProfileState()
_server: _profiler.ProfilerServer | None = None


def start_server(port: int, requires_backend: bool = True) -> _profiler.ProfilerServer:
    """Start the profiler server on ``port`` (XProf/TensorBoard's "capture
    profile" connects to it and samples traces)."""
    global _server
    if _server is not None:
        raise ValueError("Only one profiler server can be active at a time.")
    if requires_backend:  # backends register their device tracers when created
        xla_bridge.backends()
    _server = _profiler.start_server(port)
    return _server


def stop_server():
    """Stop the running profiler server."""
    global _server
    if _server is None:
        raise ValueError("No active profiler server.")
    _server = None  # dropping the last reference shuts it down


def register_subprocess(pid: int, port: int) -> Callable[[], None]:
    """Profile the subprocess whose profiler server listens on ``port``
    alongside this process; returns the function that unregisters it."""
    return _profiler.register_subprocess(pid, port)


def _new_session(options: ProfileOptions | None):
    """A started session; the caller holds ``_state.lock``."""
    if _state.session is not None:
        raise RuntimeError(_ALREADY_STARTED)
    xla_bridge.backends()  # device tracers exist only once the clients do
    _profiler.clear_metadata()
    _profiler.set_metadata("jax_version", __version__)
    _profiler.set_metadata("jaxlib_version", jaxlib_version.__version__)
    for client in xla_bridge.backends().clients.values():
        _profiler.set_metadata(f"{client.platform}_version", client.platform_version)
    return _profiler.ProfilerSession(options if options is not None else ProfileOptions())


def start_trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
    """Start a trace that ``stop_trace`` writes under ``log_dir``.

    ``create_perfetto_trace`` also writes ``perfetto_trace.json.gz`` for
    ui.perfetto.dev; ``create_perfetto_link`` implies it, then serves the file
    and prints a link, blocking until Perfetto has loaded it."""
    with _state.lock:
        _state.session = _new_session(profiler_options)
        _state.log_dir = str(log_dir)
        _state.create_perfetto_link = create_perfetto_link
        _state.create_perfetto_trace = create_perfetto_trace or create_perfetto_link


def stop_trace():
    """Stop the running trace and write it to the ``log_dir`` it was started with."""
    with _state.lock:
        session = _state.session
        if session is None or _state.log_dir is None:  # none, or device_profile's
            raise RuntimeError("No profile started")
        try:
            session.stop_and_export(_state.log_dir)
            if _state.create_perfetto_trace:
                path = write_perfetto_trace(_state.log_dir)
                if _state.create_perfetto_link:
                    _serve_to_perfetto(path)
        finally:
            _state.reset()
            _profiler.clear_metadata()


@contextmanager
def trace(log_dir: os.PathLike | str, create_perfetto_link=False, create_perfetto_trace=False,
          profiler_options: ProfileOptions | None = None):
    """``with trace(log_dir):`` traces the block (``start_trace``/``stop_trace``)."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


def collect_xspace(run: Callable[[], object], options: ProfileOptions | None = None) -> bytes:
    """The serialized XSpace of a session around ``run()`` (for in-process
    analysis: ``xjit.inspect.device_profile``). The session is the process's
    one while ``run`` runs, so a ``start_trace`` meanwhile (from a host
    callback, another thread) fails as it would during a trace."""
    with _state.lock:
        session = _state.session = _new_session(options)
    try:
        run()
    finally:
        with _state.lock:
            xspace = session.stop()
            _state.reset()
            _profiler.clear_metadata()
    return xspace


def latest_run_dir(log_dir: os.PathLike | str) -> pathlib.Path:
    """The newest ``plugins/profile/<run>`` folder under ``log_dir``."""
    runs = (pathlib.Path(log_dir).absolute() / "plugins" / "profile").iterdir()
    return max(runs, key=os.path.getmtime)


def write_perfetto_trace(log_dir) -> pathlib.Path:
    """``perfetto_trace.json.gz`` beside the exported Chrome trace: the same
    events without the top-level ``metadata`` entry, which Perfetto rejects."""
    run = latest_run_dir(log_dir)
    found = list(run.glob("*.trace.json.gz"))
    if len(found) != 1:
        raise ValueError(f"Invalid trace folder: {run}")
    with gzip.open(found[0], "rb") as fp:
        events = json.load(fp)
    events.pop("metadata", None)
    out = run / "perfetto_trace.json.gz"
    with gzip.open(out, "wb") as fp:
        fp.write(json.dumps(events).encode("utf-8"))
    return out


class _PerfettoHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the trace file to ui.perfetto.dev (a cross-origin fetch)."""

    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def do_GET(self):
        self.server.last_path = self.path
        super().do_GET()

    def log_message(self, *args):
        pass


def _serve_to_perfetto(path: pathlib.Path, port: int = 9001):
    """Serve ``path`` on 127.0.0.1:9001 (where ui.perfetto.dev's ``url=``
    fetch may read from) until Perfetto has fetched it."""
    handler = functools.partial(_PerfettoHandler, directory=str(path.parent))
    socketserver.TCPServer.allow_reuse_address = True
    with socketserver.TCPServer(("127.0.0.1", port), handler) as httpd:
        print(f"Open URL in browser: https://ui.perfetto.dev/#!/?url=http://127.0.0.1:{port}/"
              f"{path.name}")
        while getattr(httpd, "last_path", None) != "/" + path.name:
            httpd.handle_request()


class TraceAnnotation(_profiler.TraceMe):
    """``with TraceAnnotation("name", **metadata):`` marks the block as an
    event on the trace's timeline (free when nothing traces)."""


class StepTraceAnnotation(TraceAnnotation):
    """A training-step event (``StepTraceAnnotation("train", step_num=i)``):
    XProf's step analysis groups device activity by these."""

    def __init__(self, name: str, **kwargs):
        super().__init__(name, _r=1, **kwargs)


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs):
    """Wrap ``func`` so each call is a trace event named ``name`` (default
    its qualified name); keyword arguments become the event's metadata."""
    name = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with TraceAnnotation(name, **decorator_kwargs):
            return func(*args, **kwargs)
    return wrapper


def device_memory_profile(backend: str | None = None) -> bytes:
    """The backend's live device buffers as a gzipped ``pprof`` protocol
    buffer (``pprof --web``, or ``xjit.inspect`` reads it back)."""
    return gzip.compress(client_for(backend).heap_profile())


def client_for(backend: str | None):
    """The PJRT client of ``backend`` ("cpu", "gpu"/"cuda"; None: the default)."""
    clients = xla_bridge.backends().clients
    name = "gpu" if backend == "cuda" else backend
    if name is not None and name not in clients:
        raise RuntimeError(f"Unknown backend {backend}. Available backends are {list(clients)}")
    return xla_bridge.get_client(name)


def save_device_memory_profile(filename, backend: str | None = None) -> None:
    """Write ``device_memory_profile(backend)`` to ``filename``."""
    profile = device_memory_profile(backend)
    with open(filename, "wb") as f:
        f.write(profile)


def export_xspace(xspace: bytes, log_dir: str) -> None:
    """Write a collected XSpace as ``log_dir/plugins/profile/<run>/<host>.xplane.pb``
    (jaxlib exports only through a session: an empty one, stopped at once)."""
    with _state.lock:
        if _state.session is not None:
            raise RuntimeError(_ALREADY_STARTED)
        session = _profiler.ProfilerSession(ProfileOptions())
        session.stop()
        session.export(xspace, log_dir)
