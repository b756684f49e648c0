"""xjit.inspect: events, per-function records, cache-miss explanations, lint,
profile and the NaN/Inf checker."""
import logging
import pdb
import sys
import traceback

import numpy as np
import pytest

import xjit as jax
import xjit.inspect as xi
import xjit.numpy as jnp


def test_event_sequence_and_function_record():
    events = []
    with xi.subscribe(events.append):
        f = jax.jit(lambda x, y: x + y)
        f(1.0, 2.0)
        f(1.0, 2.0)
        f(jnp.ones(3), 2.0)
    kinds = [e.kind for e in events]
    assert kinds == ["cache_miss", "trace", "lower", "compile", "execute", "execute",
                     "cache_miss", "trace", "lower", "compile", "execute"]
    trace = events[1]
    assert trace.jaxpr.startswith("{ lambda ; a:f32[] b:f32[]. let")
    assert trace.eqn_lines and trace.eqn_lines[0][2] == test_event_sequence_and_function_record.__code__.co_firstlineno + 3
    assert events[3].duration_s > 0 and "flops" in events[3].details
    info = next(i for i in xi.functions() if i.fun_id == trace.fun_id)
    assert (info.calls, info.cache_misses, info.cache_hits) == (3, 2, 1)
    assert info.recompile_reasons == [
        "different input shape at x: now f32[3] and before f32[]{weak_type=True}"]


def test_subscription_kinds_filter():
    events = []
    with xi.subscribe(events.append, kinds={"compile"}):
        jax.jit(lambda x: x * 3)(2.0)
    assert [e.kind for e in events] == ["compile"]


def test_explain_cache_misses_logs(caplog):
    g = jax.jit(lambda x, n: x * n, static_argnums=1)
    with jax.explain_cache_misses(True), caplog.at_level(logging.WARNING, "xjit.cache_miss"):
        g(1.0, 2)
        g(1.0, 3)
        g(jnp.ones(2, jnp.int32), 3)
    msgs = [r.getMessage() for r in caplog.records]
    assert "never seen function" in msgs[0]
    assert msgs[1].endswith("all previously seen cache keys differ. For the closest previous "
                            "key:\n  * different value of static argument n: now 3 and before 2")
    assert "different input shape at x: now i32[2] and before f32[]{weak_type=True}" in msgs[2]


def test_config_change_is_a_reason():
    h = jax.jit(lambda x: x + 1)
    h(1.0)
    with jax.debug_infs(True):
        h(1.0)
    info = [i for i in xi.functions() if i.name == "<lambda>"][-1]
    assert info.recompile_reasons == ["config flag jax_debug_infs: False → True"]


SCALE = 2.0
offset = 1.5
leaked = []


def _loop(x):
    for i in range(40):
        x = x * SCALE + i
    return x


def _impure(x):
    print("tracing", x)
    leaked.append(x)
    return x + offset


def _pure(x):
    return jnp.sin(x) * SCALE


def test_lint_findings():
    kinds = {f.kind: f for f in xi.lint(_impure, 1.0)}
    assert set(kinds) == {"print", "global-read", "leaked-tracer"}
    assert kinds["print"].lineno == _impure.__code__.co_firstlineno + 1
    assert kinds["global-read"].lineno == _impure.__code__.co_firstlineno + 3
    assert "offset" in kinds["global-read"].message
    loop = xi.lint(_loop, 1.0)
    assert [f.kind for f in loop] == ["unrolled-loop"]
    assert loop[0].count == 80 and loop[0].share == 1.0
    big = np.ones((512, 1024), np.float32)
    cap = xi.lint(lambda x: x + big, jnp.ones((512, 1024)))
    assert "large-constant" in {f.kind for f in cap}


def test_lint_no_false_positives():
    assert xi.lint(_pure, 1.0) == []  # ALL_CAPS module constant, no loop
    assert xi.lint(lambda x: jnp.dot(x, x.T).sum(), jnp.ones((4, 4))) == []


def test_profile_fields():
    f = jax.jit(lambda x: jnp.sin(x) @ x.T)
    x = jnp.ones((64, 64))
    p = xi.profile(f, x, repeat=3)
    assert not p.cache_hit
    for phase in ("trace_s", "lower_s", "compile_s", "transfer_in_s", "run_s", "transfer_out_s"):
        assert getattr(p, phase) > 0, phase
    assert p.run_median_s >= p.run_s
    assert p.flops > 0 and p.argument_bytes == 64 * 64 * 4
    f(x)
    assert xi.profile(f, x, repeat=2).cache_hit


