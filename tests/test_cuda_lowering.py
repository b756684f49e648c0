"""xjit's lowering for CUDA, checked without a GPU: ``trace(...).lower(
lowering_platforms=("cuda",))`` must call the same cuSOLVER kernels as JAX
0.10.2, with the same attributes, layouts, aliasing and types (recorded in
tests/cuda_lowering.json by scripts/record_cuda_lowering.py). Values on a GPU
are checked by scripts/gpu_check.py when a GPU machine is lent."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from cuda_lowering_cases import cases, custom_calls

with open(os.path.join(os.path.dirname(__file__), "cuda_lowering.json")) as fh:
    RECORDED = json.load(fh)
CASES = cases(jax)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_custom_calls_match_jax(name):
    f, x = CASES[name]
    text = jax.jit(f).trace(x).lower(lowering_platforms=("cuda",)).as_text()
    assert custom_calls(text) == RECORDED[name]


def test_cpu_lowering_is_unchanged_by_the_option():
    f, x = CASES["cholesky"]
    assert "lapack_spotrf_ffi" in jax.jit(f).trace(x).lower(lowering_platforms=("cpu",)).as_text()
    assert "lapack_spotrf_ffi" in jax.jit(f).lower(x).as_text()


def test_a_program_for_another_platform_is_not_compiled_here():
    lowered = jax.jit(jnp.sin).trace(np.ones(3, np.float32)).lower(lowering_platforms=("cuda",))
    assert "stablehlo.sine" in lowered.as_text()
    with pytest.raises(ValueError, match="lowered for platform 'gpu'"):
        lowered.compile()
    with pytest.raises(ValueError, match="Unknown platform 'tpu2'"):
        jax.jit(jnp.sin).trace(1.0).lower(lowering_platforms=("tpu2",))


def test_callbacks_are_refused_for_another_platform_as_in_jax():
    for f in (lambda x: jax.debug.print("{}", x),
              lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((3,), np.float32), x)):
        with pytest.raises(ValueError, match="different from the lowering platform cuda"):
            jax.jit(f).trace(np.ones(3, np.float32)).lower(lowering_platforms=("cuda",))


def test_unsupported_gpu_factorizations_say_so():
    with pytest.raises(NotImplementedError, match="column pivoting is not implemented on the GPU"):
        jax.jit(lambda x: jax.lax.linalg.qr(x, pivoting=True)).trace(
            np.ones((3, 3), np.float32)).lower(lowering_platforms=("cuda",))
