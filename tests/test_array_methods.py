"""The NumPy-style ``Array`` methods and single-device array queries, against
what JAX 0.10.2 printed for the same expressions (tests/fixtures/
array_methods_jax.json: ``expr -> repr`` or ``expr !! ErrorClass message``)."""
import json
import os

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp

with open(os.path.join(os.path.dirname(__file__), "fixtures", "array_methods_jax.json")) as f:
    RECORD = json.load(f)


def _line(expr):
    x = jnp.arange(6.).reshape(2, 3)  # noqa: F841 (used by the expressions)
    try:
        r = eval(expr)
        return f"{expr} -> {repr(r)[:90]}".replace("\n", " ")
    except Exception as ex:  # noqa: BLE001 - the class and message are the behaviour
        return f"{expr} !! {type(ex).__name__} {str(ex)[:120]}"


@pytest.mark.parametrize("expr", sorted(RECORD["lines"]))
def test_method_matches_jax(expr):
    want = RECORD["lines"][expr]
    got = _line(expr)
    if "unexpected keyword argument" in want:  # the function's name differs
        assert got.split(" !! ")[1].split()[0] == want.split(" !! ")[1].split()[0]
    else:
        assert got == want


def test_jaxprs_of_methods():
    x = jnp.arange(6.).reshape(2, 3)
    text = "\n".join([str(jax.make_jaxpr(lambda x: x.view(jnp.int32))(x)),
                      str(jax.make_jaxpr(lambda x: round(x))(x)),
                      str(jax.make_jaxpr(lambda x: x.copy())(x)),
                      str(jax.jit(lambda x: x.sort(axis=0)[0].cumsum())(x))])
    assert text == RECORD["tail"].strip("\n")


class _Wrapped:
    """An object with ``__jax_array__``, as flax nnx Variables are."""

    def __init__(self, value):
        self.value = value

    def __jax_array__(self):
        return self.value


def test_jax_array_protocol_operators_and_constructors():
    # JAX 0.10.2: operators, jnp.array/asarray (also inside lists) and einsum
    # call __jax_array__; the result is never weakly typed
    a = jnp.ones(3)
    o = _Wrapped(jnp.arange(3.0))
    for got, want in ((a + o, [1.0, 2.0, 3.0]), (o + a, [1.0, 2.0, 3.0]),
                      (o - a, [-1.0, 0.0, 1.0]), (a * o, [0.0, 1.0, 2.0]),
                      (a < o, [False, False, True]), (a == o, [False, True, False]),
                      (a @ o, 3.0), (o @ a, 3.0), (jnp.einsum("i,i->", a, o), 3.0),
                      (jnp.reshape(o, (3, 1)), [[0.0], [1.0], [2.0]]),
                      (jnp.concatenate([o, a]), [0, 1, 2, 1, 1, 1]), (jnp.argmax(o), 2)):
        np.testing.assert_array_equal(np.asarray(got), want)
    assert repr(jnp.asarray(_Wrapped(2.5))) == "Array(2.5, dtype=float32)"
    assert repr(jnp.asarray(_Wrapped(jnp.asarray(2.5)))) == "Array(2.5, dtype=float32)"
    assert repr(jnp.array(_Wrapped(2.5), dtype=jnp.int32)) == "Array(2, dtype=int32)"
    assert repr(jnp.array([_Wrapped(2.5), 1])) == "Array([2.5, 1. ], dtype=float32)"
    assert repr(jnp.ones(3, jnp.int32) + _Wrapped(2.5)) == \
        "Array([3.5, 3.5, 3.5], dtype=float32, weak_type=True)"
    assert jnp.shape(o) == (3,) and jnp.ndim(o) == 1 and jnp.size(o) == 3
    np.testing.assert_array_equal(np.asarray(jax.grad(lambda x: (x * o).sum())(a)), [0, 1, 2])
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda x: x + o)(a)), [1, 2, 3])


@pytest.mark.parametrize("call", [lambda o: jnp.sin(o), lambda o: jnp.sum(o),
                                  lambda o: jnp.add(jnp.ones(3), o), lambda o: jnp.dot(o, o),
                                  lambda o: jnp.outer(o, o)])
def test_jax_array_protocol_rejected_where_jax_rejects(call):
    # JAX's jitted jnp functions refuse such objects when abstracting arguments
    with pytest.raises(ValueError, match=r"^Triggering __jax_array__\(\) during "
                       r"abstractification is no longer supported. To avoid this error, either "
                       r"explicitly convert your object using jax.numpy.array\(\), or register "
                       r"your object as a pytree.$"):
        call(_Wrapped(jnp.arange(3.0)))
