"""dot_general's ``precision``: what the API takes, what the jaxpr prints, and
what the lowering tells XLA. CPUs compute f32 products in full whatever the
precision, so a dropped ``precision_config`` passes every CPU value test; on a
GPU it silently gave TF32 products for ``precision="highest"``. The expected
lines are JAX 0.10.2's lowering of the same programs."""
from __future__ import annotations

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

F = jnp.ones((4, 4))


def _dot_line(fn, *args):
    text = jax.jit(fn).lower(*args).as_text()
    (line,) = [l.strip() for l in text.splitlines() if "stablehlo.dot_general" in l]
    return line


_ALGO = ("algorithm = <lhs_precision_type = {0}, rhs_precision_type = {0}, accumulation_type = "
         "f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = {1}, "
         "allow_imprecise_accumulation = false>")


@pytest.mark.parametrize("precision, attrs", [
    (None, "precision = [DEFAULT, DEFAULT]"),
    ("highest", "precision = [HIGHEST, HIGHEST]"),
    ("tensorfloat32", "precision = [HIGH, HIGH]"),
    (("highest", "bfloat16"), "precision = [HIGHEST, DEFAULT]"),
    (lax.Precision.HIGH, "precision = [HIGH, HIGH]"),
    ("DEFAULT", "precision = [DEFAULT, DEFAULT]"),
    ("BF16_BF16_F32", "precision = [DEFAULT, DEFAULT], " + _ALGO.format("bf16", 1)),
    ("BF16_BF16_F32_X3", "precision = [DEFAULT, DEFAULT], " + _ALGO.format("bf16", 3)),
    ("F32_F32_F32", "precision = [DEFAULT, DEFAULT], " + _ALGO.format("f32", 1)),
])
def test_lowering_carries_the_precision(precision, attrs):
    line = _dot_line(lambda a: jnp.matmul(a, a, precision=precision), F)
    assert line == ("%0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0], "
                    f"{attrs} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>")
    out = jax.jit(lambda a: jnp.matmul(a, a, precision=precision))(F)
    np.testing.assert_array_equal(out, np.full((4, 4), 4.0, np.float32))


def test_narrow_operands_are_not_widened():
    """bf16 (or int8) operands with a wider result stay narrow, as JAX lowers
    them: the accelerator's bf16/int8 units accumulate into the wide type."""
    b = jnp.ones((4, 4), jnp.bfloat16)
    assert _dot_line(lambda a: lax.dot(a, a, preferred_element_type=jnp.float32), b).endswith(
        "(tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xf32>")
    i = jnp.ones((4, 4), jnp.int8)
    assert _dot_line(lambda a: lax.dot(a, a, preferred_element_type=jnp.int32), i).endswith(
        "(tensor<4x4xi8>, tensor<4x4xi8>) -> tensor<4x4xi32>")
    np.testing.assert_array_equal(lax.dot(i, i, preferred_element_type=jnp.int32),
                                  np.full((4, 4), 4, np.int32))


def test_default_matmul_precision_setting():
    with jax.default_matmul_precision("tensorfloat32"):
        assert "precision = [HIGH, HIGH]" in _dot_line(lambda a: a @ a, F)
        assert "precision=(Precision.HIGH, Precision.HIGH)" in str(jax.make_jaxpr(
            lambda a: a @ a)(F))
    with jax.default_matmul_precision("BF16_BF16_F32"):
        assert "precision=BF16_BF16_F32" in str(jax.make_jaxpr(lambda a: a @ a)(F))
    assert "precision = [DEFAULT, DEFAULT]" in _dot_line(lambda a: a @ a, F)


def test_precision_survives_grad_and_vmap():
    jaxpr = str(jax.make_jaxpr(jax.grad(lambda a: jnp.sum(jnp.matmul(a, a, precision="highest"))))(F))
    assert jaxpr.count("precision=(Precision.HIGHEST, Precision.HIGHEST)") == 3
    jaxpr = str(jax.make_jaxpr(jax.vmap(lambda a: jnp.matmul(a, a, precision=("highest", "default"))))(
        jnp.ones((2, 4, 4))))
    assert "precision=(Precision.HIGHEST, Precision.DEFAULT)" in jaxpr


def test_precision_values_and_errors():
    assert lax.Precision("float32") is lax.Precision.HIGHEST
    assert lax.Precision(None) is lax.Precision.DEFAULT
    assert (repr(lax.Precision.HIGHEST), str(lax.Precision.HIGH)) == ("Precision.HIGHEST", "HIGH")
    assert repr(lax.DotAlgorithmPreset.F32_F32_F32) == "DotAlgorithmPreset.F32_F32_F32"
    with pytest.raises(ValueError, match="but got HIGHEST"):  # JAX takes the lower-case names
        jnp.matmul(F, F, precision="HIGHEST")
    # XLA's CPU backend would ignore these algorithms, so they are refused, as in JAX
    for p in ("TF32_TF32_F32", "F16_F16_F32", lax.DotAlgorithm("bfloat16", "bfloat16", "float32")):
        with pytest.raises(ValueError, match="is not supported by dot_general on CPU"):
            jax.jit(lambda a: jnp.matmul(a, a, precision=p))(F)


def test_convolution_states_its_precision():
    text = jax.jit(lambda a: lax.conv(a[None, None], a[None, None], (1, 1), "SAME")).lower(F).as_text()
    assert "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]" in text
