"""Every example of the reference documents, against JAX 0.10.2's recorded
behaviour (tests/differential/cases_seeds.py)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "differential"))
from cases_seeds import CASES  # noqa: E402
from harness import compare, load, params, run_case  # noqa: E402

EXPECTED = load("seeds")


@pytest.mark.parametrize("name,code", params(CASES))
def test_seed_example(name, code):
    compare(run_case(code, "xjit"), EXPECTED[name])
