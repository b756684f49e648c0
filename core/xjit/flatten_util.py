"""``xjit.flatten_util``: ``ravel_pytree``."""
from xjit._src.flatten_util import ravel_pytree  # noqa: F401
