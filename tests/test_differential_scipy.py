"""``xjit.scipy`` (special, stats, linalg) against stored JAX 0.10.2 behaviour
(see tests/differential/cases_scipy.py): values, dtypes, weak types,
gradients, printed jaxprs and errors."""
from util import differential_cases, differential_tests

CASES = differential_cases("scipy")


# Printed-jaxpr and message differences that come from layers outside
# xjit.scipy (values agree in every case).
KNOWN = {
    "jaxpr-sp-gamma": "jnp.select lowers to nested where calls, JAX's to stack + argmax "
                      "+ select_n (numpy layer)",
    "jaxpr-sp-log_ndtr": "a let-bound custom_jvp call_jaxpr prints under the function's "
                         "name; JAX names it 'jaxpr' (custom_derivatives/pretty printer)",
    "jaxpr-sp-poch": "the same call_jaxpr naming, plus jnp.select inside gammasgn (see "
                     "jaxpr-sp-gamma)",
    "jaxpr-sp-ndtri": "repeated jnp.polyval calls of different lengths print as separate "
                      "let-bound jaxprs with a different constvar order (numpy/pretty layer)",
    "jaxpr-la-solve-pos": "custom_linear_solve's solve jaxprs print wrapped in an extra "
                          "let-bound jaxpr (lax.custom_linear_solve)",
    "jaxpr-la-lu": "jnp.triu binds not + select_n; JAX swaps the select_n operands instead "
                   "(numpy layer)",
    "jaxpr-la-expm": "jnp.linalg.norm(A, 1) reduces through broadcast/reduce_max/squeeze and "
                     "jnp.digitize differs (numpy layer)",
    "jaxpr-la-hessenberg": "jnp.triu binds not + select_n (numpy layer)",
    "jaxpr-st-mvn-logpdf": "jnp.diagonal lowers through transpose/reshape/slice; JAX's uses an "
                           "eye mask under platform_index/cond (numpy layer)",
    "err-la-cholesky-shape": "lax.linalg.cholesky's non-square message differs from JAX's "
                             "'The input to cholesky must be a square matrix' (lax layer)",
}


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "scipy", CASES, KNOWN, every=25)
