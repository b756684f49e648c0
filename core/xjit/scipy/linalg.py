"""``xjit.scipy.linalg``, as ``jax.scipy.linalg``."""
from xjit._src.scipy.linalg import (  # noqa: F401
    block_diag, cho_factor, cho_solve, cholesky, det, eigh, hessenberg, inv, lu, lu_factor,
    lu_solve, qr, schur, solve, solve_triangular, svd, toeplitz)
from xjit._src.scipy.linalg_expm import expm  # noqa: E402,F401
