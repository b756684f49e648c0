"""``xjit.stages``: the ahead-of-time stages of ``jit``."""
from xjit._src.stages import (  # noqa: F401
    ArgInfo, Compiled, CompilerOptions, Lowered, Traced, Wrapped)
