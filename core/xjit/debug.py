"""Runtime debugging from inside traced code (``xjit.debug``)."""
from xjit._src.debugging import breakpoint, debug_callback as callback, debug_print as print  # noqa: F401,A004
from xjit._src.sharding_visualization import (  # noqa: F401
    inspect_array_sharding, visualize_array_sharding, visualize_sharding)
