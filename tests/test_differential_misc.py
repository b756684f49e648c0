"""jax.image, single-device jax.sharding and jax.dlpack against stored JAX 0.10.2
behaviour (see tests/differential/cases_misc.py)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "differential"))
from cases_misc import CASES  # noqa: E402
from harness import compare, compare_live, load, params, run_case, sample  # noqa: E402

EXPECTED = load("misc")

KNOWN = {
    "resize-err-negative": "JAX accepts a negative output size (its weight matrix comes out "
                           "empty); xjit's shape validation rejects it with a ValueError",
}


@pytest.mark.parametrize("name,code", params(CASES, KNOWN))
def test_matches_jax(name, code):
    compare(run_case(code, "xjit"), EXPECTED[name])


@pytest.mark.compare
@pytest.mark.parametrize("name,code", sample(CASES, 25))
def test_stored_expectations_match_live_jax(name, code):
    """With the `compare` extra, the stored oracle records are still what JAX
    does (a sample, to keep the suite fast)."""
    compare_live(name, code, EXPECTED[name])
