"""``xjit.random``: keys and samplers.

Every sampler draws its bits from ``random_bits`` (threefry2x32, see
``prng.py``) and turns them into values with the same arithmetic as JAX, so
results are bit-identical for the same key. As in JAX, the samplers are
jitted internal functions (``_uniform``, ``_normal``, ...) with static shape
and dtype, so they print as the same nested ``jit`` equations.

Legacy keys (``uint32[..., 2]`` arrays from ``PRNGKey``) are wrapped into
typed keys on entry (``random_wrap``) and unwrapped on the way out for
functions that return keys.
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from . import core, dtypes, prng
from .config import config
from xjit._src.pjit import jit
from xjit._src.ad_api import stop_gradient
from xjit._src.lax import lax
from .lax import structural as st
from .numpy import lax_numpy as jnp

_flags = config._values


# --------------------------------------------------------------------------
# Keys


def _invalid_key_data(msg):
    return TypeError(f"JAX encountered invalid PRNG key data: {msg}")


def _impl_repr():
    i = prng.threefry_impl
    return (f"PRNGImpl(key_shape={i.key_shape}, seed=<threefry_seed>, split=<threefry_split>, "
            f"random_bits=<threefry_random_bits>, fold_in=<threefry_fold_in>, "
            f"name='{i.name}', tag='{i.tag}')")


def _wrap(data):
    """``random_wrap`` with JAX's checks on the key data."""
    if not all(hasattr(data, a) for a in ("ndim", "shape", "dtype")):
        raise _invalid_key_data(f"expected key_data to have ndim, shape, and dtype attributes. "
                                f"Got {data}")
    if tuple(data.shape[-1:]) != (2,):
        raise _invalid_key_data(f"expected key_data.shape to end with (2,); got "
                                f"shape={tuple(data.shape)} for impl={_impl_repr()}")
    if np.dtype(data.dtype) != np.uint32:
        raise _invalid_key_data(f"expected key_data.dtype = uint32; got dtype={data.dtype}")
    return prng.random_wrap_p.bind(data, impl=prng.threefry_impl)


def _check_key(name, key, allow_batched=False):
    """(typed key, whether it was a legacy key that got wrapped)."""
    if prng.is_key(key):
        typed, wrapped = key, False
    else:
        if isinstance(key, (list, tuple)):
            raise TypeError(f"unexpected PRNG key type {type(key)}")
        typed, wrapped = _wrap(key), True
    if not allow_batched and typed.ndim:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{tuple(key.shape)} != (). Use jax.vmap for batching.")
    return typed, wrapped


def _return_keys(wrapped, keys):
    return prng.random_unwrap_p.bind(keys) if wrapped else keys


def _resolve_impl(impl):
    if impl is None or impl == "threefry2x32" or impl is prng.threefry_impl or \
            impl == prng.fry:
        return prng.threefry_impl
    raise ValueError(f"unrecognized PRNG implementation {impl!r}; xjit provides threefry2x32 only")


