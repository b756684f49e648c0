"""Tests for custom_jvp, custom_vjp and checkpoint: printed jaxprs identical
to JAX 0.10.2 (stored from the oracle), values against NumPy, the user rules
really being used, composition with jit/vmap/higher order, errors."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp


@jax.custom_jvp
def f(x):
    return jnp.sin(x)


@f.defjvp
def f_jvp(p, t):
    x, = p
    g, = t
    return f(x), 2.0 * g * jnp.cos(x)


@jax.custom_vjp
def h(x, y):
    return x * y


def h_fwd(x, y):
    return h(x, y), (x, y)


def h_bwd(res, g):
    x, y = res
    return (g * y * 3.0, g * x)


h.defvjp(h_fwd, h_bwd)
g = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))


@jax.custom_jvp
def k(x, n):
    return x ** n


k.defjvps(lambda g, ans, x, n: g * n * x ** (n - 1), None)


JAXPRS = {
    'custom_jvp_plain': ('f', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] = custom_jvp_call[\n      name=f\n      call_jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }\n      jvp=f_jvp\n      symbolic_zeros=False\n    ] a\n  in (b,) }'),
    'custom_jvp_grad': ('jax.grad(f)', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    _:f32[] = custom_jvp_call[\n      name=f\n      call_jaxpr={ lambda ; b:f32[]. let c:f32[] = sin b in (c,) }\n      jvp=f_jvp\n      symbolic_zeros=False\n    ] a\n    d:f32[] = cos a\n    e:f32[] = mul 1.0:f32[] d\n    f:f32[] = mul 2.0:f32[] e\n  in (f,) }'),
    'custom_jvp_jvp': ('lambda x: jax.jvp(f, (x,), (x,))', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] = custom_jvp_call[\n      name=f\n      call_jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }\n      jvp=f_jvp\n      symbolic_zeros=False\n    ] a\n    e:f32[] = mul 2.0:f32[] a\n    f:f32[] = cos a\n    g:f32[] = mul e f\n  in (b, g) }'),
    'custom_vjp_plain': ('h', '(1.0, 2.0)',
     '{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = custom_vjp_call[\n      name=h\n      bwd=h_bwd\n      call_jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = mul d e in (f,) }\n      fwd=h_fwd\n      symbolic_zeros=False\n    ] a b\n  in (c,) }'),
    'custom_vjp_grad': ('jax.grad(h)', '(1.0, 2.0)',
     '{ lambda ; a:f32[] b:f32[]. let\n    _:f32[] = custom_vjp_call[\n      name=h\n      bwd=h_bwd\n      call_jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = mul c d in (e,) }\n      fwd=h_fwd\n      symbolic_zeros=False\n    ] a b\n    f:f32[] = mul 1.0:f32[] b\n    g:f32[] = mul f 3.0:f32[]\n    _:f32[] = mul 1.0:f32[] a\n  in (g,) }'),
    'checkpoint_plain': ('g', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] = remat2[\n      differentiated=False\n      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = sin d in (e,) }\n      policy=None\n      prevent_cse=True\n    ] a\n  in (b,) }'),
    'checkpoint_grad': ('jax.grad(g)', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    _:f32[] = sin b\n    c:f32[] = remat2[\n      differentiated=True\n      jaxpr={ lambda ; d:f32[] e:f32[]. let\n          f:f32[] = sin d\n          g:f32[] = cos d\n          h:f32[] = cos f\n          i:f32[] = mul e h\n          j:f32[] = mul i g\n        in (j,) }\n      policy=None\n      prevent_cse=True\n    ] a 1.0:f32[]\n  in (c,) }'),
    'defjvps_grad': ('jax.grad(k)', '(2.0, 3.0)',
     '{ lambda ; a:f32[] b:f32[]. let\n    _:f32[] = custom_jvp_call[\n      name=k\n      call_jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = pow c d in (e,) }\n      jvp=jvp\n      symbolic_zeros=False\n    ] a b\n    f:f32[] = sub b 1.0:f32[]\n    g:f32[] = pow a f\n    h:f32[] = mul 1.0:f32[] g\n    i:f32[] = mul h b\n  in (i,) }'),
    'custom_jvp_jit_grad': ('jax.grad(jax.jit(f))', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    _:f32[] b:f32[] = jit[\n      name=f\n      jaxpr={ lambda ; a:f32[]. let\n          _:f32[] = custom_jvp_call[\n            name=f\n            call_jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }\n            jvp=f_jvp\n            symbolic_zeros=False\n          ] a\n          b:f32[] = cos a\n        in (_, b) }\n    ] a\n    e:f32[] = jit[\n      name=f\n      jaxpr={ lambda ; b:f32[] f:f32[]. let\n          g:f32[] = mul f b\n          e:f32[] = mul 2.0:f32[] g\n        in (e,) }\n    ] b 1.0:f32[]\n  in (e,) }'),
}


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_jaxprs_match_jax(name):
    fun, args, expected = JAXPRS[name]
    assert str(jax.make_jaxpr(eval(fun))(*eval(args))) == expected


def test_custom_jvp_rule_is_used():
    x = 0.7
    np.testing.assert_allclose(f(x), np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(f)(x), 2 * np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(jax.jvp(f, (x,), (1.5,))[1], 3 * np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.jit(f))(x), 2 * np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(x), 2 * np.cos(x), rtol=1e-6)
    xs = np.linspace(0, 1, 4).astype(np.float32)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(xs), 2 * np.cos(xs), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(f)(xs), np.sin(xs), rtol=1e-6)
    # second order differentiates the user's jvp rule
    np.testing.assert_allclose(jax.grad(jax.grad(f))(x), -2 * np.sin(x), rtol=1e-5)


def test_custom_jvp_numerically_stable_log1pexp():
    @jax.custom_jvp
    def log1pexp(x):
        return jnp.log(1. + jnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        x, = primals
        x_dot, = tangents
        return log1pexp(x), (1 - 1 / (1 + jnp.exp(x))) * x_dot

    assert np.isnan(jax.grad(lambda x: jnp.log(1. + jnp.exp(x)))(100.))
    np.testing.assert_allclose(jax.grad(log1pexp)(100.), 1.0)


def test_defjvps_and_nondiff_argnums():
    np.testing.assert_allclose(jax.grad(k)(2.0, 3.0), 12.0)

    @jax.custom_jvp
    def scale(s, x):
        return s * x
    scale = jax.custom_jvp(lambda s, x: s * x, nondiff_argnums=(0,))
    scale.defjvp(lambda s, p, t: (scale(s, p[0]), 10.0 * t[0]))
    np.testing.assert_allclose(jax.grad(lambda x: scale(3.0, x))(1.0), 10.0)


def test_custom_vjp_rule_is_used():
    gx, gy = jax.grad(h, argnums=(0, 1))(2.0, 5.0)
    np.testing.assert_allclose(gx, 15.0)
    np.testing.assert_allclose(gy, 2.0)
    np.testing.assert_allclose(h(2.0, 5.0), 10.0)
    np.testing.assert_allclose(jax.jit(jax.grad(h))(2.0, 5.0), 15.0)
    np.testing.assert_allclose(jax.grad(jax.jit(h))(2.0, 5.0), 15.0)
    xs = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(jax.vmap(jax.grad(h), (0, None))(xs, 5.0), [15.0] * 3)


def test_custom_vjp_gradient_clipping_pytree():
    @jax.custom_vjp
    def clip_gradient(x):
        return x

    def fwd(x):
        return x, None

    def bwd(_, g):
        return (jnp.clip(g, -1.0, 1.0),)

    clip_gradient.defvjp(fwd, bwd)
    np.testing.assert_allclose(jax.grad(lambda x: jnp.sum(clip_gradient(x) * 5.0))(jnp.ones(2)),
                               [1.0, 1.0])

    @jax.custom_vjp
    def tree_fn(p):
        return p['a'] * p['b']

    tree_fn.defvjp(lambda p: (tree_fn(p), p), lambda p, g: ({'a': g * p['b'], 'b': None},))
    g = jax.grad(tree_fn)({'a': 2.0, 'b': 3.0})
    np.testing.assert_allclose(g['a'], 3.0)
    np.testing.assert_allclose(g['b'], 0.0)


def test_custom_vjp_forward_mode_error():
    with pytest.raises(TypeError) as e:
        jax.jvp(h, (1.0, 2.0), (1.0, 1.0))
    assert str(e.value) == "can't apply forward-mode autodiff (jvp) to a custom_vjp function."


def test_checkpoint_values_and_policies():
    fn = lambda x: jnp.sin(jnp.sin(x))  # noqa: E731
    x = 0.4
    expected = np.cos(np.sin(x)) * np.cos(x)
    for policy in (None, jax.checkpoint_policies.nothing_saveable,
                   jax.checkpoint_policies.everything_saveable):
        c = jax.checkpoint(fn, policy=policy)
        np.testing.assert_allclose(c(x), np.sin(np.sin(x)), rtol=1e-6)
        np.testing.assert_allclose(jax.grad(c)(x), expected, rtol=1e-6)
        np.testing.assert_allclose(jax.jit(jax.grad(c))(x), expected, rtol=1e-6)
        np.testing.assert_allclose(jax.jvp(c, (x,), (1.0,))[1], expected, rtol=1e-6)
    xs = np.linspace(0, 1, 3).astype(np.float32)
    np.testing.assert_allclose(jax.vmap(jax.grad(jax.remat(fn)))(xs),
                               np.cos(np.sin(xs)) * np.cos(xs), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.grad(jax.checkpoint(jnp.sin)))(x), -np.sin(x),
                               rtol=1e-6)


def test_checkpoint_saveable_residuals_printed():
    c = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)),
                       policy=jax.checkpoint_policies.everything_saveable)
    text = str(jax.make_jaxpr(jax.grad(c))(1.0))
    # everything computed forward is reused: the backward remat only multiplies
    assert "b:f32[] = sin a\n    c:f32[] = cos a\n    _:f32[] = sin b\n    d:f32[] = cos b" in text
    assert "jaxpr={ lambda ; f:f32[] g:f32[] h:f32[]. let\n          i:f32[] = mul h g" in text
