"""``xjit.interpreters``: the transformation interpreters' rule registries.
``mlir`` loads jaxlib's MLIR bindings, so it is imported on first use."""
import importlib as _importlib

from xjit.interpreters import ad, batching, partial_eval  # noqa: F401


def __getattr__(name):
    if name == "mlir":
        return _importlib.import_module("xjit.interpreters.mlir")
    raise AttributeError(f"module 'xjit.interpreters' has no attribute {name!r}")
