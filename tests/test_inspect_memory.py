"""Inspection keeps no reference to dead jitted functions: after 50 jitted
functions are created, called and dropped, the objects gc tracks are back at
the baseline. While someone subscribes, only the few most recently dropped
functions stay visible (a bounded ring), so the count is flat there too."""
import gc
import subprocess
import sys

import pytest

import xjit as jax
import xjit.inspect as xi
import xjit.numpy as jnp
from xjit._src.inspect import events


@pytest.fixture(autouse=True)
def _no_other_subscribers():
    """Subscribers left by other tests (a notebook channel queueing events)
    hold what they were sent; measure inspection alone."""
    saved = list(events.state.subscribers)
    for sub in saved:
        sub.unsubscribe()
    yield
    events.state.subscribers.extend(saved)
    events._refresh()


def _make(i):
    def f(x):
        for _ in range(3):
            x = jnp.sin(x) * 2.0 + i
        return x
    return f


def _run(n, x):
    for i in range(n):
        jax.jit(_make(i))(x)


def _retained_after_50(x):
    _run(events._DEAD_KEPT + 4, x)   # warm every cache meant to stay (and fill the ring)
    gc.collect()
    before = len(gc.get_objects())
    _run(50, x)
    gc.collect()
    return len(gc.get_objects()) - before


def _dropped_functions_leave_nothing_behind():
    assert _retained_after_50(jnp.ones(3)) <= 0


def _with_a_subscriber_dead_functions_are_bounded_then_purged():
    x = jnp.ones(3)
    with xi.subscribe(lambda e: None, kinds={"compile"}):
        assert _retained_after_50(x) <= 0
        jax.jit(_make(99))(x)
        gc.collect()
        assert any(i.name == "f" and i.cache_misses for i in xi.functions())
    if not events.state.active:   # no one else listening: the next registration purges them
        _run(1, x)
        gc.collect()
        assert not events._dead


def _in_a_fresh_interpreter(name):
    """Counting what gc tracks measures the whole process: run the check where
    no earlier test left caches, loggers or channels behind."""
    proc = subprocess.run([sys.executable, __file__, name], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_dropped_jitted_functions_leave_nothing_behind():
    _in_a_fresh_interpreter("_dropped_functions_leave_nothing_behind")


def test_with_a_subscriber_dead_functions_are_bounded_then_purged():
    _in_a_fresh_interpreter("_with_a_subscriber_dead_functions_are_bounded_then_purged")


def test_functions_report_temp_and_peak_memory_of_their_executable():
    """The Functions table's memory columns: XLA's memory analysis of the
    latest executable, on the function's info, its compile event and its
    summary for the sidebar."""
    from xjit_kernel_ext import protocol, serialize
    from xjit_kernel_ext.cells import CellMap

    @jax.jit
    def chain(a):
        return (jnp.tanh(a @ a) @ a).sum()
    a = jnp.ones((128, 128))
    seen = []
    with xi.subscribe(seen.append, kinds={"compile"}):
        chain(a)
        info = next(i for i in xi.functions() if i.name == "chain")
    mem = chain.lower(a).compile().memory_analysis()
    assert (info.temp_bytes, info.peak_bytes) == (mem.temp_size_in_bytes,
                                                  mem.peak_memory_in_bytes)
    assert info.peak_bytes >= 128 * 128 * 4  # the argument at least
    assert seen[-1].details["peak_bytes"] == info.peak_bytes
    summary = serialize.function(info, CellMap(None))
    assert (summary["temp_bytes"], summary["peak_bytes"]) == (info.temp_bytes, info.peak_bytes)
    protocol.validate_outgoing(protocol.message("batch", seq=1, events=[], executes=[],
                                                functions=[summary], dropped=0))


if __name__ == "__main__":
    globals()[sys.argv[1]]()
