"""``xjit.scipy``: SciPy-style special functions, distributions, linear
algebra and cosine transforms on xjit arrays, as ``jax.scipy``."""
from xjit.scipy import fft, linalg, special, stats  # noqa: F401
