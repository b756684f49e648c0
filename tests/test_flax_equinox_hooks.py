"""Behaviour flax's and equinox's own test suites rely on, as JAX 0.10.2
shows it (values recorded from JAX): aux outputs that are not JAX values,
and ``jax_num_cpu_devices`` (equinox's conftest asks for two CPU devices)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp


def _loss(aux):
    return lambda x: (jnp.sum(x * x), aux)


_AUX_OF = {
    "grad": lambda f, x: jax.grad(f, has_aux=True)(x)[1],
    "value_and_grad": lambda f, x: jax.value_and_grad(f, has_aux=True)(x)[0][1],
    "vjp": lambda f, x: jax.vjp(f, x, has_aux=True)[2],
    "jvp": lambda f, x: jax.jvp(f, (x,), (x,), has_aux=True)[2],
    "linearize": lambda f, x: jax.linearize(f, x, has_aux=True)[2],
    "jacrev": lambda f, x: jax.jacrev(f, has_aux=True)(x)[1],
}


@pytest.mark.parametrize("transform", sorted(_AUX_OF))
def test_aux_that_is_not_a_jax_value_comes_back_as_it_was(transform):
    """JAX hands back a string, a class or an object in aux untouched (equinox's
    filter_grad/filter_vjp tests return "hi" and ``object()``), beside traced leaves."""
    marker = object()
    aux = {"name": "hi", "cls": int, "obj": marker, "x": None, "n": 3}
    got = _AUX_OF[transform](_loss(aux), jnp.ones(2))
    assert got == aux and got["obj"] is marker and got["cls"] is int


@pytest.mark.parametrize("transform", sorted(_AUX_OF))
def test_aux_mixes_hidden_and_traced_leaves_in_order(transform):
    def f(x):
        return jnp.sum(x * x), ("tag", 2.0 * x, np.float32(2), "end")

    tag, doubled, scalar, end = _AUX_OF[transform](f, jnp.arange(3.0))
    assert (tag, end) == ("tag", "end")
    assert type(doubled) is type(jnp.ones(1)) and doubled.tolist() == [0.0, 2.0, 4.0]
    assert type(scalar) is np.float32 and scalar == 2  # JAX: np.float32(2.0), not an Array


def test_grad_still_flows_beside_hidden_aux():
    g, aux = jax.grad(_loss("hi"), has_aux=True)(jnp.array([1.0, -2.0]))
    assert aux == "hi" and g.tolist() == [2.0, -4.0]


def test_num_cpu_devices_sets_the_cpu_client_and_is_fixed_once_running():
    script = textwrap.dedent("""
        import xjit as jax
        jax.config.update("jax_num_cpu_devices", 2)
        print(len(jax.devices()), float(jax.numpy.ones(3).sum()))
        jax.config.update("jax_num_cpu_devices", 2)  # the value it has: fine
        try:
            jax.config.update("jax_num_cpu_devices", 4)
        except RuntimeError as e:
            print(str(e).split(" i.e.")[0])
        print(jax.config.jax_num_cpu_devices)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, check=True).stdout.splitlines()
    assert out == ["2 3.0",
                   "jax_num_cpu_devices config should be updated before backends are initialized",
                   "2"]


def test_num_cpu_devices_defaults_to_minus_one_and_takes_ints():
    assert jax.config.jax_num_cpu_devices == -1
    with pytest.raises(ValueError, match="new int config value must be None or of type int, "
                                         "got two of type <class 'str'>"):
        jax.config.update("jax_num_cpu_devices", "two")


@pytest.mark.parametrize("call", ["pure_callback", "io_callback"])
def test_an_eager_callback_that_raises_gives_jaxs_runtime_error(call):
    """Eagerly too, JAX runs a callback in a compiled program, so what it raises
    comes back as JaxRuntimeError (a RuntimeError: equinox's test_callback)."""
    def bad(x):
        raise ValueError("boom")

    fn = jax.pure_callback if call == "pure_callback" else jax.experimental.io_callback
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        fn(bad, jax.ShapeDtypeStruct((), jnp.float32), jnp.float32(1))
    msg = str(info.value)
    assert msg.startswith("INTERNAL: CpuCallback error calling callback: Traceback")
    assert msg.endswith("ValueError: boom")


def _abstract_sharding():
    from xjit.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P
    mesh = AbstractMesh((2, 2), ("in", "out"), axis_types=(AxisType.Auto,) * 2)
    return NamedSharding(mesh, P("in", "out"))


def test_an_abstract_mesh_sharding_has_no_devices_to_put_on():
    """flax's nnx variables name ``get_abstract_mesh()``; laying a concrete value
    out over it is JAX's error, not a crash in XLA (it aborted the process)."""
    x = jnp.arange(12.0).reshape(2, 6)
    with pytest.raises(ValueError, match="is_fully_addressable is not implemented for "
                                         "`jax.sharding.AbstractMesh`"):
        jax.device_put(x, _abstract_sharding())
    with pytest.raises(TypeError, match=r"The sharding on the input must be a `NamedSharding` "
                       r"since the target sharding has an `AbstractMesh` in it\. Got sharding "
                       r"type .*SingleDeviceSharding'> for shape float32\[2,6\]"):
        jax.lax.with_sharding_constraint(x, _abstract_sharding())


