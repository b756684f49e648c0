"""``jax.experimental.sparse.util``."""
from xjit._src.sparse.util import (  # noqa: F401
    CuSparseEfficiencyWarning,
    SparseEfficiencyError,
    SparseEfficiencyWarning,
    SparseInfo,
    nfold_vmap,
)
