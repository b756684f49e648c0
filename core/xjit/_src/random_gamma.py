"""Gamma-family samplers: ``gamma``, ``loggamma``, ``beta``, ``dirichlet``.

``random_gamma`` is a primitive (as in JAX) so that it prints as one
equation, batches over keys and has a JVP in ``a``. It lowers to the same
computation as JAX: one key per element (``split`` of the key into
``a.size`` keys), then Marsaglia-Tsang rejection sampling per element in a
``while_loop``, vmapped over the elements. Values are bit-identical because
every element runs the same float operations in the same order.
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from xjit._src import core, dtypes, sharding_in_types
from xjit._src.interpreters import mlir as lowering
from xjit._src.interpreters.ad import defjvp2
from xjit._src.interpreters.batching import batch_rules, bdim_at_front, vmap
from .config import disable_jit
from .core import Primitive
from xjit._src.pjit import jit
from xjit._src.lax import lax
from .lax import control_flow as cf
from .lax.slicing import lower_fun
from . import random as R


def _jnp():
    from .. import numpy
    return numpy


def _const(x, v):
    return np.array(v, core.aval_of(x).dtype)[()]


def _gamma_one(key, alpha, log_space):
    """One Gamma(alpha) sample (or its log) by Marsaglia and Tsang's method;
    alpha < 1 is boosted to alpha + 1 and corrected by U ** (1 / alpha)."""
    zero, one, two = _const(alpha, 0), _const(alpha, 1), _const(alpha, 2)
    minus_one, half = _const(alpha, -1), _const(alpha, 0.5)
    third, squeeze = _const(alpha, 1. / 3.), _const(alpha, 0.0331)
    dtype = core.aval_of(alpha).dtype

    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, third)
    c = lax.div(third, lax.sqrt(d))

    def reject(state):
        _, X, V, U = state
        squeeze_fail = lax.ge(U, lax.sub(one, lax.mul(squeeze, lax.mul(X, X))))
        log_fail = lax.ge(lax.log(U), lax.add(lax.mul(X, half),
                                              lax.mul(d, lax.add(lax.sub(one, V), lax.log(V)))))
        return lax.bitwise_and(squeeze_fail, log_fail)

    def propose(state):
        def next_xv(kxv):
            k, sub = R._split(kxv[0])
            x = R.normal(sub, (), dtype=dtype)
            return k, x, lax.add(one, lax.mul(x, c))

        k, x_key, u_key = R._split(state[0], 3)
        _, x, v = cf.while_loop(lambda kxv: lax.le(kxv[2], zero), next_xv,
                                (x_key, zero, minus_one))
        return k, lax.mul(x, x), lax.mul(lax.mul(v, v), v), R.uniform(u_key, (), dtype=dtype)

    key, subkey = R._split(key)
    _, _, V, _ = cf.while_loop(reject, propose, (key, zero, one, two))
    if log_space:
        log_u = lax.neg(R.exponential(subkey, (), dtype=dtype))
        log_boost = lax.select(lax.bitwise_or(boost_mask, lax.eq(log_u, zero)), zero,
                               lax.mul(log_u, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    u = 1 - R.uniform(subkey, (), dtype=dtype)
    boost = lax.select(boost_mask, one, lax.pow(u, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _gamma_impl(key, a, *, log_space):
    a_shape = core.aval_of(a).shape
    key_shape = core.aval_of(key).shape
    n = math.prod(a_shape[len(key_shape):])
    keys = lax.reshape(key, (math.prod(key_shape),))
    keys = lax.reshape(vmap(R._split, in_axes=(0, None))(keys, n), (math.prod(a_shape),))
    alphas = lax.reshape(a, (math.prod(a_shape),))
    samples = vmap(partial(_gamma_one, log_space=log_space))(keys, alphas)
    return lax.reshape(samples, a_shape)


def _gamma_grad(sample, a, *, log_space):
    """d sample / d a, from the incomplete-gamma derivative (``lax``'s
    ``random_gamma_grad``), one element at a time as JAX does on CPU."""
    from .lax import special
    grad_fn = getattr(special, "random_gamma_grad", None)
    if grad_fn is None:
        raise NotImplementedError("Differentiating jax.random.gamma needs "
                                  "lax.random_gamma_grad, which xjit does not provide yet")
    samples, alphas = _jnp().reshape(sample, -1), _jnp().reshape(a, -1)
    if log_space:
        samples = lax.exp(samples)
        tiny = lax.full_like(samples, dtypes.finfo(core.aval_of(samples).dtype).tiny)
        samples = lax.select(lax.eq(samples, _const(samples, 0)), tiny, samples)
        one = grad_fn

        def grad_fn(alpha, s):
            return one(alpha, s) / s
    grads = cf.map(lambda args: grad_fn(*args), (alphas, samples))
    return _jnp().reshape(grads, np.shape(a))


def _gamma_batch(args, dims, *, log_space):
    size = next(core.aval_of(x).shape[d] for x, d in zip(args, dims) if d is not None)
    key, a = (bdim_at_front(x, d, size) for x, d in zip(args, dims))
    return random_gamma_p.bind(key, a, log_space=log_space), 0


random_gamma_p = Primitive("random_gamma")
core.abstract_eval_rules[random_gamma_p] = lambda key, a, **_: a
sharding_in_types.sharding_rules[random_gamma_p] = sharding_in_types.same_as(1)  # a's layout
_lower_gamma = lower_fun(_gamma_impl)


def _gamma_lowering(ctx, avals_in, avals_out, *args, **params):
    # The loops are staged into the module even when the caller runs with
    # jit disabled (the primitive itself is then run op by op).
    with disable_jit(False):
        return _lower_gamma(ctx, avals_in, avals_out, *args, **params)


lowering.rules[random_gamma_p] = _gamma_lowering
batch_rules[random_gamma_p] = _gamma_batch
defjvp2(random_gamma_p, None,
        lambda g, ans, key, a, **kw: lax.mul(g, _gamma_grad(ans, a, **kw)))


# --------------------------------------------------------------------------
# Public samplers


def _float_dtype(name, dtype, label=None):
    dtype = R._user_dtype(dtype, float)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `{label or name}` must be a float dtype, "
                         f"got {dtype}")
    return dtype


def safe_to_cast(x, dtype):
    """Whether ``x`` converts to ``dtype`` under the promotion rules (a weak
    Python scalar converts to any float type)."""
    if dtypes.dtype(x) == dtype:
        return True
    return dtypes.result_type(x, dtype) == dtype


def check_all_safe_to_cast(name, dtype, *args):
    for arg in args:
        if not safe_to_cast(arg, dtype):
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type "
                f"{_jnp().asarray(arg).dtype} to {dtype}")


def check_broadcast_shapes(name, shape, *args):
    """The sample shape: ``shape`` checked against the parameters' shapes, or
    their broadcast when ``shape`` is None."""
    arg_shapes = [np.shape(a) for a in args]
    if shape is None:
        return R._broadcast_shapes(*arg_shapes) if arg_shapes else ()
    shape = R._shape_arg(shape)
    R._check_shape(name, shape, *arg_shapes)
    return shape


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a) samples with unit scale."""
    key, _ = R._check_key("gamma", key)
    dtype = _float_dtype("gamma", dtype)
    if shape is not None:
        shape = R._shape_arg(shape)
    return _gamma(key, _unsplit(a), shape=shape, dtype=dtype)


