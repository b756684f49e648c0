"""vmap: printed jaxprs and error messages captured from JAX 0.10.2, values
checked against per-example loops and NumPy."""
from __future__ import annotations

import re

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax
from xjit._src.interpreters import batching
from xjit._src import core

rng = np.random.RandomState(0)


def r(*s, dt=np.float32):
    return rng.randn(*s).astype(dt)


A = r(5, 3); B = r(3, 5); C = r(3); S = r(5); M = r(5, 3, 4); N = r(4, 2)
I = (rng.randint(0, 10, (5, 3))).astype(np.int32)
P = rng.rand(5, 3) > 0.5

# (name, function, in_axes, args)
CASES = [
 ("neg0", lambda x: -x, (0,), (A,)),
 ("neg1", lambda x: lax.neg(x), (1,), (B,)),
 ("ipow", lambda x: lax.integer_pow(x, 3), (1,), (B,)),
 ("round", lambda x: lax.round(x), (0,), (A,)),
 ("cvt", lambda x: lax.convert_element_type(x, np.int32), (1,), (B,)),
 ("add_same", lambda x, y: lax.add(x, y), (0, 0), (A, A)),
 ("add_diff", lambda x, y: lax.add(x, y), (0, 1), (A, B)),
 ("add_diff2", lambda x, y: lax.add(x, y), (1, 0), (B, A)),
 ("add_none", lambda x, y: lax.add(x, y), (None, 0), (C, A)),
 ("add_scalar", lambda x, y: lax.add(x, y), (0, None), (A, np.float32(2))),
 ("add_bscalar", lambda x, y: lax.add(x, y), (0, 0), (S, A)),
 ("add_bscalar2", lambda x, y: lax.add(x, y), (0, 1), (S, B)),
 ("add_pyscalar", lambda x: lax.add(x, 2.0), (1,), (B,)),
 ("lt", lambda x, y: lax.lt(x, y), (0, None), (A, C)),
 ("select_same", lambda p, x, y: lax.select(p, x, y), (0, 0, 0), (P, A, A)),
 ("select_pnone", lambda p, x, y: lax.select(p, x, y), (None, 0, 0), (P[0], A, A)),
 ("select_pnone_diff", lambda p, x, y: lax.select(p, x, y), (None, 0, 1), (P[0], A, B)),
 ("select_xnone", lambda p, x, y: lax.select(p, x, y), (0, None, 0), (P, C, A)),
 ("select_scalar_p", lambda p, x, y: lax.select(p, x, y), (0, 0, 0), (P[:, 0], A, A)),
 ("select_scalar_p_none", lambda p, x, y: lax.select(p, x, y), (None, 0, None), (P[0, 0], A, C)),
 ("select_scalar_p_b", lambda p, x, y: lax.select(p, x, y), (0, None, None), (P[:, 0], C, C)),
 ("clamp_same", lambda a, x, b: lax.clamp(a, x, b), (0, 0, 0), (A, A, A)),
 ("clamp_scalars", lambda x: lax.clamp(-0.5, x, 0.5), (1,), (B,)),
 ("clamp_bsc", lambda a, x, b: lax.clamp(a, x, b), (0, 0, 0), (S, A, S)),
 ("clamp_mixed", lambda a, x, b: lax.clamp(a, x, b), (None, 1, 0), (C, B, A)),
 ("clamp_xnone", lambda a, x, b: lax.clamp(a, x, b), (0, None, 0), (S, np.float32(0.1), S)),
 ("bid", lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), (0,), (A,)),
 ("bid1", lambda x: lax.broadcast_in_dim(x, (3, 2, 4), (0, 1)), (1,), (np.ones((3, 5, 2), np.float32),)),
 ("reshape", lambda x: lax.reshape(x, (3, 1)), (1,), (B,)),
 ("reshape_jnp", lambda x: x.reshape(-1), (2,), (M.transpose(1, 2, 0),)),
 ("transpose", lambda x: lax.transpose(x, (1, 0)), (1,), (M.transpose(1, 0, 2),)),
 ("squeeze", lambda x: lax.squeeze(x, (1,)), (2,), (np.ones((3, 1, 5), np.float32),)),
 ("rev", lambda x: lax.rev(x, (0, 1)), (1,), (M.transpose(1, 0, 2),)),
 ("slice", lambda x: lax.slice(x, (1,), (3,)), (1,), (B,)),
 ("slice_s", lambda x: lax.slice(x, (0, 1), (3, 4), (2, 2)), (0,), (M,)),
 ("concat", lambda x, y: lax.concatenate([x, y], 0), (0, 1), (A, B)),
 ("concat_none", lambda x, y: lax.concatenate([x, y], 0), (0, None), (A, C)),
 ("stack", lambda x, y: jnp.stack([x, y]), (0, None), (A, C)),
 ("stack1", lambda x, y: jnp.stack([x, y], 1), (1, 0), (B, A)),
 ("pad", lambda x: lax.pad(x, 0.0, [(1, 2, 1)]), (1,), (B,)),
 ("pad_v", lambda x, v: lax.pad(x, v, [(1, 2, 0)]), (0, 0), (A, S)),
 ("pad_v_none", lambda x, v: lax.pad(x, v, [(1, 2, 0)]), (None, 0), (C, S)),
 ("dot_vv", lambda x, y: jnp.dot(x, y), (0, 0), (A, A)),
 ("dot_vv_none", lambda x, y: jnp.dot(x, y), (0, None), (A, C)),
 ("dot_mm_l1", lambda x, y: x @ y, (1, None), (M.transpose(1, 0, 2), N)),
 ("dot_mm_l2", lambda x, y: x @ y, (2, None), (M.transpose(1, 2, 0), N)),
 ("dot_mm_r1", lambda x, y: x @ y, (None, 2), (r(3, 4), r(4, 2, 5))),
 ("dot_mm_r0", lambda x, y: x @ y, (None, 1), (r(3, 4), r(4, 5, 2))),
 ("dot_batched", lambda x, y: jnp.einsum if False else lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), (1, 0), (r(2, 5, 3, 4), r(5, 2, 4, 6))),
 ("dot_batched_none", lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), (3, None), (r(2, 3, 4, 5), r(2, 4, 6))),
 ("dot_batched_noner", lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), (None, 2), (r(2, 3, 4), r(2, 4, 5, 6))),
 ("sum0", lambda x: x.sum(0), (1,), (B,)),
 ("sum_all", lambda x: x.sum(), (1,), (M.transpose(1, 0, 2),)),
 ("max1", lambda x: x.max(1), (0,), (M,)),
 ("prod", lambda x: lax.reduce_prod(x, (0,)), (2,), (M.transpose(1,2,0),)),
 ("any", lambda x: jnp.any(x), (1,), (P.T,)),
 ("argmax", lambda x: jnp.argmax(x), (1,), (B,)),
 ("argmin_ax", lambda x: jnp.argmin(x, axis=1), (0,), (M,)),
 ("jit", lambda x, y: jax.jit(lambda a, b: a * b + 1.0)(x, y), (0, None), (A, C)),
 ("nested", lambda x: jax.vmap(lambda y: jnp.sin(y) * 2)(x), (0,), (M,)),
 ("outer", lambda x, y: jax.vmap(lambda b: x * b)(y), (0, None), (S, C)),
 ("const", lambda x: x + np.arange(3, dtype=np.float32), (0,), (A,)),
 ("iota", lambda x: x + lax.iota(np.float32, 3), (0,), (A,)),
 ("real", lambda x: lax.real(x) , (1,), (B.astype(np.complex64),)),
 ("complex", lambda x, y: lax.complex(x, y), (0, None), (A, C)),
 ("where", lambda p, x: jnp.where(p, x, 0.0), (0, 0), (P, A)),
 ("mean", lambda x: jnp.mean(x, axis=0), (1,), (B,)),
 ("outaxes", lambda x: (x, x.sum()), (0,), (A,)),
]

