"""``jax.extend.ifrt_programs``: jaxlib's builders of IFRT programs
(colocated Python and plugin programs), as jaxlib has them."""
from jaxlib import _jax as _jax

ifrt_programs = _jax.ifrt_programs

del _jax
