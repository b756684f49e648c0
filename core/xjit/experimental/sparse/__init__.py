"""``jax.experimental.sparse``: the BCOO sparse array and its primitives.

Not provided: BCSR/COO/CSR, ``sparsify``, sparse-sparse products and the
BCOO functions JAX builds on sparsify (slicing, concatenation, broadcasting)."""
from xjit._src.sparse.api import empty, eye, todense, todense_p  # noqa: F401
from xjit._src.sparse.bcoo import (  # noqa: F401
    BCOO,
    JAXSparse,
    bcoo_dot_general,
    bcoo_dot_general_p,
    bcoo_dot_general_sampled,
    bcoo_dot_general_sampled_p,
    bcoo_extract,
    bcoo_extract_p,
    bcoo_fromdense,
    bcoo_fromdense_p,
    bcoo_multiply_dense,
    bcoo_reduce_sum,
    bcoo_reshape,
    bcoo_sort_indices,
    bcoo_sort_indices_p,
    bcoo_sum_duplicates,
    bcoo_sum_duplicates_p,
    bcoo_todense,
    bcoo_todense_p,
    bcoo_transpose,
    bcoo_transpose_p,
)
from xjit._src.sparse.util import (  # noqa: F401
    CuSparseEfficiencyWarning,
    SparseEfficiencyError,
    SparseEfficiencyWarning,
)
from xjit.experimental.sparse import bcoo, util  # noqa: F401
