"""jax.experimental.hijax primitives written as JAX's HiPrimitive subclasses:
their methods become the primitive's rules (eager, jit, grad, make_jaxpr)."""
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit.experimental import hijax as hjx


class Cube(hjx.HiPrimitive):
    def abstract_eval(self, x):
        return x, set()

    def to_lojax(self, x):
        return x * x * x

    def jvp(self, primals, tangents):
        (x,), (t,) = primals, tangents
        return cube_p.bind(x), 3 * x * x * t


cube_p = Cube("cube")


def test_hi_primitive_runs_under_transformations():
    assert float(cube_p.bind(jnp.float32(2.0))) == 8.0
    assert float(jax.jit(lambda x: cube_p.bind(x))(2.0)) == 8.0
    assert float(jax.grad(lambda x: cube_p.bind(x))(2.0)) == 12.0
    assert str(jax.make_jaxpr(lambda x: cube_p.bind(x))(2.0)) == \
        "{ lambda ; a:f32[]. let b:f32[] = cube a in (b,) }"


def test_high_types_are_refused_clearly():
    class Box:
        pass

    hjx.register_hitype(Box, lambda b: None)  # recorded (flax registers at import)
    with pytest.raises(NotImplementedError, match="xjit does not support hijax high types"):
        jax.experimental.cur_qdd(Box())
    assert hjx.aval_property(fget=len).fget is len
