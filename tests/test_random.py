"""xjit.random against JAX 0.10.2: bits of every sampler (as hex of the raw
bytes, recorded from the oracle for several keys, shapes and dtypes, in 32-
and 64-bit modes), printed jaxprs, key reprs and error messages."""
import warnings

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

R = jax.random

CASES = [
    ("PRNGKey(0)", "R.PRNGKey(0)"),
    ("PRNGKey(42)", "R.PRNGKey(42)"),
    ("PRNGKey(-1)", "R.PRNGKey(-1)"),
    ("PRNGKey(2**32+5)", "R.PRNGKey(2**32 + 5)"),
    ("key_data(key(7))", "R.key_data(R.key(7))"),
    ("key(uint32 7)", "R.key_data(R.key(np.uint32(7)))"),
    ("split", "R.split(R.PRNGKey(0))"),
    ("split5", "R.split(R.PRNGKey(42), 5)"),
    ("split_typed_2x3", "R.key_data(R.split(R.key(1), (2, 3)))"),
    ("split_index", "R.key_data(R.split(R.key(3), 4)[2])"),
    ("split_reshape_T", "R.key_data(R.split(R.key(3), 4).reshape(2, 2).T)"),
    ("fold_in", "R.fold_in(R.PRNGKey(0), 3)"),
    ("fold_in_big", "R.fold_in(R.PRNGKey(5), 2**32 - 1)"),
    ("fold_in_typed", "R.key_data(R.fold_in(R.key(5), 12345))"),
    ("wrap_key_data", "R.key_data(R.wrap_key_data(jnp.array([1, 2], jnp.uint32)))"),
    ("bits_u8", "R.bits(R.PRNGKey(0), (7,), jnp.uint8)"),
    ("bits_u16", "R.bits(R.PRNGKey(1), (2, 3), jnp.uint16)"),
    ("bits_u32", "R.bits(R.PRNGKey(2), (5,))"),
    ("bits_u64", "R.bits(R.PRNGKey(3), (3,), 'uint64')"),
    ("bits_empty", "R.bits(R.PRNGKey(3), (0, 2))"),
    ("uniform", "R.uniform(R.PRNGKey(0), (5, 3))"),
    ("uniform_scalar", "R.uniform(R.key(0))"),
    ("uniform_f16", "R.uniform(R.PRNGKey(1), (6,), jnp.float16)"),
    ("uniform_bf16", "R.uniform(R.PRNGKey(1), (6,), jnp.bfloat16)"),
    ("uniform_f64", "R.uniform(R.PRNGKey(2), (4,), 'float64')"),
    ("uniform_minmax", "R.uniform(R.PRNGKey(3), (4,), minval=-3, maxval=jnp.array([1., 2., 3., 4.]))"),
    ("normal", "R.normal(R.PRNGKey(0), (7,))"),
    ("normal_typed", "R.normal(R.key(42), (2, 3))"),
    ("normal_f16", "R.normal(R.PRNGKey(4), (5,), jnp.float16)"),
    ("normal_f64", "R.normal(R.PRNGKey(4), (5,), jnp.float64)"),
    ("normal_c64", "R.normal(R.PRNGKey(5), (4,), jnp.complex64)"),
    ("randint", "R.randint(R.PRNGKey(0), (9,), -5, 200)"),
    ("randint_i8", "R.randint(R.PRNGKey(0), (9,), -5, 200, jnp.int8)"),
    ("randint_u8", "R.randint(R.PRNGKey(0), (9,), 0, 256, jnp.uint8)"),
    ("randint_u32", "R.randint(R.PRNGKey(1), (9,), 0, 10, jnp.uint32)"),
    ("randint_big", "R.randint(R.PRNGKey(2), (5,), 0, 2**31 - 1)"),
    ("randint_vec", "R.randint(R.PRNGKey(2), (3,), jnp.array([0, 5, 10]), 20)"),
    ("randint_i64", "R.randint(R.PRNGKey(2), (3,), -100, 100, 'int64')"),
    ("bernoulli", "R.bernoulli(R.PRNGKey(0), 0.3, (10,))"),
    ("bernoulli_p", "R.bernoulli(R.PRNGKey(0), jnp.array([0.1, 0.5, 0.9]))"),
    ("bernoulli_high", "R.bernoulli(R.PRNGKey(1), 0.3, (10,), mode='high')"),
    ("rademacher", "R.rademacher(R.PRNGKey(0), (10,))"),
    ("exponential", "R.exponential(R.PRNGKey(0), (6,))"),
    ("gumbel", "R.gumbel(R.PRNGKey(0), (6,))"),
    ("gumbel_high", "R.gumbel(R.PRNGKey(0), (6,), mode='high')"),
    ("laplace", "R.laplace(R.PRNGKey(0), (6,))"),
    ("logistic", "R.logistic(R.PRNGKey(0), (6,))"),
    ("cauchy", "R.cauchy(R.PRNGKey(0), (6,))"),
    ("cauchy_f16", "R.cauchy(R.PRNGKey(0), (6,), jnp.float16)"),
    ("truncated_normal", "R.truncated_normal(R.PRNGKey(0), -1.5, 2.0, (7,))"),
    ("categorical", "R.categorical(R.PRNGKey(0), jnp.log(jnp.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])), shape=(4, 2))"),
    ("categorical_axis0", "R.categorical(R.PRNGKey(1), jnp.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]), axis=0)"),
    ("jit_normal", "jax.jit(lambda k: R.normal(k, (4,)))(R.PRNGKey(9))"),
    ("jit_split_index", "R.key_data(jax.jit(lambda k: R.split(k)[1])(R.key(9)))"),
    ("jit_key_return", "R.key_data(jax.jit(lambda k: R.split(k, 3))(R.key(9)))"),
    ("jit_keys_slice_normal", "jax.jit(lambda k: R.normal(R.split(k, 4)[2]))(R.key(11))"),
    ("jit_seed", "jax.jit(lambda s: R.PRNGKey(s))(123)"),
    ("choice_int", "R.choice(R.PRNGKey(7), 5, (3, 2))"),
]