#skip select_scalar_cases
EXPECTED_JAXPRS = {
    'neg0': '{ lambda ; a:f32[5,3]. let b:f32[5,3] = neg a in (b,) }',
    'neg1': '{ lambda ; a:f32[3,5]. let\n    b:f32[3,5] = neg a\n    c:f32[5,3] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'ipow': '{ lambda ; a:f32[3,5]. let\n    b:f32[3,5] = integer_pow[y=3] a\n    c:f32[5,3] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'round': '{ lambda ; a:f32[5,3]. let b:f32[5,3] = round[rounding_method=0] a in (b,) }',
    'cvt': '{ lambda ; a:f32[3,5]. let\n    b:i32[3,5] = convert_element_type[new_dtype=int32 weak_type=False] a\n    c:i32[5,3] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'add_same': '{ lambda ; a:f32[5,3] b:f32[5,3]. let c:f32[5,3] = add a b in (c,) }',
    'add_diff': '{ lambda ; a:f32[5,3] b:f32[3,5]. let\n    c:f32[5,3] = transpose[permutation=(1, 0)] b\n    d:f32[5,3] = add a c\n  in (d,) }',
    'add_diff2': '{ lambda ; a:f32[3,5] b:f32[5,3]. let\n    c:f32[5,3] = transpose[permutation=(1, 0)] a\n    d:f32[5,3] = add c b\n  in (d,) }',
    'add_none': '{ lambda ; a:f32[3] b:f32[5,3]. let\n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] a\n    d:f32[5,3] = add c b\n  in (d,) }',
    'add_scalar': '{ lambda ; a:f32[5,3] b:f32[]. let c:f32[5,3] = add a b in (c,) }',
    'add_bscalar': '{ lambda ; a:f32[5] b:f32[5,3]. let\n    c:f32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    d:f32[5,3] = add c b\n  in (d,) }',
    'add_bscalar2': '{ lambda ; a:f32[5] b:f32[3,5]. let\n    c:f32[5,3] = transpose[permutation=(1, 0)] b\n    d:f32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    e:f32[5,3] = add d c\n  in (e,) }',
    'add_pyscalar': '{ lambda ; a:f32[3,5]. let\n    b:f32[3,5] = add a 2.0:f32[]\n    c:f32[5,3] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'lt': '{ lambda ; a:f32[5,3] b:f32[3]. let\n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    d:bool[5,3] = lt a c\n  in (d,) }',
    'select_same': '{ lambda ; a:bool[5,3] b:f32[5,3] c:f32[5,3]. let\n    d:f32[5,3] = select_n a c b\n  in (d,) }',
    'select_pnone': '{ lambda ; a:bool[3] b:f32[5,3] c:f32[5,3]. let\n    d:bool[5,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] a\n    e:f32[5,3] = select_n d c b\n  in (e,) }',
    'select_pnone_diff': '{ lambda ; a:bool[3] b:f32[5,3] c:f32[3,5]. let\n    d:bool[5,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] a\n    e:f32[5,3] = transpose[permutation=(1, 0)] c\n    f:f32[5,3] = select_n d e b\n  in (f,) }',
    'select_xnone': '{ lambda ; a:bool[5,3] b:f32[3] c:f32[5,3]. let\n    d:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    e:f32[5,3] = select_n a c d\n  in (e,) }',
    'select_scalar_p': '{ lambda ; a:bool[5] b:f32[5,3] c:f32[5,3]. let\n    d:bool[5,3] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    e:f32[5,3] = select_n d c b\n  in (e,) }',
    'select_scalar_p_none': '{ lambda ; a:bool[] b:f32[5,3] c:f32[3]. let\n    d:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] c\n    e:f32[5,3] = select_n a d b\n  in (e,) }',
    'select_scalar_p_b': '{ lambda ; a:bool[5] b:f32[3] c:f32[3]. let\n    d:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] c\n    e:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    f:bool[5,3] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    g:f32[5,3] = select_n f d e\n  in (g,) }',
    'clamp_same': '{ lambda ; a:f32[5,3] b:f32[5,3] c:f32[5,3]. let\n    d:f32[5,3] = clamp a b c\n  in (d,) }',
    'clamp_scalars': '{ lambda ; a:f32[3,5]. let\n    b:f32[3,5] = clamp -0.5:f32[] a 0.5:f32[]\n    c:f32[5,3] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'clamp_bsc': '{ lambda ; a:f32[5] b:f32[5,3] c:f32[5]. let\n    d:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    e:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(0,)] c\n    f:f32[5,3] = clamp d b e\n  in (f,) }',
    'clamp_mixed': '{ lambda ; a:f32[3] b:f32[3,5] c:f32[5,3]. let\n    d:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] a\n    e:f32[5,3] = transpose[permutation=(1, 0)] b\n    f:f32[5,3] = clamp d e c\n  in (f,) }',
    'clamp_xnone': '{ lambda ; a:f32[5] b:f32[] c:f32[5]. let\n    d:f32[5] = broadcast_in_dim b\n    e:f32[5] = clamp a d c\n  in (e,) }',
    'bid': '{ lambda ; a:f32[5,3]. let\n    b:f32[5,2,3] = broadcast_in_dim[broadcast_dimensions=(0, np.int64(2))] a\n  in (b,) }',
    'bid1': '{ lambda ; a:f32[3,5,2]. let\n    b:f32[5,3,2] = transpose[permutation=(1, 0, 2)] a\n    c:f32[5,3,2,4] = broadcast_in_dim[\n      broadcast_dimensions=(0, np.int64(1), np.int64(2))\n    ] b\n  in (c,) }',
    'reshape': '{ lambda ; a:f32[3,5]. let\n    b:f32[5,3] = transpose[permutation=(1, 0)] a\n    c:f32[5,3,1] = reshape[dimensions=None new_sizes=(5, 3, 1) sharding=None] b\n  in (c,) }',
    'reshape_jnp': '{ lambda ; a:f32[3,4,5]. let\n    b:f32[5,3,4] = transpose[permutation=(2, 0, 1)] a\n    c:f32[5,12] = reshape[dimensions=None new_sizes=(5, 12) sharding=None] b\n  in (c,) }',
    'transpose': '{ lambda ; a:f32[3,5,4]. let\n    b:f32[5,4,3] = transpose[permutation=(1, 2, 0)] a\n  in (b,) }',
    'squeeze': '{ lambda ; a:f32[3,1,5]. let\n    b:f32[5,3,1] = transpose[permutation=(2, 0, 1)] a\n    c:f32[5,3] = squeeze[dimensions=(2,)] b\n  in (c,) }',
    'rev': '{ lambda ; a:f32[3,5,4]. let\n    b:f32[3,5,4] = rev[dimensions=(0, 2)] a\n    c:f32[5,3,4] = transpose[permutation=(1, 0, 2)] b\n  in (c,) }',
    'slice': '{ lambda ; a:f32[3,5]. let\n    b:f32[2,5] = slice[limit_indices=(3, 5) start_indices=(1, 0) strides=None] a\n    c:f32[5,2] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'slice_s': '{ lambda ; a:f32[5,3,4]. let\n    b:f32[5,2,2] = slice[\n      limit_indices=(5, 3, 4)\n      start_indices=(0, 0, 1)\n      strides=(1, 2, 2)\n    ] a\n  in (b,) }',
    'concat': '{ lambda ; a:f32[5,3] b:f32[3,5]. let\n    c:f32[5,3] = transpose[permutation=(1, 0)] b\n    d:f32[5,6] = concatenate[dimension=1] a c\n  in (d,) }',
    'concat_none': '{ lambda ; a:f32[5,3] b:f32[3]. let\n    c:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n    d:f32[5,6] = concatenate[dimension=1] a c\n  in (d,) }',
    'stack': '{ lambda ; a:f32[5,3] b:f32[3]. let\n    c:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n    d:f32[5,2,3] = stack[axis=1] a c\n  in (d,) }',
    'stack1': '{ lambda ; a:f32[3,5] b:f32[5,3]. let\n    c:f32[5,3] = transpose[permutation=(1, 0)] a\n    d:f32[5,3,2] = stack[axis=2] c b\n  in (d,) }',
    'pad': '{ lambda ; a:f32[3,5]. let\n    b:f32[8,5] = pad[padding_config=((1, 2, 1), (0, 0, 0))] a 0.0:f32[]\n    c:f32[5,8] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'pad_v': '{ lambda ; a:f32[5,3] b:f32[5]. let\n    c:f32[5,6] = pad[padding_config=((0, 0, 0), (1, 2, 0))] a 0.0:f32[]\n    d:bool[5,3] = broadcast_in_dim True:bool[]\n    e:bool[5,6] = pad[padding_config=((0, 0, 0), (1, 2, 0))] d False:bool[]\n    f:f32[5,6] = broadcast_in_dim[broadcast_dimensions=(0,)] b\n    g:f32[5,6] = select_n e f c\n  in (g,) }',
    'pad_v_none': '{ lambda ; a:f32[3] b:f32[5]. let\n    c:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n    d:f32[5,6] = pad[padding_config=((0, 0, 0), (1, 2, 0))] c 0.0:f32[]\n    e:bool[5,3] = broadcast_in_dim True:bool[]\n    f:bool[5,6] = pad[padding_config=((0, 0, 0), (1, 2, 0))] e False:bool[]\n    g:f32[5,6] = broadcast_in_dim[broadcast_dimensions=(0,)] b\n    h:f32[5,6] = select_n f g d\n  in (h,) }',
    'dot_vv': '{ lambda ; a:f32[5,3] b:f32[5,3]. let\n    c:f32[5] = dot_general[\n      dimension_numbers=(([1], [1]), ([0], [0]))\n      preferred_element_type=float32\n    ] a b\n  in (c,) }',
    'dot_vv_none': '{ lambda ; a:f32[5,3] b:f32[3]. let\n    c:f32[5] = dot_general[\n      dimension_numbers=(([1], [0]), ([], []))\n      preferred_element_type=float32\n    ] a b\n  in (c,) }',
    'dot_mm_l1': '{ lambda ; a:f32[3,5,4] b:f32[4,2]. let\n    c:f32[3,5,2] = dot_general[\n      dimension_numbers=(([2], [0]), ([], []))\n      preferred_element_type=float32\n    ] a b\n    d:f32[5,3,2] = transpose[permutation=(1, 0, 2)] c\n  in (d,) }',
    'dot_mm_l2': '{ lambda ; a:f32[3,4,5] b:f32[4,2]. let\n    c:f32[3,5,2] = dot_general[\n      dimension_numbers=(([1], [0]), ([], []))\n      preferred_element_type=float32\n    ] a b\n    d:f32[5,3,2] = transpose[permutation=(1, 0, 2)] c\n  in (d,) }',
    'dot_mm_r1': '{ lambda ; a:f32[3,4] b:f32[4,2,5]. let\n    c:f32[3,2,5] = dot_general[\n      dimension_numbers=(([1], [0]), ([], []))\n      preferred_element_type=float32\n    ] a b\n    d:f32[5,3,2] = transpose[permutation=(2, 0, 1)] c\n  in (d,) }',
    'dot_mm_r0': '{ lambda ; a:f32[3,4] b:f32[4,5,2]. let\n    c:f32[3,5,2] = dot_general[\n      dimension_numbers=(([1], [0]), ([], []))\n      preferred_element_type=float32\n    ] a b\n    d:f32[5,3,2] = transpose[permutation=(1, 0, 2)] c\n  in (d,) }',
    'dot_batched': '{ lambda ; a:f32[2,5,3,4] b:f32[5,2,4,6]. let\n    c:f32[5,2,3,6] = dot_general[\n      dimension_numbers=(([3], [2]), ([1, 0], [0, 1]))\n    ] a b\n  in (c,) }',
    'dot_batched_none': '{ lambda ; a:f32[2,3,4,5] b:f32[2,4,6]. let\n    c:f32[2,3,5,6] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b\n    d:f32[5,2,3,6] = transpose[permutation=(2, 0, 1, 3)] c\n  in (d,) }',
    'dot_batched_noner': '{ lambda ; a:f32[2,3,4] b:f32[2,4,5,6]. let\n    c:f32[2,3,5,6] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b\n    d:f32[5,2,3,6] = transpose[permutation=(2, 0, 1, 3)] c\n  in (d,) }',
    'sum0': '{ lambda ; a:f32[3,5]. let\n    b:f32[5] = reduce_sum[axes=(np.int64(0),) out_sharding=None] a\n  in (b,) }',
    'sum_all': '{ lambda ; a:f32[3,5,4]. let\n    b:f32[5] = reduce_sum[axes=(np.int64(0), np.int64(2)) out_sharding=None] a\n  in (b,) }',
    'max1': '{ lambda ; a:f32[5,3,4]. let\n    b:f32[5,3] = reduce_max[axes=(np.int64(2),)] a\n  in (b,) }',
    'prod': '{ lambda ; a:f32[3,4,5]. let\n    b:f32[4,5] = reduce_prod[axes=(np.int64(0),)] a\n    c:f32[5,4] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'any': '{ lambda ; a:bool[3,5]. let\n    b:bool[5] = reduce_or[axes=(np.int64(0),)] a\n  in (b,) }',
    'argmax': '{ lambda ; a:f32[3,5]. let\n    b:i32[5] = argmax[axes=(np.int64(0),) index_dtype=int32] a\n  in (b,) }',
    'argmin_ax': '{ lambda ; a:f32[5,3,4]. let\n    b:i32[5,3] = argmin[axes=(np.int64(2),) index_dtype=int32] a\n  in (b,) }',
    'jit': '{ lambda ; a:f32[5,3] b:f32[3]. let\n    c:f32[5,3] = jit[\n      name=<lambda>\n      jaxpr={ lambda ; a:f32[5,3] b:f32[3]. let\n          d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n          e:f32[5,3] = mul a d\n          c:f32[5,3] = add e 1.0:f32[]\n        in (c,) }\n    ] a b\n  in (c,) }',
    'nested': '{ lambda ; a:f32[5,3,4]. let\n    b:f32[5,3,4] = sin a\n    c:f32[5,3,4] = mul b 2.0:f32[]\n  in (c,) }',
    'outer': '{ lambda ; a:f32[5] b:f32[3]. let\n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    d:f32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    e:f32[5,3] = mul d c\n  in (e,) }',
    'const': '{ lambda a:f32[3]; b:f32[5,3]. let\n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] a\n    d:f32[5,3] = add b c\n  in (d,) }',
    'iota': '{ lambda ; a:f32[5,3]. let\n    b:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None] \n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    d:f32[5,3] = add a c\n  in (d,) }',
    'real': '{ lambda ; a:c64[3,5]. let\n    b:f32[3,5] = real a\n    c:f32[5,3] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'complex': '{ lambda ; a:f32[5,3] b:f32[3]. let\n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    d:c64[5,3] = complex a c\n  in (d,) }',
    'where': '{ lambda ; a:bool[5,3] b:f32[5,3]. let\n    c:f32[5,3] = jit[\n      name=_where\n      jaxpr={ lambda ; a:bool[5,3] b:f32[5,3] d:f32[]. let\n          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n          f:f32[3] = broadcast_in_dim e\n          g:f32[5,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] f\n          c:f32[5,3] = select_n a g b\n        in (c,) }\n    ] a b 0.0:f32[]\n  in (c,) }',
    'mean': '{ lambda ; a:f32[3,5]. let\n    b:f32[5] = reduce_sum[axes=(np.int64(0),) out_sharding=None] a\n    c:f32[5] = div b 3.0:f32[]\n  in (c,) }',
    'outaxes': '{ lambda ; a:f32[5,3]. let\n    b:f32[5] = reduce_sum[axes=(np.int64(1),) out_sharding=None] a\n  in (a, b) }',
}


