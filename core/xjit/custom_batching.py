"""``xjit.custom_batching``: functions with user-defined batching rules."""
from xjit._src.custom_batching import custom_vmap, sequential_vmap  # noqa: F401
