"""Split timings of one jitted call: trace, lower, compile, host-to-device
transfer, steady-state run (with ``block_until_ready``) and device-to-host
transfer, plus XLA's cost and memory analysis where jaxlib reports them."""
from __future__ import annotations

import dataclasses
import statistics
import time

import numpy as np

from xjit._src import core, dispatch, tree_util
from xjit._src.interpreters import mlir as lowering


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

    @property
    def first_call_s(self):
        return (self.trace_s + self.lower_s + self.compile_s + self.transfer_in_s + self.run_s
                + self.transfer_out_s)


def profile(fun, *args, repeat: int = 10, **kwargs) -> Profile:
    """Measure each phase of calling ``jit(fun)(*args)``. For a signature
    already in the function's cache (``cache_hit``), trace/lower/compile are
    the times it cost when it was first compiled; otherwise they are measured
    now (without touching the cache's executable)."""
    from xjit._src.pjit import JitFunction
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    jf = fun if isinstance(fun, JitFunction) else JitFunction(fun)
    dyn, dkw, static_key = jf._split(args, kwargs)
    leaves, treedef = tree_util.tree_flatten((dyn, dkw))
    avals = [core.aval_of(x) for x in leaves]
    from ..config import config
    key = (treedef, static_key, config.trace_key, *avals)
    cache_hit = key in jf._cache

    entry, _ = jf._entry(key, dyn, dkw, static_key, leaves, treedef, avals)
    if entry.executable is not None:  # already compiled: report what it cost then
        lower_s, compile_s, exe = entry.lower_s, entry.compile_s, entry.executable
    else:
        t0 = time.perf_counter()
        text = lowering.lower_module(entry.name, entry.closed, entry.donated)
        lower_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        exe = dispatch.Executable(dispatch.compile_text(text), entry.closed.out_avals, text,
                                  dispatch.backend.default_device())
        compile_s = time.perf_counter() - t0

    host = [np.asarray(x) for x in leaves]
    t0 = time.perf_counter()
    bufs = [dispatch.to_buffer(h, a) for h, a in zip(host, avals)]
    for b in bufs:
        b.block_until_ready()
    transfer_in_s = time.perf_counter() - t0

    runs = []
    outs = None
    for _ in range(repeat + 1):
        t0 = time.perf_counter()
        outs = exe.run(bufs)
        for o in outs:
            o._buf.block_until_ready()
        runs.append(time.perf_counter() - t0)
    runs = runs[1:]  # the first run warms caches
    t0 = time.perf_counter()
    for o in outs:
        np.asarray(o._buf._single_device_array_to_np_array_did_copy()[0])
    transfer_out_s = time.perf_counter() - t0

    prof = Profile(jf._name, entry.trace_s, lower_s, compile_s, transfer_in_s, min(runs),
                   statistics.median(runs), transfer_out_s, cache_hit, repeat)
    _fill_analysis(prof, exe.exe)
    return prof


def _fill_analysis(prof, exe):
    try:
        cost = exe.cost_analysis() or {}
        prof.flops = cost.get("flops")
        prof.bytes_accessed = cost.get("bytes accessed")
    except Exception:  # not every backend reports costs
        pass
    try:
        mem = exe.get_compiled_memory_stats()
        prof.argument_bytes = mem.argument_size_in_bytes
        prof.output_bytes = mem.output_size_in_bytes
        prof.temp_bytes = mem.temp_size_in_bytes
    except Exception:  # nor memory statistics
        pass

