"""Named-axis collectives under vmap (lax.psum, pmean, pmax, pmin, axis_index,
axis_size, all_gather, ppermute, pshuffle, psum_scatter, all_to_all,
pswapaxes): values against NumPy, the stored JAX 0.10.2 records (values,
printed jaxprs, errors; see tests/differential/cases_coll.py), and the jit
cache seeing the vmapped axes."""

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

from util import differential_cases, differential_tests

CASES = differential_cases("coll")


KNOWN = {
    "jaxpr-psum-scatter-dim1": "xjit's stack batching rule stacks at the batched position; JAX "
                               "stacks at 0 and transposes (values agree)",
    "jaxpr-grad-outside-scatter": "xjit's stack batching/transpose rules differ from JAX's "
                                  "(stack at 0 then unstack); values agree",
    "jaxpr-grad-ppermute": "xjit's jit cache hands both jnp.take calls one jaxpr, which the "
                           "printer shares as `let _take`; JAX prints two inline copies",
}


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "coll", CASES, KNOWN, every=20)


X = np.arange(12.0, dtype=np.float32).reshape(4, 3)


def _vmap(f, x=X, **kw):
    return np.asarray(jax.vmap(f, axis_name="i", **kw)(jnp.asarray(x)))


@pytest.mark.parametrize("fn,ref", [(lax.psum, np.sum), (lax.pmean, np.mean),
                                    (lax.pmax, np.max), (lax.pmin, np.min)])
def test_reductions_against_numpy(fn, ref):
    np.testing.assert_allclose(_vmap(lambda v: fn(v, "i")), np.broadcast_to(ref(X, 0), X.shape))


def test_batchnorm_statistics():
    def norm(v):
        mu = lax.pmean(v, "i")
        return (v - mu) / jnp.sqrt(lax.pmean((v - mu) * (v - mu), "i") + 1e-5)
    want = (X - X.mean(0)) / np.sqrt(X.var(0) + 1e-5)
    np.testing.assert_allclose(_vmap(norm), want, rtol=1e-5)


def test_axis_index_size_and_constants():
    out = _vmap(lambda v: lax.axis_index("i") * lax.axis_size("i") + 0 * v[0])
    np.testing.assert_array_equal(out, np.arange(4) * 4)
    seen = []
    jax.vmap(lambda v: seen.append(lax.psum(1, "i")) or v, axis_name="i")(jnp.ones(5))
    assert seen == [5] and type(seen[0]) is int
    r = jax.vmap(lambda v: lax.psum(jnp.ones(2), "i") + 0 * v, axis_name="i")(jnp.ones((3, 2)))
    np.testing.assert_array_equal(np.asarray(r), np.full((3, 2), 3.0))


def test_gather_permute_scatter_alltoall():
    np.testing.assert_array_equal(_vmap(lambda v: lax.all_gather(v, "i")),
                                  np.broadcast_to(X, (4, 4, 3)))
    np.testing.assert_array_equal(_vmap(lambda v: lax.pshuffle(v, "i", [3, 0, 1, 2])),
                                  X[[3, 0, 1, 2]])
    shifted = _vmap(lambda v: lax.ppermute(v, "i", [(k, (k + 1) % 4) for k in range(4)]))
    np.testing.assert_array_equal(shifted, np.roll(X, 1, axis=0))
    sq = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    np.testing.assert_array_equal(_vmap(lambda v: lax.psum_scatter(v, "i"), sq), sq.sum(0))
    cube = np.arange(32.0, dtype=np.float32).reshape(4, 4, 2)
    # member i receives chunk i of every member: a transpose of the first two axes
    np.testing.assert_array_equal(_vmap(lambda v: lax.all_to_all(v, "i", 0, 0), cube),
                                  cube.transpose(1, 0, 2))


def test_nested_names():
    z = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    f = jax.vmap(jax.vmap(lambda v: lax.psum(v, ("i", "j")), axis_name="j"), axis_name="i")
    np.testing.assert_allclose(np.asarray(f(z)), np.broadcast_to(z.sum((0, 1)), z.shape))
    g = jax.vmap(jax.vmap(lambda v: lax.psum(v, "i"), axis_name="j"), axis_name="i")
    np.testing.assert_allclose(np.asarray(g(z)), np.broadcast_to(z.sum(0), z.shape))
    h = jax.vmap(jax.vmap(lambda v: lax.axis_index(("i", "j")) + 0 * v[0], axis_name="j"),
                 axis_name="i")
    np.testing.assert_array_equal(np.asarray(h(z)), np.arange(6).reshape(2, 3))


def test_grad_of_pmean_inside_and_outside_vmap():
    v = np.array([0.5, 1.5, -2.0], np.float32)
    inside = jax.vmap(jax.grad(lambda w: lax.pmean(jnp.sin(w), "i")), axis_name="i")(v)
    np.testing.assert_allclose(np.asarray(inside), np.cos(v), rtol=1e-6)
    outside = jax.grad(lambda x: jax.vmap(lambda w: w - lax.pmean(w, "i"),
                                          axis_name="i")(x * x).sum())(v)
    np.testing.assert_allclose(np.asarray(outside), np.zeros(3), atol=1e-6)


def test_jit_cache_keys_on_vmapped_axes():
    f = jax.jit(lambda w: w * lax.axis_size("i"))
    assert np.asarray(jax.vmap(f, axis_name="i")(jnp.ones(3))).tolist() == [3.0] * 3
    assert np.asarray(jax.vmap(f, axis_name="i")(jnp.ones(5))).tolist() == [5.0] * 5
    g = jax.jit(lambda w: lax.psum(w, "i"))
    jax.vmap(g, axis_name="i")(jnp.ones(3))
    with pytest.raises(NameError, match="Found an unbound axis name: i"):
        g(jnp.ones(3))


def test_unbound_names():
    with pytest.raises(NameError, match="^unbound axis name: i$"):
        lax.psum(jnp.ones(3), "i")
    with pytest.raises(NameError, match="call psum under"):
        jax.jit(lambda x: lax.psum(x, "i"))(jnp.ones(3))
    with pytest.raises(NameError, match="call axis_index under"):
        lax.axis_index("i")
    with pytest.raises(NameError, match="unbound axis name: j"):
        jax.vmap(lambda v: lax.psum(v, "j"), axis_name="i")(jnp.ones(3))
