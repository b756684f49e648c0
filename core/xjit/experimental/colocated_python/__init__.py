"""Colocated Python (as ``jax.experimental.colocated_python``): Python
functions and objects that run on the hosts of CPU devices next to an
array's devices; in one process, here."""
from xjit.experimental.colocated_python.api import (  # noqa: F401
    colocated_cpu_devices as colocated_cpu_devices,
    colocated_python as colocated_python,
    colocated_python_class as colocated_python_class,
)
