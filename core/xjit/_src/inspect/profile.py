"""Split timings of one jitted call: trace, lower, compile, host-to-device
transfer, steady-state run (with ``block_until_ready``) and device-to-host
transfer, plus XLA's cost and memory analysis where jaxlib reports them."""
from __future__ import annotations

import dataclasses
import statistics
import time

import numpy as np

from xjit._src import core, dispatch, monitoring, tree_util
from xjit._src.array import ArrayImpl
from xjit._src.inspect import events
from xjit._src.sharded_array import ShardedArrayImpl, place_sharded


@dataclasses.dataclass
class Profile:
    fun_name: str
    trace_s: float
    lower_s: float
    compile_s: float
    transfer_in_s: float
    run_s: float
    run_median_s: float
    transfer_out_s: float
    cache_hit: bool
    repeat: int
    flops: float | None = None
    bytes_accessed: float | None = None
    argument_bytes: int | None = None
    output_bytes: int | None = None
    temp_bytes: int | None = None
    peak_bytes: int | None = None  # XLA's peak of live buffers during a run

    @property
    def first_call_s(self):
        return (self.trace_s + self.lower_s + self.compile_s + self.transfer_in_s + self.run_s
                + self.transfer_out_s)


def profile(fun, *args, repeat: int = 10, **kwargs) -> Profile:
    """Measure each phase of calling ``jit(fun)(*args)``, through the stages
    (``trace`` -> ``lower`` -> ``compile``) and jit's duration events. For a
    signature already traced or compiled (``cache_hit``), those phases report
    what they cost when they ran. Running the compiled stage leaves the
    function's call counts untouched."""
    from xjit._src.pjit import jit
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    jf = fun if hasattr(fun, "trace") and hasattr(fun, "lower") else jit(fun)
    sharded = any(type(x) is ShardedArrayImpl for x in tree_util.tree_leaves((args, kwargs)))
    with _durations() as now:
        traced = jf.trace(*args, **kwargs)
        # arguments over many devices: the SPMD program their call runs
        compiled = (jf.lower(*args, **kwargs) if sharded else traced.lower()).compile()
    before = events.timings(traced.jaxpr)
    cache_hit = monitoring.TRACE_DURATION not in now
    trace_s = now.get(monitoring.TRACE_DURATION, before.get("trace_s", 0.0))
    lower_s = now.get(monitoring.LOWER_DURATION, before.get("lower_s", 0.0))
    compile_s = now.get(monitoring.COMPILE_DURATION, before.get("compile_s", 0.0))

    host = tree_util.tree_map(lambda x: (np.asarray(x), getattr(x, "sharding", None))
                              if _is_array(x) else x, (args, kwargs))
    t0 = time.perf_counter()
    dev_args, dev_kwargs = tree_util.tree_map(
        lambda x: _to_device(*x) if isinstance(x, tuple) and len(x) == 2 and
        isinstance(x[0], np.ndarray) else x, host, is_leaf=_is_host_pair)
    if sharded:  # the compiled SPMD program takes the dynamic arguments' leaves
        dev_args, dev_kwargs = tree_util.tree_leaves(jf._split(dev_args, dev_kwargs)[:2]), {}
    for x in tree_util.tree_leaves((dev_args, dev_kwargs)):
        if hasattr(x, "block_until_ready"):
            x.block_until_ready()
    transfer_in_s = time.perf_counter() - t0

    runs, outs = [], None
    for _ in range(repeat + 1):
        t0 = time.perf_counter()
        outs = compiled(*dev_args, **dev_kwargs)
        for o in tree_util.tree_leaves(outs):
            o.block_until_ready()
        runs.append(time.perf_counter() - t0)
    runs = runs[1:]  # the first run warms caches
    t0 = time.perf_counter()
    for o in tree_util.tree_leaves(outs):
        np.asarray(o)
    transfer_out_s = time.perf_counter() - t0

    prof = Profile(getattr(jf, "__name__", "fun"), trace_s, lower_s, compile_s, transfer_in_s,
                   min(runs), statistics.median(runs), transfer_out_s, cache_hit, repeat)
    _fill_analysis(prof, compiled)
    return prof


def _is_host_pair(x):
    return isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], np.ndarray)


def _to_device(x, sharding=None):
    """A host copy back on the device(s), laid out as the original was."""
    if getattr(sharding, "num_devices", 1) > 1:
        return place_sharded(x, sharding)
    aval = core.aval_of(x)
    return ArrayImpl(dispatch.to_buffer(x, aval), aval)


def _is_array(x):
    return hasattr(x, "shape") and hasattr(x, "dtype")


class _durations:
    """Collect jit's duration events (trace/lower/compile) for a block."""

    def __enter__(self):
        self.seen = {}
        monitoring.register_event_duration_secs_listener(self._record)
        return self.seen

    def _record(self, event, duration, **_):
        self.seen[event] = duration

    def __exit__(self, *exc):
        monitoring.unregister_event_duration_listener(self._record)


def _fill_analysis(prof, compiled):
    if not hasattr(compiled, "cost_analysis"):  # xjit's SPMD programs report no analysis
        return
    cost = compiled.cost_analysis() or {}
    prof.flops = cost.get("flops")
    prof.bytes_accessed = cost.get("bytes accessed")
    mem = compiled.memory_analysis()
    if mem is not None:
        prof.argument_bytes = mem.argument_size_in_bytes
        prof.output_bytes = mem.output_size_in_bytes
        prof.temp_bytes = mem.temp_size_in_bytes
        prof.peak_bytes = mem.peak_memory_in_bytes
