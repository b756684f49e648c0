"""Inspection and debugging of traced and compiled code (``xjit.inspect``).

Plain data and an event stream, for scripts and for the notebook layer:
``subscribe`` to trace/lower/compile/execute/cache-miss/NaN events,
``functions()`` for per-function statistics and recompile history, ``lint``
for trace-time pitfalls (from the trace that happened), ``profile`` for split
timings."""
from xjit._src.inspect.events import (  # noqa: F401
    CompileRecord, Event, FunctionInfo, RecompileBudgetError, Subscription, abstract_args,
    function, functions, reset, subscribe)
from xjit._src.inspect.explain import Change  # noqa: F401
from xjit._src.traceback_util import filter_traceback, register_exclusion  # noqa: F401
from xjit._src.inspect.lint import Finding, lint  # noqa: F401
from xjit._src.inspect.profile import Profile, profile  # noqa: F401
from xjit._src.inspect.listing import EqnRecord, JaxprListing, listing  # noqa: F401
from xjit._src.inspect import nans as _nans  # noqa: F401  (installs jax_debug_nans' eager check)


def lint_function(fun_id):
    """Lint the latest traced signature of a jitted function, by its id (from
    what was recorded when it traced: nothing is re-run)."""
    from xjit._src.inspect.events import last_jaxpr, observations
    from xjit._src.inspect.lint import findings_of
    closed = last_jaxpr.get(fun_id)
    if closed is None:
        raise KeyError(f"no traced call recorded for function id {fun_id}")
    return findings_of(closed, observations(closed))


def jaxpr_listing(fun_id):
    """The structured listing of a function's latest jaxpr (or None)."""
    from xjit._src.inspect.events import last_jaxpr
    closed = last_jaxpr.get(fun_id)
    return listing(closed) if closed is not None else None


from xjit._src.inspect.device_profile import (  # noqa: F401,E402
    DeviceProfile, EqnTime, LineTime, MemoryLine, MemoryProfile, OpTime, ScopeTime,
    device_profile, memory_profile)
from xjit._src.inspect.spmd import (  # noqa: F401,E402
    Collective, Shard, ShardingInfo, ValueSharding, collectives, sharding)
