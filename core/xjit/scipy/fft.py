"""``xjit.scipy.fft``, as ``jax.scipy.fft``: type-II DCTs and their inverses."""
from xjit._src.scipy.fft import dct, dctn, idct, idctn  # noqa: F401