def _seed(ctor, seed, impl):
    impl = _resolve_impl(impl)
    if prng.is_key(seed):
        raise TypeError(f"{ctor} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{ctor} accepts a scalar seed, but was given an array of shape "
                        f"{np.shape(seed)} != (). Use jax.vmap for batching")
    if isinstance(seed, int) and not isinstance(seed, bool):
        # As JAX: Python ints go through int64 (wrapping in 32-bit mode).
        if not -2 ** 63 <= seed < 2 ** 63:
            raise OverflowError("Python int too large to convert to C long")
        seed = np.int64(seed)
    seed = jnp.asarray(seed)
    if not dtypes.issubdtype(seed.dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    return prng.random_seed_p.bind(seed, impl=impl)


def key(seed, *, impl=None, dtype=None):
    """A typed PRNG key (dtype ``key<fry>``) from an integer seed."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
        impl = dtype
    return _seed("key", seed, impl)


def PRNGKey(seed, *, impl=None):
    """A legacy ``uint32[2]`` PRNG key from an integer seed."""
    return prng.random_unwrap_p.bind(_seed("PRNGKey", seed, impl))


def key_data(keys):
    """The ``uint32`` data underlying typed (or legacy) keys."""
    keys, _ = _check_key("key_data", keys, allow_batched=True)
    return prng.random_unwrap_p.bind(keys)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys from ``uint32[..., 2]`` data."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                             "jax.random.wrap_key_data")
        impl = dtype
    _resolve_impl(impl)
    return _wrap(key_bits_array)


def key_impl(keys):
    keys, _ = _check_key("key_impl", keys, allow_batched=True)
    return keys.dtype._impl.name


def key_dtype(impl=None):
    return prng.KeyTy(_resolve_impl(impl))


def _split(key, num=2):
    if key.ndim:
        raise TypeError("split accepts a single key, but was given a key array of shape "
                        f"{key.shape} != (). Use jax.vmap for batching.")
    shape = tuple(num) if isinstance(num, (tuple, list)) else (num,)
    shape = tuple(_index(d) for d in shape)
    return prng.random_split_p.bind(key, shape=_shape_arg(shape))


def _index(d):
    import operator
    return operator.index(d)


def split(key, num=2):
    """``num`` (an int or a shape) new keys derived from ``key``."""
    typed, wrapped = _check_key("split", key)
    return _return_keys(wrapped, _split(typed, num))


def fold_in(key, data):
    """A new key that deterministically mixes 32-bit ``data`` into ``key``."""
    typed, wrapped = _check_key("fold_in", key)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    if isinstance(data, int) and not isinstance(data, bool) and not 0 <= data < 2 ** 32:
        raise OverflowError(f"Python integer {data} out of bounds for uint32")
    return _return_keys(wrapped, prng.random_fold_in_p.bind(typed, jnp.asarray(data, "uint32")))


def _random_bits(key, bit_width, shape):
    return prng.random_bits_p.bind(key, bit_width=bit_width, shape=tuple(shape))


# --------------------------------------------------------------------------
# Helpers shared by the samplers


def _user_dtype(dtype, default):
    return dtypes.check_user_dtype_supported(default if dtype is None else dtype, stacklevel=4)


def _float_dtype(name, dtype):
    dtype = _user_dtype(dtype, float)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
    return dtype


def _broadcast_shapes(*shapes):
    from .numpy.util import broadcast_shapes
    return tuple(broadcast_shapes(*shapes))


def _shape_arg(shape, trailing=()):
    """A sampler's ``shape`` argument as a tuple of ints. JAX's samplers first
    meet a negative dimension when broadcasting it, so that is its error."""
    try:
        return core.canonicalize_shape(shape)
    except ValueError:  # only raised for negative dimensions
        dims = tuple(shape) if np.iterable(shape) else (shape,)
        dims = tuple(map(_index, dims)) + tuple(trailing)
        raise TypeError("Only non-negative indices are allowed when broadcasting static shapes, "
                        f"but got shape {dims}.") from None


def _check_shape(name, shape, *param_shapes):
    if param_shapes:
        result = _broadcast_shapes(shape, *param_shapes)
        if tuple(shape) != result:
            raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                             "argument, and the result of broadcasting the shapes must equal "
                             f"the shape argument, but got result {result} for shape argument "
                             f"{tuple(shape)}.")


def _to_rank(x, rank):
    nd = np.ndim(x)
    return x if nd == rank else lax.broadcast(x, (1,) * (rank - nd))


def _finfo(dtype):
    from .numpy.lax_numpy import finfo
    return finfo(dtype)


# --------------------------------------------------------------------------
# Samplers


def bits(key, shape=(), dtype=None):
    """Uniformly random unsigned integers."""
    key, _ = _check_key("bits", key)
    dtype = dtypes.default_uint_dtype() if dtype is None else _user_dtype(dtype, None)
    if not dtypes.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    shape = _shape_arg(shape)
    return _random_bits(key, dtype.itemsize * 8, shape)


def uniform(key, shape=(), dtype=None, minval=0., maxval=1.):
    """Uniform floats in ``[minval, maxval)``."""
    key, _ = _check_key("uniform", key)
    dtype = _float_dtype("uniform", dtype)
    shape = _shape_arg(shape)
    return _uniform(key, minval, maxval, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
    _check_shape("uniform", shape)
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    minval, maxval = _to_rank(minval, len(shape)), _to_rank(maxval, len(shape))
    fi = _finfo(dtype)
    nbits, nmant = fi.bits, fi.nmant
    rng_bits = 8 if nmant < 8 else nbits
    uint = prng.UINT_DTYPES[nbits]
    raw = _random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        raw = lax.convert_element_type(raw, uint)
    # Random mantissa bits under the exponent of 1.0 give a float in [1, 2).
    one_bits = np.array(1.0, dtype).view(uint)
    fbits = lax.bitwise_or(lax.shift_right_logical(raw, uint.type(rng_bits - nmant)), one_bits)
    floats = lax.sub(prng.bitcast_convert_type(fbits, dtype), np.array(1.0, dtype)[()])
    scaled = lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval)
    if shape == ():  # JAX's reshape to the requested shape only shows up for scalars
        scaled = st.reshape_p.bind(scaled, new_sizes=(), dimensions=None, sharding=None)
    return lax.max(minval, scaled)


def normal(key, shape=(), dtype=None):
    """Standard normal samples (real or complex)."""
    key, _ = _check_key("normal", key)
    shape = _shape_arg(shape)
    dtype = _user_dtype(dtype, float)
    if not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"dtype argument to `normal` must be a float or complex dtype, got {dtype}")
    return _normal(key, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _normal(key, shape, dtype):
    if dtypes.issubdtype(dtype, np.complexfloating):
        sqrt2 = np.array(np.sqrt(2), dtype)
        k_re, k_im = _split(key)
        real = np.array(0, dtype).real.dtype
        re = _normal_real(k_re, shape, real).astype(dtype)
        im = _normal_real(k_im, shape, real).astype(dtype)
        return (re + 1j * im) / sqrt2
    return _normal_real(key, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
    _check_shape("normal", shape)
    lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
    u = uniform(key, shape, dtype, lo, np.array(1., dtype))
    return lax.mul(np.array(np.sqrt(2), dtype)[()], lax.erf_inv(u))


def randint(key, shape, minval, maxval, dtype=None):
    """Uniform integers in ``[minval, maxval)`` (modulus of 2x-wide bits, as JAX)."""
    key, _ = _check_key("randint", key)
    dtype = _user_dtype(dtype, int)
    shape = _shape_arg(shape)
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info, sample_dtype = np.iinfo(dtype), dtype
    if info.bits < 32:  # narrow types sample in int32 (less bias), clipped to their range
        sample_dtype = np.dtype(np.int32)
        minval = jnp.asarray(minval).astype("int32").clip(int(info.min), int(info.max))
        maxval = jnp.asarray(maxval).astype("int32").clip(int(info.min), int(info.max) + 1)
    return _randint(key, minval, maxval, shape, sample_dtype).astype(dtype)


def _clip_convert(val, dtype):
    """Integer conversion that clips to the target range instead of wrapping."""
    lo = max(np.iinfo(dtype).min, np.iinfo(val.dtype).min)
    hi = min(np.iinfo(dtype).max, np.iinfo(val.dtype).max)
    clipped = jnp.clip(val, np.array(lo, val.dtype)[()], np.array(hi, val.dtype)[()])
    return lax.convert_element_type(clipped, dtype)


@partial(jit, static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    _check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(int)
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(int)
    top = _clip_convert(jnp.array(np.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval, maxval = _clip_convert(minval, dtype), _clip_convert(maxval, dtype)
    minval, maxval = _to_rank(minval, len(shape)), _to_rank(maxval, len(shape))
    nbits = np.iinfo(dtype).bits
    k1, k2 = _split(key)
    higher, lower = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)
    udt = prng.UINT_DTYPES[nbits]
    span = lax.convert_element_type(maxval - minval, udt)
    span = lax.select(maxval <= minval, lax.full_like(span, 1), span)
    span = lax.select(maxval_out_of_range & (maxval > minval), lax.add(span, udt.type(1)), span)
    # (hi * 2**nbits + lo) mod span, without overflowing nbits.
    mult = lax.rem(udt.type(2 ** (nbits // 2)), span)
    mult = lax.rem(lax.mul(mult, mult), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), mult), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def bernoulli(key, p=np.float32(0.5), shape=None, mode="low"):
    """Booleans that are True with probability ``p``."""
    if shape is not None:
        shape = _shape_arg(shape)
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    key, _ = _check_key("bernoulli", key)
    dtype = dtypes.dtype(p, canonicalize=True)
    if not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    p = lax.convert_element_type(p, dtype)
    return _bernoulli(key, p, shape=shape, mode=mode)


@partial(jit, static_argnames=("shape", "mode"))
def _bernoulli(key, p, shape, mode):
    if shape is None:
        shape = np.shape(p)
    else:
        _check_shape("bernoulli", shape, np.shape(p))
    dtype = p.dtype
    if mode == "high":
        u1, u2 = uniform(key, (2, *shape), dtype)
        u2 = u2 * 2 ** -_finfo(dtype).nmant
        return u2 < p - u1
    return uniform(key, shape, dtype) < p


def _simple(name, body):
    """A sampler of (key, shape, dtype) whose jitted body is ``body``."""
    body.__name__ = "_" + name
    jitted = jit(body, static_argnums=(1, 2))

    def sampler(key, shape=(), dtype=None):
        key, _ = _check_key(name, key)
        dtype = _float_dtype(name, dtype)
        return jitted(key, _shape_arg(shape), dtype)
    sampler.__name__ = name
    return sampler


def _exponential(key, shape, dtype):
    _check_shape("exponential", shape)
    return lax.neg(lax.log1p(lax.neg(uniform(key, shape, dtype))))


def _laplace(key, shape, dtype):
    _check_shape("laplace", shape)
    u = uniform(key, shape, dtype, minval=-1. + _finfo(dtype).epsneg, maxval=1.)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def _logistic(key, shape, dtype):
    _check_shape("logistic", shape)
    x = uniform(key, shape, dtype, minval=_finfo(dtype).tiny, maxval=1.)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def _cauchy(key, shape, dtype):
    _check_shape("cauchy", shape)
    u = uniform(key, shape, dtype, minval=_finfo(dtype).eps, maxval=1.)
    return lax.tan(lax.mul(np.array(np.pi, dtype)[()], lax.sub(u, np.array(0.5, dtype)[()])))


exponential = _simple("exponential", _exponential)
laplace = _simple("laplace", _laplace)
logistic = _simple("logistic", _logistic)
cauchy = _simple("cauchy", _cauchy)


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel samples."""
    key, _ = _check_key("gumbel", key)
    dtype = _float_dtype("gumbel", dtype)
    shape = _shape_arg(shape)
    if mode is None:
        mode = "high" if config.jax_high_dynamic_range_gumbel else "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError("Must provide valid mode for gumbel got: %s" % mode)
    return _gumbel(key, shape, dtype, mode)


def _safe_int_to_float(bits):
    """A float32 in (0, 1) from a 64-bit fixed-point fraction (``bits[0]``
    high word, ``bits[1]`` low word), keeping every leading bit the float can
    hold: the mantissa is taken after the leading zeros, the exponent from
    their count."""
    fi = _finfo(np.float32)
    hiclz, loclz = lax.clz(bits)
    hi, lo = bits
    mantissa = lax.bitwise_or(
        lax.shift_left(hi, hiclz),
        jnp.where(hiclz == 32, lax.shift_left(lo, loclz),
                  lax.shift_right_logical(lo, fi.bits - hiclz)))
    mantissa = lax.shift_right_logical(mantissa, np.array(fi.bits - fi.nmant - 1, np.uint32))
    mantissa = lax.bitwise_and(mantissa, np.array((1 << fi.nmant) - 1, np.uint32))
    exp = lax.shift_left(-fi.minexp - jnp.where(hiclz == 32, 32 + loclz, hiclz),
                         np.array(fi.nmant, np.uint32))
    exp = lax.bitwise_and(exp, np.array((1 << (fi.bits - 2)) - (1 << (fi.nmant - 1)),
                                        np.uint32))
    return prng.bitcast_convert_type(lax.bitwise_or(exp, mantissa), np.float32)


@partial(jit, static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    _check_shape("gumbel", shape)
    fi = _finfo(dtype)
    if mode == "highest" and dtype == np.float32:
        # u in (0, 1) from 64 random bits; below 1/2 use log1p(-u), above it
        # the complement 1 - u (two's complement of the 64 bits) with log.
        bits = _random_bits(key, fi.bits, (2,) + shape)
        neg = lax.bitwise_not(bits)
        lo_bits = neg[1]
        carry = _public_numpy().array([lo_bits == np.array((1 << fi.bits) - 1, np.uint32),
                                       jnp.ones_like(lo_bits)], dtype=np.uint32)
        neg = neg + carry
        flip_mask = bits[0] < np.array(1 << (fi.bits - 1), np.uint32)
        x = _safe_int_to_float(jnp.where(flip_mask, bits, neg))
        return jnp.where(flip_mask, -jnp.log(-jnp.log1p(-x)), -jnp.log(-jnp.log(x)))
    if mode in ("high", "highest"):
        high, low = _uniform(key, minval=0., maxval=1., shape=(2,) + shape, dtype=dtype)
        x = jnp.where(high >= 0.5, high, high + 2 ** -fi.nmant * low + fi.tiny)
        return -jnp.log(-jnp.log1p(-x))
    return -jnp.log(-jnp.log(_uniform(key, minval=fi.tiny, maxval=1., shape=shape,
                                      dtype=dtype)))


def rademacher(key, shape=(), dtype=None):
    """Random -1/+1 values."""
    key, _ = _check_key("rademacher", key)
    dtype = _user_dtype(dtype, int)
    shape = _shape_arg(shape)
    return _rademacher(key, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _rademacher(key, shape, dtype):
    b = bernoulli(key, 0.5, shape).astype(dtype)
    return (2 * b - 1).astype(dtype)


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal samples truncated to ``(lower, upper)``."""
    if shape is not None:
        shape = _shape_arg(shape)
    key, _ = _check_key("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    return _truncated_normal(key, lower, upper, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    if shape is None:
        shape = _broadcast_shapes(np.shape(lower), np.shape(upper))
    else:
        _check_shape("truncated_normal", shape, np.shape(lower), np.shape(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lower / sqrt2)
    b = lax.erf(upper / sqrt2)
    u = uniform(key, shape, dtype, minval=a, maxval=b)
    out = sqrt2 * lax.erf_inv(u)
    # nextafter has no derivative (as in JAX): the clip bounds are constants
    return jnp.clip(out, lax.nextafter(stop_gradient(lower), np.array(np.inf, dtype)[()]),
                    lax.nextafter(stop_gradient(upper), np.array(-np.inf, dtype)[()]))


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Samples from categorical distributions given by unnormalised log
    probabilities (the Gumbel-max trick; without replacement, Gumbel-top-k)."""
    key, _ = _check_key("categorical", key)
    from .numpy.util import check_arraylike
    check_arraylike("categorical", logits)
    logits = jnp.asarray(logits)
    batch_shape = tuple(np.delete(logits.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = _shape_arg(shape)
        _check_shape("categorical", shape, batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        if axis >= 0:
            axis -= logits.ndim
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(axis % logits.ndim, logits.shape[axis])
        g = gumbel(key, (*prefix, *logits_shape), logits.dtype, mode=mode)
        from .numpy.reductions import argmax
        return argmax(g + lax.expand_dims(logits, tuple(range(len(prefix)))), axis=axis)
    logits = logits + gumbel(key, logits.shape, logits.dtype, mode=mode)
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number "
                         f"of categories ({logits.shape[axis]}).")
    from .lax.sorting import top_k
    _, indices = top_k(_public_numpy().moveaxis(logits, axis, -1), k)
    # top_k puts the k draws last; the result wants them first.
    nd = indices.ndim
    return lax.reshape(indices, shape, (nd - 1, *range(nd - 1)))


def _require(module, name, sampler):
    """``module.name``, or a NotImplementedError naming the missing piece."""
    fn = getattr(module, name, None)
    if fn is None:
        raise NotImplementedError(f"jax.random.{sampler} needs {module.__name__}.{name}, which "
                                  "xjit does not provide yet")
    return fn


def _public_numpy():
    from .. import numpy
    return numpy


def _shuffle(key, x, axis):
    """Sort by random keys, repeated until collisions are unlikely (as JAX)."""
    from .. import lax as public_lax
    sort_key_val = _require(public_lax, "sort_key_val", "permutation")
    rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, sub = _split(key)
        _, x = sort_key_val(_random_bits(sub, 32, x.shape), x, axis)
    return x


def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``range(x)`` or of ``x`` along ``axis``."""
    key, _ = _check_key("permutation", key)
    from .numpy.util import canonicalize_axis, check_arraylike
    check_arraylike("permutation", x)
    axis = canonicalize_axis(axis, np.ndim(x) or 1)
    if not np.ndim(x):
        if not dtypes.issubdtype(dtypes.dtype(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = core.concrete_or_error(int, x, "argument x of jax.random.permutation()")
        return jit(lambda key: _shuffle(key, jnp.arange(n), axis))(key)
    return _permutation(key, x, axis, independent)


@partial(jit, static_argnums=(2, 3))
def _permutation(key, x, axis, independent):
    if independent or np.ndim(x) == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, jnp.arange(x.shape[axis]), 0)
    return _require(_public_numpy(), "take", "permutation")(x, ind, axis, unique_indices=True)


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Random samples from ``range(a)`` or from ``a`` along ``axis``."""
    key, _ = _check_key("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    from .numpy.util import canonicalize_axis, check_arraylike
    check_arraylike("choice", a)
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = core.concrete_or_error(int, a, "The error occurred in jax.random.choice()")
    else:
        axis = canonicalize_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size "
                         f"{n_inputs}) when 'replace=False'")
    take = (lambda x, i: i) if arr.ndim == 0 else (
        lambda x, i: _require(_public_numpy(), "take", "choice")(x, i, axis))
    if p is None:
        if replace:
            result = take(arr, randint(key, shape, 0, n_inputs))
        else:
            perm = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
            result = perm[(slice(None),) * axis + (slice(n_draws),)]
    else:
        from .numpy.util import promote_dtypes_inexact
        check_arraylike("choice", p)
        p_arr, = promote_dtypes_inexact(p)
        if p_arr.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
        if replace:
            cum = _require(_public_numpy(), "cumsum", "choice")(p_arr)
            r = cum[-1] * (1 - uniform(key, shape, dtype=cum.dtype))
            ind = _require(_public_numpy(), "searchsorted", "choice")(cum, r).astype(int)
        else:
            from .. import lax as public_lax
            g = gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + jnp.log(p_arr)
            ind = _require(public_lax, "top_k", "choice")(g, k=n_draws)[1].astype(int)
        result = take(arr, ind)
    return result.reshape(shape if arr.ndim == 0 else
                          arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])


def clone(key):
    """The same key, marked as a fresh copy (the identity on values)."""
    return prng.random_clone_p.bind(key)
