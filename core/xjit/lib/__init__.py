"""``xjit.lib``, JAX's ``jax.lib``: the version of the jaxlib that runs the
compiled programs (libraries gate workarounds on ``jax.lib.__version__``)."""
from xjit._src.lib import version_str as __version__  # noqa: F401
