"""``xjit.numpy.linalg``: linear algebra, as ``jax.numpy.linalg``."""
from xjit._src.numpy.linalg import (  # noqa: F401
    EighResult, QRResult, SlogdetResult, SVDResult, cholesky, det, eigh, eigvalsh, inv, lstsq,
    matrix_norm, matrix_power, matrix_rank, norm, pinv, qr, slogdet, solve, svd, svdvals,
    vector_norm)
