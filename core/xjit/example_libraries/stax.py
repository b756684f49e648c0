"""``jax.example_libraries.stax``: neural-network layers as
``(init_fun, apply_fun)`` pairs, as JAX 0.10.2's.

``init_fun(rng, input_shape)`` returns ``(output_shape, params)`` and
``apply_fun(params, inputs, **kwargs)`` the outputs (``rng=`` reaches layers
that need randomness). Layer constructors are CamelCase, as in Keras. Key
splitting, initializers (``xjit.nn.initializers``) and arithmetic follow
JAX's order exactly, so a given key gives JAX's parameters and outputs.
"""
import functools
import math

import xjit.numpy as jnp
from xjit import lax, random
from xjit.nn import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from xjit.nn.initializers import glorot_normal, normal, ones, zeros

# Older names JAX keeps for compatibility.
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer ``inputs @ W + b`` over the last axis."""
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        W = W_init(k1, (input_shape[-1], out_dim))
        return input_shape[:-1] + (out_dim,), (W, b_init(k2, (out_dim,)))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b

    return init_fun, apply_fun


def _kernel_and_bias(dimension_numbers, out_chan, filter_shape, W_init, b_init, shape_fn,
                     strides, padding):
    """The ``init_fun`` shared by convolutions and transposed convolutions:
    the kernel takes its spatial sizes from ``filter_shape`` in ``rhs_spec``
    order, the bias broadcasts along the output's channel axis."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers

    def init_fun(rng, input_shape):
        spatial = iter(filter_shape)
        kernel_shape = [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
                        else next(spatial) for c in rhs_spec]
        output_shape = shape_fn(input_shape, kernel_shape, strides, padding, dimension_numbers)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    return init_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=normal(1e-6)):
    """A convolution layer with ``dimension_numbers = (lhs, rhs, out)`` specs."""
    one = (1,) * len(filter_shape)
    strides = strides or one
    rhs_spec = dimension_numbers[1]
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))
    init_fun = _kernel_and_bias(dimension_numbers, out_chan, filter_shape, W_init, b_init,
                                lax.conv_general_shape_tuple, strides, padding)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                        dimension_numbers=dimension_numbers) + b

    return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=normal(1e-6)):
    """A transposed-convolution layer with ``(lhs, rhs, out)`` specs."""
    strides = strides or (1,) * len(filter_shape)
    rhs_spec = dimension_numbers[1]
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))
    init_fun = _kernel_and_bias(dimension_numbers, out_chan, filter_shape, W_init, b_init,
                                lax.conv_transpose_shape_tuple, strides, padding)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return lax.conv_transpose(inputs, W, strides, padding,
                                  dimension_numbers=dimension_numbers) + b

    return init_fun, apply_fun


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True,
              beta_init=zeros, gamma_init=ones):
    """Standardizes over ``axis`` (the batch statistics of this call; no
    running averages), then scales by gamma and shifts by beta. A disabled
    ``center``/``scale`` leaves ``()`` in place of its parameter."""
    axis = (axis,) if jnp.isscalar(axis) else axis

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if scale:
            z = gamma[expand] * z
        return z + beta[expand] if center else z

    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A parameterless layer applying ``fun(inputs, **fun_kwargs)``."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)

    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _window_size_rescaler(dims, strides, padding):
    """For average pooling: divides each window's sum by how many input
    elements (padding excluded) the window covered."""
    def rescale(outputs, inputs, spec):
        batch_and_channel = (0, inputs.ndim - 1) if spec is None else (spec.index("N"),
                                                                         spec.index("C"))
        spatial_shape = tuple(n for i, n in enumerate(inputs.shape) if i not in batch_and_channel)
        counts = lax.reduce_window(jnp.ones(spatial_shape, dtype=inputs.dtype), 0., lax.add,
                                   dims, strides, padding)
        for i in sorted(batch_and_channel):
            counts = jnp.expand_dims(counts, i)
        return outputs / counts
    return rescale


