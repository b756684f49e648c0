"""PRNG keys and the threefry2x32 counter-based hash.

A typed key array has the *extended* dtype ``key<fry>``: its abstract value
has the key shape, while its buffer (the "physical" value) is ``uint32`` with
a trailing dimension of 2. Keys flow through jaxprs as ``key<fry>[...]``
values and are consumed by the ``random_*`` primitives, exactly as JAX prints
them. Lowering maps a key type to its physical tensor type (``ttype``), and
the structural primitives (reshape, slice, ...) get physical lowerings that
account for the trailing dimension.

``random_bits``, ``random_split`` and ``random_fold_in`` lower to threefry2x32
written out as plain StableHLO integer ops over all counters at once (five
groups of four rounds in a ``while`` loop, as JAX lowers it on CPU, so the
float code consuming the bits compiles as it does in JAX). Counters are the
row-major index of each output element as a 64-bit number split into two
32-bit words, so the bits match JAX's partitionable threefry (its default)
bit for bit.
"""
from __future__ import annotations

import numpy as np

from xjit._src import core, dtypes, sharding_in_types as sit
from xjit._src.interpreters import ad, batching, mlir as lowering
from .core import ShapedArray
from .lax import elementwise as ew
from .lax import gather_scatter as gs
from .lax import slicing as sl
from .lax import structural as st
from .lax.sharding_constraint import sharding_constraint_p
from xjit._src.interpreters.mlir import i64_array, ttype

UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
               64: np.dtype(np.uint64)}


class PRNGImpl:
    """A PRNG implementation: its key data shape and names (printed as the tag)."""

    def __init__(self, name, tag, key_shape):
        self.name, self.tag, self.key_shape = name, tag, key_shape

    def __str__(self):
        return self.tag

    def __repr__(self):
        return repr(self.name)


threefry_impl = PRNGImpl("threefry2x32", "fry", (2,))
PRNG_IMPLS = {"threefry2x32": threefry_impl}


class KeyTy(dtypes.ExtendedDType):
    """The extended dtype of typed key arrays (``key<fry>``)."""

    type = dtypes.prng_key
    kind = "V"
    itemsize = 8

    def __init__(self, impl: PRNGImpl):
        self._impl = impl
        self.name = f"key<{impl.tag}>"

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return type(other) is KeyTy and other._impl is self._impl

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((KeyTy, self._impl.name))

    def physical_aval(self, aval):
        return ShapedArray(aval.shape + self._impl.key_shape, np.uint32)

    def array_repr(self, arr):
        """``Array((3,), dtype=key<fry>) overlaying:`` plus the key data."""
        return f"Array({arr.aval.shape}, dtype={self.name}) overlaying:\n{arr._value}"


fry = KeyTy(threefry_impl)


def is_key(x) -> bool:
    return type(getattr(x, "dtype", None)) is KeyTy


def _is_key_aval(a):
    return type(a.dtype) is KeyTy


def _physical(a):
    return a.dtype.physical_aval(a) if type(a.dtype) is KeyTy else a


# --------------------------------------------------------------------------
# Primitives


_prim = lowering.define_primitive


def _seed_eval(seeds, impl):
    if seeds.dtype.kind not in "iu":
        raise TypeError(f"PRNG key seed must be an integer; got {seeds.str_short(False)}")
    return ShapedArray(seeds.shape, KeyTy(impl))


def _wrap_eval(base, impl):
    shp = impl.key_shape
    if base.shape[len(base.shape) - len(shp):] != shp:
        raise TypeError(f"random_wrap: expected key data of shape ending with {shp}; got "
                        f"{base.shape}")
    if base.dtype != np.uint32:
        raise TypeError(f"random_wrap: expected key data of dtype uint32; got {base.dtype}")
    return ShapedArray(base.shape[:len(base.shape) - len(shp)], KeyTy(impl))