EXPECTED = {
    ('choice_int', False): ('int32', (3, 2), '040000000200000000000000020000000200000001000000'),
    ('choice_int', True): ('int64', (3, 2), '020000000000000004000000000000000100000000000000040000000000000001000000000000000200000000000000'),
    ('PRNGKey(0)', False): ('uint32', (2,), '0000000000000000'),
    ('PRNGKey(42)', False): ('uint32', (2,), '000000002a000000'),
    ('PRNGKey(-1)', False): ('uint32', (2,), '00000000ffffffff'),
    ('PRNGKey(2**32+5)', False): ('uint32', (2,), '0000000005000000'),
    ('key_data(key(7))', False): ('uint32', (2,), '0000000007000000'),
    ('key(uint32 7)', False): ('uint32', (2,), '0000000007000000'),
    ('split', False): ('uint32', (2, 2), '5901206bfe4eba998f235f371d15dbcd'),
    ('split5', False): ('uint32', (5, 2), '8f043e6d2d1722102db3d703f483d0adea20fb9213d9380f4669d5ba91a84b35e3ae13b0f6dd4ec3'),
    ('split_typed_2x3', False): ('uint32', (2, 3, 2), '35183f1e8220756e7688297448808dfc11a98c916b1cabe36fe8aed49e5794a4adccd233095f6bd673e751c1cff1464e'),
    ('split_index', False): ('uint32', (2,), '32ce103decc2329b'),
    ('split_reshape_T', False): ('uint32', (2, 2, 2), '9b638adde57e7fcf32ce103decc2329b4b3405748e0e2f841be748342bab8acd'),
    ('fold_in', False): ('uint32', (2,), '8b771293bedfe8e4'),
    ('fold_in_big', False): ('uint32', (2,), '3477babc3f742ae9'),
    ('fold_in_typed', False): ('uint32', (2,), '6c1cfa4b17bc2370'),
    ('wrap_key_data', False): ('uint32', (2,), '0100000002000000'),
    ('bits_u8', False): ('uint8', (7,), 'a7922835b7437d'),
    ('bits_u16', False): ('uint16', (2, 3), 'b7383e087ab5f1bfa493bc16'),
    ('bits_u32', False): ('uint32', (5,), '69e20aa464db8de6e985e33ac935b1e11d3c116b'),
    ('bits_u64', False): ('uint32', (3,), '7e1df512c53a2af0de0c22a6'),
    ('bits_empty', False): ('uint32', (0, 2), ''),
    ('uniform', False): ('float32', (5, 3), '4e9a723f36847a3f1c22aa3e50f5ef3e3ae4113fa079293ed4d19e3ecc81303f182c3f3f701e2f3e26407c3f801dcf3cc8d9233f820c103fe032663f'),
    ('uniform_scalar', False): ('float32', (), '4e9a723f'),
    ('uniform_f16', False): ('float16', (6,), '10330028aa39fe399c38a02d'),
    ('uniform_bf16', False): ('bfloat16', (6,), '363f783ef43e703f243f3c3f'),
    ('uniform_f64', False): ('float32', (4,), 'e20a243fda8d663f108e6b3e34b1613f'),
    ('uniform_minmax', False): ('float32', (4,), 'e40a2dc09169d83f48cc643f05147540'),
    ('normal', False): ('float32', (7,), 'bdb2cf3ff09d01401700debe2202a1bd2c51343ed7da78bfcc97fdbe'),
    ('normal_typed', False): ('float32', (2, 3), '15dfe7bce82bef3e6166973e243b1d3eeb04febd1a215e3e'),
    ('normal_f16', False): ('float16', (5,), 'cb259eb0afb249b7e23c'),
    ('normal_f64', False): ('float32', (5,), 'abbf963f180d3d3f91428abf3f3fab3e2fcd5e3b'),
    ('normal_c64', False): ('complex64', (4,), '2f59963e7dc879bf033e503f0b3706bf58c2f0be66c85bbf2abe603f4578dfbe'),
    ('randint', False): ('int32', (9,), '86000000370000004d000000a8000000290000004d000000070000008500000021000000'),
    ('randint_i8', False): ('int8', (9,), '6558556d631c035d2f'),
    ('randint_u8', False): ('uint8', (9,), '6550c83d03d3901f75'),
    ('randint_u32', False): ('uint32', (9,), '060000000700000000000000030000000800000004000000080000000100000006000000'),
    ('randint_big', False): ('int32', (5,), '5014e57e7dce3a02490fc504c003746449b45a4b'),
    ('randint_vec', False): ('int32', (3,), '13000000070000000d000000'),
    ('randint_i64', False): ('int32', (3,), '63000000f8ffffff0d000000'),
    ('bernoulli', False): ('bool', (10,), '00000000000100000001'),
    ('bernoulli_p', False): ('bool', (3,), '000001'),
    ('bernoulli_high', False): ('bool', (10,), '00000000000000000000'),
    ('rademacher', False): ('int32', (10,), 'ffffffffffffffff0100000001000000ffffffff0100000001000000ffffffffffffffff01000000'),
    ('exponential', False): ('float32', (6,), 'e6ce3c40abfa754072ccce3ef1e2213f76fd573fb544393e'),
    ('gumbel', False): ('float32', (6,), '89183b409c497540f76fc6bda4f48d3eb860133f3c4c16bf'),
    ('gumbel_high', False): ('float32', (6,), '047a8abfa655acbf8d15683ff1a3ea3e0d062e3e58d6da3f'),
    ('laplace', False): ('float32', (6,), '637210c02b9e49c06c33d13ef287843d7f2d1abee8848d3f'),
    ('logistic', False): ('float32', (6,), '395e3940e897744097a532bf988000be4813903e5e15cfbf'),
    ('cauchy', False): ('float32', (6,), '3ce1c04005686d41c0eb14bf5f3dcabdf583643e0296dfbf'),
    ('cauchy_f16', False): ('float16', (6,), '63b909bda5c54a3872bc8fb4'),
    ('truncated_normal', False): ('float32', (7,), '3786bc3f16d1dc3f05ceaabefd6a85bc66955d3e3bdc47bf495cc6be'),
    ('categorical', False): ('int32', (4, 2), '0100000000000000020000000100000002000000000000000200000000000000'),
    ('categorical_axis0', False): ('int32', (3,), '010000000100000000000000'),
    ('jit_normal', False): ('float32', (4,), 'ebf0debf6d4dec3f8b204fbe0091a2bf'),
    ('jit_split_index', False): ('uint32', (2,), '873c87086f1a35ff'),
    ('jit_key_return', False): ('uint32', (3, 2), '35a538a86dcb48a2873c87086f1a35ffa425899f194cf2f4'),
    ('jit_keys_slice_normal', False): ('float32', (), 'd2e3b83e'),
    ('jit_seed', False): ('uint32', (2,), '000000007b000000'),
    ('PRNGKey(0)', True): ('uint32', (2,), '0000000000000000'),
    ('PRNGKey(42)', True): ('uint32', (2,), '000000002a000000'),
    ('PRNGKey(-1)', True): ('uint32', (2,), 'ffffffffffffffff'),
    ('PRNGKey(2**32+5)', True): ('uint32', (2,), '0100000005000000'),
    ('key_data(key(7))', True): ('uint32', (2,), '0000000007000000'),
    ('key(uint32 7)', True): ('uint32', (2,), '0000000007000000'),
    ('split', True): ('uint32', (2, 2), '5901206bfe4eba998f235f371d15dbcd'),
    ('split5', True): ('uint32', (5, 2), '8f043e6d2d1722102db3d703f483d0adea20fb9213d9380f4669d5ba91a84b35e3ae13b0f6dd4ec3'),
    ('split_typed_2x3', True): ('uint32', (2, 3, 2), '35183f1e8220756e7688297448808dfc11a98c916b1cabe36fe8aed49e5794a4adccd233095f6bd673e751c1cff1464e'),
    ('split_index', True): ('uint32', (2,), '32ce103decc2329b'),
    ('split_reshape_T', True): ('uint32', (2, 2, 2), '9b638adde57e7fcf32ce103decc2329b4b3405748e0e2f841be748342bab8acd'),
    ('fold_in', True): ('uint32', (2,), '8b771293bedfe8e4'),
    ('fold_in_big', True): ('uint32', (2,), '3477babc3f742ae9'),
    ('fold_in_typed', True): ('uint32', (2,), '6c1cfa4b17bc2370'),
    ('wrap_key_data', True): ('uint32', (2,), '0100000002000000'),
    ('bits_u8', True): ('uint8', (7,), 'a7922835b7437d'),
    ('bits_u16', True): ('uint16', (2, 3), 'b7383e087ab5f1bfa493bc16'),
    ('bits_u32', True): ('uint64', (5,), '514d86c838af8c6c262e71c342f5fc25656996908cec75aabf4f8891767a3970e8ede456f5d1f53d'),
    ('bits_u64', True): ('uint64', (3,), 'e57e7fcf9b638add8e0e2f844b340574ecc2329b32ce103d'),
    ('bits_empty', True): ('uint64', (0, 2), ''),
    ('uniform', True): ('float64', (5, 3), '906e665600c8da3f88ede6c791afcb3fc84134d5e9e3ee3f1a9d7cf14e62e23f783b23d8ff07e13f5c219c37c4b6d63f80ac550a9c41ec3fd62da249ef3de43f60f106e6e314e13fd06b8d481d88c83f6edd24466a55eb3f009f12a4d36eae3f92ed6037aa96e43ffece8d566ecfef3fe8850f27b443e33f'),
    ('uniform_scalar', True): ('float64', (), '906e665600c8da3f'),
    ('uniform_f16', True): ('float16', (6,), '10330028aa39fe399c38a02d'),
    ('uniform_bf16', True): ('bfloat16', (6,), '363f783ef43e703f243f3c3f'),
    ('uniform_f64', True): ('float64', (4,), '902132ce2b23db3f90b861a17afec23fcc129291bd4ee53f1062a49d5e0edc3f'),
    ('uniform_minmax', True): ('float64', (4,), '707fcf9b638add3fa062cd50bf7ce7bff8cc05adb219f9bf5a13d6e31a20f9bf'),
    ('normal', True): ('float64', (7,), '1d149a040959cabf4a7b1b1ecd1ce9bf97f71ce6b00efd3fab6910ca450bc83f7c435ae8c1b3b43f7f17f7c9a9d0d7bf24633b1ee90af33f'),
    ('normal_typed', True): ('float64', (2, 3), '5921966ca2a4c7bf3abaa7facc5b01c06004b51081edc73f5643a084ad97e33f115266e30356df3ffb89333bc49dd73f'),
    ('normal_f16', True): ('float16', (5,), 'cb259eb0afb249b7e23c'),
    ('normal_f64', True): ('float64', (5,), 'fcd0eda0838aefbfbc381382bd6fd9bfba1e3ff5b67ad13fb40e3d8c2d3b00c081f518250237f83f'),
    ('normal_c64', True): ('complex64', (4,), '2f59963e7dc879bf033e503f0b3706bf58c2f0be66c85bbf2abe603f4578dfbe'),
    ('randint', True): ('int64', (9,), '73000000000000000b00000000000000b4000000000000002a0000000000000058000000000000005000000000000000400000000000000058000000000000009000000000000000'),
    ('randint_i8', True): ('int8', (9,), '6558556d631c035d2f'),
    ('randint_u8', True): ('uint8', (9,), '6550c83d03d3901f75'),
    ('randint_u32', True): ('uint32', (9,), '060000000700000000000000030000000800000004000000080000000100000006000000'),
    ('randint_big', True): ('int64', (5,), '38aae3210000000088140266000000000582231b000000007aec1f6d000000001d73736a00000000'),
    ('randint_vec', True): ('int64', (3,), '020000000000000011000000000000000f00000000000000'),
    ('randint_i64', True): ('int64', (3,), 'daffffffffffffff11000000000000004100000000000000'),
    ('bernoulli', True): ('bool', (10,), '00010000000000000001'),
    ('bernoulli_p', True): ('bool', (3,), '000100'),
    ('bernoulli_high', True): ('bool', (10,), '01000000010000010001'),
    ('rademacher', True): ('int64', (10,), '01000000000000000100000000000000ffffffffffffffffffffffffffffffffffffffffffffffff0100000000000000ffffffffffffffffffffffffffffffffffffffffffffffff0100000000000000'),
    ('exponential', True): ('float64', (6,), 'd7b55259a458e13fa6187a425232cf3f5f73aa80a0e40a40aa73b5bcfe57eb3f9bf83b600b50e83f7a119c910e0edc3f'),
    ('gumbel', True): ('float64', (6,), '98965585e4a6c13f1feff6e07743dbbf1a43189397c00a40714df3fe5be2e23f833890872780dd3f51b5102b930fa2bf'),
    ('gumbel_high', True): ('float64', (6,), '987315227298e33f716f8f006a96f63fd737b21b1a66f3bf7770a010b920c43f674e7f494f95d13fa28219001a64ea3f'),
    ('laplace', True): ('float64', (6,), 'eb062ee0cec9c63fff5fea5197d0ea3fe7e4ebc00f5905c0f1e6ecf6eea6c4bf64f50d0a430eb1bfb8a273e9bcefd53f'),
    ('logistic', True): ('float64', (6,), 'a80b66bb2410d5bfe30923e02299f4bf993b0939589c0a40c4c433a51637d33fe8f3d69dda85c03f8f02e62a1a1fe3bf'),
    ('cauchy', True): ('float64', (6,), '5dd13bfa73c3d0bf9c3a6aa037cef3bf39d28b7cf9482240fdc41d6e8a84ce3fcb4640a0ca01ba3f141cb7d47d60dfbf'),
    ('cauchy_f16', True): ('float16', (6,), '63b909bda5c54a3872bc8fb4'),
    ('truncated_normal', True): ('float64', (7,), '25329f79d4ccc0bf2b1c7bc36138e4bf3afbc22840abf93f582994fc2314cd3f5edfa16d0687c03f5cac8ad56fe3d1bfc28e3048fb13f23f'),
    ('categorical', True): ('int64', (4, 2), '02000000000000000000000000000000020000000000000001000000000000000100000000000000020000000000000001000000000000000000000000000000'),
    ('categorical_axis0', True): ('int64', (3,), '010000000000000000000000000000000100000000000000'),
    ('jit_normal', True): ('float64', (4,), '8c60c3c0f8e4d93faffaea78ce58fdbf5344fbba4916d43f64da851af941c4bf'),
    ('jit_split_index', True): ('uint32', (2,), '873c87086f1a35ff'),
    ('jit_key_return', True): ('uint32', (3, 2), '35a538a86dcb48a2873c87086f1a35ffa425899f194cf2f4'),
    ('jit_keys_slice_normal', True): ('float64', (), 'e87242901eb8f7bf'),
    ('jit_seed', True): ('uint32', (2,), '000000007b000000'),
}

