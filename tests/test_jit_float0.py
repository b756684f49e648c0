"""float0 values (integer tangents) as arguments and results of ``jit``, as
JAX 0.10.2 treats them: a float0 argument is accepted, a float0 result comes
back as a host float0 array of its shape, and the other results are computed
as without them (the values below are what JAX returns for these calls)."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit.dtypes import float0


def _is_float0(v, shape):
    return isinstance(v, np.ndarray) and v.dtype == float0 and v.shape == shape


def _f(x, n):
    return (x * n).sum()


def test_float0_argument_passes_through_and_others_compute():
    z = np.zeros((2, 3), float0)
    f = xjit.jit(lambda a, b: (a * 2, b))
    for _ in range(2):  # the first call compiles, the second is served from the cache
        a, b = f(jnp.arange(3.0), z)
        np.testing.assert_array_equal(np.asarray(a), [0.0, 2.0, 4.0])
        assert _is_float0(b, (2, 3))
    assert f._cache_size() == 1
    out = xjit.jit(lambda a, b: a + 1)(jnp.arange(3.0), z)  # unused float0 argument
    np.testing.assert_array_equal(np.asarray(out), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("order", ["jit(grad)", "grad(jit)", "vjp(jit)"])
def test_integer_gradient_through_jit_in_every_order(order):
    x = jnp.arange(3.0)
    if order == "jit(grad)":
        gx, gn = xjit.jit(xjit.grad(_f, argnums=(0, 1), allow_int=True))(x, 2)
    elif order == "grad(jit)":
        gx, gn = xjit.grad(xjit.jit(_f), argnums=(0, 1), allow_int=True)(x, 2)
    else:
        gx, gn = xjit.vjp(xjit.jit(_f), x, 2)[1](1.0)
    np.testing.assert_array_equal(np.asarray(gx), [2.0, 2.0, 2.0])
    assert _is_float0(gn, ())


def test_float0_made_inside_nested_jit_vmap_and_broadcast():
    z = np.zeros((2,), float0)
    assert _is_float0(xjit.jit(lambda b: xjit.jit(lambda c: c)(b))(z), (2,))
    assert _is_float0(xjit.jit(lambda b: lax.broadcast(b, (3,)))(z), (3, 2))
    assert _is_float0(xjit.jit(jnp.zeros_like)(z), (2,))
    assert _is_float0(xjit.vmap(xjit.jit(lambda b: b))(z), (2,))


def test_float0_with_static_keyword_donated_and_aot_calls():
    x, z = jnp.arange(3.0), np.zeros((2,), float0)
    a, b = xjit.jit(lambda a, b, s: (a * s, b), static_argnums=2)(x, z, 3)
    np.testing.assert_array_equal(np.asarray(a), [0.0, 3.0, 6.0])
    assert _is_float0(b, (2,))
    assert _is_float0(xjit.jit(lambda a, b: (a, b))(x, b=z)[1], (2,))
    y = jnp.arange(3.0)
    a, b = xjit.jit(lambda a, b: (a + 1, b), donate_argnums=(0, 1))(y, z)
    np.testing.assert_array_equal(np.asarray(a), [1.0, 2.0, 3.0])
    assert y.is_deleted() and _is_float0(b, (2,))
    a, b = xjit.jit(lambda a, b: (a * 2, b)).lower(x, z).compile()(x, z)
    np.testing.assert_array_equal(np.asarray(a), [0.0, 2.0, 4.0])
    assert _is_float0(b, (2,))


def test_float0_results_under_debug_nans():
    x, z = jnp.arange(3.0), np.zeros((2,), float0)
    with xjit.debug_nans(True):
        a, b = xjit.jit(lambda a, b: (a * 2, b))(x, z)
        assert _is_float0(b, (2,))
        with pytest.raises(FloatingPointError, match="invalid value"):
            xjit.jit(lambda a, b: (a / 0.0, b))(x, z)


def test_float0_jaxpr_and_device_put():
    z = np.zeros((2,), float0)
    assert str(xjit.make_jaxpr(lambda b: b)(z)) == "{ lambda ; a:float0[2]. let  in (a,) }"
    assert _is_float0(xjit.device_put(np.zeros((2, 3), float0)), (2, 3))