def _unwrap_eval(keys):
    if not _is_key_aval(keys):
        raise TypeError(f"random_unwrap takes key array operand, got keys.dtype={keys.dtype!r}")
    return keys.dtype.physical_aval(keys)


def _bits_eval(keys, bit_width, shape):
    return ShapedArray(keys.shape + tuple(shape), UINT_DTYPES[bit_width])


def _split_eval(keys, shape):
    return ShapedArray(keys.shape + tuple(shape), keys.dtype)


def _fold_in_eval(keys, msgs):
    if keys.shape != msgs.shape and msgs.shape:
        raise TypeError(f"random_fold_in: incompatible shapes {keys.shape} and {msgs.shape}")
    return keys


def _identity_lowering(ctx, ai, ao, x, **_):
    return x


# -- threefry2x32 in StableHLO text


class _U32:
    """Emits uint32 (or uint64) elementwise ops on one tensor type."""

    def __init__(self, ctx, shape, dtype=np.uint32):
        self.ctx, self.shape = ctx, tuple(shape)
        self.t = ttype(ShapedArray(shape, dtype))

    def op(self, name, *xs):
        return self.ctx.op(f"stablehlo.{name}", list(xs), [self.t] * len(xs), self.t)

    def const(self, c):
        return self.ctx.op("stablehlo.constant", [], [], self.t, attrs=f"value = dense<{c}> : {self.t}")

    def add(self, a, b):
        return self.op("add", a, b)

    def xor(self, a, b):
        return self.op("xor", a, b)

    def rotl(self, x, r):
        left = self.op("shift_left", x, self.const(r))
        right = self.op("shift_right_logical", x, self.const(32 - r))
        return self.op("or", left, right)


_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_I32 = ShapedArray((), np.int32)
_U32S = ShapedArray((), np.uint32)


def threefry2x32_lower(ctx, k1, k2, x0, x1, key_shape, shape):
    """The threefry2x32 hash of counters ``x0, x1`` (shape ``shape``) under
    keys ``k1, k2`` (shape ``key_shape``, a prefix of ``shape``).

    The five groups of four rounds run in a ``while`` loop, as JAX lowers
    them on CPU: XLA then cannot fuse the hash into the float arithmetic that
    consumes the bits, which would change how that arithmetic is compiled
    and round some results differently from JAX."""
    ks_ops = _U32(ctx, key_shape)
    ops = _U32(ctx, shape)
    k3 = ks_ops.xor(ks_ops.xor(k1, k2), ks_ops.const(0x1BD11BDA))
    kdims = i64_array(range(len(key_shape)))

    def bcast(k):
        if key_shape == shape:
            return k
        return ctx.op("stablehlo.broadcast_in_dim", [k], [ks_ops.t], ops.t,
                      attrs=f"broadcast_dimensions = {kdims}")

    x0 = ops.add(x0, bcast(k1))
    x1 = ops.add(x1, bcast(k2))
    key_aval, x_aval = ShapedArray(key_shape, np.uint32), ShapedArray(shape, np.uint32)
    avals = [_I32, x_aval, x_aval, key_aval, key_aval, key_aval]
    t_i32, t_u32 = ttype(_I32), ttype(_U32S)

    def scalar(value, aval):
        return ctx.constant(np.asarray(value, aval.dtype), aval)

    def cond(i, *_):
        lt = ctx.op("stablehlo.compare", [i, scalar(5, _I32)], [t_i32, t_i32],
                    ttype(ShapedArray((), np.bool_)),
                    attrs="comparison_direction = #stablehlo<comparison_direction LT>")
        return [(lt, ShapedArray((), np.bool_))]

    def body(i, x0, x1, ka, kb, kc):
        # Group i uses rotation set i % 2 and injects (kb, kc + i + 1); the
        # key schedule rotates one place per group.
        even = ctx.op("stablehlo.compare",
                      [ctx.op("stablehlo.remainder", [i, scalar(2, _I32)], [t_i32, t_i32], t_i32),
                       scalar(0, _I32)], [t_i32, t_i32], ttype(ShapedArray((), np.bool_)),
                      attrs="comparison_direction = #stablehlo<comparison_direction EQ>")
        for r0, r1 in zip(*_ROTATIONS):
            r = ctx.op("stablehlo.select", [even, scalar(r0, _U32S), scalar(r1, _U32S)],
                       [ttype(ShapedArray((), np.bool_)), t_u32, t_u32], t_u32)
            rl = ctx.op("stablehlo.broadcast_in_dim", [r], [t_u32], ops.t,
                        attrs="broadcast_dimensions = array<i64>")
            rr = ops.op("subtract", ops.const(32), rl)
            x0 = ops.add(x0, x1)
            rot = ops.op("or", ops.op("shift_left", x1, rl), ops.op("shift_right_logical", x1, rr))
            x1 = ops.xor(x0, rot)
        i1 = ctx.op("stablehlo.add", [i, scalar(1, _I32)], [t_i32, t_i32], t_i32)
        inj = ctx.op("stablehlo.convert", [i1], [t_i32], t_u32)
        inj = ctx.op("stablehlo.broadcast_in_dim", [inj], [t_u32], ks_ops.t,
                     attrs="broadcast_dimensions = array<i64>")
        x0 = ops.add(x0, bcast(kb))
        x1 = ops.add(x1, bcast(ks_ops.add(kc, inj)))
        return list(zip((i1, x0, x1, kb, kc, ka), avals))

    types = [ttype(a) for a in avals]
    outs = ctx.op("stablehlo.while", [scalar(0, _I32), x0, x1, k1, k2, k3], types, types,
                  regions=[ctx.region(avals, cond), ctx.region(avals, body)])
    return outs[1], outs[2]