JAXPRS = {
    'uniform_legacy': ('jax.make_jaxpr(R.uniform)(k)',
        'let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let\n    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n    f:u32[] = random_bits[bit_width=32 shape=()] a\n    g:u32[] = shift_right_logical f 9:u32[]\n    h:u32[] = or g 1065353216:u32[]\n    i:f32[] = bitcast_convert_type[new_dtype=float32] h\n    j:f32[] = sub i 1.0:f32[]\n    k:f32[] = sub e d\n    l:f32[] = mul j k\n    m:f32[] = add l d\n    n:f32[] = reshape[dimensions=None new_sizes=() sharding=None] m\n    o:f32[] = max d n\n  in (o,) } in\n{ lambda ; p:u32[2]. let\n    q:key<fry>[] = random_wrap[impl=fry] p\n    r:f32[] = jit[name=_uniform jaxpr=_uniform] q 0.0:f32[] 1.0:f32[]\n  in (r,) }'),
    'normal_legacy': ('jax.make_jaxpr(lambda k: R.normal(k, (3,)))(k)',
        'let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let\n    d:f32[1] = broadcast_in_dim b\n    e:f32[1] = broadcast_in_dim c\n    f:u32[3] = random_bits[bit_width=32 shape=(3,)] a\n    g:u32[3] = shift_right_logical f 9:u32[]\n    h:u32[3] = or g 1065353216:u32[]\n    i:f32[3] = bitcast_convert_type[new_dtype=float32] h\n    j:f32[3] = sub i 1.0:f32[]\n    k:f32[1] = sub e d\n    l:f32[3] = mul j k\n    m:f32[3] = add l d\n    n:f32[3] = max d m\n  in (n,) } in\n{ lambda ; o:u32[2]. let\n    p:key<fry>[] = random_wrap[impl=fry] o\n    q:f32[3] = jit[\n      name=_normal\n      jaxpr={ lambda ; p:key<fry>[]. let\n          q:f32[3] = jit[\n            name=_normal_real\n            jaxpr={ lambda ; p:key<fry>[]. let\n                r:f32[3] = jit[name=_uniform jaxpr=_uniform] p -0.9999999403953552:f32[]\n                  1.0:f32[]\n                s:f32[3] = erf_inv r\n                q:f32[3] = mul 1.4142135381698608:f32[] s\n              in (q,) }\n          ] p\n        in (q,) }\n    ] p\n  in (q,) }'),
    'uniform_typed': ('jax.make_jaxpr(R.uniform)(tk)',
        'let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let\n    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n    f:u32[] = random_bits[bit_width=32 shape=()] a\n    g:u32[] = shift_right_logical f 9:u32[]\n    h:u32[] = or g 1065353216:u32[]\n    i:f32[] = bitcast_convert_type[new_dtype=float32] h\n    j:f32[] = sub i 1.0:f32[]\n    k:f32[] = sub e d\n    l:f32[] = mul j k\n    m:f32[] = add l d\n    n:f32[] = reshape[dimensions=None new_sizes=() sharding=None] m\n    o:f32[] = max d n\n  in (o,) } in\n{ lambda ; p:key<fry>[]. let\n    q:f32[] = jit[name=_uniform jaxpr=_uniform] p 0.0:f32[] 1.0:f32[]\n  in (q,) }'),
    'split_legacy': ('jax.make_jaxpr(lambda k: R.split(k))(k)',
        '{ lambda ; a:u32[2]. let\n    b:key<fry>[] = random_wrap[impl=fry] a\n    c:key<fry>[2] = random_split[shape=(2,)] b\n    d:u32[2,2] = random_unwrap c\n  in (d,) }'),
    'split_typed_3x4': ('jax.make_jaxpr(lambda k: R.split(k, (3, 4)))(tk)',
        '{ lambda ; a:key<fry>[]. let\n    b:key<fry>[3,4] = random_split[shape=(3, 4)] a\n  in (b,) }'),
    'fold_in': ('jax.make_jaxpr(lambda k: R.fold_in(k, 3))(k)',
        '{ lambda ; a:u32[2]. let\n    b:key<fry>[] = random_wrap[impl=fry] a\n    c:key<fry>[] = random_fold_in b 3:u32[]\n    d:u32[2] = random_unwrap c\n  in (d,) }'),
    'bits': ('jax.make_jaxpr(lambda k: R.bits(k, (3,)))(k)',
        '{ lambda ; a:u32[2]. let\n    b:key<fry>[] = random_wrap[impl=fry] a\n    c:u32[3] = random_bits[bit_width=32 shape=(3,)] b\n  in (c,) }'),
    'key_data': ('jax.make_jaxpr(R.key_data)(tk)',
        '{ lambda ; a:key<fry>[]. let b:u32[2] = random_unwrap a in (b,) }'),
    'wrap_key_data': ('jax.make_jaxpr(R.wrap_key_data)(k)',
        '{ lambda ; a:u32[2]. let b:key<fry>[] = random_wrap[impl=fry] a in (b,) }'),
    'PRNGKey_traced': ('jax.make_jaxpr(R.PRNGKey)(3)',
        '{ lambda ; a:i32[]. let\n    b:key<fry>[] = random_seed[impl=fry] a\n    c:u32[2] = random_unwrap b\n  in (c,) }'),
    'key_traced': ('jax.make_jaxpr(R.key)(3)',
        '{ lambda ; a:i32[]. let b:key<fry>[] = random_seed[impl=fry] a in (b,) }'),
    'bernoulli': ('jax.make_jaxpr(lambda k: R.bernoulli(k, 0.3, (3,)))(k)',
        'let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let\n    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n    f:f32[1] = broadcast_in_dim d\n    g:f32[1] = broadcast_in_dim e\n    h:u32[3] = random_bits[bit_width=32 shape=(3,)] a\n    i:u32[3] = shift_right_logical h 9:u32[]\n    j:u32[3] = or i 1065353216:u32[]\n    k:f32[3] = bitcast_convert_type[new_dtype=float32] j\n    l:f32[3] = sub k 1.0:f32[]\n    m:f32[1] = sub g f\n    n:f32[3] = mul l m\n    o:f32[3] = add n f\n    p:f32[3] = max f o\n  in (p,) } in\n{ lambda ; q:u32[2]. let\n    r:key<fry>[] = random_wrap[impl=fry] q\n    s:bool[3] = jit[\n      name=_bernoulli\n      jaxpr={ lambda ; r:key<fry>[] t:f32[]. let\n          u:f32[3] = jit[name=_uniform jaxpr=_uniform] r 0.0:f32[] 1.0:f32[]\n          s:bool[3] = lt u t\n        in (s,) }\n    ] r 0.30000001192092896:f32[]\n  in (s,) }'),
    'exponential': ('jax.make_jaxpr(lambda k: R.exponential(k, (3,)))(tk)',
        'let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let\n    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n    f:f32[1] = broadcast_in_dim d\n    g:f32[1] = broadcast_in_dim e\n    h:u32[3] = random_bits[bit_width=32 shape=(3,)] a\n    i:u32[3] = shift_right_logical h 9:u32[]\n    j:u32[3] = or i 1065353216:u32[]\n    k:f32[3] = bitcast_convert_type[new_dtype=float32] j\n    l:f32[3] = sub k 1.0:f32[]\n    m:f32[1] = sub g f\n    n:f32[3] = mul l m\n    o:f32[3] = add n f\n    p:f32[3] = max f o\n  in (p,) } in\n{ lambda ; q:key<fry>[]. let\n    r:f32[3] = jit[\n      name=_exponential\n      jaxpr={ lambda ; q:key<fry>[]. let\n          s:f32[3] = jit[name=_uniform jaxpr=_uniform] q 0.0:f32[] 1.0:f32[]\n          t:f32[3] = neg s\n          u:f32[3] = log1p t\n          r:f32[3] = neg u\n        in (r,) }\n    ] q\n  in (r,) }'),
    'uniform_f16': ('jax.make_jaxpr(lambda k: R.uniform(k, (2,), jnp.float16))(tk)',
        'let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let\n    d:f16[] = convert_element_type[new_dtype=float16 weak_type=False] b\n    e:f16[] = convert_element_type[new_dtype=float16 weak_type=False] c\n    f:f16[1] = broadcast_in_dim d\n    g:f16[1] = broadcast_in_dim e\n    h:u16[2] = random_bits[bit_width=16 shape=(2,)] a\n    i:u16[2] = shift_right_logical h 6:u16[]\n    j:u16[2] = or i 15360:u16[]\n    k:f16[2] = bitcast_convert_type[new_dtype=float16] j\n    l:f16[2] = sub k 1.0:f16[]\n    m:f16[1] = sub g f\n    n:f16[2] = mul l m\n    o:f16[2] = add n f\n    p:f16[2] = max f o\n  in (p,) } in\n{ lambda ; q:key<fry>[]. let\n    r:f16[2] = jit[name=_uniform jaxpr=_uniform] q 0.0:f32[] 1.0:f32[]\n  in (r,) }'),
}

