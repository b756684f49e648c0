"""Every example of the reference documents, against JAX 0.10.2's recorded
behaviour (tests/differential/cases_seeds.py)."""

import pytest

from differential.harness import compare, load, params, run_case
from util import differential_cases

CASES = differential_cases("seeds")

EXPECTED = load("seeds")


@pytest.mark.parametrize("name,code", params(CASES))
def test_seed_example(name, code):
    compare(run_case(code, "xjit"), EXPECTED[name])