def _key_words(ctx, keys_ssa, key_shape):
    """The two uint32 words of (physical) keys, each of shape ``key_shape``."""
    n = len(key_shape)
    t_in = ttype(ShapedArray(key_shape + (2,), np.uint32))
    t_one = ttype(ShapedArray(key_shape + (1,), np.uint32))
    t_out = ttype(ShapedArray(key_shape, np.uint32))
    words = []
    for w in (0, 1):
        s = ctx.op("stablehlo.slice", [keys_ssa], [t_in], t_one,
                   attrs=f"start_indices = {i64_array([0] * n + [w])}, "
                         f"limit_indices = {i64_array(list(key_shape) + [w + 1])}, "
                         f"strides = {i64_array([1] * (n + 1))}")
        words.append(ctx.op("stablehlo.reshape", [s], [t_one], t_out))
    return words


def _counters(ctx, key_shape, shape):
    """hi and lo words of each element's row-major index over ``shape``,
    broadcast to ``key_shape + shape``."""
    full = tuple(key_shape) + tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    ops = _U32(ctx, shape)
    if n <= 2 ** 32:
        flat = ttype(ShapedArray((n,), np.uint32))
        lo = ctx.op("stablehlo.iota", [], [], flat, attrs="iota_dimension = 0 : i64")
        lo = ctx.op("stablehlo.reshape", [lo], [flat], ops.t)
        hi = ops.const(0)
    else:
        u64 = _U32(ctx, shape, np.uint64)
        flat = ttype(ShapedArray((n,), np.uint64))
        idx = ctx.op("stablehlo.iota", [], [], flat, attrs="iota_dimension = 0 : i64")
        idx = ctx.op("stablehlo.reshape", [idx], [flat], u64.t)
        hi64 = u64.op("shift_right_logical", idx, u64.const(32))
        lo = ctx.op("stablehlo.convert", [idx], [u64.t], ops.t)
        hi = ctx.op("stablehlo.convert", [hi64], [u64.t], ops.t)
    if key_shape:
        t_full = ttype(ShapedArray(full, np.uint32))
        dims = i64_array(range(len(key_shape), len(full)))
        lo, hi = (ctx.op("stablehlo.broadcast_in_dim", [v], [ops.t], t_full,
                         attrs=f"broadcast_dimensions = {dims}") for v in (lo, hi))
    return hi, lo