def _take(x, d, i):
    return x if d is None else np.take(np.asarray(x), i, axis=d)


def _loop(f, in_axes, args):
    """The reference: ``f`` applied to each example, results stacked on axis 0."""
    size = next(np.shape(x)[d] for x, d in zip(args, in_axes) if d is not None)
    outs = [f(*[_take(x, d, i) for x, d in zip(args, in_axes)]) for i in range(size)]
    return jax.tree_util.tree_map(lambda *o: np.stack([np.asarray(v) for v in o]), *outs)


@pytest.mark.parametrize("name,f,in_axes,args", CASES, ids=[c[0] for c in CASES])
def test_jaxpr_text_matches_jax(name, f, in_axes, args):
    assert str(jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*args)) == EXPECTED_JAXPRS[name]


@pytest.mark.parametrize("name,f,in_axes,args", CASES, ids=[c[0] for c in CASES])
def test_values_match_loop(name, f, in_axes, args):
    got = jax.vmap(f, in_axes=in_axes)(*args)
    want = _loop(f, in_axes, args)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_values_against_numpy():
    x, y = r(7, 3, 4), r(7, 4, 2)
    np.testing.assert_allclose(jax.vmap(jnp.dot)(x, y), np.einsum("bij,bjk->bik", x, y),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jax.vmap(jnp.dot, in_axes=(0, None))(x, y[0]), x @ y[0],
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jax.vmap(lambda v: v.sum(), in_axes=1)(x), x.sum((0, 2)),
                               rtol=1e-5)
    np.testing.assert_allclose(jax.vmap(jnp.sin, in_axes=2, out_axes=1)(x),
                               np.sin(x).transpose(0, 2, 1), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(lambda a, b: a + b, in_axes=(0, None))(A, C), A + C)