ERRORS = [
    ('R.choice(R.PRNGKey(0), 3, 2)', TypeError, 'shape argument of jax.random.choice must be a sequence, got 2'),
    ('R.choice(R.PRNGKey(0), 3, (4,), replace=False)', ValueError, "Cannot take a larger sample (size 4) than population (size 3) when 'replace=False'"),
    ('R.choice(R.PRNGKey(0), 0, (4,))', ValueError, 'a must be greater than 0 unless no samples are taken'),
    ('R.permutation(R.PRNGKey(0), 2.5)', TypeError, 'x must be an integer or at least 1-dimensional'),
    ('R.PRNGKey(jnp.array([1, 2]))', TypeError, 'PRNGKey accepts a scalar seed, but was given an array of shape (2,) != (). Use jax.vmap for batching'),
    ('R.split(R.PRNGKey(0), 2.5)', TypeError, "'float' object cannot be interpreted as an integer"),
    ('R.split(jnp.zeros(2, jnp.int32))', TypeError, 'JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype=int32'),
    ('R.split(jnp.zeros((3, 2), jnp.uint32))', ValueError, 'split accepts a single key, but was given a key array of shape (3, 2) != (). Use jax.vmap for batching.'),
    ('R.uniform(R.split(R.key(0)))', ValueError, 'uniform accepts a single key, but was given a key array of shape (2,) != (). Use jax.vmap for batching.'),
    ('R.uniform(3)', TypeError, 'JAX encountered invalid PRNG key data: expected key_data to have ndim, shape, and dtype attributes. Got 3'),
    ('R.uniform(R.key(0), dtype=jnp.int32)', ValueError, 'dtype argument to `uniform` must be a float dtype, got int32'),
    ('R.normal(R.key(0), dtype=jnp.int32)', ValueError, 'dtype argument to `normal` must be a float or complex dtype, got int32'),
    ('R.bits(R.PRNGKey(0), (3,), jnp.int32)', ValueError, 'dtype argument to `bits` must be an unsigned int dtype, got int32'),
    ('R.randint(R.PRNGKey(0), (3,), 0, 10, dtype=jnp.float32)', TypeError, 'randint only accepts integer dtypes, got float32'),
    ('np.asarray(R.key(0))', TypeError, 'JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use jax.random.key_data(arr) if you wish to extract the underlying integer array.'),
    ('R.key(R.key(0))', TypeError, 'key accepts a scalar seed, but was given a PRNG key.'),
    ('R.fold_in(R.PRNGKey(0), -3)', OverflowError, 'Python integer -3 out of bounds for uint32'),
    ('R.fold_in(R.PRNGKey(0), jnp.array([1, 2]))', TypeError, 'fold_in accepts a scalar, but was given an array ofshape (2,) != (). Use jax.vmap for batching.'),
    ('R.wrap_key_data(jnp.zeros(2, jnp.float32))', TypeError, 'JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype=float32'),
    ('R.bernoulli(R.key(0), 1)', TypeError, 'bernoulli probability `p` must have a floating dtype, got int32.'),
    ("R.bernoulli(R.key(0), 0.5, mode='mid')", ValueError, "got mode='mid', expected 'high' or 'low'"),
    ("R.gumbel(R.key(0), mode='x')", ValueError, 'Must provide valid mode for gumbel got: x'),
    ('R.uniform(R.key(0), (3,), minval=jnp.zeros(2))', TypeError, 'mul got incompatible shapes for broadcasting: (3,), (2,).'),
]


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request):
    prev = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", request.param)
    yield request.param
    jax.config.update("jax_enable_x64", prev)


