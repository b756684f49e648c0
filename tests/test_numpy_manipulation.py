"""Array manipulation, index tricks and set operations of ``xjit.numpy``:
stored JAX 0.10.2 behaviour (tests/differential/cases_manip.py) plus direct
checks against NumPy and of the transformation rules of ``unstack``."""
import io

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp

from util import differential_cases, differential_tests

CASES = differential_cases("manip")


KNOWN = {
    "val-pad-badreflect": "JAX's AssertionError has no message; xjit's names the bad value",
}


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "manip", CASES, KNOWN, every=20)


# -- direct checks against NumPy

RNG = np.random.default_rng(0)


def _assert_partitioned(got, x, kth, axis):
    """kth holds its sorted value, nothing before is larger, nothing after
    smaller, and the values are a permutation of x's."""
    got = np.moveaxis(got, axis, -1)
    pivot = np.sort(np.moveaxis(x, axis, -1), -1)[..., kth:kth + 1]
    np.testing.assert_array_equal(got[..., kth:kth + 1], pivot)
    assert (got[..., :kth] <= pivot).all() and (got[..., kth + 1:] >= pivot).all()
    np.testing.assert_array_equal(np.sort(got, -1), np.sort(np.moveaxis(x, axis, -1), -1))


@pytest.mark.parametrize("shape,axis,kth", [((7,), -1, 3), ((4, 5), 0, 1), ((3, 6), 1, 5)])
def test_partition_orders_around_kth(shape, axis, kth):
    x = RNG.integers(-20, 20, shape).astype(np.float32)
    _assert_partitioned(np.asarray(jnp.partition(x, kth, axis=axis)), x, kth, axis)
    idx = np.asarray(jnp.argpartition(x, kth, axis=axis))
    _assert_partitioned(np.take_along_axis(x, idx, axis), x, kth, axis)


@pytest.mark.parametrize("seed", range(4))
def test_set_operations_match_numpy(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 8, 9), rng.integers(0, 8, 6)
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        want = getattr(np, name)(a, b)
        np.testing.assert_array_equal(getattr(jnp, name)(a, b), want, err_msg=name)
        sized = np.asarray(getattr(jnp, name)(a, b, size=len(want) + 2, fill_value=-1))
        np.testing.assert_array_equal(sized[:len(want)], want, err_msg=name)
        assert (sized[len(want):] == -1).all(), name
    np.testing.assert_array_equal(jnp.isin(a, b), np.isin(a, b))
    vals, i1, i2 = jnp.intersect1d(a, b, return_indices=True)
    np.testing.assert_array_equal(a[np.asarray(i1)], vals)
    np.testing.assert_array_equal(b[np.asarray(i2)], vals)


def test_unique_axis_matches_numpy():
    x = RNG.integers(0, 2, (6, 3))
    got = jnp.unique(x, axis=0, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(x, axis=0, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.reshape(np.shape(g)))


def test_sized_functions_under_jit():
    x = jnp.array([0, 3, 0, 4, 5])
    f = jax.jit(lambda v: (jnp.argwhere(v, size=4), jnp.flatnonzero(v, size=2),
                           jnp.bincount(v, length=6), jnp.unique_values(v, size=5)))
    aw, fnz, bc, uv = f(x)
    np.testing.assert_array_equal(aw, [[1], [3], [4], [0]])
    np.testing.assert_array_equal(fnz, [1, 3])
    np.testing.assert_array_equal(bc, np.bincount(np.asarray(x), minlength=6))
    np.testing.assert_array_equal(uv, [0, 3, 4, 5, 0])
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jnp.flatnonzero)(x)


def test_updates_are_out_of_place():
    x = jnp.zeros((3, 3))
    y = jnp.fill_diagonal(x, 2.0, inplace=False)
    np.testing.assert_array_equal(y, 2 * np.eye(3))
    np.testing.assert_array_equal(x, np.zeros((3, 3)))
    z = jnp.put(jnp.arange(6), jnp.array([1, 4]), jnp.array([-1, -2]), inplace=False)
    want = np.arange(6)
    np.put(want, [1, 4], [-1, -2])
    np.testing.assert_array_equal(z, want)
    with pytest.raises(ValueError, match="immutable"):
        jnp.place(x, x > 0, 1.0)