def test_jitted_batched_matmul_is_one_dot_general():
    x, y = r(8, 16, 32), r(8, 32, 4)
    f = jax.jit(jax.vmap(lambda a, b: a @ b))
    np.testing.assert_allclose(f(x, y), np.matmul(x, y), rtol=1e-4, atol=1e-4)
    eqns = jax.make_jaxpr(jax.vmap(lambda a, b: a @ b))(x, y).eqns
    assert [e.primitive.name for e in eqns] == ["dot_general"]


# -- in_axes / out_axes / axis_size


def test_pytree_in_axes_and_out_axes():
    d = {"a": A, "b": B}
    out = jax.vmap(lambda t: t["a"] + t["b"], in_axes=({"a": 0, "b": 1},))(d)
    np.testing.assert_allclose(out, A + B.T)
    out = jax.vmap(lambda x: {"p": x, "q": x.sum()}, out_axes={"p": 1, "q": 0})(A)
    np.testing.assert_allclose(out["p"], A.T)
    np.testing.assert_allclose(out["q"], A.sum(1), rtol=1e-6)
    out = jax.vmap(lambda t: t[0] * 2.0, in_axes=((0, None),))((A, C))
    np.testing.assert_allclose(out, A * 2)
    assert jax.vmap(lambda x: (x, None))(A)[1] is None


