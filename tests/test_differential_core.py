"""The engine core against stored JAX 0.10.2 behaviour (see tests/differential)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "differential"))
from cases_core import CASES  # noqa: E402
from harness import differential_tests  # noqa: E402


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "core", CASES, every=25)
