"""H-ufunc's surface against JAX 0.10.2: the elementwise functions, dtype names
and ufunc objects added to ``xjit.numpy``, the new ``xjit.nn`` functions and
initializers (stored JAX records, see tests/differential), plus properties
checked directly against NumPy."""

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp

from util import differential_cases, differential_tests

CASES = differential_cases("ufuncs")


KNOWN = {
    "ew-79": "grad(jnp.i0) jaxpr: xjit's transpose of select_n stages broadcast zeros and its "
             "partial evaluation keeps a dead _where residual (values agree, case ew-78)",
}


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "ufuncs", CASES, KNOWN, every=20)


# -- values against NumPy over awkward inputs

_X = np.array([-3.7, -2.5, -1.0, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 1e30, np.inf, -np.inf,
               np.nan], np.float32)


@pytest.mark.parametrize("name", ["trunc", "rint", "fabs", "isposinf", "isneginf", "log2",
                                  "log10", "signbit", "isinf"])
def test_unary_values_match_numpy(name):
    with np.errstate(all="ignore"):
        want = getattr(np, name)(_X)
    got = np.asarray(getattr(jnp, name)(_X))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)


def test_modf_and_nextafter_match_numpy():
    frac, whole = jnp.modf(_X[:-3])
    want_frac, want_whole = np.modf(_X[:-3])
    np.testing.assert_array_equal(frac, want_frac)
    np.testing.assert_array_equal(whole, want_whole)
    np.testing.assert_array_equal(jnp.nextafter(_X, np.float32(0)), np.nextafter(_X, np.float32(0)))


def test_spacing_matches_numpy_away_from_zero():
    x = np.array([1.0, -1.0, 1e-30, 3e38, 1e-45], np.float32)
    np.testing.assert_array_equal(jnp.spacing(x), np.spacing(x))


def test_angle_and_conj():
    z = np.array([1 + 1j, -1 + 0j, -2j, 3 - 4j], np.complex64)
    np.testing.assert_allclose(jnp.angle(z), np.angle(z), rtol=1e-6)
    np.testing.assert_allclose(jnp.angle(z, deg=True), np.angle(z, deg=True), rtol=1e-6)
    np.testing.assert_array_equal(jnp.conj(z), np.conj(z))
    assert jnp.conjugate(jnp.arange(3)).dtype == np.int32


def test_bitwise_count_matches_numpy():
    x = np.array([0, 1, -1, 255, -256, 2**31 - 1, -2**31], np.int32)
    got = jnp.bitwise_count(x)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, np.bitwise_count(x))


def test_i0_matches_numpy():
    x = np.linspace(-10, 10, 41).astype(np.float32)
    np.testing.assert_allclose(jnp.i0(x), np.i0(x).astype(np.float32), rtol=2e-6)


@pytest.mark.parametrize("x1,x2", [([7, -7, 7, -7, 0], [3, 3, -3, -3, 5]),
                                   ([5.5, -5.5, 5.5, -0.0], [2.0, 2.0, -2.0, 3.0])])
def test_remainders_match_numpy(x1, x2):
    a, b = np.array(x1), np.array(x2)
    for f in ("remainder", "fmod", "floor_divide"):
        np.testing.assert_array_equal(getattr(jnp, f)(a, b), getattr(np, f)(a, b).astype(
            np.asarray(getattr(jnp, f)(a, b)).dtype))
    q, r = jnp.divmod(a, b)
    wq, wr = np.divmod(a, b)
    np.testing.assert_array_equal(q, wq.astype(q.dtype))
    np.testing.assert_array_equal(r, wr.astype(r.dtype))


def test_integer_zero_divisor_gives_no_crash():
    x = jnp.array([5, -5, 0], dtype=jnp.int32)
    assert np.asarray(jnp.remainder(x, 0)).tolist() == [0, 0, 0]
    assert np.asarray(jnp.fmod(x, 0)).tolist() == [0, 0, 0]


def test_integer_power_matches_numpy():
    base = np.array([0, 1, 2, -2, 3, -1, 7], np.int32)
    exp = np.array([0, 5, 10, 3, 4, 7, 2], np.int32)
    np.testing.assert_array_equal(jnp.power(base, exp), np.power(base, exp))


@pytest.mark.parametrize("args", [(5,), (2, 7), (1, 10, 3), (0.5, 3.0, 0.5), (10, 1, -3),
                                  (-1.0, 1.0, 0.25), (3, 1)])
def test_arange_matches_numpy(args):
    got, want = jnp.arange(*args), np.arange(*args)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.shape == want.shape


def test_round_decimals_matches_numpy():
    x = np.array([1.2345, -2.5551, 0.125, 1234.5, -0.5], np.float32)
    for d in (0, 1, 2, -1, -2):
        np.testing.assert_allclose(jnp.round(x, d), np.round(x, d), rtol=1e-6)


def test_weak_scalars_stay_weak_in_like_functions():
    for f in (jnp.zeros_like, jnp.ones_like, jnp.empty_like):
        out = f(2.0)
        assert out.weak_type and out.dtype == np.float32
    assert not jnp.zeros_like(jnp.float32(2)).weak_type
    assert not jnp.zeros_like(2.0, dtype=jnp.float32).weak_type


# -- dtype names

