"""Named events with listeners, as ``jax.monitoring``: mark a code point with
``record_event`` (or a duration, time span or scalar), and every registered
listener is called."""
from xjit._src.monitoring import (  # noqa: F401
    clear_event_listeners, record_event, record_event_duration_secs, record_event_time_span,
    record_scalar, register_event_duration_secs_listener, register_event_listener,
    register_event_time_span_listener, register_scalar_listener,
    unregister_event_duration_listener, unregister_event_listener,
    unregister_event_time_span_listener, unregister_scalar_listener)
