"""``xjit.extend``: the interfaces for extending the engine (new primitives,
custom interpreters, backends), as ``jax.extend``."""
from xjit.extend import backend, core, linear_util, source_info_util  # noqa: F401
