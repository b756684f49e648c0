"""``jnp.pad`` and ``jnp.diag`` of a weakly typed array stay weak, as in JAX
0.10.2 (recorded from it): the padding value takes the array's weak type."""
from __future__ import annotations

import pytest

import xjit.numpy as jnp

W = jnp.asarray(2.0)  # a weakly typed float32

CASES = [  # (name, thunk, JAX's weak_type)
    ("pad constant of weak", lambda: jnp.pad(jnp.broadcast_to(W, (2,)), 1), True),
    ("pad constant, values per side", lambda: jnp.pad(jnp.broadcast_to(W, (2,)), 1,
                                                      constant_values=(1, 2)), True),
    ("pad constant of strong", lambda: jnp.pad(W * jnp.ones(2), 1), False),
    ("pad edge of weak", lambda: jnp.pad(jnp.broadcast_to(W, (2,)), 1, mode="edge"), True),
    ("diag of weak vector", lambda: jnp.diag(jnp.broadcast_to(W, (2,))), True),
    ("diag of strong vector", lambda: jnp.diag(W * jnp.ones(2)), False),
]


@pytest.mark.parametrize("name,thunk,weak", CASES, ids=[c[0] for c in CASES])
def test_weak_type(name, thunk, weak):
    out = thunk()
    assert out.dtype == jnp.float32 and out.weak_type is weak
