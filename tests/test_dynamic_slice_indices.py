"""Start indices of dynamic_slice / dynamic_update_slice as JAX 0.10.2 takes
them (recorded from it): one integer dtype for every start, a Python int in
the default integer dtype (int64 with x64), the ``*_in_dim`` helpers' other
starts in the start's dtype, and JAX's TypeError, not an XLA compile error,
for anything else."""
from __future__ import annotations

import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax

X = np.arange(12.0, dtype=np.float32).reshape(3, 4)

OK = [  # (name, thunk, first values of the result): recorded from JAX 0.10.2
    ("in_dim int16", lambda: lax.dynamic_slice_in_dim(jnp.asarray(X), jnp.int16(1), 2, axis=0),
     [4.0, 5.0, 6.0, 7.0]),
    ("update int8 start on 300", lambda: lax.dynamic_update_slice(
        jnp.zeros(300), jnp.ones(3), (jnp.int8(5),)), [0.0, 0.0, 0.0, 0.0]),
    ("uint8 starts", lambda: lax.dynamic_slice(jnp.asarray(X), (jnp.uint8(1), jnp.uint8(1)), (2, 2)),
     [5.0, 6.0, 9.0, 10.0]),
    ("jit int32 + 0", lambda: xjit.jit(lambda i: lax.dynamic_slice(jnp.asarray(X), (i, 0), (2, 2)))(
        jnp.int32(1)), [4.0, 5.0, 8.0, 9.0]),
]

BAD = [  # (name, thunk, JAX's message)
    ("int16 + 0", lambda: lax.dynamic_slice(jnp.asarray(X), (jnp.int16(1), 0), (2, 2)),
     "index arguments to dynamic_slice must be integers of the same type, got: int16, int32"),
    ("int8 + int32", lambda: lax.dynamic_slice(jnp.asarray(X), (jnp.int8(1), jnp.int32(1)), (2, 2)),
     "index arguments to dynamic_slice must be integers of the same type, got: int8, int32"),
    ("jit int16 + 0", lambda: xjit.jit(lambda i: lax.dynamic_slice(jnp.asarray(X), (i, 0), (2, 2)))(
        jnp.int16(1)),
     "index arguments to dynamic_slice must be integers of the same type, got: int16, int32"),
    ("update int16 + 0", lambda: lax.dynamic_update_slice(jnp.asarray(X), jnp.ones((1, 2)),
                                                          (jnp.int16(1), 0)),
     "index arguments to dynamic_update_slice must be integers of the same type, got int16, int32"),
    ("float start", lambda: lax.dynamic_slice(jnp.asarray(X), (1.0, 0), (2, 2)),
     "index arguments to dynamic_slice must be integers of the same type, got: float32, int32"),
]


@pytest.mark.parametrize("name,thunk,first", OK, ids=[c[0] for c in OK])
def test_starts_taken(name, thunk, first):
    assert np.asarray(thunk()).ravel()[:4].tolist() == first


@pytest.mark.parametrize("name,thunk,message", BAD, ids=[c[0] for c in BAD])
def test_starts_refused(name, thunk, message):
    with pytest.raises(TypeError) as e:
        thunk()
    assert str(e.value) == message


def test_x64_python_int_starts_are_int64():
    with xjit.enable_x64(True):
        x = jnp.arange(12.0).reshape(3, 4)
        i = jnp.int64(1)
        assert np.asarray(lax.dynamic_slice(x, (i, 0), (2, 2))).tolist() == [[4, 5], [8, 9]]
        f = xjit.jit(lambda i: lax.dynamic_slice(x, (i, 0), (2, 2)))
        assert np.asarray(f(i)).tolist() == [[4, 5], [8, 9]]
        up = lax.dynamic_update_slice(x, jnp.ones((1, 2)), (i, 0))
        assert np.asarray(up)[1].tolist() == [1, 1, 6, 7]
        assert np.asarray(lax.dynamic_slice_in_dim(x, i, 2, axis=1)).ravel()[:4].tolist() == \
            [1, 2, 5, 6]
        with pytest.raises(TypeError, match="got: int32, int64"):
            lax.dynamic_slice(x, (jnp.int32(1), i), (2, 2))



def test_start_count_must_match_rank_also_under_vmap():
    """JAX's ValueError, eager and for a vmapped 0-d operand (recorded)."""
    msg = r"Length of slice indices must match number of operand dimensions \(1 vs \(\)\)"
    with pytest.raises(ValueError, match=msg):
        lax.dynamic_slice(jnp.float32(1), (0,), (1,))
    with pytest.raises(ValueError, match=msg):
        xjit.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (1,)))(jnp.ones(3), jnp.arange(3))
    with pytest.raises(ValueError, match=msg):
        xjit.vmap(lambda x, i: lax.dynamic_update_slice(x, x, (i,)))(jnp.ones(3), jnp.arange(3))