def test_negative_axes_list_in_axes_kwargs():
    np.testing.assert_allclose(jax.vmap(lambda x: x, in_axes=-1)(A), A.T)
    np.testing.assert_allclose(jax.vmap(lambda x: x * 2, out_axes=-1)(A), (A * 2).T)
    np.testing.assert_allclose(jax.vmap(lambda x, y: x - y, in_axes=[0, 1])(A, B), A - B.T)
    np.testing.assert_allclose(jax.vmap(lambda x, y: x * y)(A, y=A), A * A)


def test_unbatched_outputs():
    out = jax.vmap(lambda x, y: y, in_axes=(0, None))(A, C)
    np.testing.assert_allclose(out, np.broadcast_to(C, (5, 3)))
    out = jax.vmap(lambda x, y: y, in_axes=(0, None), out_axes=None)(A, C)
    np.testing.assert_allclose(out, C)
    out = jax.vmap(lambda x: [x, 2.0], out_axes=[0, None])(A)
    assert out[1] == 2.0
    out = jax.vmap(lambda x: 1.0, axis_size=3, in_axes=None)(A)
    assert out.shape == (3,) and out.dtype == np.float32
    assert out.weak_type
    np.testing.assert_allclose(jax.vmap(lambda: 1.0, axis_size=2)(), [1.0, 1.0])
    out = jax.vmap(lambda x: x.sum(), in_axes=None, axis_size=4)(A)
    np.testing.assert_allclose(out, np.full(4, A.sum()), rtol=1e-6)


