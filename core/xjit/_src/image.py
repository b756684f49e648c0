"""Image resampling (``jax.image``).

Every non-nearest method is separable: for each resized dimension we build an
``[in, out]`` weight matrix from a 1-D kernel evaluated at the distance between
each output sample centre (mapped back to input coordinates) and each input
pixel, normalise its columns, and contract all matrices with the image in one
einsum. Nearest-neighbour is a gather of computed source indices.
"""
import enum
import string

import numpy as np

from . import core, dtypes
from xjit._src.pjit import jit
from xjit._src.lax import lax
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import reductions
from xjit._src.numpy import ufuncs_api
from .numpy.einsum import einsum
from .numpy.util import canonicalize_axis, promote_dtypes_inexact


def _lanczos(radius):
    def kernel(x):
        y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
        safe = jnp.where(x != 0, np.pi ** 2 * x ** 2, 1)
        out = jnp.where(x > 1e-3, jnp.divide(y, safe), 1)
        return jnp.where(x > radius, 0., out)
    return kernel


def _keys_cubic(x):
    """Keys cubic with a = -0.5 (what Pillow/TF/PyTorch use with antialias)."""
    near = ((1.5 * x - 2.5) * x) * x + 1.
    far = ((-0.5 * x + 2.5) * x - 4.) * x + 2.
    return jnp.where(x >= 2., 0., jnp.where(x >= 1., far, near))


def _opencv_cubic(x):
    """Cubic with a = -0.75: PyTorch's (OpenCV's) kernel without antialias."""
    a = -0.75
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    return jnp.where(x >= 2.0, 0.0, jnp.where(x >= 1.0, far, near))


def _triangle(x):
    return ufuncs_api.maximum(0, 1 - jnp.abs(x))


_AREA = object()  # marker: weights are interval overlaps, not a kernel of distance


class ResizeMethod(enum.Enum):
    """Image resize method: NEAREST, LINEAR, LANCZOS3, LANCZOS5, CUBIC,
    CUBIC_PYTORCH or AREA."""
    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str):
        """The method a string names (JAX's aliases: 'bilinear', 'bicubic', ...)."""
        method = _ALIASES.get(s)
        if method is None:
            raise ValueError(f'Unknown resize method "{s}"')
        return method


_ALIASES = {
    "nearest": ResizeMethod.NEAREST,
    "linear": ResizeMethod.LINEAR, "bilinear": ResizeMethod.LINEAR,
    "trilinear": ResizeMethod.LINEAR, "triangle": ResizeMethod.LINEAR,
    "lanczos3": ResizeMethod.LANCZOS3, "lanczos5": ResizeMethod.LANCZOS5,
    "cubic": ResizeMethod.CUBIC, "bicubic": ResizeMethod.CUBIC, "tricubic": ResizeMethod.CUBIC,
    "cubic-pytorch": ResizeMethod.CUBIC_PYTORCH, "bicubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
    "area": ResizeMethod.AREA,
}

# method -> (kernel radius, kernel)
_KERNELS = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, _AREA),
}

_TINY = 1000. * float(np.finfo(np.float32).eps)


def _normalise(w):
    """Scale each output column to sum to one (columns summing to ~0 become 0)."""
    total = reductions.sum(w, axis=0, keepdims=True)
    return jnp.where(jnp.abs(total) > _TINY, jnp.divide(w, jnp.where(total != 0, total, 1)), 0)


