"""PRNG key arrays where libraries use them: equality, which chex's
``assert_trees_all_equal`` relies on (``jnp.array_equal(k1, k2,
equal_nan=True)``; ``eq``/``ne`` compare the key data, under jit and vmap
too, and keys meet only keys of their own type), and keys closed over by a
jitted function, as optax's ``inject_hyperparams`` state holds them.
Expected values and jaxprs are JAX 0.10.2's."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

KS = jax.random.split(jax.random.key(0), 3)
OTHER = jax.random.split(jax.random.key(1), 3)


def test_eq_and_ne_compare_key_data():
    k = jax.random.key(0)
    assert bool(k == jax.random.key(0)) and not bool(k != jax.random.key(0))
    np.testing.assert_array_equal(KS == KS, [True, True, True])
    np.testing.assert_array_equal(KS != KS, [False, False, False])
    np.testing.assert_array_equal(KS == k, [False, False, False])   # a scalar key broadcasts
    np.testing.assert_array_equal(k != KS, [True, True, True])
    mixed = jnp.stack([KS[0], OTHER[1], KS[2]])
    np.testing.assert_array_equal(mixed == KS, [True, False, True])
    eye = jax.jit(lambda a, b: a == b)(KS.reshape(3, 1), KS.reshape(1, 3))
    np.testing.assert_array_equal(eye, np.eye(3, dtype=bool))


def test_comparisons_batch_and_stage():
    k = jax.random.key(0)
    np.testing.assert_array_equal(jax.vmap(lambda a, b: a == b, (0, None))(KS, k), [False] * 3)
    np.testing.assert_array_equal(jax.vmap(lambda a, b: a != b, (None, 0))(k, KS), [True] * 3)
    assert str(jax.make_jaxpr(jax.vmap(lambda a, b: a != b))(KS, KS)) == \
        "{ lambda ; a:key<fry>[3] b:key<fry>[3]. let c:bool[3] = ne a b in (c,) }"


def test_array_equal_on_keys():
    assert bool(jnp.array_equal(KS, KS)) and bool(jnp.array_equal(KS, KS, equal_nan=True))
    assert not bool(jnp.array_equal(KS, OTHER, equal_nan=True))
    assert not bool(jnp.array_equal(KS[:2], KS[1:]))
    assert not bool(jnp.array_equal(KS, 3))  # shapes differ: False before any dtype check
    assert bool(jax.jit(lambda a, b: jnp.array_equal(a, b, equal_nan=True))(KS, KS))
    np.testing.assert_array_equal(jnp.isnan(KS), [False] * 3)
    assert str(jax.make_jaxpr(lambda a, b: jnp.array_equal(a, b, equal_nan=True))(KS, KS)) == (
        "{ lambda ; a:key<fry>[3] b:key<fry>[3]. let\n"
        "    c:bool[3] = eq a b\n"
        "    d:bool[3] = ne a a\n"
        "    e:bool[3] = ne b b\n"
        "    f:bool[3] = and d e\n"
        "    g:bool[3] = or c f\n"
        "    h:bool[] = reduce_and[axes=(0,)] g\n"
        "  in (h,) }")


def test_keys_meet_only_keys():
    with pytest.raises(TypeError, match=r"^equal does not accept dtypes key<fry>, int32\.$"):
        jnp.equal(KS, 3)
    with pytest.raises(TypeError, match=r"^equal does not accept dtypes key<fry>, float32\.$"):
        jnp.array_equal(KS, jnp.zeros(3))
    # JAX fails here in its lowering; xjit names the mismatch before lowering
    with pytest.raises(TypeError, match=r"lax\.eq requires arguments to have the same dtypes, "
                                        r"got key<fry>, uint32"):
        lax.eq(KS, jnp.zeros(3, jnp.uint32))
    with pytest.raises(TypeError, match="lt does not accept dtype key<fry>"):
        KS < KS


def test_closed_over_keys_are_constants():
    k = jax.random.key(0)
    # a scalar key is a constvar, never a literal
    assert str(jax.make_jaxpr(lambda: (k, 1.0))()) == \
        "{ lambda a:key<fry>[]; . let  in (a, 1.0:f32[]) }"
    out_k, out_ks = jax.jit(lambda: (k, KS))()
    assert out_k.dtype == k.dtype and out_ks.shape == (3,)
    np.testing.assert_array_equal(jax.random.key_data(out_k), [0, 0])
    np.testing.assert_array_equal(jax.random.key_data(out_ks), jax.random.key_data(KS))
    np.testing.assert_allclose(jax.jit(lambda x: jax.random.normal(k, (2,)) * x)(2.0),
                               [3.2452843, 4.0505295], rtol=1e-6)


def test_scatter_sets_keys():
    """``keys.at[i].set(k)`` (flax's linen ``while_loop`` test keeps its rngs
    so) lowers on the key data: eagerly, under jit, vmap, a fori_loop, with
    index arrays, slices and clipping; the key data are JAX 0.10.2's."""
    k = jax.random.key(7)
    data = [[1797259609, 2579123966], [928981903, 3453687069], [4146024105, 2718843009]]
    np.testing.assert_array_equal(jax.random.key_data(KS), data)
    out = KS.at[1].set(k)
    assert out.dtype == KS.dtype
    np.testing.assert_array_equal(jax.random.key_data(out), [data[0], [0, 7], data[2]])
    out = jax.jit(lambda ks, k: ks.at[2].set(k))(KS, k)
    np.testing.assert_array_equal(jax.random.key_data(out), [data[0], data[1], [0, 7]])
    np.testing.assert_array_equal(jax.random.key_data(KS.at[5].set(k, mode="clip")),
                                  [data[0], data[1], [0, 7]])
    np.testing.assert_array_equal(jax.random.key_data(KS.at[1:].set(k)),
                                  [data[0], [0, 7], [0, 7]])
    loop = lax.fori_loop(0, 3, lambda i, ks: ks.at[i].set(jax.random.fold_in(k, i)), KS)
    np.testing.assert_array_equal(jax.random.key_data(loop), [
        [3625411723, 1954958720], [195045567, 4062205631], [966301609, 1948237315]])
    kv = jax.random.split(jax.random.key(2), 2)
    kv_data = [[1821159224, 3364244817], [637334850, 3278974502]]
    np.testing.assert_array_equal(jax.random.key_data(KS.at[jnp.array([0, 2])].set(kv)),
                                  [kv_data[0], data[1], kv_data[1]])
    kk = jax.random.split(jax.random.key(1), 6).reshape(2, 3)
    out = jax.random.key_data(jax.vmap(lambda ks, k: ks.at[1].set(k))(kk, kv))
    np.testing.assert_array_equal(out[:, 1], kv_data)
    np.testing.assert_array_equal(out[:, ::2], jax.random.key_data(kk)[:, ::2])
    np.testing.assert_array_equal(out[:, ::2], [[[507451445, 1853169794],
                                                 [2441914641, 3819641963]],
                                                [[3568232559, 2761185182],
                                                 [3243370355, 1313272271]]])
