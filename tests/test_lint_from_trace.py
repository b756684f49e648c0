"""lint works from the trace that happened: nothing is re-run, values are the
ones baked in, transformation-made equations point at the forward line."""
import xjit as jax
import xjit.inspect as xi
import xjit.numpy as jnp

lr = 0.1
G = {"y": 0.5}


class _Cfg:
    pass


cfg = _Cfg()
cfg.scale = 3.0
escaped = []
printed = []


def _step(x):
    printed.append("traced")          # a side effect that only tracing performs
    print("updating with lr", lr)
    return x * lr + G["y"] * cfg.scale


def test_lint_does_not_rerun_and_reports_the_baked_in_value(capsys):
    global lr
    f = jax.jit(_step)
    f(1.0)
    lr = 0.01                            # changed after the trace: the compiled code holds 0.1
    G["y"] = 7.0
    findings = xi.lint(f, 1.0)
    assert printed == ["traced"]         # lint did not call _step again
    assert capsys.readouterr().out == "updating with lr 0.1\n"
    by_path = {f.message.split("`")[1]: f for f in findings if f.kind == "global-read"}
    assert set(by_path) == {"lr", "G['y']", "cfg.scale"}
    assert "(0.1)" in by_path["lr"].message and "(0.5)" in by_path["G['y']"].message
    assert "(3.0)" in by_path["cfg.scale"].message
    line = _step.__code__.co_firstlineno
    assert by_path["G['y']"].lineno == line + 3
    prints = [f for f in findings if f.kind == "print"]
    assert [(p.lineno) for p in prints] == [line + 2]
    lr = 0.1
    G["y"] = 0.5


def test_lint_of_untraced_function_traces_once():
    calls = []

    def g(x):
        calls.append(1)
        return x + 1

    assert xi.lint(g, 1.0) == []
    assert calls == [1]
    jax.jit(g)(1.0)                      # the same trace serves the call: no retrace
    assert calls == [1]


def _leaky(x):
    y = jnp.sin(x)
    escaped.append(y)
    return y * 2


def test_leaked_tracer_names_escape_and_creation_lines():
    escaped.clear()
    found = [f for f in xi.lint(_leaky, 1.0) if f.kind == "leaked-tracer"]
    line = _leaky.__code__.co_firstlineno
    assert len(found) == 1 and found[0].lineno == line + 2
    assert f"test_lint_from_trace.py:{line + 1}" in found[0].message
    assert "global `escaped`" in found[0].message
    escaped.clear()


def _mlp_loss(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h = jnp.tanh(x @ w1 + b1)
    h = jnp.tanh(h @ w2 + b2)
    out = h @ w3 + b3
    return jnp.mean((out - y) ** 2)


def test_straight_line_mlp_under_jit_value_and_grad_has_no_findings():
    p = [jnp.ones((4, 8)), jnp.ones(8), jnp.ones((8, 8)), jnp.ones(8), jnp.ones((8, 1)),
         jnp.ones(1)]
    step = jax.jit(jax.value_and_grad(_mlp_loss))
    step(p, jnp.ones((16, 4)), jnp.ones((16, 1)))
    assert xi.lint(step, p, jnp.ones((16, 4)), jnp.ones((16, 1))) == []


def _loop(x):
    for i in range(40):
        x = x * 2.0 + i
    return x.sum()


def test_backward_equations_point_at_the_forward_line_and_do_not_count_twice():
    fwd = xi.lint(jax.jit(_loop), jnp.ones(3))
    for f, x in ((jax.jit(jax.value_and_grad(_loop)), jnp.ones(3)),
                 (jax.jit(jax.vmap(jax.grad(_loop))), jnp.ones((2, 3)))):
        found = xi.lint(f, x)
        assert [(g.kind, g.lineno) for g in found] == [
            ("unrolled-loop", _loop.__code__.co_firstlineno + 2)]
        assert found[0].count == fwd[0].count   # the loop is counted in the forward code only
    # every equation of the backward pass carries a line of _loop, none of xjit
    closed = jax.make_jaxpr(jax.grad(_loop))(jnp.ones(3))
    files = {e.source_info.filename for e in closed.jaxpr.eqns if e.source_info}
    assert files == {__file__}
    assert fwd[0].count == 80


def test_prints_from_another_thread_are_not_blamed_on_a_trace():
    import threading
    started, release = threading.Event(), threading.Event()

    def chatter():
        started.set()
        while not release.is_set():
            print("", end="")

    def quiet(x):
        started.wait()
        for _ in range(200):
            x = jnp.sin(x)
        return x

    t = threading.Thread(target=chatter)
    t.start()
    try:
        kinds = {f.kind for f in xi.lint(quiet, 1.0)}
    finally:
        release.set()
        t.join()
    assert "print" not in kinds
    import builtins
    assert type(builtins.print).__name__ == "builtin_function_or_method"   # hooks removed
