"""Inspection keeps no reference to dead jitted functions: after 50 jitted
functions are created, called and dropped, the objects gc tracks are back at
the baseline. While someone subscribes, only the few most recently dropped
functions stay visible (a bounded ring), so the count is flat there too."""
import gc

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


def test_dropped_jitted_functions_leave_nothing_behind():
    assert _retained_after_50(jnp.ones(3)) <= 0


def test_with_a_subscriber_dead_functions_are_bounded_then_purged():
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
