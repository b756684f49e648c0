"""jaxlib as JAX's ``jax._src.lib`` exposes it: user lowering rules import the
MLIR bindings from here (``from xjit._src.lib.mlir.dialects import hlo``)."""
import jaxlib
from jaxlib import xla_client  # noqa: F401

version_str = jaxlib.__version__
version = tuple(int(p) for p in version_str.split(".")[:3])