def test_weak_type_and_dtype_preserved():
    out = jax.vmap(lambda x: x + 1)(jnp.arange(3.0))
    assert out.dtype == np.float32 and not out.weak_type
    out = jax.vmap(lambda x: x * 2)(jnp.arange(3))
    assert out.dtype == np.int32


def test_nested_vmap_and_jit():
    x = r(4, 5, 3)
    f = jax.vmap(jax.vmap(lambda v: jnp.sum(v * v)))
    np.testing.assert_allclose(f(x), (x * x).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(jax.jit(f)(x), (x * x).sum(-1), rtol=1e-5)
    g = jax.vmap(jax.vmap(lambda a, b: a * b, in_axes=(0, None)), in_axes=(None, 0))
    np.testing.assert_allclose(g(S, C), C[:, None] * S[None, :], rtol=1e-6)
    h = jax.vmap(jax.jit(lambda a: jnp.cos(a) + a.sum()))
    np.testing.assert_allclose(h(A), np.cos(A) + A.sum(1, keepdims=True), rtol=1e-5)


def test_closure_over_outer_tracer():
    def f(x):
        return jax.vmap(lambda y: x * y)(C)
    np.testing.assert_allclose(jax.vmap(f)(S), S[:, None] * C[None, :], rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(S), S[:, None] * C[None, :], rtol=1e-6)


def test_vmap_of_jit_prints_batched_jit_eqn():
    text = str(jax.make_jaxpr(jax.vmap(jax.jit(lambda x, y: x * y), in_axes=(0, None)))(A, C))
    assert text == (
        "{ lambda ; a:f32[5,3] b:f32[3]. let\n"
        "    c:f32[5,3] = jit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; a:f32[5,3] b:f32[3]. let\n"
        "          d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n"
        "          c:f32[5,3] = mul a d\n"
        "        in (c,) }\n"
        "    ] a b\n"
        "  in (c,) }")


def test_out_axes_jaxpr():
    text = str(jax.make_jaxpr(jax.vmap(lambda x: x.sum(0), in_axes=1, out_axes=1))(M))
    assert text == ("{ lambda ; a:f32[5,3,4]. let\n"
                    "    b:f32[3,4] = reduce_sum[axes=(np.int64(0),) out_sharding=None] a\n"
                    "    c:f32[4,3] = transpose[permutation=(1, 0)] b\n"
                    "  in (c,) }")


def test_dynamic_slice_with_unbatched_index():
    f = lambda x, i: lax.dynamic_slice(x, (i,), (2,))
    np.testing.assert_allclose(jax.vmap(f, in_axes=(0, None))(A, 1), A[:, 1:3])
    np.testing.assert_allclose(jax.vmap(f, in_axes=(1, None))(A, 2), A.T[:, 2:4])
    g = lambda x, u, i: lax.dynamic_update_slice(x, u, (i,))
    u = np.full(1, 9.0, np.float32)
    want = A.copy()
    want[:, 2] = 9.0
    np.testing.assert_allclose(jax.vmap(g, in_axes=(0, None, None))(A, u, 2), want)
    want = np.tile(A[0], (5, 1))
    want[:, 1] = np.arange(5)
    out = jax.vmap(g, in_axes=(None, 0, None))(A[0], np.arange(5, dtype=np.float32)[:, None], 1)
    np.testing.assert_allclose(out, want)


def test_batch_jaxpr_for_rules_with_subjaxprs():
    closed = jax.make_jaxpr(lambda x, y: (jnp.sin(x) * y, y + 1.0))(C, np.float32(2))
    axis = batching.AxisData(None, 5)
    batched, out_batched = batching.batch_jaxpr(closed, axis, [True, False], False)
    assert out_batched == [True, False]
    assert [str(a) for a in batched.in_avals] == ["float32[5,3]", "float32[]"]
    outs = core.eval_jaxpr(batched.jaxpr, batched.consts, A, np.float32(2))
    np.testing.assert_allclose(outs[0], np.sin(A) * 2, rtol=1e-6)
    batched, out_batched = batching.batch_jaxpr(closed, axis, [True, False], True)
    assert out_batched == [True, True] and batched.out_avals[1].shape == (5,)
    batched, out_dims = batching.batch_jaxpr2(closed, axis, [1, None])
    assert out_dims == [1, None]
    outs = core.eval_jaxpr(batched.jaxpr, batched.consts, B, np.float32(3))
    np.testing.assert_allclose(outs[0], np.sin(B) * 3, rtol=1e-6)


# -- errors, as JAX 0.10.2 words them

x5 = np.ones((5, 3), np.float32)
y4 = np.ones((4,), np.float32)


def _f(x, y):
    return x


def _g(a, b=1, *rest, c=2, **kw):
    return a


ERRORS = [
    (lambda: jax.vmap(_f)(x5, y4), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * one axis had size 5: axis 0 of argument x of type float32[5,3];\n  * one axis had size 4: axis 0 of argument y of type float32[4]"),
    (lambda: jax.vmap(lambda a, b, c: a)(x5, y4, np.ones((5, 2))), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * most axes (2 of them) had size 5, e.g. axis 0 of argument a of type float32[5,3];\n  * one axis had size 4: axis 0 of argument b of type float32[4]"),
    (lambda: jax.vmap(lambda d: d["a"])({"a": x5, "b": y4}), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * one axis had size 5: axis 0 of argument d['a'] of type float32[5,3];\n  * one axis had size 4: axis 0 of argument d['b'] of type float32[4]"),
    (lambda: jax.vmap(_f)(x5, y=y4), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * one axis had size 5: axis 0 of argument x of type float32[5,3];\n  * one axis had size 4: axis 0 of kwargs['y'] of type float32[4]"),
    (lambda: jax.vmap(lambda *a: a[0])(x5, x5, y4), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * most axes (2 of them) had size 5, e.g. axis 0 of argument a of type float32[5,3];\n  * one axis had size 4: axis 0 of args[2] of type float32[4]"),
    (lambda: jax.vmap(_g)(x5, y4, x5, y4), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * most axes (2 of them) had size 5, e.g. axis 0 of argument a of type float32[5,3];\n  * some axes (2 of them) had size 4, e.g. axis 0 of argument b of type float32[4]"),
    (lambda: jax.vmap(_g)(x5, x5, x5, y4), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * most axes (3 of them) had size 5, e.g. axis 0 of argument a of type float32[5,3];\n  * one axis had size 4: axis 0 of argument c of type float32[4]"),
    (lambda: jax.vmap(lambda a: a)(x5, y4), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * one axis had size 5: axis 0 of args[0] of type float32[5,3];\n  * one axis had size 4: axis 0 of args[1] of type float32[4]"),
    (lambda: jax.vmap(lambda a, b, c: a)(x5, y4, np.ones(3)), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * one axis had size 5: axis 0 of argument a of type float32[5,3];\n  * one axis had size 4: axis 0 of argument b of type float32[4];\n  * one axis had size 3: axis 0 of argument c of type float32[3]"),
    (lambda: jax.vmap(lambda a, b: a, in_axes=((0, 1), 0))((x5, x5), y4), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * one axis had size 5: axis 0 of argument a[0] of type float32[5,3];\n  * one axis had size 3: axis 1 of argument a[1] of type float32[5,3];\n  * one axis had size 4: axis 0 of argument b of type float32[4]"),
    (lambda: jax.vmap(_f, axis_size=3)(x5, x5), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n  * the `axis_size` argument was 3;\n  * most axes (2 of them) had size 5, e.g. axis 0 of argument x of type float32[5,3]"),
    (lambda: jax.vmap(_f, in_axes=1.0), TypeError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got 1.0."),
    (lambda: jax.vmap(_f, in_axes={"a": 0}), TypeError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got {'a': 0}."),
    (lambda: jax.vmap(_f, in_axes=np.int64(0)), TypeError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got 0."),
    (lambda: jax.vmap(_f, in_axes=(0, "a")), TypeError,
     "vmap in_axes must be an int, None, or (nested) container with those types as leaves, but got (0, 'a')."),
    (lambda: jax.vmap(_f, out_axes=1.0), TypeError,
     "vmap out_axes must be an int, None, or (nested) container with those types as leaves, but got 1.0."),
    (lambda: jax.vmap(3), TypeError, "Expected a callable value, got 3"),
    (lambda: jax.vmap(_f, in_axes=(0, 0, 0))(x5, x5), ValueError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=3, len(args)=2"),
    (lambda: jax.vmap(_f, in_axes=(0, None))(x5, y=y4), ValueError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=2, len(args)=1"),
    (lambda: jax.vmap(_f, in_axes=(2, 0))(x5, x5), ValueError,
     "vmap was requested to map its argument along axis 2, which implies that its rank should be at least 3, but is only 2 (its shape is (5, 3))"),
    (lambda: jax.vmap(_f, in_axes=(-3, 0))(x5, x5), ValueError,
     "vmap was requested to map its argument along axis -3, which implies that its rank should be at least 3, but is only 2 (its shape is (5, 3))"),
    (lambda: jax.vmap(_f)(1.0, x5), ValueError,
     "vmap was requested to map its argument along axis 0, which implies that its rank should be at least 1, but is only 0 (its shape is ())"),
    (lambda: jax.vmap(_f, out_axes=None)(x5, x5), ValueError,
     "at vmap out_axes, got axis spec None but output was batched on axis 0"),
    (lambda: jax.vmap(lambda a: (a, a), out_axes=(0, None))(x5), ValueError,
     "at vmap out_axes[1], got axis spec None but output was batched on axis 0"),
    (lambda: jax.vmap(lambda a: {"p": a, "q": a}, out_axes={"p": 1, "q": None})(x5), ValueError,
     "at vmap out_axes['q'], got axis spec None but output was batched on axis 0"),
    (lambda: jax.vmap(lambda a: a, out_axes=None, axis_name="i")(x5), ValueError,
     "vmap has mapped output (axis_name=i) but out_axes is None"),
    (lambda: jax.vmap(_f, in_axes=None)(x5, x5), ValueError,
     "vmap must have at least one non-None value in in_axes or axis_size must be specified"),
    (lambda: jax.vmap(lambda: 1.0)(), ValueError,
     "vmap wrapped function must be passed at least one argument containing an array or axis_size must be specified, got empty *args=() and **kwargs={}"),
    (lambda: jax.vmap(_f, out_axes=3)(x5, x5), ValueError,
     "axis 3 is out of bounds for array of dimension 2"),
    (lambda: jax.vmap(lambda a: 2.0, out_axes=2)(x5), ValueError,
     "axis 2 is out of bounds for array of dimension 1"),
    (lambda: jax.vmap(lambda x: "a")(x5), TypeError,
     "Output from batched function 'a' with type <class 'str'> is not a valid JAX type"),
    (lambda: jax.vmap(_f)("a", x5), TypeError,
     "Argument 'a' of type <class 'str'> is not a valid JAX type"),
    (lambda: jax.vmap(lambda x, y: (x, y), out_axes=(0, 0, 0))(x5, x5), ValueError,
     "vmap out_axes specification must be a tree prefix of the corresponding value; \n  Mismatch details (1 found):\n  pytree structure error: different lengths of tuple at key path\n    vmap out_axes\nAt that key path, the prefix pytree vmap out_axes has a subtree of type tuple of length 3, but the full pytree has a subtree of the same type but of length 2."),
    (lambda: jax.vmap(lambda d: d["a"], in_axes=({"a": 0, "c": 0},))({"a": x5, "b": x5}), ValueError,
     "vmap in_axes specification must be a tree prefix of the corresponding value; \n  Mismatch details (1 found):\n  pytree structure error: different pytree metadata at key path\n    vmap in_axes[0]\nAt that key path, the prefix pytree vmap in_axes has a subtree of type\n    <class 'dict'>\nwith metadata\n    ('a', 'c')\nbut at the same key path the full pytree has a subtree of the same type but with metadata\n    ('a', 'b')\nso the diff in the metadata at these pytree nodes is\n    - ('a', 'c')\n    ?        ^\n\n    + ('a', 'b')\n    ?        ^\n"),
    (lambda: jax.vmap(lambda a, b: a, in_axes=((0, 0), [0]))((x5,), (x5, x5)), ValueError,
     "vmap in_axes specification must be a tree prefix of the corresponding value; \n  Mismatch details (2 found):\n  pytree structure error: different lengths of tuple at key path\n    vmap in_axes[0]\nAt that key path, the prefix pytree vmap in_axes has a subtree of type tuple of length 2, but the full pytree has a subtree of the same type but of length 1.\n  pytree structure error: different types at key path\n    vmap in_axes[1]\nAt that key path, the prefix pytree vmap in_axes has a subtree of type\n    <class 'list'>\nbut at the same key path the full pytree has a subtree of different type\n    <class 'tuple'>."),
    (lambda: jax.vmap(lambda a: a, in_axes=((0, 0),))(x5), ValueError,
     "vmap in_axes specification must be a tree prefix of the corresponding value; \n  Mismatch details (1 found):\n  pytree structure error: different types at key path\n    vmap in_axes[0]\nAt that key path, the prefix pytree vmap in_axes has a subtree of type\n    <class 'tuple'>\nbut at the same key path the full pytree has a subtree of different type\n    <class 'jax._src.api_util.PytreeLeaf'>."),
    (lambda: jax.vmap(lambda a: (a, a), out_axes=(None, (0,)))(x5), ValueError,
     "vmap out_axes specification must be a tree prefix of the corresponding value; \n  Mismatch details (2 found):\n  pytree structure error: different types at key path\n    vmap out_axes[0]\nAt that key path, the prefix pytree vmap out_axes has a subtree of type\n    <class 'NoneType'>\nbut at the same key path the full pytree has a subtree of different type\n    <class 'jax._src.api_util.PytreeLeaf'>.\n  pytree structure error: different types at key path\n    vmap out_axes[1]\nAt that key path, the prefix pytree vmap out_axes has a subtree of type\n    <class 'tuple'>\nbut at the same key path the full pytree has a subtree of different type\n    <class 'jax._src.api_util.PytreeLeaf'>."),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_error_messages(i):
    fn, cls, msg = ERRORS[i]
    with pytest.raises(cls) as e:
        fn()
    assert type(e.value) is cls
    assert str(e.value) == msg


def test_tracer_repr_and_concretization_origin():
    seen = []
    jax.vmap(lambda x: seen.append(repr(x)) or x)(x5)
    assert seen == ["VmapTracer(aval=float32[3], batched=float32[5,3])"]
    with pytest.raises(jax.errors.TracerBoolConversionError) as e:
        jax.vmap(lambda x: bool(x[0] > 0))(x5)
    assert re.fullmatch(
        r"Attempted boolean conversion of traced array with shape bool\[\]\.\n"
        r"This BatchTracer with object id \d+ was created on line:\n"
        r"  .*test_vmap\.py:\d+:\d+ \(test_tracer_repr_and_concretization_origin\.<locals>\.<lambda>\)\n"
        r"See https://docs\.jax\.dev/en/latest/errors\.html#jax\.errors\.TracerBoolConversionError",
        str(e.value))


def test_missing_rule_is_a_clear_error():
    p = core.Primitive("no_such_batching")
    core.abstract_eval_rules[p] = lambda x: x
    with pytest.raises(NotImplementedError, match="Batching rule for 'no_such_batching' not implemented"):
        jax.vmap(lambda x: p.bind(x))(x5)
