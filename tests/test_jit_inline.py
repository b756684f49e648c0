"""``jit(f, inline=True)``: under any trace the body is traced into the
enclosing jaxpr (no ``jit`` equation), as JAX 0.10.2 prints it; eagerly it
still compiles and runs. Expected texts recorded from JAX."""
import pytest

import xjit as jax
import xjit.numpy as jnp

f = jax.jit(lambda x: x * 2, inline=True)


def test_inlined_into_enclosing_jaxpr():
    assert str(jax.make_jaxpr(lambda x: f(x) + 1)(1.0)) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = mul a 2.0:f32[]\n"
        "    c:f32[] = add b 1.0:f32[]\n"
        "  in (c,) }")


def test_make_jaxpr_of_inline_jit_has_no_jit_equation():
    assert str(jax.make_jaxpr(f)(1.0)) == \
        "{ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }"


def test_under_grad_and_vmap():
    assert str(jax.make_jaxpr(jax.grad(lambda x: f(x) * x))(1.0)) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = mul a 2.0:f32[]\n"
        "    _:f32[] = mul b a\n"
        "    c:f32[] = mul b 1.0:f32[]\n"
        "    d:f32[] = mul 1.0:f32[] a\n"
        "    e:f32[] = mul d 2.0:f32[]\n"
        "    f:f32[] = add_any c e\n"
        "  in (f,) }")
    assert str(jax.make_jaxpr(jax.vmap(f))(jnp.ones(3))) == \
        "{ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }"


def test_values_and_static_args():
    assert float(f(3.0)) == 6.0
    assert float(jax.jit(lambda x: f(x) + 1)(2.0)) == 5.0
    h = jax.jit(lambda x, n: x * n, static_argnums=1, inline=True)
    assert str(jax.make_jaxpr(lambda x: h(x, 3))(1.0)) == \
        "{ lambda ; a:f32[]. let b:f32[] = mul a 3.0:f32[] in (b,) }"
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jax.make_jaxpr(lambda x: h(x, [3]))(1.0)