def _hash_over(ctx, keys, key_shape, shape):
    k1, k2 = _key_words(ctx, keys, key_shape)
    hi, lo = _counters(ctx, key_shape, shape)
    return threefry2x32_lower(ctx, k1, k2, hi, lo, tuple(key_shape),
                              tuple(key_shape) + tuple(shape))


def _bits_lowering(ctx, ai, ao, keys, bit_width, shape):
    kshape, out = ai[0].shape, ao[0]
    if out.size == 0:
        return ctx.op("stablehlo.constant", [], [], ttype(out), attrs=f"value = dense<0> : {ttype(out)}")
    x0, x1 = _hash_over(ctx, keys, kshape, shape)
    t32 = ttype(out.update(dtype=np.uint32))
    if bit_width == 64:
        u64 = _U32(ctx, out.shape, np.uint64)
        hi = ctx.op("stablehlo.convert", [x0], [t32], u64.t)
        lo = ctx.op("stablehlo.convert", [x1], [t32], u64.t)
        return u64.op("or", u64.op("shift_left", hi, u64.const(32)), lo)
    bits = ctx.op("stablehlo.xor", [x0, x1], [t32, t32], t32)
    if bit_width == 32:
        return bits
    return ctx.op("stablehlo.convert", [bits], [t32], ttype(out))


def _stack_words(ctx, x0, x1, shape):
    t = ttype(ShapedArray(shape, np.uint32))
    t1 = ttype(ShapedArray(tuple(shape) + (1,), np.uint32))
    parts = [ctx.op("stablehlo.reshape", [x], [t], t1) for x in (x0, x1)]
    return ctx.op("stablehlo.concatenate", parts, [t1, t1],
                  ttype(ShapedArray(tuple(shape) + (2,), np.uint32)),
                  attrs=f"dimension = {len(shape)} : i64")


def _split_lowering(ctx, ai, ao, keys, shape):
    out = ao[0]
    if out.size == 0:
        t = ttype(out)
        return ctx.op("stablehlo.constant", [], [], t, attrs=f"value = dense<0> : {t}")
    x0, x1 = _hash_over(ctx, keys, ai[0].shape, shape)
    return _stack_words(ctx, x0, x1, out.shape)


def _fold_in_lowering(ctx, ai, ao, keys, msgs):
    kshape = ai[0].shape
    k1, k2 = _key_words(ctx, keys, kshape)
    ops = _U32(ctx, kshape)
    if ai[1].shape != kshape:  # a scalar message for a batch of keys
        msgs = ctx.op("stablehlo.broadcast_in_dim", [msgs], [ttype(ai[1])], ops.t,
                      attrs="broadcast_dimensions = array<i64>")
    x0, x1 = threefry2x32_lower(ctx, k1, k2, ops.const(0), msgs, kshape, kshape)
    return _stack_words(ctx, x0, x1, kshape)


def _seed_lowering(ctx, ai, ao, seeds, impl):
    a = ai[0]
    ops = _U32(ctx, a.shape)
    if a.dtype.itemsize == 8:
        t = ttype(a)
        c32 = ctx.op("stablehlo.constant", [], [], t, attrs=f"value = dense<32> : {t}")
        hi = ctx.op("stablehlo.shift_right_logical", [seeds, c32], [t, t], t)
        hi = ctx.op("stablehlo.convert", [hi], [t], ops.t)
    else:
        hi = ops.const(0)
    lo = ctx.op("stablehlo.convert", [seeds], [ttype(a)], ops.t)
    return _stack_words(ctx, hi, lo, a.shape)


