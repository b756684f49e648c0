"""Top-level utilities: linear_transpose, closure_convert, custom_gradient,
jacobian, clear_caches, live_arrays, ensure_compile_time_eval, the names
and modules JAX exposes, custom_vmap and the process helpers."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

from util import close


def test_linear_transpose():
    t = jax.linear_transpose(lambda x, y: (2 * x + y.sum(0), x), jnp.ones(3), jnp.ones((2, 3)))
    gx, gy = t((jnp.arange(3.0), jnp.ones(3)))
    close(gx, 2 * np.arange(3.0) + 1)
    close(gy, np.broadcast_to(np.arange(3.0), (2, 3)))
    tt = jax.linear_transpose(lambda m: m.T, jax.ShapeDtypeStruct((2, 3), jnp.float32))
    assert tt(jnp.ones((3, 2)))[0].shape == (2, 3)
    with pytest.raises(TypeError, match="cotangent tree does not match"):
        t((jnp.ones(3),))
    with pytest.raises(TypeError, match="cotangent type does not match"):
        t((jnp.arange(3), jnp.ones(3)))
    close(jax.linear_transpose(lambda x: 2 * x, jnp.arange(3))(jnp.arange(3))[0], [0, 2, 4])
    with pytest.raises(TypeError, match="not linear"):
        jax.linear_transpose(lambda x: x * x, 1.0)(1.0)


def test_closure_convert_and_custom_gradient():
    c = jnp.arange(3.0)
    conv, consts = jax.closure_convert(lambda x: x * c + 1, jnp.ones(3))
    assert consts == []
    close(conv(jnp.ones(3)), np.arange(3.0) + 1)

    def outer(w):
        fc, cs = jax.closure_convert(lambda x: x * w, 1.0)
        assert len(cs) == 1
        return fc(2.0, *cs)
    close(jax.grad(outer)(3.0), 2.0)

    @jax.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * 10 * x,)
    close(f(3.0), 9.0)
    close(jax.grad(f)(3.0), 30.0)
    close(jax.grad(lambda x: f(x) * x)(3.0), 30.0 * 3 + 9)


def test_jacobian_is_reverse_mode_jacobian():
    close(jax.jacobian(lambda x: x ** 2)(jnp.arange(3.0)), np.diag([0.0, 2.0, 4.0]))


def test_clear_caches_forces_retrace():
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)
        return x + 1
    f(1.0)
    f(1.0)
    assert len(traces) == 1
    jax.clear_caches()
    close(f(1.0), 2.0)
    assert len(traces) == 2


def test_live_arrays_and_effects():
    a = jnp.arange(5.0)
    assert any(x is a for x in jax.live_arrays())
    assert any(x is a for x in jax.live_arrays("cpu")) == (jax.default_backend() == "cpu")
    a.delete()
    assert not any(x is a for x in jax.live_arrays())
    b = jnp.ones(3)
    assert jax.copy_to_host_async(b) is b
    assert jax.effects_barrier() is None
    info = jax.print_environment_info(return_string=True)
    assert "jaxlib" in info and "0.10.2" in info


def test_ensure_compile_time_eval_folds_constants():
    seen = []

    @jax.jit
    def h(x):
        with jax.ensure_compile_time_eval():
            y = jnp.sin(jnp.arange(3.0))
            seen.append(type(y).__name__)
        return x + y
    j = jax.make_jaxpr(h)(jnp.ones(3))
    assert seen == ["ArrayImpl"] and "sin" not in str(j)
    close(h(jnp.ones(3)), 1 + np.sin(np.arange(3.0)))

    @jax.jit
    def g(x):  # operations on traced values are still staged
        with jax.ensure_compile_time_eval():
            c = lax.fori_loop(0, 3, lambda i, v: v * 2, 1.0)
            return x * c + 1
    assert "fori" not in str(jax.make_jaxpr(g)(1.0)) and "scan" not in str(
        jax.make_jaxpr(g)(1.0))
    close(g(2.0), 17.0)
    close(jax.grad(g)(2.0), 8.0)


def test_names_and_modules():
    with jax.named_scope("block"):
        close(jax.named_call(lambda x: x + 1, name="inc")(1.0), 2.0)
    inc = jax.named_call(lambda x: jnp.sin(x), name="inc")
    assert inc.__name__ == "<lambda>"  # JAX's: the function keeps its name
    assert str(jax.make_jaxpr(inc)(1.0).jaxpr.eqns[0].source_info.name_stack) == "inc"
    with pytest.raises(TypeError, match="must be a string"):
        jax.named_scope(3)
    assert jax.version.__version__ == jax.__version__ == "0.10.2"
    assert jax.float0 == jax.dtypes.float0
    d = jax.dtypes
    assert d.canonicalize_dtype(np.float64) == np.float32
    assert d.result_type(1, jnp.float16) == np.float16
    assert d.issubdtype(jnp.bfloat16, jnp.floating)
    assert d.issubdtype(jax.random.key(0).dtype, d.prng_key)
    assert not d.issubdtype(np.float32, d.extended)
    assert d.scalar_type_of(jnp.ones(2, jnp.int8)) is int
    assert d.itemsize_bits(jnp.bfloat16) == 16
    assert jax.typing.ArrayLike is not None and jax.custom_derivatives.custom_jvp is \
        jax.custom_jvp


def test_custom_vmap():
    calls = []

    @jax.custom_batching.custom_vmap
    def f(x, y):
        return x + y

    @f.def_vmap
    def rule(axis_size, in_batched, x, y):
        calls.append((axis_size, in_batched))
        return x * 10 + y, True
    close(f(1.0, 2.0), 3.0)
    assert "custom_vmap_call" in str(jax.make_jaxpr(f)(1.0, 2.0))
    close(jax.vmap(f, (0, None))(jnp.arange(3.0), 2.0), [2.0, 12.0, 22.0])
    assert calls == [(3, [True, False])]
    close(jax.jit(jax.vmap(f, (None, 0)))(1.0, jnp.arange(2.0)), [10.0, 11.0])
    close(jax.grad(f)(1.0, 2.0), 1.0)

    @jax.custom_batching.sequential_vmap
    def total(x):
        return x.sum()
    close(jax.vmap(total)(jnp.arange(12.0).reshape(3, 4)), [6.0, 22.0, 38.0])
    assert "scan" in str(jax.make_jaxpr(jax.vmap(total))(jnp.ones((3, 4))))


def test_process_helpers():
    assert jax.process_indices() == [0]
    with pytest.warns(UserWarning, match="renamed to jax.process_count"):
        assert jax.host_count() == 1
    with pytest.warns(UserWarning, match="renamed to jax.process_index"):
        assert jax.host_id() == 0
    with pytest.warns(UserWarning, match="renamed to jax.process_indices"):
        assert jax.host_ids() == [0]