def test_unstack_transforms():
    x = jnp.arange(12.0).reshape(3, 4)
    assert str(jax.make_jaxpr(lambda v: jnp.unstack(v, axis=1))(x)).count("unstack[axis=1]") == 1
    g = jax.grad(lambda v: jnp.unstack(v, axis=1)[2].sum())(x)
    np.testing.assert_array_equal(g, np.eye(4)[2][None, :].repeat(3, 0))
    b = jax.vmap(lambda v: jnp.stack(jnp.unstack(v)[::-1]))(x)
    np.testing.assert_array_equal(b, np.asarray(x)[:, ::-1])
    t = jax.jvp(lambda v: jnp.unstack(v)[0], (x,), (jnp.ones_like(x),))[1]
    np.testing.assert_array_equal(t, np.ones(4))


def test_index_tricks_match_numpy():
    np.testing.assert_array_equal(jnp.mgrid[0:3, 1:5:2], np.mgrid[0:3, 1:5:2])
    for a, b in zip(jnp.ogrid[0:2, 0:1:4j], np.ogrid[0:2, 0:1:4j]):
        np.testing.assert_allclose(a, b)
    np.testing.assert_array_equal(jnp.r_[1:3, 7, [8, 9]], np.r_[1:3, 7, [8, 9]])
    np.testing.assert_array_equal(jnp.c_[[1, 2], [3, 4]], np.c_[[1, 2], [3, 4]])
    idx = jnp.ravel_multi_index((jnp.array([1, 2]), jnp.array([0, 3])), (3, 4))
    np.testing.assert_array_equal(idx, np.ravel_multi_index(([1, 2], [0, 3]), (3, 4)))
    np.testing.assert_array_equal(jnp.unravel_index(idx, (3, 4)),
                                  np.unravel_index(np.asarray(idx), (3, 4)))
    np.testing.assert_array_equal(jnp.tril_indices(4, 1), np.tril_indices(4, 1))


def test_bits_round_trip():
    bits = RNG.integers(0, 2, (3, 11)).astype(np.uint8)
    packed = jnp.packbits(bits, axis=1)
    np.testing.assert_array_equal(packed, np.packbits(bits, axis=1))
    np.testing.assert_array_equal(jnp.unpackbits(packed, axis=1, count=11), bits)


def test_save_load_roundtrip():
    buf = io.BytesIO()
    jnp.save(buf, jnp.arange(4.0))
    buf.seek(0)
    out = jnp.load(buf)
    assert isinstance(out, jax.Array) and out.dtype == np.float32
    np.testing.assert_array_equal(out, np.arange(4.0))


def test_load_bfloat16_saved_by_numpy():
    # NumPy writes bfloat16 as the void type 'V2'; JAX 0.10.2 reads it back as
    # bfloat16, and keeps other dtypes it lacks as NumPy arrays
    buf = io.BytesIO()
    np.save(buf, np.asarray(jnp.array([1.5, 2, -3], dtype=jnp.bfloat16)))
    buf.seek(0)
    assert repr(jnp.load(buf)) == "Array([1.5, 2, -3], dtype=bfloat16)"
    buf = io.BytesIO()
    np.save(buf, np.frombuffer(b"\x80\x3f\x00\x40", dtype="V2"))
    buf.seek(0)
    assert repr(jnp.load(buf)) == "Array([1, 2], dtype=bfloat16)"
    for keep in (np.zeros(2, dtype="V3"), np.array(["a"])):
        buf = io.BytesIO()
        np.save(buf, keep)
        buf.seek(0)
        out = jnp.load(buf)
        assert type(out) is np.ndarray and out.dtype == keep.dtype