@pytest.mark.parametrize("name,code", CASES, ids=[c[0] for c in CASES])
def test_bits_identical_to_jax(name, code, x64):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = np.asarray(eval(code))
    dtype, shape, hexbytes = EXPECTED[(name, x64)]
    assert (a.dtype.name, a.shape) == (dtype, shape)
    assert a.tobytes().hex() == hexbytes


@pytest.mark.parametrize("name", list(JAXPRS))
def test_jaxpr_matches_jax(name):
    k, tk = R.PRNGKey(0), R.key(0)  # noqa: F841 (used by the recorded expressions)
    code, text = JAXPRS[name]
    assert str(eval(code)) == text


@pytest.mark.parametrize("code,cls,msg", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_jax(code, cls, msg):
    with pytest.raises(cls) as info:
        eval(code)
    assert str(info.value) == msg


def test_key_reprs():
    assert repr(R.key(0)) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    assert repr(R.split(R.key(0), 3)) == (
        "Array((3,), dtype=key<fry>) overlaying:\n[[1797259609 2579123966]\n"
        " [ 928981903 3453687069]\n [4146024105 2718843009]]")
    assert str(R.key(0)) == repr(R.key(0))
    assert repr(R.PRNGKey(0)) == "Array([0, 0], dtype=uint32)"
    k = R.key(0)
    assert str(k.dtype) == "key<fry>" and k.shape == () and k.ndim == 0
    assert R.key_impl(k) == "threefry2x32"


def test_typed_key_roundtrip_and_jit_cache():
    data = R.key_data(R.split(R.key(5), 4))
    keys = R.wrap_key_data(data)
    np.testing.assert_array_equal(np.asarray(R.key_data(keys)), np.asarray(data))
    f = jax.jit(lambda k: R.uniform(k, (3,)))
    a = f(keys[1])
    b = f(keys[1])
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_array_equal(np.asarray(a), np.asarray(R.uniform(keys[1], (3,))))


def test_statistics_of_large_samples():
    x = np.asarray(R.normal(R.key(0), (200000,)))
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1) < 0.01
    u = np.asarray(R.uniform(R.key(1), (200000,), minval=2., maxval=4.))
    assert u.min() >= 2 and u.max() < 4 and abs(u.mean() - 3) < 0.01


