"""Questions about the transformations active right now, with JAX's
``*_DO_NOT_USE`` names (libraries use them to pick a code path, e.g. to
avoid a host callback under ``jit``)."""
from __future__ import annotations

import numpy as np

from xjit._src import core
from xjit._src.array import ArrayImpl
from xjit._src.interpreters import batching
from xjit._src.interpreters.partial_eval import is_staging

array_types = frozenset({np.ndarray, ArrayImpl, *(type(np.zeros((), t)[()]) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128))})


def _traces():
    t = core.trace_ctx.trace
    while t is not None:
        yield t
        t = t.parent


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:
    """Whether a staging trace (``jit``, ``make_jaxpr``, control flow) is active."""
    return is_staging()


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:
    return any(isinstance(t, batching.BatchTrace) for t in _traces())


def unsafe_get_axis_names_DO_NOT_USE() -> list:
    """The named axes bound by the ``vmap``s being traced, outermost first."""
    return [a.name for a in batching._axis_env if a.name is not None]


def nonempty_axis_env_DO_NOT_USE() -> bool:
    return bool(unsafe_get_axis_names_DO_NOT_USE())


class OpaqueTraceState:
    """Identifies the current trace; equal only to a state of the same trace."""

    __slots__ = ("_trace",)

    def __init__(self, trace):
        self._trace = trace

    def __eq__(self, other):
        return type(other) is OpaqueTraceState and self._trace is other._trace

    def __hash__(self):
        return id(self._trace)


def get_opaque_trace_state(convention=None) -> OpaqueTraceState:
    return OpaqueTraceState(core.trace_ctx.trace)


class TraceTag:
    """JAX's tag for the tracers a transformation owns. Every tag is equal to
    every other (xjit's traces are told apart by identity, never by tag), so
    libraries that key caches on one get JAX's hits."""

    def __hash__(self):
        return hash(TraceTag)

    def __eq__(self, other):
        return isinstance(other, TraceTag)
