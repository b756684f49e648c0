"""The lax additions (special functions, shape/convolution helpers, small
primitives) and new top-level names against stored JAX 0.10.2 behaviour (see
tests/differential): values, dtypes, weak types, printed jaxprs and errors."""
from util import differential_cases, differential_tests

CASES = differential_cases("lax")


KNOWN = {
    "jaxpr-empty": "JAX keeps the dtype argument as given (prints <class 'jax.numpy.float32'>); "
                   "xjit stores the canonical np.dtype",
    "jaxpr-custom_linear_solve": "JAX hoists the transposed matvec's constants and prints the "
                                 "four jaxprs inline; xjit's vecmat is staged from a vjp",
    "jaxpr-platform_dependent": "xjit picks the branch at trace time instead of staging "
                                "platform_index and a cond",
}


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "lax", CASES, KNOWN, every=20)
