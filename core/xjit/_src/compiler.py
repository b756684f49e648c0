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

from xjit._src.interpreters import mlir


def backend_compile_and_load(backend, module, executable_devices, options, host_callbacks=()):
    """Compile ``module`` (StableHLO text or a parsed module) with ``backend``
    (a PJRT client) for ``executable_devices`` and load the executable."""
    if host_callbacks:  # PJRT takes host callbacks only with a parsed module
        return backend.compile_and_load(module, executable_devices, options,
                                        list(host_callbacks))
    return backend.compile_and_load(module, executable_devices=executable_devices,
                                    compile_options=options)


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


class CallbackExecutable:
    """A loaded executable whose program calls back into Python (debug.print,
    callbacks): each run keeps its token until ``wait_for_callbacks``, so
    ``effects_barrier`` and the interpreter's exit wait for callbacks whose
    results nobody holds (one still running while Python finalizes aborts the
    process: "terminate called without an active exception")."""

    __slots__ = ("_exe",)

    def __init__(self, exe):
        self._exe = exe

    def execute_sharded(self, arguments, with_tokens=False):
        results = self._exe.execute_sharded(arguments, with_tokens=True)
        token = results.consume_token()
        with _pending_lock:
            _pending.append(token)
            old = _pending[:-_MAX_PENDING] if len(_pending) > _MAX_PENDING else ()
            del _pending[:len(old)]
        for t in old:  # bounded: the oldest runs are waited for here
            t.block_until_ready()
        return results

    def __getattr__(self, name):
        return getattr(self._exe, name)


def with_callbacks(exe, host_callbacks):
    """``exe``, made to keep its runs' tokens when its program has host callbacks."""
    return CallbackExecutable(exe) if host_callbacks else exe


def wait_for_callbacks():
    """Block until every run of a program with host callbacks has finished."""
    with _pending_lock:
        tokens = list(_pending)
        _pending.clear()
    for t in tokens:
        t.block_until_ready()


atexit.register(wait_for_callbacks)
