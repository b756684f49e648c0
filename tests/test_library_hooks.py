"""Internals that libraries reach into, with the behaviour they rely on:
the pytree registry flax's nnx consults (``jax._src.tree_util._registry``) and
the compile hook chex's ``restrict_backends`` wraps
(``jax._src.compiler.backend_compile_and_load``); and the names equinox, flax
and optax reach for (``axis_primitive_batchers``, ``ShapedArray.sharding`` and
``to_tangent_aval``, ``jax.core``'s deprecated trace names, ``__version_info__``,
``compiler_ir(dialect="hlo")``)."""
import collections
import dataclasses
import inspect

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit._src import compiler
from xjit._src.tree_util import _registry


def test_pytree_registry_lists_node_types():
    for t in (tuple, list, dict, type(None), collections.OrderedDict, jax.tree_util.Partial):
        assert t in _registry, t
    assert int not in _registry and jax.Array not in _registry

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    jax.tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
                                       lambda _, c: Pair(*c))
    children, aux = _registry[Pair].to_iter(Pair(1, 2))
    assert children == (1, 2) and _registry[Pair].from_iter(aux, children).b == 2

    @dataclasses.dataclass
    class Point:
        x: float
        name: str

    jax.tree_util.register_dataclass(Point, data_fields=["x"], meta_fields=["name"])
    children, aux = _registry[Point].to_iter(Point(1.5, "p"))
    assert children == (1.5,) and aux == ("p",)
    assert _registry[Point].from_iter(aux, children) == Point(1.5, "p")


def test_compiles_go_through_the_compiler_hook(monkeypatch):
    seen = []
    inner = compiler.backend_compile_and_load

    def restricted(backend, *args, **kwargs):
        seen.append(backend.platform)
        if backend.platform == "cpu":
            raise RuntimeError("compiling for cpu is forbidden here")
        return inner(backend, *args, **kwargs)

    monkeypatch.setattr(compiler, "backend_compile_and_load", restricted)
    with pytest.raises(RuntimeError, match="forbidden"):
        jax.jit(lambda x: x * 41 + 1)(jnp.float32(1.0))
    assert seen == ["cpu"]


def test_config_parse_flags_with_absl():
    # flax's and chex's test modules call it at import to read --jax_* flags.
    import subprocess
    import sys
    code = ("import sys; sys.argv = ['t', '--jax_enable_x64', '--other=1']; import xjit; "
            "xjit.config.parse_flags_with_absl(); a = xjit.config.jax_enable_x64; "
            "sys.argv = ['t', '--nojax_enable_x64']; xjit.config.parse_flags_with_absl(); "
            "print(a, xjit.config.jax_enable_x64)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.stdout.split() == ["True", "False"], out.stderr


# -- names equinox and flax reach for (recorded from JAX 0.10.2) ------------


def test_axis_primitive_batchers_takes_the_old_rule_form():
    """equinox registers ``rule(axis_size, axis_name, trace_type, args, dims)``."""
    from xjit.extend.core import Primitive
    from xjit.interpreters import batching, mlir

    double_p = Primitive("double_for_test")
    double_p.def_impl(lambda x: 2 * x)
    double_p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(double_p, mlir.lower_fun(lambda x: 2 * x, multiple_results=False))
    seen = []

    def rule(axis_size, axis_name, trace_type, args, dims):
        seen.append((axis_size, axis_name, trace_type, dims))
        (x,), (d,) = args, dims
        return double_p.bind(x), d

    batching.axis_primitive_batchers[double_p] = rule
    assert batching.fancy_primitive_batchers[double_p] is not rule
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    out = jax.vmap(double_p.bind, in_axes=1, axis_name="i")(x)
    np.testing.assert_array_equal(out, 2 * x.T)
    assert seen == [(3, "i", None, (1,))]  # tuples, as JAX's BatchTrace passes
    out = jax.jit(jax.vmap(double_p.bind))(x)
    np.testing.assert_array_equal(out, 2 * x)


def test_aval_sharding_is_unpartitioned_on_the_empty_mesh():
    """flax.nnx's Dropout reads ``jax.typeof(x).sharding``."""
    seen = []
    x = jnp.ones((2, 3))
    want = "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None, None))"
    assert repr(jax.typeof(x).sharding) == want
    jax.jit(lambda y: seen.append(repr(jax.typeof(y).sharding)) or y)(x)
    assert seen == [want]
    assert (repr(jax.core.ShapedArray((4,), np.float32).sharding)
            == "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))")


@pytest.mark.parametrize("shape, dtype, weak, want", [
    ((2,), np.float32, True, "ShapedArray(float32[2], weak_type=True)"),
    ((2,), np.int32, False, "ShapedArray(float0[2])"),
    ((2,), np.int32, True, "ShapedArray(float0[2], weak_type=True)"),
    ((), np.bool_, False, "ShapedArray(float0[])"),
    ((3,), np.complex64, False, "ShapedArray(complex64[3])"),
    ((1,), jnp.bfloat16, False, "ShapedArray(bfloat16[1])"),
])
def test_to_tangent_aval(shape, dtype, weak, want):
    """equinox builds SymbolicZeros from ``aval.to_tangent_aval()``."""
    assert repr(jax.core.ShapedArray(shape, dtype, weak_type=weak).to_tangent_aval()) == want


def test_core_keeps_deprecated_trace_names():
    """flax's older paths read these from ``jax.core``; JAX 0.10.2 warns."""
    for name in ("find_top_trace", "get_opaque_trace_state"):
        with pytest.warns(DeprecationWarning,
                          match=f"jax.core.{name} is deprecated. Use jax.extend.core.{name}."):
            fn = getattr(jax.core, name)
        assert fn is getattr(jax.extend.core, name)
    with pytest.raises(AttributeError, match=r"jax.core.get_aval was deprecated in JAX v0.8.2 "
                       r"and removed in JAX v0.10.0; use jax.typeof instead."):
        jax.core.get_aval


def test_legacy_experimental_shard_map():
    """Older notebooks import ``jax.experimental.shard_map.shard_map`` (mesh and
    specs positional, ``check_rep``); JAX 0.10.2 keeps it with a warning."""
    from xjit.experimental import shard_map as legacy
    from xjit.sharding import AxisType, PartitionSpec as P
    with pytest.warns(DeprecationWarning, match="jax.experimental.shard_map is deprecated"):
        smap = legacy.shard_map
    mesh = jax.make_mesh((1,), ("i",), axis_types=(AxisType.Auto,))
    out = smap(lambda x: jax.lax.psum(x, "i") * 2, mesh, P("i"), P(), check_rep=False)(
        jnp.arange(4.))
    np.testing.assert_array_equal(out, [0., 2., 4., 6.])
    with pytest.raises(AttributeError, match="has no attribute 'shmap'"):
        legacy.shmap


def test_version_info():
    assert jax.version.__version_info__ == (0, 10, 2) == jax.__version_info__


def test_lowered_compiler_ir_as_hlo():
    """optax's tests read ``lower(...).compiler_ir(dialect="hlo").as_hlo_text()``."""
    lowered = jax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones(3))
    text = lowered.compiler_ir(dialect="hlo").as_hlo_text()
    # JAX 0.10.2 prints the same layout and ops (its value names differ)
    assert "entry_computation_layout={(f32[3]{0})->f32[3]{0}}" in text.splitlines()[0]
    ops = [line.split("=", 1)[1].split("(")[0].split()[-1] for line in text.splitlines()
           if " = " in line]
    assert ops == ["parameter", "sine", "constant", "broadcast", "multiply"]
    assert type(lowered.compiler_ir()).__name__ == "Module"
    assert type(lowered.compiler_ir("stablehlo")).__name__ == "Module"
    with pytest.raises(ValueError, match="unknown dialect: foo"):
        lowered.compiler_ir("foo")


