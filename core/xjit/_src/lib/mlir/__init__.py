"""jaxlib's MLIR Python bindings (``ir``, ``passmanager``)."""
import jaxlib.mlir.ir as ir  # noqa: F401
import jaxlib.mlir.passmanager as passmanager  # noqa: F401
