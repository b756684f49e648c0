"""Neural-network activations and helpers (``xjit.nn``), jitted and named as
JAX's are, so their jaxprs print the same."""
from __future__ import annotations

import functools
import operator

import numpy as np

from xjit._src import dtypes
from xjit._src.custom_derivatives import custom_jvp
from xjit._src.pjit import jit, jit_named
from xjit._src.numpy import util as jnp_util
from xjit._src.numpy.util import canonicalize_axis, promote_args_inexact
from xjit._src import ad_api
from xjit._src.lax import lax
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import reductions
from xjit._src.numpy import shape_ops
from xjit._src.numpy import splitting
from xjit._src.numpy import ufuncs_api


def sigmoid(x):
    return lax.logistic(x)


@jit
def relu(x):
    return ufuncs_api.maximum(x, 0)


# the derivative at 0 is taken to be 0 (JAX's choice): a custom rule around the jit
relu = custom_jvp(relu)
relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@jit
def relu6(x):
    return ufuncs_api.minimum(ufuncs_api.maximum(x, 0), 6.)


# the derivative is 0 at both kinks (JAX's choice)
relu6 = custom_jvp(relu6)
relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


@jit
def softplus(x):
    return ufuncs_api.logaddexp(x, 0)


@jit
def silu(x):
    return x * sigmoid(x)


swish = silu


@jit
def log_sigmoid(x):
    return -softplus(-x)


@jit
def soft_sign(x):
    return x / (jnp.abs(x) + 1)


def gelu(x, approximate: bool = True):
    if approximate:
        cdf = 0.5 * (1.0 + jnp.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * (x ** 3))))
        return x * cdf
    return jnp.array(x * (lax.erf(x / np.sqrt(2)) + 1) / 2, dtype=x.dtype)


@jit
def elu(x, alpha=1.0):
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0., x)))


@jit
def celu(x, alpha=1.0):
    return ufuncs_api.maximum(x, 0.0) + alpha * jnp.expm1(ufuncs_api.minimum(x, 0.0) / alpha)


@jit
def selu(x):
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


@jit
def leaky_relu(x, negative_slope=1e-2):
    return jnp.where(x >= 0, x, negative_slope * x)


@jit
def hard_tanh(x):
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@jit
def hard_sigmoid(x):
    return relu6(x + 3.) / 6.


@jit
def hard_silu(x):
    x = jnp.asarray(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@jit
def identity(x):
    return jnp.asarray(x)


tanh = jnp.tanh


@jit
def mish(x):
    x = jnp.asarray(x)
    return x * jnp.tanh(softplus(x))


@jit
def squareplus(x, b=4):
    jnp_util.check_arraylike("squareplus", x, b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@jit
def sparse_plus(x):
    x = jnp.asarray(x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def sparse_sigmoid(x):
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@functools.partial(jit, static_argnames=("axis",))
def glu(x, axis=-1):
    x = jnp.asarray(x)
    if x.shape[axis] % 2:
        raise AssertionError("axis size must be divisible by 2")
    x1, x2 = splitting.split(x, 2, axis)
    return x1 * sigmoid(x2)



@jit_named("log1mexp")
def _log1mexp(x):
    x = jnp.asarray(x)
    # log(-expm1(-x)) is accurate for small x, log1p(-exp(-x)) for large
    return jnp.where(x < jnp.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))

log1mexp = custom_jvp(_log1mexp)
log1mexp.__name__ = "log1mexp"
log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


def _axes(axis, ndim):
    return tuple(range(ndim)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)


@functools.partial(jit, static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    x_max = reductions.max(x, axis, where=where, initial=-jnp.inf, keepdims=True)
    # masked-out entries are -inf in and out, so they get no gradient (as in JAX)
    x_safe = x if where is None else jnp.where(where, x, -jnp.inf)
    shifted = x_safe - ad_api.stop_gradient(x_max)
    shifted_logsumexp = jnp.log(reductions.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_logsumexp
    return result if where is None else jnp.where(where, result, -jnp.inf)



def softmax(x, axis=-1, where=None):
    x_max = reductions.max(x, axis, where=where, initial=-jnp.inf, keepdims=True)
    unnormalized = jnp.exp(x - ad_api.stop_gradient(x_max))
    return unnormalized / reductions.sum(unnormalized, axis, where=where, keepdims=True)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None):
    if mean is None:
        mean = reductions.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        variance = reductions.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
    return (x - mean) * lax.rsqrt(variance + epsilon)


def one_hot(x, num_classes, *, dtype=jnp.float32, axis=-1):
    num_classes = operator.index(num_classes)
    x = jnp.asarray(x)
    lhs = shape_ops.expand_dims(x, axis)
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(axis % (x.ndim + 1), num_classes)
    rhs = lax.broadcasted_iota(x.dtype, rhs_shape, axis % (x.ndim + 1))
    return (lhs == rhs).astype(dtypes.canonicalize_dtype(dtype))


def _reduction_dims(a, axis):
    nd = jnp.ndim(a)
    if axis is None:
        return tuple(range(nd))
    axes = tuple(axis) if isinstance(axis, (tuple, list, np.ndarray)) else (axis,)
    dims = tuple(canonicalize_axis(x, nd) for x in axes)
    if len(dims) != len(set(dims)):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return dims


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) computed stably: the finite max is subtracted
    first. With ``b``, a negative sum is NaN unless its sign is asked for."""
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = jnp.where(b != 0, a, -np.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    dims = _reduction_dims(a, axis)
    amax = reductions.max(jnp.real(a), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = ad_api.stop_gradient(lax.select(jnp.isfinite(amax), amax, jnp.zeros_like(amax)))
    amax_with_dims = amax if keepdims else lax.expand_dims(amax, dims)
    exp_a = lax.exp(lax.sub(a, amax_with_dims.astype(a.dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = reductions.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not dtypes.is_complex(a.dtype):
        sumexp = jnp.abs(sumexp)
    out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
    if return_sign:
        return out, sign
    if b is not None and not dtypes.is_complex(out.dtype):
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


@functools.partial(jit, static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims=False):
    """log(mean(exp(x))): logsumexp less the log of the element count."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    if where is None:
        shape = jnp.shape(x)
        n = np.prod([shape[d] for d in _reduction_dims(x, axis)], dtype=np.int64)
        count = lax.convert_element_type(n, lse.dtype)
    else:
        count = reductions.sum(shape_ops.broadcast_to(where, jnp.shape(x)), axis, dtype=lse.dtype,
                        keepdims=keepdims)
    return lse - jnp.log(count)

