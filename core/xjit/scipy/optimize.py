"""``xjit.scipy.optimize``, as ``jax.scipy.optimize`` (``line_search`` stays
internal there, so here too)."""
from xjit._src.scipy.optimize import OptimizeResults, minimize  # noqa: F401
