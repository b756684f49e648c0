"""``xjit.numpy.linalg``: linear algebra, as ``jax.numpy.linalg``."""
from xjit._src.numpy.linalg import (  # noqa: F401
    EighResult, QRResult, SlogdetResult, SVDResult, cholesky, det, eigh, eigvalsh, inv, lstsq,
    matrix_norm, matrix_power, matrix_rank, norm, pinv, qr, slogdet, solve, svd, svdvals,
    vector_norm)
from xjit._src.numpy.linalg import (  # noqa: E402,F401
    EigResult, cond, cross, diagonal, eig, eigvals, matmul, matrix_transpose, multi_dot, outer,
    tensordot, tensorinv, tensorsolve, trace, vecdot)
