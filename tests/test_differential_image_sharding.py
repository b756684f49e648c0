"""jax.image, single-device jax.sharding and jax.dlpack against stored JAX 0.10.2
behaviour (see tests/differential/cases_image_sharding.py)."""
from util import differential_cases, differential_tests

CASES = differential_cases("image_sharding")


KNOWN = {
    "resize-err-negative": "JAX accepts a negative output size (its weight matrix comes out "
                           "empty); xjit's shape validation rejects it with a ValueError",
}


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "image_sharding", CASES, KNOWN, every=25)
