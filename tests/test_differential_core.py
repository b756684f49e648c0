"""The engine core against stored JAX 0.10.2 behaviour (see tests/differential)."""
from util import differential_cases, differential_tests

CASES = differential_cases("core")


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "core", CASES, every=25)