def _unsplit(a):
    """As JAX's gamma: its parameter unsplit (the sampler's loops run whole)."""
    from xjit._src.reshard import untyped
    return untyped(a) if getattr(getattr(a, "aval", None), "_sharding", None) is not None else a


def loggamma(key, a, shape=None, dtype=None):
    """Logarithms of Gamma(a) samples, accurate where ``a`` is small and the
    samples underflow."""
    key, _ = R._check_key("loggamma", key)
    dtype = _float_dtype("loggamma", dtype, "gamma")
    if shape is not None:
        shape = R._shape_arg(shape)
    return _gamma(key, _unsplit(a), shape=shape, dtype=dtype, log_space=True)


@partial(jit, static_argnames=("shape", "dtype", "log_space"))
def _gamma(key, a, shape, dtype, log_space=False):
    if shape is None:
        shape = np.shape(a)
    else:
        R._check_shape("gamma", shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if np.shape(a) != shape:
        a = _jnp().broadcast_to(a, shape)
    return random_gamma_p.bind(key, a, log_space=log_space)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) samples, as Gamma(a) / (Gamma(a) + Gamma(b)) in log space."""
    key, _ = R._check_key("beta", key)
    dtype = _float_dtype("beta", dtype)
    check_all_safe_to_cast("beta", dtype, a, b)
    shape = check_broadcast_shapes("beta", shape, a, b)
    return _beta(key, a, b, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _beta(key, a, b, shape, dtype):
    a = lax.convert_element_type(a, dtype)
    b = lax.convert_element_type(b, dtype)
    key_a, key_b = R._split(key)
    a = _jnp().broadcast_to(a, shape)
    b = _jnp().broadcast_to(b, shape)
    log_a = loggamma(key_a, a, shape, dtype)
    log_b = loggamma(key_b, b, shape, dtype)
    log_max = lax.max(log_a, log_b)
    scaled_a, scaled_b = _jnp().exp(log_a - log_max), _jnp().exp(log_b - log_max)
    return scaled_a / (scaled_a + scaled_b)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) samples over the last axis (normalised log-gamma draws)."""
    key, _ = R._check_key("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    if shape is not None:
        shape = R._shape_arg(shape)
    return _dirichlet(key, alpha, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dtype):
    from .nn import functions as nn
    if np.ndim(alpha) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{np.ndim(alpha)}")
    if shape is None:
        shape = np.shape(alpha)[:-1]
    else:
        R._check_shape("dirichlet", shape, np.shape(alpha)[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    return nn.softmax(loggamma(key, alpha, shape + np.shape(alpha)[-1:], dtype), -1)
