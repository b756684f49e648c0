"""``xjit.nn.initializers``: functions ``init(key, shape, dtype)`` that draw
neural-network parameters. Every draw uses the same random streams and
scalings as JAX's, so with the same key the parameters are the same."""
from __future__ import annotations

import math
import operator
from typing import Protocol

import numpy as np

from xjit._src import core, dtypes
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import linalg as jnp_linalg
from xjit._src.numpy import shape_ops

__all__ = ["Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal",
           "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform",
           "normal", "ones", "orthogonal", "truncated_normal", "uniform", "variance_scaling",
           "xavier_normal", "xavier_uniform", "zeros"]


class Initializer(Protocol):
    """What every initializer is: a function of a key, a shape and a dtype."""

    def __call__(self, key, shape, dtype=None, out_sharding=None):
        raise NotImplementedError



def _random():
    from xjit._src import random
    return random


def _dtype(dtype):
    return dtypes.default_float_dtype() if dtype is None else dtype


def zeros(key, shape, dtype=None, out_sharding=None):
    return jnp.zeros(shape, _dtype(dtype))


def ones(key, shape, dtype=None, out_sharding=None):
    return jnp.ones(shape, _dtype(dtype))


def constant(value, dtype=None):
    def init(key, shape, dtype=dtype, out_sharding=None):
        return jnp.full(shape, value, dtype=_dtype(dtype))
    return init


def uniform(scale=1e-2, dtype=None):
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        return _random().uniform(key, shape, dtype) * jnp.array(scale, dtype)
    return init


def normal(stddev=1e-2, dtype=None):
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        return _random().normal(key, shape, dtype) * jnp.array(stddev, dtype)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        return (_random().truncated_normal(key, lower, upper, shape, dtype)
                * jnp.array(stddev, dtype))
    return init


def _size(shape, axes):
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """(fan_in, fan_out): the input/output sizes times the receptive field
    (every axis that is neither input, output nor batch)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor with default in_axis. Must be at least 2D or specify "
                         "in_axis explicitly.")
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    receptive = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
    return in_size * receptive, out_size * receptive


def _complex_uniform(key, shape, dtype):
    """Uniform on the unit disk (radius sqrt(2 u), uniform angle)."""
    random = _random()
    key_r, key_theta = random.split(key)
    real_dt = np.array(0, dtype).real.dtype
    dtype = dtypes.to_complex_dtype(real_dt)
    r = jnp.sqrt(2 * random.uniform(key_r, shape, real_dt)).astype(dtype)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real_dt).astype(dtype)
    return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key, upper, shape, dtype):
    """A complex normal with modulus truncated at ``upper``."""
    random = _random()
    key_r, key_theta = random.split(key)
    real_dt = np.array(0, dtype).real.dtype
    dtype = dtypes.to_complex_dtype(real_dt)
    t = (1 - jnp.exp(jnp.array(-(upper ** 2), dtype))) * \
        random.uniform(key_r, shape, real_dt).astype(dtype)
    r = jnp.sqrt(-jnp.log(1 - t))
    theta = 2 * np.pi * random.uniform(key_theta, shape, real_dt).astype(dtype)
    return r * jnp.exp(1j * theta)


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """Samples with variance ``scale / n``, n the fan picked by ``mode``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        random = _random()
        shape = core.canonicalize_shape(shape)
        dtype = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / denominator, dtype=dtype)
        if distribution == "truncated_normal":
            # the divisors are the standard deviations of the truncated draws
            if dtypes.is_float(dtype):
                stddev = jnp.sqrt(variance) / jnp.array(.87962566103423978, dtype)
                return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
            stddev = jnp.sqrt(variance) / jnp.array(.95311164380491208, dtype)
            return _complex_truncated_normal(key, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            if dtypes.is_float(dtype):
                return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
            return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: "
                         f"{distribution}")
    return init


def _scaled(scale, mode, distribution):
    def make(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                                batch_axis=batch_axis, dtype=dtype)
    return make


glorot_uniform = xavier_uniform = _scaled(1.0, "fan_avg", "uniform")
glorot_normal = xavier_normal = _scaled(1.0, "fan_avg", "truncated_normal")
lecun_uniform = _scaled(1.0, "fan_in", "uniform")
lecun_normal = _scaled(1.0, "fan_in", "truncated_normal")
he_uniform = kaiming_uniform = _scaled(2.0, "fan_in", "uniform")
he_normal = kaiming_normal = _scaled(2.0, "fan_in", "truncated_normal")
for _name in ("glorot_uniform", "glorot_normal", "lecun_uniform", "lecun_normal", "he_uniform",
              "he_normal"):
    globals()[_name].__name__ = _name
del _name


def _orthogonal_matrices(key, n, m, dtype):
    """An (n, m) matrix with orthonormal columns (or rows, if n < m): the Q
    of a normal draw's QR, its columns signed by R's diagonal."""
    z = _random().normal(key, (max(n, m), min(n, m)), dtype)
    q, r = jnp_linalg.qr(z)
    x = q * shape_ops.expand_dims(jnp.sign(jnp_linalg.diagonal(r)), -2)
    return shape_ops.matrix_transpose(x) if n < m else x


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError
        dtype = _dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return jnp.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = _orthogonal_matrices(key, n_rows, n_cols, dtypes.canonicalize_dtype(dtype))
        q = shape_ops.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        return jnp.array(scale, dtype) * shape_ops.moveaxis(q, -1, column_axis)
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """Convolution kernels that are orthogonal at the spatial centre, zero elsewhere."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError
        dtype = _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple(operator.index((k - 1) // 2) for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[centre + (Ellipsis,)].set(ortho)
    return init
