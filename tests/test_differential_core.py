"""The engine core against stored JAX 0.10.2 behaviour (see tests/differential)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "differential"))
from cases_core import CASES  # noqa: E402
from harness import compare, load, run_case  # noqa: E402

EXPECTED = load("core")


@pytest.mark.parametrize("name,code", CASES, ids=[c[0] for c in CASES])
def test_matches_jax(name, code):
    compare(run_case(code, "xjit"), EXPECTED[name])