random_seed_p = _prim("random_seed", _seed_eval, _seed_lowering)
random_wrap_p = _prim("random_wrap", _wrap_eval, _identity_lowering)
random_unwrap_p = _prim("random_unwrap", _unwrap_eval, _identity_lowering)
random_bits_p = _prim("random_bits", _bits_eval, _bits_lowering)
random_split_p = _prim("random_split", _split_eval, _split_lowering)
random_fold_in_p = _prim("random_fold_in", _fold_in_eval, _fold_in_lowering)
# ``clone`` marks a key as safe to reuse (for key-reuse checkers); as a value
# it is the identity.
random_clone_p = _prim("random_clone", lambda keys: keys, _identity_lowering)
core.pp_param_rules[random_bits_p] = lambda p: {"bit_width": p["bit_width"], "shape": p["shape"]}

# sharding rules: key data's trailing dimensions are never split
sit.register([random_seed_p, random_fold_in_p, random_clone_p], sit.same_as(0))
sit.sharding_rules[random_wrap_p] = lambda base, *, impl: sit.P(
    *sit.parts(base)[:base.ndim - len(impl.key_shape)])
sit.sharding_rules[random_unwrap_p] = lambda keys: sit.P(*sit.parts(keys))
sit.sharding_rules[random_bits_p] = lambda keys, *, shape, **_: sit.P(
    *sit.parts(keys), *[None] * len(shape))
sit.sharding_rules[random_split_p] = lambda keys, *, shape: sit.P(
    *sit.parts(keys), *[None] * len(shape))


# --------------------------------------------------------------------------
# Structural primitives on key arrays: lower on the physical uint32 data.


def _key_aware(prim, fix=None):
    """Wrap ``prim``'s lowering so key-typed operands are lowered physically;
    ``fix(ctx, ai, ao, args, params) -> (args, params, ai)`` adapts what names
    dimensions (the physical value has one more, trailing)."""
    rule = lowering.rules[prim]

    def lower(ctx, ai, ao, *args, **params):
        if not any(_is_key_aval(a) for a in (*ai, *ao)):
            return rule(ctx, ai, ao, *args, **params)
        ai = [_physical(a) for a in ai]
        if fix is not None:
            args, params, ai = fix(ctx, ai, ao, args, params)
        return rule(ctx, ai, [_physical(a) for a in ao], *args, **params)

    lowering.rules[prim] = lower


def _fix_bid(ctx, ai, ao, args, p):
    nd = len(ao[0].shape)
    return args, {**p, "shape": tuple(p["shape"]) + (2,),
                  "broadcast_dimensions": tuple(p["broadcast_dimensions"]) + (nd,)}, ai


def _fix_transpose(ctx, ai, ao, args, p):
    return args, {**p, "permutation": tuple(p["permutation"]) + (len(p["permutation"]),)}, ai


def _fix_slice(ctx, ai, ao, args, p):
    strides = p.get("strides")
    return args, {**p, "start_indices": tuple(p["start_indices"]) + (0,),
                  "limit_indices": tuple(p["limit_indices"]) + (2,),
                  "strides": None if strides is None else tuple(strides) + (1,)}, ai


def _zero_index(ctx, ai, first):
    """A zero start index for the trailing key-data dimension."""
    like = ai[first] if len(ai) > first else ShapedArray((), np.int32)
    t = ttype(like)
    return ctx.op("stablehlo.constant", [], [], t, attrs=f"value = dense<0> : {t}"), like


def _fix_dynamic_slice(ctx, ai, ao, args, p):
    z, za = _zero_index(ctx, ai, 1)
    return (*args, z), {**p, "slice_sizes": tuple(p["slice_sizes"]) + (2,)}, [*ai, za]


def _fix_dus(ctx, ai, ao, args, p):
    z, za = _zero_index(ctx, ai, 2)
    return (*args, z), p, [*ai, za]


