"""Meshes in context, sharding operations, shard_map and pmap on one device.

Expected reprs, values and messages are what JAX 0.10.2 gives on one CPU
device (checked side by side when these tests were written)."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax
from xjit.sharding import (AbstractMesh, AxisType, NamedSharding, PartitionSpec as P,
                           auto_axes, explicit_axes, get_abstract_mesh, get_mesh, reshard,
                           set_mesh, use_abstract_mesh)

X = jnp.arange(12.0).reshape(4, 3)


def auto_mesh(*names):
    return jax.make_mesh((1,) * len(names), names, axis_types=(AxisType.Auto,) * len(names))


def test_abstract_mesh_queries_and_repr():
    am = AbstractMesh((2, 4), ("x", "y"))
    assert repr(am) == "AbstractMesh('x': 2, 'y': 4, axis_types=(Auto, Auto))"
    assert am.shape_tuple == (("x", 2), ("y", 4)) and am.size == 8 and not am.empty
    assert am.are_all_axes_auto and not am.are_all_axes_explicit
    typed = AbstractMesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Manual))
    assert typed.explicit_axes == ("x",) and typed.manual_axes == ("y",)
    assert repr(typed.update_axis_types({"x": AxisType.Auto})) == \
        "AbstractMesh('x': 2, 'y': 4, axis_types=(Auto, Manual))"
    assert am == AbstractMesh((2, 4), ("x", "y")) and hash(am) == hash(AbstractMesh((2, 4), ("x", "y")))


def test_mesh_context():
    assert repr(get_abstract_mesh()) == "AbstractMesh((), axis_types=())"
    assert get_abstract_mesh().empty and get_mesh().empty
    assert repr(get_mesh()) == "Mesh(axis_sizes=(), axis_names=())"
    mesh = jax.make_mesh((1,), ("x",))
    with set_mesh(mesh):
        assert repr(get_abstract_mesh()) == ("AbstractMesh('x': 1, axis_types=(Explicit,), "
                                             "device_kind=cpu, num_cores=None, platform=cpu)")
        assert get_mesh() == mesh
    assert get_abstract_mesh().empty
    with use_abstract_mesh(AbstractMesh((2,), ("x",))):
        assert repr(get_abstract_mesh()) == "AbstractMesh('x': 2, axis_types=(Auto,))"
    with pytest.raises(ValueError, match="Expected mesh of type `jax.sharding.Mesh`"):
        set_mesh(AbstractMesh((2,), ("x",)))
    with pytest.raises(ValueError, match="`set_mesh` can only be used outside of `jax.jit`"):
        jax.jit(lambda v: set_mesh(mesh) and v)(1.0)


def test_reshard_and_axis_type_transforms():
    with pytest.raises(ValueError, match="Using PartitionSpec when you are not under a mesh"):
        reshard(X, P("x"))
    with pytest.raises(ValueError, match="Context mesh cannot be empty"):
        explicit_axes(lambda a: a * 2, in_sharding=P("x"))(X)
    with pytest.raises(TypeError, match="Missing required keyword argument: 'out_sharding'"):
        auto_axes(lambda a: a * 2)(X)
    np.testing.assert_array_equal(auto_axes(lambda a: a * 2, out_sharding=P("x"))(X), X * 2)
    mesh = jax.make_mesh((1,), ("x",))
    with set_mesh(mesh):
        y = reshard(X, P("x"))
        assert repr(y.sharding) == ("NamedSharding(mesh=Mesh('x': 1, axis_types=(Explicit,)), "
                                    "spec=P('x', None), memory_kind=device)")
        np.testing.assert_array_equal(y, X)
        with pytest.raises(ValueError, match=r"Resource axis: y of P\('y',\) is not found"):
            reshard(X, P("y"))
        np.testing.assert_array_equal(jax.jit(lambda a: reshard(a, P("x")) * 2)(X), X * 2)
        seen = []
        auto_axes(lambda a: seen.append(get_abstract_mesh().axis_types) or a,
                  out_sharding=P("x"))(X)
        assert seen == [(AxisType.Auto,)]


def test_named_sharding_over_abstract_mesh():
    s = NamedSharding(AbstractMesh((2,), ("x",)), P("x"))
    assert repr(s) == "NamedSharding(mesh=AbstractMesh('x': 2, axis_types=(Auto,)), spec=P('x',))"
    assert jax.sharding.make_single_device_sharding(jax.devices()[0]) == \
        jax.sharding.SingleDeviceSharding(jax.devices()[0])


def test_shard_map_binds_mesh_axes():
    mesh = auto_mesh("x")
    f = jax.shard_map(lambda a: lax.psum(a, "x") * 2 + lax.axis_index("x"), mesh=mesh,
                      in_specs=P("x"), out_specs=P("x"))
    np.testing.assert_array_equal(f(X), X * 2)
    np.testing.assert_array_equal(jax.jit(f)(X), X * 2)
    np.testing.assert_array_equal(jax.grad(lambda v: jnp.sum(f(v) ** 2))(X), 8 * X)
    g = jax.shard_map(lambda a, b: (a @ b, lax.all_gather(a, "x", tiled=True)), mesh=mesh,
                      in_specs=(P(None, "x"), P("x", None)), out_specs=(P(), P(None, None)),
                      check_vma=False)
    prod, gathered = g(X, X.T)
    np.testing.assert_allclose(prod, X @ X.T)
    np.testing.assert_array_equal(gathered, X)
    h = jax.shard_map(lambda a: lax.psum(a, ("a", "b")), mesh=auto_mesh("a", "b"),
                      in_specs=P(("a", "b")), out_specs=P(("a", "b")))
    np.testing.assert_array_equal(h(X), X)
    with set_mesh(mesh):
        np.testing.assert_array_equal(
            jax.shard_map(lambda a: a + 1, out_specs=P("x"), in_specs=P("x"))(X), X + 1)


def test_shard_map_over_abstract_mesh_runs_every_shard():
    am = AbstractMesh((2,), ("x",))
    f = jax.shard_map(lambda a: a - lax.psum(a, "x") / 2 + lax.axis_index("x"), mesh=am,
                      in_specs=P("x"), out_specs=P("x"))
    halves = X.reshape(2, 2, 3)
    want = np.concatenate([halves[i] - (halves[0] + halves[1]) / 2 + i for i in range(2)])
    np.testing.assert_allclose(f(X), want)


def test_shard_map_errors_as_jax():
    mesh = auto_mesh("x")
    with pytest.raises(ValueError, match="The context mesh cannot be empty"):
        jax.shard_map(lambda a: a, out_specs=P("x"), in_specs=P("x"))(X)
    with pytest.raises(ValueError) as e:
        jax.shard_map(lambda a: a, mesh=mesh, out_specs=P("y"), in_specs=P("x"))(X)
    assert str(e.value).startswith("shard_map out_specs argument must refer to an axis marked "
                                   "as manual (frozenset({'x'})), but:\n\n  out_specs refers "
                                   "to 'y'")
    with pytest.raises(ValueError, match=r"in_specs\[1\] refers to 'z'"):
        jax.shard_map(lambda a, b: a, mesh=mesh, out_specs=P("x"),
                      in_specs=(P("x"), P("z")))(X, X)
    with pytest.raises(TypeError, match="shard_map requires a callable"):
        jax.shard_map(3, mesh=mesh, out_specs=P())(X)


def test_pmap_on_one_device():
    f = jax.pmap(lambda x: x * 2, axis_name="i")
    assert repr(f(jnp.ones((1, 3)))) == "Array([[2., 2., 2.]], dtype=float32)"
    np.testing.assert_array_equal(
        jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i")(jnp.arange(1.0)), [0.0])
    np.testing.assert_array_equal(
        jax.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)(jnp.ones((1, 2)), 3), [[3, 3]])
    np.testing.assert_array_equal(
        jax.pmap(lambda x, y: x + y, in_axes=(0, None))(jnp.ones((1, 2)), jnp.ones(2)), [[2, 2]])
    assert jax.pmap(lambda x: x, in_axes=1)(jnp.ones((3, 1))).shape == (1, 3)
    assert jax.pmap(lambda x: x, out_axes=1)(jnp.ones((1, 3))).shape == (3, 1)
    out = jax.pmap(lambda x, y: (x, y), out_axes=(0, None))(jnp.ones((1, 2)), jnp.ones((1, 3)))
    assert out[0].shape == (1, 2) and out[1].shape == (3,)
    np.testing.assert_array_equal(
        jax.grad(lambda x: jax.pmap(lambda y: y ** 2)(x).sum())(jnp.ones((1, 2))), [[2, 2]])
    assert jax.vmap(jax.pmap(lambda y: y ** 2))(jnp.ones((3, 1, 2))).shape == (3, 1, 2)
    assert jax.pmap(lambda x: lax.all_gather(x, "i"), "i")(jnp.zeros((1, 3))).shape == (1, 1, 3)


def test_pmap_lower_compile_takes_the_pmapped_functions_arguments():
    """As JAX's: the compiled form of ``pmap(f).lower(*args)`` is called with
    ``f``'s arguments (equinox's filter_pmap AOT path), compiler options and all."""
    f = jax.pmap(lambda x, y: 2 * x + y, in_axes=(0, None))
    lowered = f.lower(jnp.array([3.0]), 4.0)
    assert isinstance(lowered, jax.stages.Lowered)
    compiled = lowered.compile()
    assert isinstance(compiled, jax.stages.Compiled)
    np.testing.assert_array_equal(compiled(jnp.array([3.0]), 4.0), [10.0])
    np.testing.assert_array_equal(compiled(jnp.array([1.0]), 1.0), [3.0])
    compiled = lowered.compile(compiler_options={"xla_cpu_enable_fast_math": False})
    np.testing.assert_array_equal(compiled(jnp.array([2.0]), 1.0), [5.0])
    with pytest.raises(TypeError, match="Argument types differ"):
        compiled(jnp.array([3.0]), jnp.ones(2))


def test_pmap_errors_as_jax_on_one_device():
    f = jax.pmap(lambda x: x * 2)
    with pytest.raises(ValueError, match=r"cannot select an axis to squeeze out which has size "
                       r"not equal to one, got shape=\(2, 3\) and dimensions=\(0,\)"):
        f(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="pmap requires at least one argument with a mapped axis"):
        jax.pmap(lambda x: x)(3.0)
    with pytest.raises(ValueError, match="Specified axis_size 2 doesn't match received axis_size 1"):
        jax.pmap(lambda x: x, axis_size=2)(jnp.ones(1))
    with pytest.raises(ValueError, match="'devices' argument to pmap must be non-empty"):
        jax.pmap(lambda x: x, devices=[])(jnp.ones(1))


def test_layout_format_and_constraint():
    from xjit.experimental.layout import Format, Layout, with_layout_constraint
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    assert repr(Format(Layout((0,)), s)) == (
        "Format(layout=Layout(major_to_minor=(0,), tiling=None, sub_byte_element_size_in_bits=0), "
        "sharding=SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device))")
    assert repr(Format(Layout.AUTO)) == "Format(layout=AUTO, sharding=None)"
    assert Layout((1, 0)).update(tiling=((8,),)) == Layout((1, 0), tiling=((8,),))
    with pytest.raises(ValueError, match="Length of major_to_minor and the rank of the value"):
        with_layout_constraint(jnp.ones((2, 3)), Layout((0,)))
    with pytest.raises(TypeError, match="Invalid value received for the layout argument"):
        Format(3)
    with pytest.raises(ValueError, match="Sharding has to be concrete"):
        Format(Layout((0,)))
    np.testing.assert_array_equal(
        jax.jit(lambda v: with_layout_constraint(v, Layout((0, 1))))(X), X)


def test_out_sharding_keywords():
    s = NamedSharding(get_abstract_mesh(), P(None))
    key = jax.random.key(0)
    np.testing.assert_array_equal(jax.random.bernoulli(key, 0.5, (3,), out_sharding=s),
                                  jax.random.bernoulli(key, 0.5, (3,)))
    np.testing.assert_array_equal(jnp.dot(X, X.T, out_sharding=None), X @ X.T)
    np.testing.assert_array_equal(jnp.einsum("ij,kj->ik", X, X, out_sharding=None), X @ X.T)
    with pytest.raises(ValueError, match="Using PartitionSpec when you are not under a mesh"):
        jnp.dot(X, X.T, out_sharding=P("x"))


def test_mesh_utils_device_meshes():
    from xjit.experimental import mesh_utils
    assert repr(mesh_utils.create_device_mesh((1, 1))) == "array([[CpuDevice(id=0)]], dtype=object)"
    with pytest.raises(ValueError, match=r"Number of devices 1 must equal the product of "
                       r"mesh_shape \(2,\)"):
        mesh_utils.create_device_mesh((2,))
    with pytest.raises(ValueError, match="does not have attribute slice_index"):
        mesh_utils.create_hybrid_device_mesh((1,), (1,))
