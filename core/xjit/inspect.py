"""Inspection and debugging of traced and compiled code (``xjit.inspect``).

Plain data and an event stream, for scripts and for the notebook layer:
``subscribe`` to trace/lower/compile/execute/cache-miss/NaN events,
``functions()`` for per-function statistics, ``lint`` for trace-time
pitfalls, ``profile`` for split timings."""
from xjit._src.inspect.events import (  # noqa: F401
    Event, FunctionInfo, Subscription, functions, reset, subscribe)
from xjit._src.inspect.nans import filter_traceback  # noqa: F401
from xjit._src.inspect.lint import Finding, lint  # noqa: F401,E402
from xjit._src.inspect.profile import Profile, profile  # noqa: F401,E402
from xjit._src.inspect.listing import EqnRecord, JaxprListing, listing  # noqa: F401,E402
from xjit._src.inspect.events import abstract_args, function  # noqa: F401,E402


def lint_function(fun_id):
    """Lint the latest traced signature of a jitted function, by its id."""
    args, kwargs = abstract_args(fun_id)
    return lint(function(fun_id), *args, **kwargs)


def jaxpr_listing(fun_id):
    """The structured listing of a function's latest jaxpr (or None)."""
    from xjit._src.inspect.events import last_jaxpr
    closed = last_jaxpr.get(fun_id)
    return listing(closed) if closed is not None else None