def _pooling_layer(reducer, init_val, rescaler=None):
    """A pooling-layer constructor reducing windows with ``reducer``."""
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        """A pooling layer over the spatial axes: all but batch and channel
        (the first and last, or where ``spec``'s ``N`` and ``C`` are)."""
        strides = strides or (1,) * len(window_shape)
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        batch_and_channel = ((0, len(window_shape) + 1) if spec is None
                             else (spec.index("N"), spec.index("C")))
        for i in sorted(batch_and_channel):
            window_shape = window_shape[:i] + (1,) + window_shape[i:]
            strides = strides[:i] + (1,) + strides[i:]

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, window_shape, strides, padding)
            unit = (1,) * len(window_shape)
            return lax.reduce_window_shape_tuple(input_shape, window_shape, strides, pads,
                                                 unit, unit), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, window_shape, strides, padding)
            return rescale(out, inputs, spec) if rescale else out

        return init_fun, apply_fun
    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.)
AvgPool = _pooling_layer(lax.add, 0., _window_size_rescaler)


def _flatten():
    """Flattens all but the leading (batch) axis."""
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))

    return init_fun, apply_fun


def FanOut(num):
    """Copies its input into a list of ``num`` (for a following ``parallel``)."""
    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    def apply_fun(params, inputs, **kwargs):
        return [inputs] * num

    return init_fun, apply_fun


def _fan_in_sum():
    """Sums a sequence of same-shaped inputs."""
    def init_fun(rng, input_shape):
        return input_shape[0], ()

    def apply_fun(params, inputs, **kwargs):
        return sum(inputs)

    return init_fun, apply_fun


# Layers without arguments are the layer itself, not a constructor, as in JAX.
Flatten = _flatten()
Identity = elementwise(lambda x: x)
FanInSum = _fan_in_sum()


def FanInConcat(axis=-1):
    """Concatenates a sequence of inputs along ``axis``."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        first = input_shape[0]
        return first[:ax] + (sum(s[ax] for s in input_shape),) + first[ax + 1:], ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)

    return init_fun, apply_fun


def Dropout(rate, mode="train"):
    """In ``train`` mode keeps each element with probability ``rate`` (JAX's
    meaning: ``rate`` is the keep probability) and rescales by ``1 / rate``;
    otherwise the identity. Applying it needs ``rng=``."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError(
                "Dropout layer requires apply_fun to be called with a PRNG key argument. "
                "That is, instead of `apply_fun(params, inputs)`, call it like "
                "`apply_fun(params, inputs, rng)` where `rng` is a PRNG key (e.g. from "
                "`jax.random.key`).")
        if mode == "train":
            keep = random.bernoulli(rng, rate, inputs.shape)
            return jnp.where(keep, inputs / rate, 0)
        return inputs

    return init_fun, apply_fun


# -- combinators


def _split_or_none(rng, n):
    """One key per sublayer, or ``None`` for each when no key was given."""
    return random.split(rng, n) if rng is not None else (None,) * n


def serial(*layers):
    """Composes layers one after another; params are a list, one per layer."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rngs = _split_or_none(kwargs.pop("rng", None), len(layers))
        for fun, param, rng in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=rng, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers):
    """Applies the i-th layer to the i-th of a sequence of inputs (typically
    between ``FanOut`` and ``FanInSum``/``FanInConcat``)."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(layers))
        # An iterator of (shapes, params), unpacked by the caller, as JAX returns.
        return zip(*[init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)])

    def apply_fun(params, inputs, **kwargs):
        rngs = _split_or_none(kwargs.pop("rng", None), len(layers))
        return [f(p, x, rng=r, **kwargs)
                for f, p, x, r in zip(apply_funs, params, inputs, rngs)]

    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by ``make_layer(input_shape)`` once the shape is known
    (at init from ``input_shape``, at apply from ``inputs.shape``)."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)

    return init_fun, apply_fun
