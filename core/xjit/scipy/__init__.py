"""``xjit.scipy``: SciPy-style special functions, distributions, linear
algebra, signal processing, interpolation and solvers on xjit arrays, as
``jax.scipy`` (which, like JAX, loads ``optimize`` and ``spatial`` only when
they are imported)."""
from xjit.scipy import (  # noqa: F401
    cluster, fft, integrate, interpolate, linalg, ndimage, signal, sparse, special, stats)
