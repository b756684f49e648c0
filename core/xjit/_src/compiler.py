"""Compiling a lowered module on a backend (``jax._src.compiler``).

Every compilation the engine does goes through ``backend_compile_and_load``,
looked up on this module at call time, so a tool that wraps it -- chex's
``restrict_backends`` replaces it to forbid compiling for some platforms --
sees every program xjit compiles.
"""
from __future__ import annotations

import atexit
import functools
import threading
import time

from xjit._src import compilation_cache
from xjit._src.interpreters import mlir


def backend_compile_and_load(backend, module, executable_devices, options, host_callbacks=()):
    """Compile ``module`` (StableHLO text or a parsed module) with ``backend``
    (a PJRT client) for ``executable_devices`` and load the executable, or
    load it from the persistent compilation cache when that is on."""
    if host_callbacks:  # PJRT takes host callbacks only with a parsed module
        return backend.compile_and_load(module, executable_devices, options,
                                        list(host_callbacks))
    key, exe = compilation_cache.load(module, executable_devices, options, backend)
    if exe is not None:
        return exe
    t0 = time.perf_counter()
    exe = backend.compile_and_load(module, executable_devices=executable_devices,
                                   compile_options=options)
    if key is not None:
        compilation_cache.store(key, exe, time.perf_counter() - t0)
    return exe


@functools.cache
def _mlir_context():
    """One context for parsing our StableHLO text (made once: it is slow)."""
    return mlir.make_ir_context()


def parse_module(text):
    """StableHLO text parsed into an MLIR module (PJRT takes host callbacks only
    with a parsed module)."""
    from jaxlib.mlir import ir
    with _mlir_context():
        return ir.Module.parse(text)


# -- runs that call back into Python

_pending: list = []  # tokens of runs of executables with host callbacks, oldest first
_pending_lock = threading.Lock()
_MAX_PENDING = 256


class TrackedExecutable:
    """A loaded executable whose runs are tracked by their tokens.

    ``callbacks``: its program calls back into Python (debug.print,
    callbacks): each run keeps its token until ``wait_for_callbacks``, so
    ``effects_barrier`` and the interpreter's exit wait for callbacks whose
    results nobody holds (one still running while Python finalizes aborts the
    process: "terminate called without an active exception").

    ``serialized``: a CPU program with collectives over several devices. Each
    run first waits for the previous such run: XLA's CPU collectives meet on
    one shared thread pool, and with two runs in flight (a training loop
    that never waits) the pool's threads can all block in one run's
    rendezvous while the other's participants wait for a thread; after 40 s
    XLA aborts the process."""

    __slots__ = ("_exe", "_callbacks", "_serialized")

    def __init__(self, exe, callbacks=False, serialized=False):
        self._exe, self._callbacks, self._serialized = exe, callbacks, serialized

    def execute_sharded(self, arguments, with_tokens=False):
        if self._serialized:
            with _collective_lock:
                if _last_collective_run:
                    _last_collective_run.pop().block_until_ready()
                results = self._exe.execute_sharded(arguments, with_tokens=True)
                token = results.consume_token()
                _last_collective_run.append(token)
        else:
            results = self._exe.execute_sharded(arguments, with_tokens=True)
            token = results.consume_token()
        if self._callbacks:
            with _pending_lock:
                _pending.append(token)
                old = _pending[:-_MAX_PENDING] if len(_pending) > _MAX_PENDING else ()
                del _pending[:len(old)]
            for t in old:  # bounded: the oldest runs are waited for here
                t.block_until_ready()
        return results

    def __getattr__(self, name):
        return getattr(self._exe, name)


_collective_lock = threading.Lock()
_last_collective_run: list = []  # the token of the latest serialized run, if any


def tracked(exe, host_callbacks, serialized=False):
    """``exe``, made to keep its runs' tokens when its program has host
    callbacks, and to run after the previous collective run when ``serialized``."""
    if not host_callbacks and not serialized:
        return exe
    return TrackedExecutable(exe, bool(host_callbacks), serialized)


_COLLECTIVES = ("all-reduce", "all-gather", "collective-permute", "all-to-all",
                "reduce-scatter", "collective-broadcast")


def needs_serializing(exe, devices) -> bool:
    """Whether runs of ``exe`` over ``devices`` must not overlap: a CPU
    program with collectives (see ``TrackedExecutable``)."""
    if len(devices) < 2 or devices[0].platform != "cpu":
        return False
    text = exe.hlo_modules()[0].to_string()
    return any(op in text for op in _COLLECTIVES)


def wait_for_callbacks():
    """Block until every run of a program with host callbacks has finished."""
    with _pending_lock:
        tokens = list(_pending)
        _pending.clear()
    for t in tokens:
        t.block_until_ready()


atexit.register(wait_for_callbacks)
