"""Compiling a lowered module on a backend (``jax._src.compiler``).

Every compilation the engine does goes through ``backend_compile_and_load``,
looked up on this module at call time, so a tool that wraps it -- chex's
``restrict_backends`` replaces it to forbid compiling for some platforms --
sees every program xjit compiles.
"""
from __future__ import annotations

import functools

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
