"""``xjit.nn.dot_product_attention``: scaled dot-product attention computed
the way JAX's XLA implementation computes it (grouped query heads, a mask
made of a large negative number, softmax in float32), so values agree."""
from __future__ import annotations

import numpy as np

from xjit._src import dtypes
from xjit._src.numpy import diagonals
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import shape_ops
from xjit._src.numpy import ufuncs_api
from xjit._src.interpreters.batching import vmap
from xjit._src.numpy.einsum import einsum



def _large_negative(dtype):
    """-0.7 * the dtype's max (capped at float32's): finite after scaling."""
    big = min(float(dtypes.finfo(dtype).max), float(dtypes.finfo(np.float32).max))
    return jnp.asarray(-0.7 * big, dtype=dtype)


def _combined_mask(logits, mask, is_causal, q_seqlen, kv_seqlen, window):
    """The boolean mask of the positions a query may attend to, or None."""
    if mask is None and not is_causal and q_seqlen is None and kv_seqlen is None \
            and window is None:
        return None
    combined = jnp.ones_like(logits, dtype=bool)
    if mask is not None:
        combined = ufuncs_api.logical_and(combined, mask)
    T, S = logits.shape[2], logits.shape[3]
    if is_causal:
        combined = ufuncs_api.logical_and(combined, diagonals.tril(jnp.ones((T, S), dtype=bool))[None, None])
    if window is not None:
        q_pos, k_pos = jnp.arange(T), jnp.arange(S)
        left, right = window
        inside = ufuncs_api.logical_and(q_pos[:, None] >= k_pos[None, :] - right,
                                 q_pos[:, None] <= k_pos[None, :] + left)
        combined = ufuncs_api.logical_and(combined, inside[None, None])
    if q_seqlen is not None or kv_seqlen is not None:
        q_ok = True if q_seqlen is None else jnp.arange(T)[None, :, None] < q_seqlen[:, None, None]
        kv_ok = True if kv_seqlen is None else \
            jnp.arange(S)[None, None, :] < kv_seqlen[:, None, None]
        combined = ufuncs_api.logical_and(combined, ufuncs_api.logical_and(q_ok, kv_ok)[:, None])
    return combined


def _attend(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen, window,
            return_residual):
    """One group of query heads: query (B, T, N, H), key/value (B, S, N, H)."""
    from xjit._src.nn import functions as nn
    logits_dtype = jnp.promote_types(query.dtype, np.float32)
    logits = einsum("BTNH,BSNH->BNTS", query, key, preferred_element_type=logits_dtype)
    logits = logits * jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    keep = _combined_mask(logits, mask, is_causal, q_seqlen, kv_seqlen, window)
    if keep is not None:
        logits = jnp.where(keep, logits, _large_negative(logits.dtype))
    logits = logits.astype(np.float32)
    probs = nn.softmax(logits, axis=-1).astype(key.dtype)
    encoded = einsum("BNTS,BSNH->BTNH", probs, value)
    if q_seqlen is not None:
        valid = jnp.arange(encoded.shape[1])[None, :] < q_seqlen[:, None]
        encoded = encoded * valid[:, :, None, None].astype(encoded.dtype)
    if return_residual:
        from xjit._src.ad_api import stop_gradient
        lse = shape_ops.transpose(nn.logsumexp(logits, axis=-1).astype(key.dtype), (0, 2, 1))
        return encoded, stop_gradient(lse)
    return encoded


def _check(t, shape, dtype, name):
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    for i in range(t.ndim):
        if shape[i] != -1 and t.shape[i] != shape[i]:
            raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual=False):
    """softmax(query . key^T * scale + bias, masked) . value over inputs shaped
    (batch, seq, heads, head_dim) or without the batch axis. Key/value heads
    may be fewer than query heads (grouped-query attention)."""
    out_shape = jnp.asarray(query).shape

    def as_4d(t):
        t = jnp.asarray(t)
        return shape_ops.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t

    q, k, v = as_4d(query), as_4d(key), as_4d(value)
    bias = None if bias is None else as_4d(bias)
    mask = None if mask is None else as_4d(mask)
    q_len = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
    kv_len = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = k.shape
    _check(v, [B, S, K, H], k.dtype, "value")
    _check(q, [B, -1, -1, H], k.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(q_len, [B], np.dtype("int32"), "query_seq_lengths")
    _check(kv_len, [B], np.dtype("int32"), "key_value_seq_lengths")
    if q.shape[-2] % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of key/value heads, "
                         f"but got {q.shape[-2]} vs {K}")
    if implementation not in (None, "xla"):
        if implementation == "cudnn":
            raise NotImplementedError("xjit has only the 'xla' implementation of "
                                      "dot_product_attention")
        raise ValueError(f"Unsupported implementation option: {implementation}")
    scale = (1.0 / np.sqrt(H)) if scale is None else scale

    _, T, N, _ = q.shape
    G = N // K
    q = shape_ops.reshape(q, (B, T, K, G, H))

    def grouped(t):  # (B, N or 1, T, S) -> (B, K or 1, G, T, S)
        if t is None:
            return None
        tB, tN, tT, tS = t.shape
        if tN == 1:
            return shape_ops.broadcast_to(t[:, :, None], (tB, tN, G, tT, tS))
        return shape_ops.reshape(t, (tB, K, G, tT, tS))

    attend = vmap(_attend, in_axes=(3, None, None, 2, 2) + (None,) * 6, out_axes=3)
    out = attend(q, k, v, grouped(bias), grouped(mask), is_causal, scale, q_len, kv_len,
                 local_window_size, return_residual)
    if return_residual:
        encoded, lse = out
        return (shape_ops.reshape(encoded, out_shape),
                shape_ops.reshape(shape_ops.reshape(lse, (B, T, N)), out_shape[:-1]))
    return shape_ops.reshape(out, out_shape)
