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


_FLOAT0_TAIL = ("float0s do not support any operations by design{} because they are not "
                "compatible with non-trivial vector spaces. No implicit dtype conversion is "
                "done. You can use np.zeros_like(arr, dtype=np.float) to cast a float0 array to "
                "a regular zeros array. \nIf you didn't expect to get a float0 you might have "
                "accidentally taken a gradient with respect to an integer argument.")


@pytest.mark.parametrize("call,name", [
    (lambda z: jnp.multiply(z, 2), "multiply"), (lambda z: jnp.add(z, z), "add"),
    (lambda z: jnp.subtract(2.0, z), "subtract"), (lambda z: jnp.sin(z), "sin"),
    (lambda z: jnp.power(z, 2), "power"), (lambda z: jnp.floor_divide(z, 2), "floor_divide"),
    (lambda z: jnp.true_divide(z, 2), "true_divide"), (lambda z: jnp.negative(z), "negative"),
    (lambda z: jnp.multiply(jnp.ones(3), z), "multiply")])
def test_jnp_arithmetic_on_float0_is_jaxs_type_error(call, name):
    # JAX 0.10.2's jnp check: TypeError, "by design because" (no comma)
    with pytest.raises(TypeError) as e:
        call(np.zeros(3, float0))
    assert str(e.value) == f"Called {name} with a float0 array. " + _FLOAT0_TAIL.format("")


def test_lax_ops_on_float0_are_jaxs_type_error():
    # JAX 0.10.2's lax dtype rules: "by design, because"; n-ary ops name the position
    z = np.zeros(3, float0)
    for fn, head in ((lambda: lax.add(z, z), "Called add with a float0 at position 0. "),
                     (lambda: lax.pow(z, 1.0), "Called pow with a float0 at position 0. "),
                     (lambda: lax.mul(1.0, z), "Called mul with a float0 at position 1. "),
                     (lambda: lax.sin(z), "Called sin with a float0 array. "),
                     (lambda: jnp.abs(z), "Called abs with a float0 array. ")):
        with pytest.raises(TypeError) as e:
            xjit.make_jaxpr(fn)()
        assert str(e.value) == head + _FLOAT0_TAIL.format(",")