def _fix_select(ctx, ai, ao, args, p):
    w, wa = args[0], ai[0]
    if not wa.shape:
        return args, p, ai
    pa = ShapedArray(wa.shape + (2,), wa.dtype)
    w = ctx.op("stablehlo.broadcast_in_dim", [w], [ttype(wa)], ttype(pa),
               attrs=f"broadcast_dimensions = {i64_array(range(len(wa.shape)))}")
    return (w, *args[1:]), p, [pa, *ai[1:]]


def _fix_scatter(ctx, ai, ao, args, p):
    """``keys.at[i].set(k)``: the key data's trailing dimensions are window
    dimensions of the updates and of the operand (the last ones of each)."""
    dn = p["dimension_numbers"]
    k = len(ai[0].shape) - len(ao[0].shape)  # the key data's dimensions
    n = len(ai[2].shape) - k  # the updates' own dimensions
    dn = dn._replace(update_window_dims=tuple(dn.update_window_dims) + tuple(range(n, n + k)))
    return args, {**p, "dimension_numbers": dn}, ai


for _p, _fix in ((st.broadcast_in_dim_p, _fix_bid), (st.reshape_p, None), (st.squeeze_p, None),
                 (st.transpose_p, _fix_transpose), (st.rev_p, None), (st.slice_p, _fix_slice),
                 (st.concatenate_p, None), (st.stack_p, None), (st.copy_p, None),
                 (sl.dynamic_slice_p, _fix_dynamic_slice),
                 (sl.dynamic_update_slice_p, _fix_dus), (st.select_n_p, _fix_select),
                 (gs.scatter_p, _fix_scatter), (sharding_constraint_p, None)):
    _key_aware(_p, _fix)


def _key_comparison(prim, word_op, all_words):
    """Let ``eq``/``ne`` take two key arrays of one PRNG type, as JAX's do:
    keys are equal when all their key data words are (``ne``: when any word
    differs), so the lowering compares the physical data with ``word_op`` and
    reduces the trailing key-data dimensions with and/or."""
    eval_rule, lower_rule = core.abstract_eval_rules[prim], lowering.rules[prim]

    def abstract_eval(x, y):
        if not (_is_key_aval(x) or _is_key_aval(y)):
            return eval_rule(x, y)
        if x.dtype != y.dtype:  # JAX fails in its lowering; say what is wrong here
            raise TypeError(f"lax.{prim.name} requires arguments to have the same dtypes, "
                            f"got {x.dtype.name}, {y.dtype.name}.")
        from .lax.elementwise import broadcast_shapes_binary
        return ShapedArray(broadcast_shapes_binary(prim.name, x, y), np.dtype(bool))

    def lower(ctx, ai, ao, x, y):
        if not _is_key_aval(ai[0]):
            return lower_rule(ctx, ai, ao, x, y)
        out = ao[0]
        words = _physical(out.update(dtype=ai[0].dtype))
        args = []
        for a, v in zip(ai, (x, y)):
            pa = _physical(a)
            if not a.shape and out.shape:  # a scalar key against an array of keys
                dims = i64_array(range(len(out.shape), len(words.shape)))
                v = ctx.op("stablehlo.broadcast_in_dim", [v], [ttype(pa)], ttype(words),
                           attrs=f"broadcast_dimensions = {dims}")
                pa = words
            args.append((pa, v))
        bits = words.update(dtype=np.dtype(bool))
        cmp = lower_rule(ctx, [a for a, _ in args], [bits], *(v for _, v in args))
        init = ctx.constant(np.array(all_words), bits.update(shape=()))
        region = ctx.region([bits.update(shape=())] * 2, lambda a, b: [(
            ctx.op(word_op, [a, b], [ttype(bits.update(shape=()))] * 2,
                   ttype(bits.update(shape=()))), bits.update(shape=()))])
        return ctx.op("stablehlo.reduce", [cmp, init], [ttype(bits), ttype(bits.update(shape=()))],
                      ttype(out), regions=[region],
                      attrs=f"dimensions = {i64_array(range(len(out.shape), len(bits.shape)))}")

    core.abstract_eval_rules[prim] = abstract_eval
    lowering.rules[prim] = lower


