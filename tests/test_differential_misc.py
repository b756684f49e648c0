"""jax.image, single-device jax.sharding and jax.dlpack against stored JAX 0.10.2
behaviour (see tests/differential/cases_misc.py)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "differential"))
from cases_misc import CASES  # noqa: E402
from harness import differential_tests  # noqa: E402


KNOWN = {
    "resize-err-negative": "JAX accepts a negative output size (its weight matrix comes out "
                           "empty); xjit's shape validation rejects it with a ValueError",
}


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "misc", CASES, KNOWN, every=25)
