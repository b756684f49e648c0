"""Recompile history: every compile with its reason against the nearest
previous signature, JAX's cache-miss log, and the recompile budget."""
import logging
import subprocess
import sys
import warnings

import pytest

import xjit as jax
import xjit.inspect as xi
import xjit.numpy as jnp


def _info(f):
    return next(i for i in xi.functions() if i.fun_id == f._fid)


def test_every_compile_kept_with_reason_against_nearest_previous():
    def f(x, y, n):
        return x * n + y["b"]

    jf = jax.jit(f, static_argnums=2)
    jf(jnp.ones(3), {"b": 1.0}, 2)                       # first compile: no reason
    jf(jnp.ones(4), {"b": 1.0}, 2)                       # shape of x
    jf(jnp.ones(4, jnp.int32), {"b": 1.0}, 2)            # dtype of x
    jf(jnp.ones(4), {"b": 1.0}, 3)                       # static n (nearest: the f32[4] call)
    jf(jnp.ones(4), {"b": jnp.float32(1.0)}, 3)          # weak type of y['b']
    jf(jnp.ones(4), {"b": 1.0, "c": 2.0}, 3)             # tree structure
    info = _info(jf)
    assert [c.reason for c in info.compiles] == [
        "first compile",
        "different input shape at x: now f32[4] and before f32[3]",
        "different input dtype at x: now i32[4] and before f32[4]",
        "different value of static argument n: now 3 and before 2",
        "different input weak type at y['b']: now f32[] and before f32[]{weak_type=True}",
        "different input pytree: now PyTreeDef(((*, {'b': *, 'c': *}), {})) and before "
        "PyTreeDef(((*, {'b': *}), {}))",
    ]
    assert info.recompile_reasons == [c.reason for c in info.compiles[1:]]
    change = info.compiles[2].changes[0]
    assert (change.what, change.where, change.old, change.new) == ("dtype", "x", "f32[4]", "i32[4]")
    assert info.compiles[0].signature == "x: f32[3], y['b']: f32[]{weak_type=True}, static (2)"


def test_config_flag_change_is_named_old_to_new():
    h = jax.jit(lambda x: x + 1)
    h(1.0)
    with jax.numpy_dtype_promotion("strict"):
        h(1.0)
    info = _info(h)
    assert info.recompile_reasons == ["config flag jax_numpy_dtype_promotion: standard → strict"]


def test_first_compile_has_no_recompile_reason_and_cache_miss_event_is_empty():
    events = []
    with xi.subscribe(events.append, kinds={"cache_miss"}):
        g = jax.jit(lambda x: x - 1)
        g(1.0)
    assert [e.reasons for e in events] == [[]]
    assert _info(g).recompile_reasons == []


def test_explain_cache_misses_logs_as_jax(caplog):
    def k(x):
        return x

    jk = jax.jit(k)
    with jax.explain_cache_misses(True), caplog.at_level(logging.WARNING, "xjit.cache_miss"):
        jk(1.0)
        jk(jnp.ones(2))
    first, second = [r.getMessage() for r in caplog.records]
    line = k.__code__.co_firstlineno
    assert first.startswith(f"TRACING CACHE MISS at {__file__}:{line + 5} "
                            "(test_explain_cache_misses_logs_as_jax):\n  never seen function:\n"
                            "    k id=")
    assert first.endswith(f" defined at {__file__}:{line}")
    assert second == (f"TRACING CACHE MISS at {__file__}:{line + 6} "
                      "(test_explain_cache_misses_logs_as_jax):\n"
                      f"  for k defined at {__file__}:{line}\n"
                      "  all previously seen cache keys differ. For the closest previous key:\n"
                      "  * different input shape at x: now f32[2] and before f32[]{weak_type=True}")


def test_recompile_budget_warns_naming_the_changing_argument():
    def step(params, n):
        return params * n

    js = jax.jit(step)
    with jax.config.override("xjit_recompile_budget", 3), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for i in range(1, 6):
            js(jnp.ones(i), 2.0)
    msgs = [str(x.message) for x in w if "recompiled" in str(x.message)]
    assert len(msgs) == 1
    assert msgs[0].startswith("jit(step) has recompiled 3 times (xjit_recompile_budget=3); "
                              "what keeps changing: params (shape) in 3 of them.")
    assert w[0].filename == __file__
    assert _info(js).budget_warning == msgs[0]


def test_no_budget_warning_unless_asked_for():
    """Plain JAX code (a library's test suite under the takeover, run with
    ``-W error``) sees no warning JAX would not give; ``%load_ext xjit`` sets 8."""
    fresh = subprocess.run([sys.executable, "-c", "import xjit; "
                            "assert xjit.config.xjit_recompile_budget is None"],
                           capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stderr  # (a notebook test here may have set 8)
    js = jax.jit(lambda x: x * 2)
    with jax.config.override("xjit_recompile_budget", None), warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(1, 12):
            js(jnp.ones(i))


def test_recompile_budget_error():
    jb = jax.jit(lambda x: x)
    with jax.config.override("xjit_recompile_budget", 2), \
            jax.config.override("xjit_recompile_budget_error", True):
        jb(jnp.ones(1))
        jb(jnp.ones(2))
        with pytest.raises(xi.RecompileBudgetError, match="has recompiled 2 times"):
            jb(jnp.ones(3))


def test_explain_cache_misses_flags_a_function_redefined_at_one_call_site(caplog):
    with jax.explain_cache_misses(True), caplog.at_level(logging.WARNING, "xjit.cache_miss"):
        for _ in range(2):
            jax.jit(lambda x: x * 2)(1.0)
    second = caplog.records[-1].getMessage()
    assert second.endswith("  but seen another function defined on the same line; maybe the "
                           "function is\n  being re-defined repeatedly, preventing caching?")