def test_emit_python_callback_from_a_bindings_rule():
    """equinox's noinline lowers through ``mlir.emit_python_callback``; each
    module gets its own callback index, so a second jit of the same rule
    signature still calls the right function (the rule is rebuilt, not reused)."""
    from xjit.extend.core import Primitive
    from xjit.interpreters import mlir

    calls = []

    def host(x, y):
        calls.append(x.shape)
        return [np.asarray(x * 2 + y, np.float32)]

    p = Primitive("flax_equinox_hostcall")
    p.multiple_results = True
    p.def_abstract_eval(lambda x, y: [x])

    def rule(ctx, x, y):
        res, token, keep = mlir.emit_python_callback(
            ctx, host, None, [x, y], ctx.avals_in, ctx.avals_out, has_side_effect=False)
        ctx.module_context.add_keepalive(keep)
        assert token is None
        return res

    mlir.register_lowering(p, rule)
    f = jax.jit(lambda x, y: p.bind(x, y)[0] + 1)
    g = jax.jit(lambda x, y: p.bind(x, y)[0] * 10)
    assert f(jnp.arange(3.0), jnp.ones(3)).tolist() == [2.0, 4.0, 6.0]
    assert g(jnp.arange(3.0), jnp.ones(3)).tolist() == [10.0, 30.0, 50.0]
    assert f(jnp.ones(3), jnp.ones(3)).tolist() == [4.0, 4.0, 4.0]
    assert calls == [(3,)] * 3


def test_get_bind_params_rebinds_an_equation():
    """equinox's finalise_jaxpr re-runs each equation as
    ``prim.bind(*invals, **prim.get_bind_params(eqn.params))`` (JAX >= 0.9.2 form)."""
    closed = jax.make_jaxpr(lambda x: jnp.cumsum(jnp.sin(x) * 2.0))(jnp.arange(4.0))
    env = dict(zip(closed.jaxpr.invars, [jnp.arange(4.0)]))
    for eqn in closed.jaxpr.eqns:
        params = eqn.primitive.get_bind_params(eqn.params)
        assert params == eqn.params
        ins = [v.val if hasattr(v, "val") else env[v] for v in eqn.invars]
        outs = eqn.primitive.bind(*ins, **params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    want = np.cumsum(np.sin(np.arange(4.0, dtype=np.float32)) * 2)
    np.testing.assert_allclose(env[closed.jaxpr.outvars[0]], want, rtol=1e-6)


def test_shaped_array_takes_a_sharding_keyword():
    """flax's axes_scan builds ``ShapedArray(shape=, dtype=, sharding=, weak_type=)``."""
    aval = jax.core.ShapedArray(shape=(2, 3), dtype=jnp.float32, sharding=None, weak_type=True)
    assert str(aval) == "~float32[2,3]" and aval == jax.core.ShapedArray((2, 3), np.float32, True)


def test_eval_shape_takes_avals_and_keeps_weak_types_and_key_dtypes():
    """flax's ConvLocal calls ``eval_shape(f, inputs, ShapedArray(...))``; JAX
    reads any argument with a shape and dtype, and its result keeps weak types
    and PRNG key dtypes (nnx's abstract modules hold keys)."""
    from xjit.core import ShapedArray
    out = jax.eval_shape(lambda a, b: a + b, ShapedArray((2,), jnp.float32, weak_type=True), 1.0)
    assert repr(out) == "ShapeDtypeStruct(shape=(2,), dtype=float32, weak_type=True)"
    assert repr(jax.eval_shape(lambda a: a * 2, 2.0)) == \
        "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    keys = jax.eval_shape(lambda: jax.random.split(jax.random.key(0), 3))
    assert repr(keys) == "ShapeDtypeStruct(shape=(3,), dtype=key<fry>)"
    assert jnp.issubdtype(keys.dtype, jax.dtypes.prng_key) and keys.size == 3


def test_jvp_hands_back_host_values_it_did_not_compute_on():
    """JAX's jvp does not convert its arguments: a value a function or a custom
    rule passes through comes back as given (equinox's nondifferentiable_backward
    and filter_custom_jvp tests check the type); computed tangents are arrays."""
    assert repr(jax.jvp(lambda x: x, (1.0,), (2.0,))) == "(1.0, 2.0)"
    assert repr(jax.jvp(lambda x: x, (np.float32(1),), (np.float32(1),))) == \
        "(np.float32(1.0), np.float32(1.0))"

    @jax.custom_jvp
    def f(x):
        return x
    f.defjvp(lambda p, t: (p[0], t[0] ** 2))
    assert repr(jax.jvp(f, (2.0,), (3.0,))) == "(2.0, 9.0)"
    assert repr(jax.jvp(lambda x: x + 1, (1.0,), (1.0,))) == \
        "(Array(2., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))"
    assert repr(jax.jvp(lambda x: x + 1, (np.ones(2),), (np.ones(2),))) == \
        "(Array([2., 2.], dtype=float32), Array([1., 1.], dtype=float32))"


def test_multihost_utils_on_one_process():
    """orbax (flax's checkpointing, nnx's integration tests) imports
    ``jax.experimental.multihost_utils``; with one process, JAX's results are
    host copies (recorded from JAX 0.10.2)."""
    from xjit.experimental import multihost_utils as mh
    got = mh.process_allgather({"a": jnp.ones(2), "b": 3})
    assert got["a"].shape == (1, 2) and type(got["a"]) is np.ndarray and got["b"].tolist() == [3]
    assert mh.process_allgather(jnp.ones(2), tiled=True).tolist() == [1.0, 1.0]
    assert mh.process_allgather(jnp.float32(1), tiled=True).shape == ()
    x, n = mh.broadcast_one_to_all((jnp.ones(2), 1))
    assert type(x) is np.ndarray and x.dtype == np.float32 and n.shape == ()
    assert mh.sync_global_devices("step") is None and mh.reached_preemption_sync_point(3) is False