_key_comparison(ew.eq_p, "stablehlo.and", True)
_key_comparison(ew.ne_p, "stablehlo.or", False)


# --------------------------------------------------------------------------
# bitcast_convert_type (used by the samplers to build floats from bits)


def _bitcast_eval(x, new_dtype):
    # as JAX: the shape (in bits) is checked before the dtypes
    new_dtype = np.dtype(new_dtype)
    a, b = x.dtype.itemsize * 8, new_dtype.itemsize * 8
    if a > b:
        shape = x.shape + (a // b,)
    elif a < b:
        size = x.shape[-1] if x.shape else 1
        if size * a != b:
            raise ValueError(f"Attempting to convert array of shape {x.shape} from {x.dtype} of "
                             f"size {a} bits to {new_dtype} of size {b}, bits but {size} * {a} "
                             f"!= {b}")
        shape = x.shape[:-1]
    else:
        shape = x.shape
    if x.dtype != new_dtype and any(d.kind in "bc" for d in (x.dtype, new_dtype)):
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values "
                        "unless the operand and destination types match. Got operand "
                        f"dtype={x.dtype}, new_dtype={new_dtype!r}")
    return ShapedArray(shape, new_dtype)


def _bitcast_sharding(x, *, new_dtype):
    """A dimension added for the narrower type's pieces is unsplit; a
    dimension merged into the wider type must be."""
    ps, a, b = sit.parts(x), x.dtype.itemsize, np.dtype(new_dtype).itemsize
    if a < b and ps and ps[-1] is not None:
        raise sit.ShardingTypeError(
            f"bitcast_convert_type of {x.str_short()} to {np.dtype(new_dtype)} merges its last "
            "dimension, which is sharded")
    return sit.P(*ps, None) if a > b else sit.P(*ps[:-1]) if a < b else sit.P(*ps)


def _bitcast_lower(ctx, ai, ao, x, new_dtype):
    return ctx.op("stablehlo.bitcast_convert", [x], [ttype(ai[0])], ttype(ao[0]))


bitcast_convert_type_p = _prim("bitcast_convert_type", _bitcast_eval, _bitcast_lower)
sit.sharding_rules[bitcast_convert_type_p] = _bitcast_sharding


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of ``operand`` as ``new_dtype``."""
    from xjit._src.lax.lax import asarray_device
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    return bitcast_convert_type_p.bind(asarray_device(operand), new_dtype=new_dtype)


# --------------------------------------------------------------------------
# JVP and batching rules. Keys and bits carry no tangent (as in JAX). The
# lowerings above already take key arrays of any shape (one hash per key,
# counters over the sample shape only), so a batch of keys is just a leading
# key dimension.

for _p in (random_seed_p, random_wrap_p, random_unwrap_p, random_bits_p, random_split_p,
           random_fold_in_p, bitcast_convert_type_p):
    ad.defjvp_zero(_p)
del _p


def _keys_first(prim):
    def rule(args, dims, **params):
        return prim.bind(batching.bdim_at_front(args[0], dims[0], None), **params), 0
    return rule


def _fold_in_batcher(args, dims):
    size = next(np.shape(x)[d] if not is_key(x) else x.shape[d]
                for x, d in zip(args, dims) if d is not None)
    keys, msgs = (batching.bdim_at_front(x, d, size) for x, d in zip(args, dims))
    return random_fold_in_p.bind(keys, msgs), 0


for _p in (random_bits_p, random_split_p, random_wrap_p, random_unwrap_p, bitcast_convert_type_p):
    batching.batch_rules[_p] = _keys_first(_p)
del _p
batching.batch_rules[random_fold_in_p] = _fold_in_batcher
batching.defvectorized(random_seed_p)
batching.defvectorized(random_clone_p)
