"""``xjit.scipy.linalg``, as ``jax.scipy.linalg``."""
from xjit._src.scipy.linalg import (  # noqa: F401
    block_diag, cho_factor, cho_solve, cholesky, det, eigh, hessenberg, inv, lu, lu_factor,
    lu_solve, qr, schur, solve, solve_triangular, svd, toeplitz)
from xjit._src.scipy.linalg_expm import expm  # noqa: E402,F401
from xjit._src.scipy.linalg_matfuncs import (  # noqa: E402,F401
    expm_frechet, funm, rsf2csf, sqrtm)
from xjit._src.scipy.linalg_polar import polar  # noqa: E402,F401
from xjit._src.scipy.linalg_qr_multiply import qr_multiply  # noqa: E402,F401
from xjit._src.scipy.linalg_special_matrices import (  # noqa: E402,F401
    circulant, companion, convolution_matrix, dft, fiedler, fiedler_companion, hadamard, hankel,
    helmert, hilbert, invhilbert, invpascal, leslie, pascal)
from xjit._src.scipy.linalg_sylvester import solve_sylvester  # noqa: E402,F401
from xjit._src.scipy.linalg_tridiagonal import eigh_tridiagonal  # noqa: E402,F401
