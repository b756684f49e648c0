"""Inspection keeps no reference to dead jitted functions: after 50 jitted
functions are created, called and dropped, the objects gc tracks are back at
the baseline, with and without a subscriber around the calls."""
import gc

import xjit as jax
import xjit.inspect as xi
import xjit.numpy as jnp


def _make(i):
    def f(x):
        for _ in range(10):
            x = jnp.sin(x) * 2.0 + i
        return x
    return f


def _run(n, x):
    for i in range(n):
        jax.jit(_make(i))(x)


def test_dropped_jitted_functions_leave_nothing_behind():
    x = jnp.ones(3)
    _run(3, x)                        # warm every cache that is meant to stay
    gc.collect()
    before = len(gc.get_objects())
    _run(50, x)
    gc.collect()
    assert len(gc.get_objects()) - before <= 0


def test_dead_functions_stay_visible_to_subscribers_then_go():
    x = jnp.ones(3)
    _run(3, x)
    gc.collect()
    before = len(gc.get_objects())
    with xi.subscribe(lambda e: None, kinds={"compile"}):
        jax.jit(_make(99))(x)
        gc.collect()
        assert any(i.name == "f" and i.cache_misses for i in xi.functions())
    _run(1, x)                        # the next function registered purges the dead ones
    gc.collect()
    assert len(gc.get_objects()) - before <= 0
