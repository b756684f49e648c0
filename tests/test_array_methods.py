"""The NumPy-style ``Array`` methods and single-device array queries, against
what JAX 0.10.2 printed for the same expressions (tests/fixtures/
array_methods_jax.json: ``expr -> repr`` or ``expr !! ErrorClass message``)."""
import json
import os

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
