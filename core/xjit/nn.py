"""Neural-network activations and helpers (``xjit.nn``), jitted and named as
JAX's are, so their jaxprs print the same."""
from __future__ import annotations

import functools
import operator

import numpy as np

from xjit._src import dtypes
from xjit._src.custom_derivatives import custom_jvp
from xjit._src.jit import jit
from xjit import lax
from xjit import numpy as jnp


def _named_jit(fun, **kw):
    j = jit(fun, **kw)
    j._name = fun.__name__
    return j


def sigmoid(x):
    return lax.logistic(x)


@_named_jit
def relu(x):
    return jnp.maximum(x, 0)


# the derivative at 0 is taken to be 0 (JAX's choice): a custom rule around the jit
relu = custom_jvp(relu)
relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@_named_jit
def relu6(x):
    return jnp.minimum(jnp.maximum(x, 0), 6.)


@_named_jit
def softplus(x):
    return jnp.logaddexp(x, 0)


@_named_jit
def silu(x):
    return x * sigmoid(x)


swish = silu


@_named_jit
def log_sigmoid(x):
    return -softplus(-x)


@_named_jit
def soft_sign(x):
    return x / (jnp.abs(x) + 1)


def gelu(x, approximate: bool = True):
    if approximate:
        cdf = 0.5 * (1.0 + jnp.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * (x ** 3))))
        return x * cdf
    return jnp.array(x * (lax.erf(x / np.sqrt(2)) + 1) / 2, dtype=x.dtype)


@_named_jit
def elu(x, alpha=1.0):
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0., x)))


@_named_jit
def celu(x, alpha=1.0):
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


@_named_jit
def selu(x):
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


@_named_jit
def leaky_relu(x, negative_slope=1e-2):
    return jnp.where(x >= 0, x, negative_slope * x)


@_named_jit
def hard_tanh(x):
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


def _axes(axis, ndim):
    return tuple(range(ndim)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)


@functools.partial(jit, static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    x_max = jnp.max(x, axis, where=where, initial=-jnp.inf, keepdims=True)
    shifted = x - lax.stop_gradient(x_max)
    shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    return shifted - shifted_logsumexp


log_softmax._name = "log_softmax"


def softmax(x, axis=-1, where=None):
    x_max = jnp.max(x, axis, where=where, initial=-jnp.inf, keepdims=True)
    unnormalized = jnp.exp(x - lax.stop_gradient(x_max))
    return unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None):
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
    return (x - mean) * lax.rsqrt(variance + epsilon)


def one_hot(x, num_classes, *, dtype=jnp.float32, axis=-1):
    num_classes = operator.index(num_classes)
    x = jnp.asarray(x)
    lhs = jnp.expand_dims(x, axis)
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(axis % (x.ndim + 1), num_classes)
    rhs = lax.broadcasted_iota(x.dtype, rhs_shape, axis % (x.ndim + 1))
    return (lhs == rhs).astype(dtypes.canonicalize_dtype(dtype))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) computed stably (the max is subtracted first)."""
    a = jnp.asarray(a)
    if b is not None:
        a = a + jnp.log(jnp.asarray(b, dtype=a.dtype))
    amax = jnp.max(a, axis=axis, keepdims=True, where=where, initial=-jnp.inf)
    amax = lax.stop_gradient(jnp.where(jnp.isfinite(amax), amax, 0))
    out = jnp.log(jnp.sum(jnp.exp(a - amax), axis=axis, keepdims=True, where=where)) + amax
    if not keepdims:
        out = jnp.squeeze(out, axis)
    if return_sign:
        return out, jnp.ones_like(out)
    return out
