"""jit's per-call fast path (``JitFunction.__call__``): pytrees of arrays and
Python scalars served from the signature cache keep every semantic of the
full path -- values, retracing on a new signature, donation, deletion errors,
NaN checks switched on later -- and ``lower().compile()`` lowers once."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit._src import pjit


def _tree(n=5):
    return {f"w{i}": jnp.arange(4.0) + i for i in range(n)}


def test_pytree_calls_hit_the_fast_cache_with_the_same_values():
    f = xjit.jit(lambda d, s: {k: v * s for k, v in d.items()})
    d = _tree()
    first = f(d, 2.0)
    assert len(f._fast) == 1
    for _ in range(2):  # served from the fast cache: same values, no new trace
        again = f(d, 2.0)
        assert f._cache_size() == 1
    for k in d:
        np.testing.assert_array_equal(np.asarray(again[k]), np.asarray(d[k]) * 2.0)
        np.testing.assert_array_equal(np.asarray(first[k]), np.asarray(again[k]))
    np.testing.assert_array_equal(np.asarray(f(d, 3.0)["w1"]), (np.arange(4.0) + 1) * 3.0)


def test_new_structure_shape_or_dtype_retraces():
    traces = []

    def g(d):
        traces.append(1)
        return sum(d.values())

    f = xjit.jit(g)
    f(_tree(3))
    f(_tree(3))
    f(_tree(4))  # another structure
    f({f"w{i}": jnp.arange(5.0) for i in range(3)})  # another shape
    f({f"w{i}": jnp.arange(4) for i in range(3)})  # another dtype
    assert len(traces) == 4
    out = f({f"w{i}": jnp.arange(4.0) for i in range(3)})
    np.testing.assert_array_equal(np.asarray(out), np.arange(4.0) * 3)
    assert len(traces) == 4


def test_many_outputs_keep_their_tree_and_avals():
    f = xjit.jit(lambda a, b: (a + b, {"s": a.sum(), "i": (b > 1).astype(jnp.int32)}))
    a, b = jnp.arange(3.0), jnp.ones(3)
    for _ in range(2):
        s, rest = f(a, b)
    assert rest["s"].shape == () and rest["i"].dtype == np.int32
    np.testing.assert_array_equal(np.asarray(s), np.arange(3.0) + 1)
    assert float(rest["s"]) == 3.0


def test_donated_leaf_of_a_tree_is_deleted_on_every_call():
    f = xjit.jit(lambda d: {k: v + 1.0 for k, v in d.items()}, donate_argnums=0)
    d = _tree(2)
    out = f(d)
    assert all(v.is_deleted() for v in d.values())
    out2 = f(out)  # the fast path donates too
    assert all(v.is_deleted() for v in out.values())
    np.testing.assert_array_equal(np.asarray(out2["w1"]), np.arange(4.0) + 3)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        f(out)


def test_debug_nans_switched_on_after_fast_calls_still_checks():
    f = xjit.jit(lambda d: d["a"] / d["b"])
    d = {"a": jnp.zeros(2), "b": jnp.zeros(2)}
    f(d)
    f(d)  # cached on the fast path without the flag
    with xjit.debug_nans(True), pytest.raises(FloatingPointError):
        f(d)


def test_disable_jit_after_fast_calls_runs_python():
    calls = []

    def g(x):
        calls.append(type(x))
        return x * 2

    f = xjit.jit(g)
    x = jnp.arange(3.0)
    f(x)
    f(x)
    with xjit.disable_jit():
        f(x)
    assert len(calls) == 2 and calls[-1] is not calls[0]  # the second ran on the array itself


def test_block_until_ready_on_a_tree_waits_and_reports_deleted_arrays():
    tree = {"a": jnp.arange(3.0), "b": [jnp.ones(2), 1.0, None]}
    assert xjit.block_until_ready(tree) is tree
    tree["a"].delete()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        xjit.block_until_ready(tree)


def test_lower_then_compile_lowers_once(monkeypatch):
    lowered = []
    real = pjit.lowering.lower_module

    def counting(*a, **k):
        lowered.append(1)
        return real(*a, **k)

    monkeypatch.setattr(pjit.lowering, "lower_module", counting)  # stages lower through pjit
    x = jnp.arange(3.0)
    compiled = xjit.jit(lambda x: xjit.numpy.sin(x) * 2).lower(x).compile()
    assert len(lowered) == 1
    np.testing.assert_allclose(np.asarray(compiled(x)), np.sin(np.arange(3.0)) * 2, rtol=1e-6)


def test_compile_with_compiler_options():
    """XLA's options reach the compiler (JAX 0.10.2: an unknown option or a bad
    value is a JaxRuntimeError naming it); the jit's own executable is kept."""
    f = xjit.jit(lambda x: x * 2)
    lowered = f.lower(1.0)
    with pytest.raises(xjit.errors.JaxRuntimeError, match="No such compile option: 'xla_bogus'"):
        lowered.compile(compiler_options={"xla_bogus": True})
    with pytest.raises(xjit.errors.JaxRuntimeError,
                       match="'notabool' is not a valid bool value"):
        lowered.compile(compiler_options={"xla_cpu_enable_fast_math": "notabool"})
    assert float(lowered.compile(compiler_options={"xla_cpu_enable_fast_math": True})(3.0)) == 6.0
    assert float(lowered.compile()(1.5)) == 3.0 and float(f(2.0)) == 4.0