def test_ml_dtype_scalar_types():
    for name in ("float8_e4m3fn", "float8_e5m2", "float8_e3m4", "float6_e2m3fn", "int4",
                 "uint4", "int2", "uint1"):
        t = getattr(jnp, name)
        assert t == np.dtype(name) and np.dtype(t) == np.dtype(name)
    assert jnp.int4(3).dtype == np.dtype("int4")
    assert jnp.isdtype(jnp.int2, "signed integer") and not jnp.isdtype(jnp.int2, "unsigned integer")
    assert jnp.isdtype(jnp.float8_e5m2, "real floating")


def test_printoptions_are_numpys():
    with jnp.printoptions(precision=2):
        assert str(jnp.array([1.23456])) == "[1.23]"
        assert jnp.get_printoptions()["precision"] == 2
    assert jnp.get_printoptions()["precision"] == 8


# -- ufuncs

def test_frompyfunc_methods_match_numpy_semantics():
    f = jnp.frompyfunc(lambda a, b: a * 2 + b, 2, 1)
    x = np.arange(1.0, 6.0)
    acc = x[0]
    accs = [acc]
    for v in x[1:]:
        acc = acc * 2 + v
        accs.append(acc)
    assert float(f.reduce(x)) == acc
    np.testing.assert_array_equal(f.accumulate(x), accs)
    np.testing.assert_array_equal(f.outer(x[:2], x[:3]), x[:2, None] * 2 + x[None, :3])
    # repeated indices apply the function once per occurrence
    np.testing.assert_array_equal(f.at(jnp.zeros(3), jnp.array([0, 0, 2]), 1.0, inplace=False),
                                  [3.0, 0.0, 1.0])


def test_ufunc_errors():
    with pytest.raises(NotImplementedError, match="inplace"):
        jnp.add.at(jnp.zeros(3), 0, 1.0)
    with pytest.raises(ValueError, match="only supported for binary ufuncs"):
        jnp.negative.reduce(jnp.zeros(3))
    with pytest.raises(ValueError, match="does not have an identity"):
        jnp.maximum.reduce(jnp.zeros(3), where=jnp.array([True, False, True]))
    with pytest.raises(ValueError, match="where argument must have dtype=bool"):
        jnp.add.reduce(jnp.zeros(3), where=jnp.array([1, 0, 1]))
    with pytest.raises(ValueError, match="zero-size array"):
        jnp.frompyfunc(lambda a, b: a + b, 2, 1).reduce(jnp.zeros((0,)))


def test_ufuncs_under_transformations():
    x = jnp.arange(1.0, 4.0)
    np.testing.assert_array_equal(jax.grad(lambda v: jnp.add.reduce(v * v))(x), 2 * x)
    np.testing.assert_allclose(jax.vmap(jnp.multiply.reduce)(jnp.stack([x, x + 1])), [6.0, 24.0])
    np.testing.assert_allclose(jax.jit(jnp.logaddexp.reduce)(x), np.logaddexp.reduce(x), rtol=1e-6)


# -- nn

def test_nn_activations_match_formulas():
    x = np.linspace(-4, 4, 17).astype(np.float32)
    sp = np.log1p(np.exp(x))
    np.testing.assert_allclose(jax.nn.mish(x), x * np.tanh(sp), rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(jax.nn.hard_sigmoid(x), np.clip(x + 3, 0, 6) / 6, rtol=1e-6)
    np.testing.assert_allclose(jax.nn.squareplus(x), (x + np.sqrt(x * x + 4)) / 2, rtol=1e-6)
    np.testing.assert_allclose(jax.nn.sparse_sigmoid(x), np.clip((x + 1) / 2, 0, 1), rtol=1e-6)
    pos = np.array([1e-6, 0.1, 0.69, 0.7, 5.0, 40.0], np.float32)
    np.testing.assert_allclose(jax.nn.log1mexp(pos), np.log(-np.expm1(-pos.astype(np.float64))),
                               rtol=1e-5, atol=1e-12)


def test_logsumexp_with_signed_weights():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, -1.0, 0.5])
    out, sign = jax.nn.logsumexp(a, b=b, return_sign=True)
    want = np.sum(b * np.exp(a))
    assert float(sign) == np.sign(want)
    assert float(out) == pytest.approx(np.log(abs(want)), rel=1e-6)
    assert np.isnan(float(jax.nn.logsumexp(a, b=-np.ones(3))))


def test_dot_product_attention_matches_reference():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in
               ((2, 3, 4, 8), (2, 5, 2, 8), (2, 5, 2, 8)))
    out = jax.nn.dot_product_attention(q, k, v, is_causal=True)
    kk, vv = np.repeat(k, 2, axis=2), np.repeat(v, 2, axis=2)  # grouped query heads
    logits = np.einsum("btnh,bsnh->bnts", q, kk) / np.sqrt(8)
    logits = np.where(np.tril(np.ones((3, 5), bool)), logits, -np.inf)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    want = np.einsum("bnts,bsnh->btnh", p / p.sum(-1, keepdims=True), vv)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_initializer_statistics_and_module():
    import xjit.nn.initializers as init
    assert init is jax.nn.initializers
    w = init.orthogonal()(jax.random.key(0), (6, 4))
    np.testing.assert_allclose(np.asarray(w).T @ np.asarray(w), np.eye(4), atol=1e-5)
    w = init.he_normal()(jax.random.key(1), (400, 300))
    assert np.std(np.asarray(w)) == pytest.approx(np.sqrt(2 / 400), rel=0.05)
    with pytest.raises(ValueError, match="at least a 2D shape"):
        init.orthogonal()(jax.random.key(0), (3,))
