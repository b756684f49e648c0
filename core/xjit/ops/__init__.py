"""``jax.ops``: reductions of an array's leading axis into segments."""
from xjit._src.ops.scatter import segment_max, segment_min, segment_prod, segment_sum  # noqa: F401