# permutation and choice (sort/take/cumsum/searchsorted based), recorded from JAX 0.10.2
_SHUFFLES = [
    (lambda R, jnp: R.permutation(R.key(0), 10), [0, 1, 8, 5, 6, 4, 3, 2, 7, 9]),
    (lambda R, jnp: R.permutation(R.PRNGKey(42), jnp.arange(6.0)), [4.0, 2.0, 5.0, 3.0, 0.0, 1.0]),
    (lambda R, jnp: R.choice(R.key(0), jnp.arange(10), (3,)), [9, 0, 2]),
    (lambda R, jnp: R.choice(R.key(0), 10, (4,), replace=False), [0, 1, 8, 5]),
    (lambda R, jnp: R.choice(R.PRNGKey(42), jnp.arange(5), (3,),
                             p=jnp.array([.1, .2, .3, .2, .2])), [2, 2, 2]),
    (lambda R, jnp: R.choice(R.PRNGKey(42), 5, (3,), replace=False,
                             p=jnp.array([.1, .2, .3, .2, .2])), [2, 1, 3]),
]


@pytest.mark.parametrize("i", range(len(_SHUFFLES)))
def test_permutation_and_choice_match_jax(i):
    import xjit
    import xjit.numpy as jnp
    fn, want = _SHUFFLES[i]
    assert np.asarray(fn(xjit.random, jnp)).tolist() == want


