"""Linear algebra and numerical breadth of xjit.numpy / xjit.lax.linalg
(eig and friends, cond, tensor solves, window functions, polynomials,
statistics, histograms, vector products, vectorize, einsum_path, periodic
interp): against stored JAX 0.10.2 behaviour (tests/differential/
cases_mathx.py) and against NumPy/known values."""
import os
import sys

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "differential"))
from cases_mathx import CASES  # noqa: E402
from harness import compare, compare_live, load, run_case  # noqa: E402

EXPECTED = load("mathx")

# Printed-jaxpr differences that come from jnp functions outside this area
# (values agree).
KNOWN = {
    "jaxpr-la-cross": "jnp.cross (more_math.py) forms the components in another order",
    "jaxpr-la-trace": "jnp.trace/jnp.diagonal stage a strided slice; JAX a masked reduction",
    "jaxpr-stat-corrcoef": "jnp.diag/jnp.diagonal stage a strided slice; JAX a gather",
    "jaxpr-poly-poly": "JAX wraps atleast_1d in jit",
    "jaxpr-poly-polyint": "JAX wraps atleast_1d in jit",
}


@pytest.mark.parametrize("name,code", [
    pytest.param(n, c, marks=pytest.mark.xfail(reason=KNOWN[n], strict=True)) if n in KNOWN
    else (n, c) for n, c in CASES], ids=[c[0] for c in CASES])
def test_matches_jax(name, code):
    compare(run_case(code, "xjit"), EXPECTED[name])


@pytest.mark.compare
@pytest.mark.parametrize("name,code", CASES[::20], ids=[c[0] for c in CASES[::20]])
def test_stored_expectations_match_live_jax(name, code):
    compare_live(name, code, EXPECTED[name])
