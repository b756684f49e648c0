"""``xjit.scipy``: SciPy-style special functions, distributions and linear
algebra on xjit arrays, as ``jax.scipy``."""
from xjit.scipy import linalg, special, stats  # noqa: F401
