"""Named events with listeners (JAX's ``jax.monitoring``), and the hook
through which ``xjit.inspect`` observes jit.

Code marks points with ``record_event`` / ``record_event_duration_secs`` /
``record_event_time_span`` / ``record_scalar``; every registered listener of
that kind is called. jit records JAX's compile-time duration events
(``/jax/core/compile/...``). Recording with no listener is a list check.

``jit_observer`` is the engine side of inspection: jit calls its methods at
rare events (cache miss, trace, compile) and, only while ``observing.per_call``
is set, at each call. The engine never imports the inspection layer; the
layer installs itself here.
"""
from __future__ import annotations

from typing import Any, Protocol

TRACE_DURATION = "/jax/core/compile/jaxpr_trace_duration"
LOWER_DURATION = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE_DURATION = "/jax/core/compile/backend_compile_duration"


class EventListener(Protocol):
    def __call__(self, event: str, **kwargs: str | int) -> None: ...


class EventDurationListener(Protocol):
    def __call__(self, event: str, duration_secs: float, **kwargs: str | int) -> None: ...


class EventTimeSpanListener(Protocol):
    def __call__(self, event: str, start_time: float, end_time: float,
                 **kwargs: str | int) -> None: ...


class ScalarListener(Protocol):
    def __call__(self, event: str, value: float | int, **kwargs: str | int) -> None: ...


_event_listeners: list = []
_duration_listeners: list = []
_time_span_listeners: list = []
_scalar_listeners: list = []


def record_event(event: str, **kwargs: str | int) -> None:
    """Tell every event listener that ``event`` happened."""
    for listener in list(_event_listeners):
        listener(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs: str | int) -> None:
    """Tell every duration listener that ``event`` took ``duration`` seconds."""
    for listener in list(_duration_listeners):
        listener(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float,
                           **kwargs: str | int) -> None:
    """Tell every time-span listener that ``event`` ran from ``start_time`` to ``end_time``."""
    for listener in list(_time_span_listeners):
        listener(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value: float | int, **kwargs: str | int) -> None:
    """Tell every scalar listener the value measured for ``event``."""
    for listener in list(_scalar_listeners):
        listener(event, value, **kwargs)


def register_event_listener(callback: EventListener) -> None:
    _event_listeners.append(callback)


def register_event_duration_secs_listener(callback: EventDurationListener) -> None:
    _duration_listeners.append(callback)


def register_event_time_span_listener(callback: EventTimeSpanListener) -> None:
    _time_span_listeners.append(callback)


def register_scalar_listener(callback: ScalarListener) -> None:
    _scalar_listeners.append(callback)


def get_event_listeners() -> list:
    return list(_event_listeners)


def get_event_duration_listeners() -> list:
    return list(_duration_listeners)


def get_event_time_span_listeners() -> list:
    return list(_time_span_listeners)


def get_scalar_listeners() -> list:
    return list(_scalar_listeners)


def clear_event_listeners() -> None:
    """Forget every listener of every kind."""
    for listeners in (_event_listeners, _duration_listeners, _time_span_listeners,
                      _scalar_listeners):
        listeners.clear()


def _unregister(listeners, callback, what):
    if callback not in listeners:
        raise AssertionError(f"{callback} is not a registered {what} listener")
    listeners.remove(callback)


def unregister_event_listener(callback: EventListener) -> None:
    _unregister(_event_listeners, callback, "event")


def unregister_event_duration_listener(callback: EventDurationListener) -> None:
    _unregister(_duration_listeners, callback, "event duration")


def unregister_event_time_span_listener(callback: EventTimeSpanListener) -> None:
    _unregister(_time_span_listeners, callback, "event time span")


def unregister_scalar_listener(callback: ScalarListener) -> None:
    _unregister(_scalar_listeners, callback, "scalar")


def has_duration_listeners() -> bool:
    return bool(_duration_listeners)


# --------------------------------------------------------------------------
# The inspection hook


class JitObserver(Protocol):
    """What jit tells the inspection layer (all methods may raise nothing but
    the recompile-budget error)."""

    def register(self, jit_fun: Any, name: str, code: Any) -> tuple[int, list | None]: ...
    def cache_miss(self, fid: int, key: tuple, arg_names: list | None,
                   static_names: tuple) -> None: ...
    def tracing(self, fid: int, fun: Any) -> Any: ...  # a context manager around the trace
    def traced(self, fid: int, key: tuple, entry: Any, recorder: Any, cached: bool) -> None: ...
    def compiled(self, fid: int, entry: Any) -> None: ...
    def executed(self, fid: int, name: str, seconds: float, args: tuple, kwargs: dict) -> None: ...


class _Observing:
    """``per_call`` is the one flag jit's hot path reads: set while someone
    observes calls. Calls are then counted (one increment of the counter
    ``register`` returned); ``timed`` calls also report their run time and
    arguments through ``executed`` (while someone wants execute events)."""
    __slots__ = ("per_call", "timed")


observing = _Observing()
observing.per_call = observing.timed = False
jit_observer: JitObserver | None = None


def set_jit_observer(observer: JitObserver | None) -> None:
    global jit_observer
    jit_observer = observer
