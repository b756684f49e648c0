"""How a jitted function is named: the lowered module's symbol and the
``name=`` of its jaxpr equation, as JAX 0.10.2 names them (recorded from it:
a partial names its function, an object without ``__name__`` is an unnamed
function, and the module symbol drops trailing '_' and is quoted when MLIR
cannot write it bare)."""
from __future__ import annotations

import functools

import pytest

import xjit
import xjit.numpy as jnp


def _mul(x, y):
    return x * y


class _Callable:
    def __call__(self, x):
        return x + 1


def _odd(x):
    return x


_odd.__name__ = "a.b-c_"

CASES = [  # (function, module line start, equation name): recorded from JAX 0.10.2
    (lambda x: x, "module @jit__lambda attributes", "<lambda>"),
    (functools.partial(_mul, 2.0), "module @jit__mul attributes", "_mul"),
    (_Callable(), "module @jit__unnamed_function attributes", "<unnamed function>"),
    (_odd, 'module @"jit_a.b-c" attributes', "a.b-c_"),
    (jnp.sin, "module @jit_sin attributes", "sin"),
]


@pytest.mark.parametrize("fun,module,name", CASES, ids=[c[2] for c in CASES])
def test_names(fun, module, name):
    lowered = xjit.jit(fun).lower(1.0)
    assert lowered.as_text().startswith(module)
    assert lowered.compile()(1.0) is not None  # the quoted symbol parses and compiles
    eqn = xjit.make_jaxpr(lambda x: xjit.jit(fun)(x))(1.0).jaxpr.eqns[0]
    assert eqn.params["name"] == name
