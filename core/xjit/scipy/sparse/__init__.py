"""``xjit.scipy.sparse``, as ``jax.scipy.sparse``: only the iterative solvers."""
from xjit.scipy.sparse import linalg  # noqa: F401
