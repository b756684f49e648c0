"""The MLIR dialects lowering rules build with; ``hlo`` is StableHLO, as in JAX."""
from jaxlib.mlir.dialects import arith, chlo, func, math, mhlo, scf  # noqa: F401
from jaxlib.mlir.dialects import stablehlo as hlo  # noqa: F401
