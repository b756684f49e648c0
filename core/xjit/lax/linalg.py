"""``xjit.lax.linalg``: matrix decompositions, as ``jax.lax.linalg``."""
from xjit._src.lax.linalg import (  # noqa: F401
    cholesky, cholesky_p, eigh, eigh_p, lu, lu_p, qr, qr_p, svd, svd_p, triangular_solve,
    triangular_solve_p)
from xjit._src.lax.linalg_general import (  # noqa: E402,F401
    EigImplementation, EighImplementation, SvdAlgorithm, eig, eig_p, hessenberg, hessenberg_p,
    lu_pivots_to_permutation, lu_pivots_to_permutation_p, schur, schur_p, tridiagonal,
    tridiagonal_p, tridiagonal_solve, tridiagonal_solve_p)
from xjit._src.lax.linalg_general import (  # noqa: E402,F401
    householder_product, householder_product_p, ormqr, ormqr_p)
from xjit._src.lax.linalg_general import (  # noqa: E402,F401
    cholesky_update, cholesky_update_p, symmetric_product, symmetric_product_p)
from xjit._src.lax.qdwh import qdwh  # noqa: E402,F401
