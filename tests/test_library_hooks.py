"""Internals that libraries reach into, with the behaviour they rely on:
the pytree registry flax's nnx consults (``jax._src.tree_util._registry``) and
the compile hook chex's ``restrict_backends`` wraps
(``jax._src.compiler.backend_compile_and_load``)."""
import collections
import dataclasses

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
