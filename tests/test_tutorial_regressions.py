"""Bugs found by running JAX's own tutorials under xjit (scripts/jax_tutorials.py),
each checked against values and text recorded from JAX 0.10.2."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit.ad_checkpoint import checkpoint_name, print_saved_residuals


def recursive_checkpoint(funs):
    """gradient-checkpointing.md's recursive checkpointing: checkpoints nested
    in checkpoints."""
    if len(funs) == 1:
        return funs[0]
    if len(funs) == 2:
        f1, f2 = funs
        return lambda x: f1(f2(x))
    f1 = recursive_checkpoint(funs[:len(funs) // 2])
    f2 = recursive_checkpoint(funs[len(funs) // 2:])
    return lambda x: f1(jax.checkpoint(f2)(x))


# n: (grad at 3., vmap(grad) at [0.5, 1., 3.]), recorded from JAX
RECURSIVE = {
    8: (-0.924382746219635, [0.44357380270957947, 0.10205715149641037, -0.924382746219635]),
    16: (-0.8578497171401978, [0.2643011212348938, 0.04500621184706688, -0.8578497171401978]),
}


@pytest.mark.parametrize("n", sorted(RECURSIVE))
def test_nested_checkpoint_gradient_in_every_composition(n):
    # A checkpoint inside a checkpoint failed to transpose (its primal
    # computation sat among the linear equations of the backward pass).
    f = recursive_checkpoint([jnp.sin] * n)
    want, want_batched = RECURSIVE[n]
    np.testing.assert_allclose(jax.grad(f)(3.), want, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(3.), want, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(jnp.array([0.5, 1., 3.])), want_batched,
                               rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.jit(f))(3.), want, rtol=1e-6)


NESTED_GRAD_JAXPR = """\
{ lambda ; a:f32[]. let
    b:f32[] = remat2[
      differentiated=False
      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }
      policy=None
      prevent_cse=True
    ] a
    e:f32[] = sin b
    _:f32[] = sin e
    f:f32[] = cos e
    g:f32[] = mul 1.0:f32[] f
    h:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; i:f32[] j:f32[]. let
          k:f32[] = sin i
          l:f32[] = cos k
          m:f32[] = mul j l
          n:f32[] = remat2[
            differentiated=True
            jaxpr={ lambda ; o:f32[] p:f32[]. let
                q:f32[] = cos o
                r:f32[] = mul p q
              in (r,) }
            policy=None
            prevent_cse=True
          ] i m
        in (n,) }
      policy=None
      prevent_cse=True
    ] a g
  in (h,) }"""


def test_nested_checkpoint_jaxpr_prints_as_jax():
    # The nested checkpoint's known part runs in the forward pass as its own
    # remat2 and is recomputed, inlined, in the backward pass.
    inner = lambda x: jnp.sin(jax.checkpoint(jnp.sin)(x))
    f = lambda x: jnp.sin(jax.checkpoint(inner)(x))
    assert str(jax.make_jaxpr(jax.grad(f))(3.)) == NESTED_GRAD_JAXPR
    np.testing.assert_allclose(jax.grad(f)(3.), -0.9704719, rtol=1e-6)


def test_nested_checkpoint_with_named_policies():
    def g(x):
        y = checkpoint_name(jnp.sin(x), "y")
        inner = jax.checkpoint(lambda u: jnp.sin(checkpoint_name(jnp.cos(u), "c")),
                               policy=jax.checkpoint_policies.save_only_these_names("c"))
        return jnp.sum(inner(y) * y)

    gc = jax.checkpoint(g, policy=jax.checkpoint_policies.save_only_these_names("y"))
    x = jnp.array([0.3, 1.2])
    want = [0.7333825826644897, -0.020900731906294823]
    np.testing.assert_allclose(jax.grad(gc)(x), want, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(g)(x), want, rtol=1e-6)
    np.testing.assert_allclose(jax.jacfwd(jax.grad(gc))(x),
                               [[-0.700588583946228, 0.0], [0.0, -0.22536270320415497]],
                               rtol=1e-6, atol=1e-7)


def test_saved_residuals_name_the_function_by_qualified_name(capsys):
    # JAX names the function as its __qualname__ (chain_compose.<locals>.f).
    def chain_compose(funs):
        def f(x):
            for fun in funs:
                x = fun(x)
            return x
        return f

    print_saved_residuals(chain_compose([jnp.sin] * 2), 3.)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line in lines:
        assert line.startswith("f32[] output of cos from ")
        assert line.endswith(" (test_saved_residuals_name_the_function_by_qualified_name."
                             "<locals>.chain_compose.<locals>.f)")


def test_compiled_call_takes_the_non_static_arguments_only():
    # aot.md: `jax.jit(f, static_argnums=0).trace(7, 8).lower().compile()(5)`
    f = lambda x, y: 2 * x + y
    out = jax.jit(f, static_argnums=0).trace(7, 8).lower().compile()(5)
    assert repr(out) == "Array(19, dtype=int32, weak_type=True)"
    out = jax.jit(f, static_argnames="x").trace(x=7, y=8).lower().compile()(y=5)
    assert repr(out) == "Array(19, dtype=int32, weak_type=True)"


def test_compiled_call_errors_as_jax():
    f = lambda x, y: 2 * x + y
    compiled = jax.jit(f).trace(jnp.float32(1.), jnp.float32(2.)).lower().compile()
    with pytest.raises(TypeError) as e:
        compiled(jnp.int32(1), jnp.float32(2.))
    assert str(e.value) == (
        "Argument types differ from the types for which this computation was compiled. "
        "Perhaps you are calling the compiled executable with a different enable_x64 mode "
        "than when it was AOT compiled? The mismatches are:\n"
        "Argument 'x' compiled with float32[] and called with int32[]")
    with pytest.raises(TypeError, match="^Cannot apply JAX transformations to a function "
                       "lowered and compiled for a particular signature. Detected argument"):
        jax.vmap(compiled)(jnp.ones(3), jnp.ones(3))


def test_holomorphic_grad_of_integer_pow_in_every_composition():
    # complex_differentiation.md: lax's rule constants for complex dtypes were
    # built with lax.complex (shadowing the builtin) and raised TypeError.
    from xjit import lax
    f = jax.grad(lambda z: lax.integer_pow(z, 3), holomorphic=True)
    z = jnp.complex64(1 + 2j)
    want = np.complex64(-9 + 12j)  # JAX 0.10.2: Array(-9.+12.j, dtype=complex64)
    for g in (f, jax.jit(f)):
        out = g(z)
        assert out.dtype == np.complex64
        np.testing.assert_allclose(out, want, rtol=1e-6)
    zs = jnp.array([1 + 2j, 0.5 - 1j], jnp.complex64)
    np.testing.assert_allclose(jax.vmap(f)(zs), 3 * np.asarray(zs) ** 2, rtol=1e-6)