# lax.bitcast_convert_type's checks, recorded from JAX 0.10.2: the shape (in
# bits) first, then bool and complex only to themselves
BITCAST_CASES = [
    ((3, 3), "uint8", "complex64", ValueError,
     "Attempting to convert array of shape (3, 3) from uint8 of size 8 bits to complex64 of "
     "size 64, bits but 3 * 8 != 64"),
    ((3,), "bool", "int8", TypeError,
     "Got operand dtype=bool, new_dtype=dtype('int8')"),
    ((3,), "int8", "bool", TypeError, "Got operand dtype=int8, new_dtype=dtype('bool')"),
    ((2, 3), "uint8", "int32", ValueError,
     "from uint8 of size 8 bits to int32 of size 32, bits but 3 * 8 != 32"),
    ((), "uint8", "int32", ValueError,
     "shape () from uint8 of size 8 bits to int32 of size 32, bits but 1 * 8 != 32"),
    ((2,), "complex64", "float32", TypeError,
     "Got operand dtype=complex64, new_dtype=dtype('float32')"),
    ((2, 2), "float32", "complex64", TypeError,
     "Got operand dtype=float32, new_dtype=dtype('complex64')"),
    ((2, 4), "uint8", "int32", None, (2,)),
    ((3,), "complex64", "complex64", None, (3,)),
]


@pytest.mark.parametrize("shape,src,dst,error,expect", BITCAST_CASES)
def test_bitcast_convert_type_checks(shape, src, dst, error, expect):
    x = jnp.zeros(shape, src)
    if error is None:
        assert lax.bitcast_convert_type(x, dst).shape == expect
    else:
        with pytest.raises(error) as info:
            lax.bitcast_convert_type(x, dst)
        assert expect in str(info.value)
