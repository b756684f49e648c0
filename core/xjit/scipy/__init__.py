"""``xjit.scipy``: SciPy-style special functions, distributions, linear
algebra and cosine transforms on xjit arrays, as ``jax.scipy``."""
from xjit.scipy import fft, linalg, sparse, special, stats  # noqa: F401
