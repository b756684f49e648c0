"""jax.experimental.hijax primitives written as JAX's HiPrimitive subclasses:
their methods become the primitive's rules (eager, jit, grad, make_jaxpr)."""
import numpy as np
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


class Box:
    """A mutable high-typed value (as flax's HijaxVariable): its state is a
    list of arrays, whose types are its quasi-dynamic data."""

    def __init__(self, leaves):
        self.leaves = list(leaves)

    def cur_qdd(self):
        return tuple(jax.typeof(x) for x in self.leaves)


class GetLeaves(hjx.HiPrimitive):
    multiple_results = True

    def abstract_eval(self, box, *, avals):
        return list(avals), set()

    def impl(self, box, *, avals):
        return list(box.leaves)

    def to_lojax(self, box, *, avals):
        return list(box.leaves)


class SetLeaves(hjx.HiPrimitive):
    multiple_results = True

    def abstract_eval(self, box, *leaves):
        return [], set()

    def impl(self, box, *leaves):
        box.leaves = list(leaves)
        return []

    def to_lojax(self, box, *leaves):
        return self.impl(box, *leaves)


get_leaves_p, set_leaves_p = GetLeaves("get_leaves"), SetLeaves("set_leaves")


def test_high_types_run_eagerly():
    hjx.register_hitype(Box, lambda b: None)  # recorded (flax registers at import)
    box = Box([jnp.arange(3.0), jnp.int32(7)])
    # eagerly the value's own state (flax reads a HijaxVariable's so)
    qdd = jax.experimental.cur_qdd(box)
    assert [(a.shape, str(a.dtype)) for a in qdd] == [((3,), "float32"), ((), "int32")]
    x, n = get_leaves_p.bind(box, avals=qdd)
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])
    assert int(n) == 7
    set_leaves_p.bind(box, x * 2, n + 1)
    x, n = get_leaves_p.bind(box, avals=jax.experimental.cur_qdd(box))
    np.testing.assert_array_equal(x, [0.0, 2.0, 4.0])
    assert int(n) == 8
    # under a transformation: the state the trace sees (tests/test_hijax_transforms.py)
    assert float(jax.jit(lambda y: len(jax.experimental.cur_qdd(box)) + y)(1.0)) == 3.0
    with pytest.raises(NotImplementedError, match="hijax values as tracers"):
        jax.vmap(lambda y: jax.experimental.cur_qdd(y))(jnp.ones(2))
    assert hjx.aval_property(fget=len).fget is len
