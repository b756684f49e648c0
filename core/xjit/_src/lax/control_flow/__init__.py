"""Structured control flow, as JAX lays it out: ``conditionals`` (cond,
switch), ``loops`` (while_loop, fori_loop, scan, map), each primitive with
its lowering and its JVP, transpose and batching rules; ``common`` holds the
staging of the user's functions they share."""
from xjit._src.lax.control_flow.conditionals import cond, cond_p, switch  # noqa: F401
from xjit._src.lax.control_flow.loops import (  # noqa: F401
    fori_loop, map, scan, scan_p, while_loop, while_p)