def test_device_get_on_a_tree():
    tree = {"a": jnp.arange(3.0), "b": [jnp.ones(2, jnp.int32), 1.5, None]}
    got = xjit.device_get(tree)
    assert type(got["a"]) is np.ndarray and got["a"].dtype == np.float32
    np.testing.assert_array_equal(got["a"], np.arange(3.0))
    np.testing.assert_array_equal(got["b"][0], np.ones(2, np.int32))
    assert got["b"][1:] == [1.5, None]
    tree["a"].delete()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        xjit.device_get(tree)


def test_static_arguments_join_the_fast_key_by_value():
    """equinox's filter_jit passes a static argument on every call."""
    traces = []

    def g(tag, x, scale):
        traces.append((tag, scale))
        return {"v": x * scale + len(tag)}

    f = xjit.jit(g, static_argnums=(0, 2), donate_argnums=1)
    outs = []
    for _ in range(3):
        x = jnp.arange(3.0)
        outs.append(np.asarray(f("ab", x, 2)["v"]))
        assert x.is_deleted()  # donation holds on the fast path too
    assert traces == [("ab", 2)] and len(f._fast) == 1
    np.testing.assert_array_equal(outs[2], [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(np.asarray(f("abc", jnp.arange(3.0), 2)["v"]), [3.0, 5.0, 7.0])
    np.testing.assert_array_equal(np.asarray(f("ab", jnp.arange(3.0), 3)["v"]), [2.0, 5.0, 8.0])
    assert traces == [("ab", 2), ("abc", 2), ("ab", 3)]
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        f(["ab"], jnp.arange(3.0), 2)


def test_one_tree_structure_with_several_signatures_served_in_turn():
    """Calls alternating shapes, dtypes and weak types under one argument
    structure each keep their own trace and give their own results."""
    traces = []

    def g(d):
        traces.append(1)
        return {k: v * 2 for k, v in d.items()}

    f = xjit.jit(g)
    trees = [{"a": jnp.arange(float(n)), "b": jnp.ones(n)} for n in (2, 3)]
    trees.append({"a": jnp.arange(2, dtype=jnp.int32), "b": jnp.ones(2)})
    trees.append({"a": jnp.asarray(1.5), "b": jnp.ones(2)})  # weak float32[]
    trees.append({"a": jnp.ones(()), "b": jnp.ones(2)})  # strong float32[]
    for _ in range(3):
        for t in trees:
            out = f(t)
            np.testing.assert_array_equal(np.asarray(out["a"]), np.asarray(t["a"]) * 2)
            assert out["a"].dtype == t["a"].dtype and out["a"].weak_type == t["a"].weak_type
    assert len(traces) == len(trees) and len(f._fast) == 1