def test_jitted_function_type_is_named_as_in_jax():
    """chex's ``is_traceable`` (behind ``assert_max_traces``) looks for
    ``PjitFunction`` in ``str(type(fn))``; JAX 0.10.2's is jaxlib's type."""
    def f(x, y=1):
        """doc"""
        return x

    g = jax.jit(f)
    assert type(g).__name__ == "PjitFunction" and "PjitFunction" in str(type(g))
    assert repr(g).startswith("<PjitFunction of <function ")
    assert (g.__name__, g.__doc__, g.__wrapped__) == ("f", "doc", f)
    assert str(inspect.signature(g)) == "(x, y=1)"
    assert str(inspect.signature(g, follow_wrapped=False)) == "(x, y=1)"
    assert str(inspect.signature(jax.jit(f, static_argnums=1), follow_wrapped=False)) == \
        "(x, y=1)"


def test_call_primitives():
    """numpyro's provenance interpreter keys rules on ``call_p`` and
    ``closed_call_p``; a closed call stays one equation when staged and is
    seen through by grad, vmap and jit."""
    from xjit.extend.core.primitives import call_p, closed_call_p
    cj = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0)

    def f(x):
        return closed_call_p.bind(x, call_jaxpr=cj)[0]
    assert float(f(1.0)) == float(jax.jit(f)(1.0))
    np.testing.assert_allclose(float(f(1.0)), 2 * np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(float(jax.grad(f)(1.0)), 2 * np.cos(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(f)))(jnp.arange(3.)),
                               2 * np.cos(np.arange(3.)), rtol=1e-6)
    assert str(jax.make_jaxpr(f)(1.0)) == """{ lambda ; a:f32[]. let
    b:f32[] = closed_call[
      call_jaxpr={ lambda ; c:f32[]. let
          d:f32[] = sin c
          e:f32[] = mul d 2.0:f32[]
        in (e,) }
    ] a
  in (b,) }"""
    assert float(jax.jit(lambda x: call_p.bind(lambda y: [y * 3], x)[0])(2.0)) == 6.0


def test_interpreters_xla():
    """Older libraries import ``jax.interpreters.xla`` for ``apply_primitive``."""
    from xjit.interpreters import xla
    assert float(xla.apply_primitive(jax.lax.add_p, 1.0, 2.0)) == 3.0
    assert isinstance(jax.devices()[0].client, xla.Backend)
    with pytest.raises(AttributeError, match="canonicalize_dtype_handlers is not part of xjit"):
        xla.canonicalize_dtype_handlers


def test_trace_state_clean():
    """numpyro asks ``jax._src.core.trace_state_clean()`` before caching."""
    from xjit._src.core import trace_state_clean
    seen = []
    jax.jit(lambda x: seen.append(trace_state_clean()) or x)(1.0)
    jax.vmap(lambda x: seen.append(trace_state_clean()) or x)(jnp.ones(2))
    assert trace_state_clean() and seen == [False, False]