def test_nan_checker_names_op_equation_and_line():
    def f(x, y):
        z = x * 2
        return jnp.log(z - y)

    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError) as e:
            jax.jit(f)(1.0, 5.0)
    msg = str(e.value)
    assert msg.startswith("invalid value (nan) encountered in log\n  equation: b:f32[] = log a\n")
    assert f"test_inspect.py:{f.__code__.co_firstlineno + 2} (f)" in msg
    tb = e.value.__traceback__
    last = traceback.extract_tb(tb)[-1]
    assert last.name == "f" and last.lineno == f.__code__.co_firstlineno + 2


def test_nan_post_mortem_frame_has_user_locals():
    def f(x):
        y = x - 3.0
        return jnp.sqrt(y)

    with jax.debug_nans(True):
        try:
            jax.jit(f)(1.0)
        except FloatingPointError:
            tb = sys.exc_info()[2]
    while tb.tb_next:
        tb = tb.tb_next
    assert tb.tb_frame.f_locals["y"] == -2.0
    assert tb.tb_frame.f_code is f.__code__


def test_inf_checker_and_eager():
    with jax.debug_infs(True):
        with pytest.raises(FloatingPointError, match="invalid value \\(inf\\) encountered in div"):
            jnp.ones(3) / 0.0
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match="encountered in log"):
            jnp.log(-1.0)
        assert float(jnp.log(2.0)) == pytest.approx(np.log(2.0))


def test_nan_flowing_through_is_blamed_on_its_origin():
    def f(x):
        a = jnp.log(x)     # the NaN is made here
        return a * 2 + 1   # and only flows through these
    with jax.debug_nans(True), pytest.raises(FloatingPointError) as e:
        jax.jit(f)(-1.0)
    assert "encountered in log" in str(e.value)


def test_no_nan_no_error_and_debug_off_is_silent():
    assert np.isnan(jax.jit(lambda x: jnp.log(x))(-1.0))
    with jax.debug_nans(True):
        assert float(jax.jit(lambda x: jnp.log(x))(1.0)) == 0.0


def test_nan_in_a_loop_body_names_the_iteration_and_line():
    from xjit import lax

    def body(i, x):
        return jnp.log(x - i)

    with jax.debug_nans(True), pytest.raises(FloatingPointError) as e:
        jax.jit(lambda x: lax.fori_loop(0, 5, body, x))(3.0)
    assert e.value.__notes__[0] == "(in iteration 2 of the scan body)"
    assert f"(body)" in str(e.value) and traceback.extract_tb(e.value.__traceback__)[-1].name == "body"


def test_nan_in_the_backward_pass_is_attributed_to_the_forward_line():
    def f(x):
        y = jnp.sqrt(x)
        return y * 0.0

    with jax.debug_nans(True), pytest.raises(FloatingPointError) as e:
        jax.grad(f)(0.0)
    assert str(e.value).startswith(
        "invalid value (nan) in the gradient of sqrt at x = 0.0 (backward pass)")
    assert f"test_inspect.py:{f.__code__.co_firstlineno + 1} (f)" in str(e.value)
    last = traceback.extract_tb(e.value.__traceback__)[-1]
    assert (last.name, last.lineno) == ("f", f.__code__.co_firstlineno + 1)


def test_nan_under_vmap():
    with jax.debug_nans(True), pytest.raises(FloatingPointError, match="encountered in log"):
        jax.vmap(jnp.log)(jnp.array([1.0, -1.0]))


def test_calls_counted_without_execute_events():
    """A subscriber that does not ask for execute events still sees call
    counts; the calls take the uninstrumented path plus one increment."""
    seen = []
    f = jax.jit(lambda x: x * 7)
    with xi.subscribe(seen.append, kinds={"compile"}):
        for _ in range(3):
            f(jnp.ones(2))
        info = next(i for i in xi.functions() if i.fun_id == f._fid)
    assert (info.calls, info.cache_misses, info.cache_hits) == (3, 1, 2)
    assert [e.kind for e in seen] == ["compile"]