def _weights(n_in, n_out, scale, translation, kernel, antialias, edge_padding, radius):
    """The ``[n_in, n_out]`` matrix mapping one input dimension to the output."""
    dtype = dtypes.result_type(scale, translation)
    inv = 1. / scale
    # Downsampling widens the kernel so it low-pass filters as it interpolates.
    kscale = ufuncs_api.maximum(inv, 1.) if antialias else 1.
    centres = (jnp.arange(n_out, dtype=dtype) + 0.5) * inv - translation * inv - 0.5
    pad = radius if edge_padding else 0
    src = jnp.arange(-pad, n_in + pad, dtype=dtype)
    if kernel is _AREA:
        lo = jnp.arange(n_out, dtype=dtype) * inv - translation * inv
        hi = lo + inv
        px = jnp.arange(n_in, dtype=dtype)
        w = ufuncs_api.maximum(0.0, ufuncs_api.minimum(hi[None, :], px[:, None] + 1.0)
                        - ufuncs_api.maximum(lo[None, :], px[:, None]))
    else:
        w = kernel(jnp.abs(centres[None, :] - src[:, None]) / kscale)
    if edge_padding:
        # Weight on pixels beyond the border is moved onto the border pixel.
        rows = jnp.clip(src.astype(np.int32), 0, n_in - 1)
        cols = lax.broadcast_in_dim(jnp.arange(n_out), (src.shape[0], n_out), (1,))
        w = jnp.zeros((n_in, n_out), dtype).at[rows[:, None], cols].add(w)
        return _normalise(w)
    w = _normalise(w)
    inside = ufuncs_api.logical_and(centres >= -0.5, centres <= n_in - 0.5)
    return jnp.where(inside[None, :], w, 0)


def _apply(x, shape, dims, scale, translation, kernel, antialias, precision,
           edge_padding=False, radius=None):
    if not dims:
        return x
    letters = iter(string.ascii_letters)
    in_labels = [next(letters) for _ in range(x.ndim)]
    out_labels = list(in_labels)
    operands, terms = [x], ["".join(in_labels)]
    for i, d in enumerate(dims):
        d = canonicalize_axis(d, x.ndim)
        w = _weights(x.shape[d], shape[d], scale[i], translation[i], kernel, antialias,
                     edge_padding, radius).astype(x.dtype)
        new = next(letters)
        operands.append(w)
        terms.append(in_labels[d] + new)
        out_labels[d] = new
    spec = ",".join(terms) + "->" + "".join(out_labels)
    return einsum(spec, *operands, precision=precision)


def _method(method):
    return ResizeMethod.from_string(method) if isinstance(method, str) else method


def _check_rank(shape, image):
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {image.shape}")


def _kernel_setup(method, antialias):
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    return radius, kernel, method == ResizeMethod.CUBIC_PYTORCH and not antialias


def scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                        antialias=True, precision=lax.Precision.HIGHEST):
    """Resample ``image`` to ``shape`` under the map ``x -> x * scale +
    translation`` on ``spatial_dims`` (half-pixel centres; samples falling
    outside the input become zero)."""
    shape = core.canonicalize_shape(shape)
    _check_rank(shape, image)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported "
                         "for scale_and_translate.")
    radius, kernel, edge = _kernel_setup(method, antialias)
    image, = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(scale, translation)
    return _apply(image, shape, spatial_dims, scale, translation, kernel, antialias,
                  precision, edge, radius)


def _resize_nearest(x, shape):
    for d in range(x.ndim):
        m, n = x.shape[d], shape[d]
        if m == n:
            continue
        src = jnp.floor((jnp.arange(n, dtype=np.float32) + 0.5) * m / n).astype(np.int32)
        index = [slice(None)] * x.ndim
        index[d] = src
        x = x[tuple(index)]
    return x


def _resize_impl(image, shape, method, antialias, precision):
    _check_rank(shape, image)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = promote_dtypes_inexact(image)
    dims = tuple(d for d in range(len(shape)) if image.shape[d] != shape[d])
    radius, kernel, edge = _kernel_setup(method, antialias)
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
    return _apply(image, shape, dims, scale, [0.] * len(dims), kernel, antialias,
                  precision, edge, radius)


_resize = jit(_resize_impl, static_argnums=(1, 2, 3, 4))


def resize(image, shape, method, antialias=True, precision=lax.Precision.HIGHEST):
    """Resize ``image`` to ``shape`` (every dimension, batch/channel ones
    included) with ``method``; non-nearest methods return a floating dtype."""
    return _resize(image, core.canonicalize_shape(shape), method, antialias, precision)
