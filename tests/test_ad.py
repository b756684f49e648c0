"""Tests for xjit's automatic differentiation: printed jaxprs byte-identical
to JAX 0.10.2 (expected texts generated with the oracle and stored here),
gradients against float64 finite differences, pytrees, argnums, has_aux,
higher order, jit and vmap composition, JAX's error messages."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

x3 = np.array([0.3, 0.5, 0.7], np.float32)
m23 = np.arange(6, dtype=np.float32).reshape(2, 3) / 7 + 0.1

UNARY = {
    'neg': lax.neg, 'sign': lax.sign, 'floor': lax.floor, 'ceil': lax.ceil, 'round': lax.round,
    'exp': lax.exp, 'exp2': lax.exp2, 'log': lax.log, 'log1p': lax.log1p, 'expm1': lax.expm1,
    'tanh': lax.tanh, 'logistic': lax.logistic, 'sin': lax.sin, 'cos': lax.cos, 'tan': lax.tan,
    'asin': lax.asin, 'acos': lax.acos, 'atan': lax.atan, 'sinh': lax.sinh, 'cosh': lax.cosh,
    'asinh': lax.asinh, 'acosh': lambda x: lax.acosh(x + 1.5), 'atanh': lax.atanh,
    'sqrt': lax.sqrt, 'rsqrt': lax.rsqrt, 'cbrt': lax.cbrt, 'erf': lax.erf, 'erfc': lax.erfc,
    'erf_inv': lax.erf_inv, 'lgamma': lax.lgamma, 'square': lax.square, 'abs': lax.abs,
    'integer_pow3': lambda x: lax.integer_pow(x, 3),
    'integer_pow-2': lambda x: lax.integer_pow(x, -2),
    'integer_pow1': lambda x: lax.integer_pow(x, 1), 'integer_pow0': lambda x: lax.integer_pow(x, 0),
    'convert_f64': lambda x: lax.convert_element_type(x, jnp.float16),
    'bcast': lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)),
    'reshape': lambda x: lax.reshape(x, (3, 1)), 'rev': lambda x: lax.rev(x, (0,)),
    'slice': lambda x: lax.slice(x, (1,), (3,)), 'pad': lambda x: lax.pad(x, 0.0, ((1, 2, 1),)),
    'reduce_sum': lambda x: lax.reduce_sum(x, (0,)), 'reduce_max': lambda x: lax.reduce_max(x, (0,)),
    'reduce_min': lambda x: lax.reduce_min(x, (0,)),
    'reduce_prod': lambda x: lax.reduce_prod(x, (0,)),
    'cumsum_like_concat': lambda x: lax.concatenate([x, x * 2.0], 0),
    'dyn_slice': lambda x: lax.dynamic_slice(x, (1,), (2,)),
    'expand': lambda x: lax.expand_dims(x, (0,)),
    'is_finite': lambda x: lax.is_finite(x).astype(jnp.float32) * x,
    'argmax': lambda x: lax.argmax(x, 0, jnp.int32).astype(jnp.float32) + x,
}
BINARY = {
    'add': lax.add, 'sub': lax.sub, 'mul': lax.mul, 'div': lax.div, 'rem': lax.rem,
    'pow': lax.pow, 'max': lax.max, 'min': lax.min, 'atan2': lax.atan2,
    'select': lambda x, y: lax.select(x > y, x, y),
    'clamp': lambda x, y: lax.clamp(0.4, x, y),
    'dus': lambda x, y: lax.dynamic_update_slice(x, y[:2], (1,)),
    'dot': lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((), ()))),
    'outer': lambda x, y: lax.dot_general(x, y, (((), ()), ((), ()))),
    'concat': lambda x, y: lax.concatenate([x, y], 0),
}
MATRIX = {
    'transpose': lambda x: lax.transpose(x, (1, 0)),
    'squeeze': lambda x: lax.squeeze(x[:1], (0,)),
    'matvec': lambda x: lax.dot_general(x, jnp.ones(3), (((1,), (0,)), ((), ()))),
    'reduce_sum1': lambda x: lax.reduce_sum(x, (1,)),
    'reduce_max1': lambda x: lax.reduce_max(x, (1,)),
    'slice2': lambda x: lax.slice(x, (0, 1), (2, 3), (1, 2)),
}


def _case(name):
    if name in UNARY:
        return UNARY[name], (x3,)
    if name in BINARY:
        return BINARY[name], (x3, x3[::-1].copy())
    return MATRIX[name], (m23,)


PRIM_JAXPRS = {
    ('neg', 'jvp'): '{ lambda ; a:f32[3]. let b:f32[3] = neg a; c:f32[3] = neg a in (b, c) }',
    ('neg', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = neg a\n    b:f32[3] = neg a\n    c:f32[3] = neg b\n  in (c,) }',
    ('sign', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = sign a\n    c:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b, c) }',
    ('sign', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = sign a\n    _:f32[3] = sign a\n    b:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b,) }',
    ('floor', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = floor a\n    c:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b, c) }',
    ('floor', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = floor a\n    _:f32[3] = floor a\n    b:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b,) }',
    ('ceil', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = ceil a\n    c:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b, c) }',
    ('ceil', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = ceil a\n    _:f32[3] = ceil a\n    b:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b,) }',
    ('round', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = round[rounding_method=0] a\n    c:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b, c) }',
    ('round', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = round[rounding_method=0] a\n    _:f32[3] = round[rounding_method=0] a\n    b:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b,) }',
    ('exp', 'jvp'): '{ lambda ; a:f32[3]. let b:f32[3] = exp a; c:f32[3] = mul a b in (b, c) }',
    ('exp', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = exp a\n    c:f32[3] = exp a\n    d:f32[3] = mul c b\n  in (d,) }',
    ('exp2', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = exp2 a\n    c:f32[] = log 2.0:f32[]\n    d:f32[3] = mul a b\n    e:f32[3] = mul c d\n  in (b, e) }',
    ('exp2', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = exp2 a\n    c:f32[] = log 2.0:f32[]\n    d:f32[3] = exp2 a\n    e:f32[3] = mul c d\n    f:f32[3] = mul e b\n  in (f,) }',
    ('log', 'jvp'): '{ lambda ; a:f32[3]. let b:f32[3] = log a; c:f32[3] = div a a in (b, c) }',
    ('log', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = log a\n    b:f32[3] = log a\n    c:f32[3] = div b a\n  in (c,) }',
    ('log1p', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = log1p a\n    c:f32[3] = add a 1.0:f32[]\n    d:f32[3] = div a c\n  in (b, d) }',
    ('log1p', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = log1p a\n    b:f32[3] = add a 1.0:f32[]\n    c:f32[3] = log1p a\n    d:f32[3] = div c b\n  in (d,) }',
    ('expm1', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = expm1 a\n    c:f32[3] = add b 1.0:f32[]\n    d:f32[3] = mul a c\n  in (b, d) }',
    ('expm1', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = expm1 a\n    c:f32[3] = add b 1.0:f32[]\n    d:f32[3] = expm1 a\n    e:f32[3] = mul d c\n  in (e,) }',
    ('tanh', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = tanh a\n    c:f32[3] = mul a b\n    d:f32[3] = add a c\n    e:f32[3] = sub 1.0:f32[] b\n    f:f32[3] = mul d e\n  in (b, f) }',
    ('tanh', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = tanh a\n    c:f32[3] = sub 1.0:f32[] b\n    d:f32[3] = tanh a\n    e:f32[3] = mul d c\n    f:f32[3] = mul e b\n    g:f32[3] = add_any e f\n  in (g,) }',
    ('logistic', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = logistic a\n    c:f32[3] = sub 1.0:f32[] b\n    d:f32[3] = mul b c\n    e:f32[3] = mul a d\n  in (b, e) }',
    ('logistic', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = logistic a\n    c:f32[3] = sub 1.0:f32[] b\n    d:f32[3] = mul b c\n    e:f32[3] = logistic a\n    f:f32[3] = mul e d\n  in (f,) }',
    ('sin', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = sin a\n    c:f32[3] = cos a\n    d:f32[3] = mul a c\n  in (b, d) }',
    ('sin', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = sin a\n    b:f32[3] = cos a\n    c:f32[3] = sin a\n    d:f32[3] = mul c b\n  in (d,) }',
    ('cos', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = cos a\n    c:f32[3] = sin a\n    d:f32[3] = mul a c\n    e:f32[3] = neg d\n  in (b, e) }',
    ('cos', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = cos a\n    b:f32[3] = sin a\n    c:f32[3] = cos a\n    d:f32[3] = neg c\n    e:f32[3] = mul d b\n  in (e,) }',
    ('tan', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = tan a\n    c:f32[3] = square b\n    d:f32[3] = add 1.0:f32[] c\n    e:f32[3] = mul a d\n  in (b, e) }',
    ('tan', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = tan a\n    c:f32[3] = square b\n    d:f32[3] = add 1.0:f32[] c\n    e:f32[3] = tan a\n    f:f32[3] = mul e d\n  in (f,) }',
    ('asin', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = asin a\n    c:f32[3] = square a\n    d:f32[3] = sub 1.0:f32[] c\n    e:f32[3] = rsqrt d\n    f:f32[3] = mul a e\n  in (b, f) }',
    ('asin', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = asin a\n    b:f32[3] = square a\n    c:f32[3] = sub 1.0:f32[] b\n    d:f32[3] = rsqrt c\n    e:f32[3] = asin a\n    f:f32[3] = mul e d\n  in (f,) }',
    ('acos', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = acos a\n    c:f32[3] = square a\n    d:f32[3] = sub 1.0:f32[] c\n    e:f32[3] = rsqrt d\n    f:f32[3] = neg e\n    g:f32[3] = mul a f\n  in (b, g) }',
    ('acos', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = acos a\n    b:f32[3] = square a\n    c:f32[3] = sub 1.0:f32[] b\n    d:f32[3] = rsqrt c\n    e:f32[3] = neg d\n    f:f32[3] = acos a\n    g:f32[3] = mul f e\n  in (g,) }',
    ('atan', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = atan a\n    c:f32[3] = square a\n    d:f32[3] = add 1.0:f32[] c\n    e:f32[3] = div a d\n  in (b, e) }',
    ('atan', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = atan a\n    b:f32[3] = square a\n    c:f32[3] = add 1.0:f32[] b\n    d:f32[3] = atan a\n    e:f32[3] = div d c\n  in (e,) }',
    ('sinh', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = sinh a\n    c:f32[3] = cosh a\n    d:f32[3] = mul a c\n  in (b, d) }',
    ('sinh', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = sinh a\n    b:f32[3] = cosh a\n    c:f32[3] = sinh a\n    d:f32[3] = mul c b\n  in (d,) }',
    ('cosh', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = cosh a\n    c:f32[3] = sinh a\n    d:f32[3] = mul a c\n  in (b, d) }',
    ('cosh', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = cosh a\n    b:f32[3] = sinh a\n    c:f32[3] = cosh a\n    d:f32[3] = mul c b\n  in (d,) }',
    ('asinh', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = asinh a\n    c:f32[3] = square a\n    d:f32[3] = add c 1.0:f32[]\n    e:f32[3] = rsqrt d\n    f:f32[3] = mul a e\n  in (b, f) }',
    ('asinh', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = asinh a\n    b:f32[3] = square a\n    c:f32[3] = add b 1.0:f32[]\n    d:f32[3] = rsqrt c\n    e:f32[3] = asinh a\n    f:f32[3] = mul e d\n  in (f,) }',
    ('acosh', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = add a 1.5:f32[]\n    c:f32[3] = acosh b\n    d:f32[3] = square b\n    e:f32[3] = sub d 1.0:f32[]\n    f:f32[3] = rsqrt e\n    g:f32[3] = mul a f\n  in (c, g) }',
    ('acosh', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = add a 1.5:f32[]\n    _:f32[3] = acosh b\n    c:f32[3] = square b\n    d:f32[3] = sub c 1.0:f32[]\n    e:f32[3] = rsqrt d\n    f:f32[3] = add a 1.5:f32[]\n    g:f32[3] = acosh f\n    h:f32[3] = mul g e\n  in (h,) }',
    ('atanh', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = atanh a\n    c:f32[3] = add 1.0:f32[] a\n    d:f32[3] = integer_pow[y=-1] c\n    e:f32[3] = sub 1.0:f32[] a\n    f:f32[3] = div a e\n    g:f32[3] = mul d f\n  in (b, g) }',
    ('atanh', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = atanh a\n    b:f32[3] = add 1.0:f32[] a\n    c:f32[3] = integer_pow[y=-1] b\n    d:f32[3] = sub 1.0:f32[] a\n    e:f32[3] = atanh a\n    f:f32[3] = mul c e\n    g:f32[3] = div f d\n  in (g,) }',
    ('sqrt', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = sqrt a\n    c:f32[3] = div 0.5:f32[] b\n    d:f32[3] = mul a c\n  in (b, d) }',
    ('sqrt', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = sqrt a\n    c:f32[3] = div 0.5:f32[] b\n    d:f32[3] = sqrt a\n    e:f32[3] = mul d c\n  in (e,) }',
    ('rsqrt', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = rsqrt a\n    c:f32[3] = div b a\n    d:f32[3] = mul -0.5:f32[] c\n    e:f32[3] = mul a d\n  in (b, e) }',
    ('rsqrt', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = rsqrt a\n    c:f32[3] = div b a\n    d:f32[3] = mul -0.5:f32[] c\n    e:f32[3] = rsqrt a\n    f:f32[3] = mul e d\n  in (f,) }',
    ('cbrt', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = cbrt a\n    c:f32[3] = integer_pow[y=-2] b\n    d:f32[3] = mul 0.3333333432674408:f32[] c\n    e:f32[3] = mul a d\n  in (b, e) }',
    ('cbrt', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = cbrt a\n    c:f32[3] = integer_pow[y=-2] b\n    d:f32[3] = mul 0.3333333432674408:f32[] c\n    e:f32[3] = cbrt a\n    f:f32[3] = mul e d\n  in (f,) }',
    ('erf', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = erf a\n    c:f32[3] = square a\n    d:f32[3] = neg c\n    e:f32[3] = exp d\n    f:f32[3] = mul a e\n    g:f32[3] = mul 1.128379225730896:f32[] f\n  in (b, g) }',
    ('erf', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = erf a\n    b:f32[3] = square a\n    c:f32[3] = neg b\n    d:f32[3] = exp c\n    e:f32[3] = erf a\n    f:f32[3] = mul 1.128379225730896:f32[] e\n    g:f32[3] = mul f d\n  in (g,) }',
    ('erfc', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = erfc a\n    c:f32[3] = square a\n    d:f32[3] = neg c\n    e:f32[3] = exp d\n    f:f32[3] = mul a e\n    g:f32[3] = mul -1.128379225730896:f32[] f\n  in (b, g) }',
    ('erfc', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = erfc a\n    b:f32[3] = square a\n    c:f32[3] = neg b\n    d:f32[3] = exp c\n    e:f32[3] = erfc a\n    f:f32[3] = mul -1.128379225730896:f32[] e\n    g:f32[3] = mul f d\n  in (g,) }',
    ('erf_inv', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = erf_inv a\n    c:f32[3] = square b\n    d:f32[3] = exp c\n    e:f32[3] = mul a d\n    f:f32[3] = mul 0.8862269520759583:f32[] e\n  in (b, f) }',
    ('erf_inv', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = erf_inv a\n    c:f32[3] = square b\n    d:f32[3] = exp c\n    e:f32[3] = erf_inv a\n    f:f32[3] = mul 0.8862269520759583:f32[] e\n    g:f32[3] = mul f d\n  in (g,) }',
    ('lgamma', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = lgamma a\n    c:f32[3] = digamma a\n    d:f32[3] = mul a c\n  in (b, d) }',
    ('lgamma', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = lgamma a\n    b:f32[3] = digamma a\n    c:f32[3] = lgamma a\n    d:f32[3] = mul c b\n  in (d,) }',
    ('square', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = square a\n    c:f32[3] = mul 2.0:f32[] a\n    d:f32[3] = mul a c\n  in (b, d) }',
    ('square', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = square a\n    b:f32[3] = mul 2.0:f32[] a\n    c:f32[3] = square a\n    d:f32[3] = mul c b\n  in (d,) }',
    ('abs', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = abs a\n    c:bool[3] = ge a 0.0:f32[]\n    d:f32[3] = neg a\n    e:f32[3] = select_n c d a\n  in (b, e) }',
    ('abs', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = abs a\n    b:bool[3] = ge a 0.0:f32[]\n    c:f32[3] = abs a\n    d:f32[3] = broadcast_in_dim 0.0:f32[]\n    e:f32[3] = select_n b c d\n    f:f32[3] = select_n b d c\n    g:f32[3] = neg e\n    h:f32[3] = add_any f g\n  in (h,) }',
    ('integer_pow3', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = integer_pow[y=3] a\n    c:f32[3] = integer_pow[y=2] a\n    d:f32[3] = mul 3.0:f32[] c\n    e:f32[3] = mul a d\n  in (b, e) }',
    ('integer_pow3', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = integer_pow[y=3] a\n    b:f32[3] = integer_pow[y=2] a\n    c:f32[3] = mul 3.0:f32[] b\n    d:f32[3] = integer_pow[y=3] a\n    e:f32[3] = mul d c\n  in (e,) }',
    ('integer_pow-2', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = integer_pow[y=-2] a\n    c:f32[3] = integer_pow[y=-3] a\n    d:f32[3] = mul -2.0:f32[] c\n    e:f32[3] = mul a d\n  in (b, e) }',
    ('integer_pow-2', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = integer_pow[y=-2] a\n    b:f32[3] = integer_pow[y=-3] a\n    c:f32[3] = mul -2.0:f32[] b\n    d:f32[3] = integer_pow[y=-2] a\n    e:f32[3] = mul d c\n  in (e,) }',
    ('integer_pow1', 'jvp'): '{ lambda ; a:f32[3]. let b:f32[3] = integer_pow[y=1] a in (b, a) }',
    ('integer_pow1', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = integer_pow[y=1] a\n    b:f32[3] = integer_pow[y=1] a\n  in (b,) }',
    ('integer_pow0', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = integer_pow[y=0] a\n    c:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b, c) }',
    ('integer_pow0', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = integer_pow[y=0] a\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    _:f32[3] = integer_pow[y=0] a\n    b:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (b,) }',
    ('convert_f64', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f16[3] = convert_element_type[new_dtype=float16 weak_type=False] a\n    c:f16[3] = convert_element_type[new_dtype=float16 weak_type=False] a\n  in (b, c) }',
    ('convert_f64', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f16[3] = convert_element_type[new_dtype=float16 weak_type=False] a\n    b:f16[3] = convert_element_type[new_dtype=float16 weak_type=False] a\n    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] b\n  in (c,) }',
    ('bcast', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n    c:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n  in (b, c) }',
    ('bcast', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n    b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n    c:f32[3] = reduce_sum[axes=(0,) out_sharding=None] b\n  in (c,) }',
    ('reshape', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3,1] = reshape[dimensions=None new_sizes=(3, 1) sharding=None] a\n    c:f32[3,1] = reshape[dimensions=None new_sizes=(3, 1) sharding=None] a\n  in (b, c) }',
    ('reshape', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3,1] = reshape[dimensions=None new_sizes=(3, 1) sharding=None] a\n    b:f32[3,1] = reshape[dimensions=None new_sizes=(3, 1) sharding=None] a\n    c:f32[3] = reshape[dimensions=None new_sizes=(3,) sharding=None] b\n  in (c,) }',
    ('rev', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = rev[dimensions=(0,)] a\n    c:f32[3] = rev[dimensions=(0,)] a\n  in (b, c) }',
    ('rev', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[3] = rev[dimensions=(0,)] a\n    b:f32[3] = rev[dimensions=(0,)] a\n    c:f32[3] = rev[dimensions=(0,)] b\n  in (c,) }',
    ('slice', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=None] a\n    c:f32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=None] a\n  in (b, c) }',
    ('slice', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=None] a\n    b:f32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=None] a\n    c:f32[3] = pad[padding_config=((1, np.int64(0), 0),)] b 0.0:f32[]\n  in (c,) }',
    ('pad', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[8] = pad[padding_config=((1, 2, 1),)] a 0.0:f32[]\n    c:f32[8] = pad[padding_config=((1, 2, 1),)] a 0.0:f32[]\n  in (b, c) }',
    ('pad', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[8] = pad[padding_config=((1, 2, 1),)] a 0.0:f32[]\n    b:f32[8] = pad[padding_config=((1, 2, 1),)] a 0.0:f32[]\n    c:f32[5] = pad[padding_config=((np.int64(-1), np.int64(-2), np.int64(0)),)] b\n      0.0:f32[]\n    d:f32[3] = slice[\n      limit_indices=(5,)\n      start_indices=(np.int64(0),)\n      strides=(np.int64(2),)\n    ] c\n  in (d,) }',
    ('reduce_sum', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[] = reduce_sum[axes=(0,) out_sharding=None] a\n    c:f32[] = reduce_sum[axes=(0,) out_sharding=None] a\n  in (b, c) }',
    ('reduce_sum', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] a\n    b:f32[] = reduce_sum[axes=(0,) out_sharding=None] a\n    c:f32[3] = broadcast_in_dim b\n  in (c,) }',
    ('reduce_max', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[] = reduce_max[axes=(0,)] a\n    c:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] b\n    d:bool[3] = eq a c\n    e:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] d\n    f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e\n    g:f32[3] = mul a e\n    h:f32[] = reduce_sum[axes=(0,) out_sharding=None] g\n    i:f32[] = div h f\n  in (b, i) }',
    ('reduce_max', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[] = reduce_max[axes=(0,)] a\n    c:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] b\n    d:bool[3] = eq a c\n    e:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] d\n    f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e\n    g:f32[] = reduce_max[axes=(0,)] a\n    h:f32[] = div g f\n    i:f32[3] = broadcast_in_dim h\n    j:f32[3] = mul i e\n  in (j,) }',
    ('reduce_min', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[] = reduce_min[axes=(0,)] a\n    c:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] b\n    d:bool[3] = eq a c\n    e:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] d\n    f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e\n    g:f32[3] = mul a e\n    h:f32[] = reduce_sum[axes=(0,) out_sharding=None] g\n    i:f32[] = div h f\n  in (b, i) }',
    ('reduce_min', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[] = reduce_min[axes=(0,)] a\n    c:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] b\n    d:bool[3] = eq a c\n    e:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] d\n    f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e\n    g:f32[] = reduce_min[axes=(0,)] a\n    h:f32[] = div g f\n    i:f32[3] = broadcast_in_dim h\n    j:f32[3] = mul i e\n  in (j,) }',
    ('reduce_prod', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=(1,)] a\n    c:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=(1,)] a\n    d:f32[1] = slice[limit_indices=(3,) start_indices=(2,) strides=(1,)] a\n    e:f32[1] = slice[limit_indices=(3,) start_indices=(2,) strides=(1,)] a\n    f:f32[2] = pad[padding_config=((0, 1, 0),)] d 1.0:f32[]\n    g:f32[2] = pad[padding_config=((0, 1, 0),)] e 0.0:f32[]\n    h:f32[2] = mul b f\n    i:f32[2] = mul c f\n    j:f32[2] = mul b g\n    k:f32[2] = add_any i j\n    l:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] h\n    m:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] k\n    n:f32[1] = slice[limit_indices=(2,) start_indices=(1,) strides=(1,)] h\n    o:f32[1] = slice[limit_indices=(2,) start_indices=(1,) strides=(1,)] k\n    p:f32[1] = mul l n\n    q:f32[1] = mul m n\n    r:f32[1] = mul l o\n    s:f32[1] = add_any q r\n    t:f32[] = squeeze[dimensions=(0,)] p\n    u:f32[] = squeeze[dimensions=(0,)] s\n  in (t, u) }',
    ('reduce_prod', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=(1,)] a\n    c:f32[1] = slice[limit_indices=(3,) start_indices=(2,) strides=(1,)] a\n    d:f32[2] = pad[padding_config=((0, 1, 0),)] c 1.0:f32[]\n    e:f32[2] = mul b d\n    f:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] e\n    g:f32[1] = slice[limit_indices=(2,) start_indices=(1,) strides=(1,)] e\n    h:f32[1] = mul f g\n    _:f32[] = squeeze[dimensions=(0,)] h\n    i:f32[] = reduce_prod[axes=(0,)] a\n    j:f32[1] = broadcast_in_dim i\n    k:f32[1] = mul f j\n    l:f32[1] = mul j g\n    m:f32[2] = pad[padding_config=((1, np.int64(0), 0),)] k 0.0:f32[]\n    n:f32[2] = pad[padding_config=((0, np.int64(1), 0),)] l 0.0:f32[]\n    o:f32[2] = add_any m n\n    p:f32[2] = mul b o\n    q:f32[2] = mul o d\n    r:f32[1] = pad[padding_config=((np.int64(0), np.int64(-1), np.int64(0)),)] p\n      0.0:f32[]\n    s:f32[1] = slice[\n      limit_indices=(1,)\n      start_indices=(np.int64(0),)\n      strides=(np.int64(1),)\n    ] r\n    t:f32[3] = pad[padding_config=((2, np.int64(0), 0),)] s 0.0:f32[]\n    u:f32[3] = pad[padding_config=((0, np.int64(1), 0),)] q 0.0:f32[]\n    v:f32[3] = add_any t u\n  in (v,) }',
    ('cumsum_like_concat', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = mul a 2.0:f32[]\n    c:f32[3] = mul a 2.0:f32[]\n    d:f32[6] = concatenate[dimension=0] a b\n    e:f32[6] = concatenate[dimension=0] a c\n  in (d, e) }',
    ('cumsum_like_concat', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:f32[3] = mul a 2.0:f32[]\n    _:f32[6] = concatenate[dimension=0] a b\n    c:f32[3] = mul a 2.0:f32[]\n    d:f32[6] = concatenate[dimension=0] a c\n    e:f32[3] f:f32[3] = split[axis=0 sizes=(3, 3)] d\n    g:f32[3] = mul f 2.0:f32[]\n    h:f32[3] = add_any e g\n  in (h,) }',
    ('dyn_slice', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[2] = dynamic_slice[slice_sizes=(2,)] a 1:i32[]\n    c:f32[2] = dynamic_slice[slice_sizes=(2,)] a 1:i32[]\n  in (c, b) }',
    ('dyn_slice', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[2] = dynamic_slice[slice_sizes=(2,)] a 1:i32[]\n    b:f32[2] = dynamic_slice[slice_sizes=(2,)] a 1:i32[]\n    c:f32[3] = broadcast_in_dim 0.0:f32[]\n    d:f32[3] = dynamic_update_slice c b 1:i32[]\n  in (d,) }',
    ('expand', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n  in (b, c) }',
    ('expand', 'vjp'): '{ lambda ; a:f32[3]. let\n    _:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n    b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n    c:f32[3] = reduce_sum[axes=(0,) out_sharding=None] b\n  in (c,) }',
    ('is_finite', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:bool[3] = is_finite a\n    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] b\n    d:f32[3] = mul c a\n    e:f32[3] = mul c a\n  in (d, e) }',
    ('is_finite', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:bool[3] = is_finite a\n    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] b\n    _:f32[3] = mul c a\n    d:bool[3] = is_finite a\n    e:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] d\n    f:f32[3] = mul e a\n    g:f32[3] = mul c f\n  in (g,) }',
    ('argmax', 'jvp'): '{ lambda ; a:f32[3]. let\n    b:i32[] = argmax[axes=(0,) index_dtype=int32] a\n    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    d:f32[3] = add c a\n  in (d, a) }',
    ('argmax', 'vjp'): '{ lambda ; a:f32[3]. let\n    b:i32[] = argmax[axes=(0,) index_dtype=int32] a\n    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    _:f32[3] = add c a\n    d:i32[] = argmax[axes=(0,) index_dtype=int32] a\n    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n    f:f32[3] = add e a\n  in (f,) }',
    ('add', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = add a b\n    d:f32[3] = add a b\n  in (c, d) }',
    ('add', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[3] = add a b\n    c:f32[3] = add a b\n  in (c, c) }',
    ('sub', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = sub a b\n    d:f32[3] = sub a b\n  in (c, d) }',
    ('sub', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[3] = sub a b\n    c:f32[3] = sub a b\n    d:f32[3] = neg c\n  in (c, d) }',
    ('mul', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = mul a b\n    d:f32[3] = mul a b\n    e:f32[3] = mul a b\n    f:f32[3] = add_any d e\n  in (c, f) }',
    ('mul', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[3] = mul a b\n    c:f32[3] = mul a b\n    d:f32[3] = mul a c\n    e:f32[3] = mul c b\n  in (e, d) }',
    ('div', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = div a b\n    d:f32[3] = div a b\n    e:f32[3] = neg b\n    f:f32[3] = mul e a\n    g:f32[3] = integer_pow[y=-2] b\n    h:f32[3] = mul f g\n    i:f32[3] = add_any d h\n  in (c, i) }',
    ('div', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[3] = div a b\n    c:f32[3] = integer_pow[y=-2] b\n    d:f32[3] = div a b\n    e:f32[3] = mul d c\n    f:f32[3] = mul e a\n    g:f32[3] = neg f\n    h:f32[3] = div d b\n  in (h, g) }',
    ('rem', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = rem a b\n    d:f32[3] = neg b\n    e:f32[3] = div a b\n    f:f32[3] = sign e\n    g:f32[3] = div a b\n    h:f32[3] = abs g\n    i:f32[3] = floor h\n    j:f32[3] = mul f i\n    k:f32[3] = mul d j\n    l:f32[3] = add_any a k\n  in (c, l) }',
    ('rem', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[3] = rem a b\n    c:f32[3] = div a b\n    d:f32[3] = sign c\n    e:f32[3] = div a b\n    f:f32[3] = abs e\n    g:f32[3] = floor f\n    h:f32[3] = mul d g\n    i:f32[3] = rem a b\n    j:f32[3] = mul i h\n    k:f32[3] = neg j\n  in (i, k) }',
    ('pow', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = pow a b\n    d:f32[3] = broadcast_in_dim 1.0:f32[]\n    e:f32[3] = sub b d\n    f:f32[3] = pow a e\n    g:f32[3] = mul b f\n    h:f32[3] = mul a g\n    i:bool[3] = eq a 0.0:f32[]\n    j:f32[3] = broadcast_in_dim 1.0:f32[]\n    k:f32[3] = select_n i a j\n    l:f32[3] = log k\n    m:f32[3] = mul l c\n    n:f32[3] = mul b m\n    o:f32[3] = add_any h n\n  in (c, o) }',
    ('pow', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = pow a b\n    d:f32[3] = broadcast_in_dim 1.0:f32[]\n    e:f32[3] = sub b d\n    f:f32[3] = pow a e\n    g:f32[3] = mul b f\n    h:bool[3] = eq a 0.0:f32[]\n    i:f32[3] = broadcast_in_dim 1.0:f32[]\n    j:f32[3] = select_n h a i\n    k:f32[3] = log j\n    l:f32[3] = mul k c\n    m:f32[3] = pow a b\n    n:f32[3] = mul m l\n    o:f32[3] = mul m g\n  in (o, n) }',
    ('max', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = max a b\n    d:bool[3] = eq a c\n    e:f32[3] = broadcast_in_dim 1.0:f32[]\n    f:f32[3] = broadcast_in_dim 0.0:f32[]\n    g:f32[3] = select_n d f e\n    h:bool[3] = eq b c\n    i:f32[3] = broadcast_in_dim 2.0:f32[]\n    j:f32[3] = broadcast_in_dim 1.0:f32[]\n    k:f32[3] = select_n h j i\n    l:f32[3] = div g k\n    m:f32[3] = mul a l\n    n:bool[3] = eq b c\n    o:f32[3] = broadcast_in_dim 1.0:f32[]\n    p:f32[3] = broadcast_in_dim 0.0:f32[]\n    q:f32[3] = select_n n p o\n    r:bool[3] = eq a c\n    s:f32[3] = broadcast_in_dim 2.0:f32[]\n    t:f32[3] = broadcast_in_dim 1.0:f32[]\n    u:f32[3] = select_n r t s\n    v:f32[3] = div q u\n    w:f32[3] = mul b v\n    x:f32[3] = add_any m w\n  in (c, x) }',
    ('max', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = max a b\n    d:bool[3] = eq a c\n    e:f32[3] = broadcast_in_dim 1.0:f32[]\n    f:f32[3] = broadcast_in_dim 0.0:f32[]\n    g:f32[3] = select_n d f e\n    h:bool[3] = eq b c\n    i:f32[3] = broadcast_in_dim 2.0:f32[]\n    j:f32[3] = broadcast_in_dim 1.0:f32[]\n    k:f32[3] = select_n h j i\n    l:f32[3] = div g k\n    m:bool[3] = eq b c\n    n:f32[3] = broadcast_in_dim 1.0:f32[]\n    o:f32[3] = broadcast_in_dim 0.0:f32[]\n    p:f32[3] = select_n m o n\n    q:bool[3] = eq a c\n    r:f32[3] = broadcast_in_dim 2.0:f32[]\n    s:f32[3] = broadcast_in_dim 1.0:f32[]\n    t:f32[3] = select_n q s r\n    u:f32[3] = div p t\n    v:f32[3] = max a b\n    w:f32[3] = mul v u\n    x:f32[3] = mul v l\n  in (x, w) }',
    ('min', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = min a b\n    d:bool[3] = eq a c\n    e:f32[3] = broadcast_in_dim 1.0:f32[]\n    f:f32[3] = broadcast_in_dim 0.0:f32[]\n    g:f32[3] = select_n d f e\n    h:bool[3] = eq b c\n    i:f32[3] = broadcast_in_dim 2.0:f32[]\n    j:f32[3] = broadcast_in_dim 1.0:f32[]\n    k:f32[3] = select_n h j i\n    l:f32[3] = div g k\n    m:f32[3] = mul a l\n    n:bool[3] = eq b c\n    o:f32[3] = broadcast_in_dim 1.0:f32[]\n    p:f32[3] = broadcast_in_dim 0.0:f32[]\n    q:f32[3] = select_n n p o\n    r:bool[3] = eq a c\n    s:f32[3] = broadcast_in_dim 2.0:f32[]\n    t:f32[3] = broadcast_in_dim 1.0:f32[]\n    u:f32[3] = select_n r t s\n    v:f32[3] = div q u\n    w:f32[3] = mul b v\n    x:f32[3] = add_any m w\n  in (c, x) }',
    ('min', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = min a b\n    d:bool[3] = eq a c\n    e:f32[3] = broadcast_in_dim 1.0:f32[]\n    f:f32[3] = broadcast_in_dim 0.0:f32[]\n    g:f32[3] = select_n d f e\n    h:bool[3] = eq b c\n    i:f32[3] = broadcast_in_dim 2.0:f32[]\n    j:f32[3] = broadcast_in_dim 1.0:f32[]\n    k:f32[3] = select_n h j i\n    l:f32[3] = div g k\n    m:bool[3] = eq b c\n    n:f32[3] = broadcast_in_dim 1.0:f32[]\n    o:f32[3] = broadcast_in_dim 0.0:f32[]\n    p:f32[3] = select_n m o n\n    q:bool[3] = eq a c\n    r:f32[3] = broadcast_in_dim 2.0:f32[]\n    s:f32[3] = broadcast_in_dim 1.0:f32[]\n    t:f32[3] = select_n q s r\n    u:f32[3] = div p t\n    v:f32[3] = min a b\n    w:f32[3] = mul v u\n    x:f32[3] = mul v l\n  in (x, w) }',
    ('atan2', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = atan2 a b\n    d:f32[3] = square a\n    e:f32[3] = square b\n    f:f32[3] = add d e\n    g:f32[3] = div b f\n    h:f32[3] = mul a g\n    i:f32[3] = neg a\n    j:f32[3] = square a\n    k:f32[3] = square b\n    l:f32[3] = add j k\n    m:f32[3] = div i l\n    n:f32[3] = mul b m\n    o:f32[3] = add_any h n\n  in (c, o) }',
    ('atan2', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[3] = atan2 a b\n    c:f32[3] = square a\n    d:f32[3] = square b\n    e:f32[3] = add c d\n    f:f32[3] = div b e\n    g:f32[3] = neg a\n    h:f32[3] = square a\n    i:f32[3] = square b\n    j:f32[3] = add h i\n    k:f32[3] = div g j\n    l:f32[3] = atan2 a b\n    m:f32[3] = mul l k\n    n:f32[3] = mul l f\n  in (n, m) }',
    ('select', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:bool[3] = gt a b\n    d:f32[3] = select_n c b a\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    e:f32[3] = select_n c b a\n  in (d, e) }',
    ('select', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:bool[3] = gt a b\n    _:f32[3] = select_n c b a\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    d:bool[3] = gt a b\n    e:f32[3] = select_n d b a\n    f:f32[3] = broadcast_in_dim 0.0:f32[]\n    g:f32[3] = select_n c e f\n    h:f32[3] = select_n c f e\n  in (h, g) }',
    ('clamp', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = clamp 0.4:f32[] a b\n    d:bool[3] = gt a 0.4:f32[]\n    e:bool[3] = lt a b\n    f:bool[3] = and d e\n    g:f32[3] = broadcast_in_dim 0.0:f32[]\n    h:f32[3] = select_n f g a\n    i:bool[3] = lt b a\n    j:f32[3] = broadcast_in_dim 0.0:f32[]\n    k:f32[3] = select_n i j b\n    l:f32[3] = add_any h k\n  in (c, l) }',
    ('clamp', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[3] = clamp 0.4:f32[] a b\n    c:bool[3] = gt a 0.4:f32[]\n    d:bool[3] = lt a b\n    e:bool[3] = and c d\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    f:bool[3] = lt b a\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    g:f32[3] = clamp 0.4:f32[] a b\n    h:f32[3] = broadcast_in_dim 0.0:f32[]\n    i:f32[3] = select_n f h g\n    j:f32[3] = broadcast_in_dim 0.0:f32[]\n    k:f32[3] = select_n e j g\n  in (k, i) }',
    ('dus', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=None] b\n    d:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=None] b\n    e:f32[3] = dynamic_update_slice a c 1:i32[]\n    f:f32[3] = dynamic_update_slice a d 1:i32[]\n  in (e, f) }',
    ('dus', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=None] b\n    _:f32[3] = dynamic_update_slice a c 1:i32[]\n    d:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=None] b\n    e:f32[3] = dynamic_update_slice a d 1:i32[]\n    f:f32[2] = broadcast_in_dim 0.0:f32[]\n    g:f32[3] = dynamic_update_slice e f 1:i32[]\n    h:f32[2] = dynamic_slice[slice_sizes=(2,)] e 1:i32[]\n    i:f32[3] = pad[padding_config=((0, np.int64(1), 0),)] h 0.0:f32[]\n  in (g, i) }',
    ('dot', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[] = dot_general[dimension_numbers=(([0], [0]), ([], []))] a b\n    d:f32[] = dot_general[dimension_numbers=(([0], [0]), ([], []))] a b\n    e:f32[] = dot_general[dimension_numbers=(([0], [0]), ([], []))] a b\n    f:f32[] = add_any d e\n  in (c, f) }',
    ('dot', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[] = dot_general[dimension_numbers=(([0], [0]), ([], []))] a b\n    c:f32[] = dot_general[dimension_numbers=(([0], [0]), ([], []))] a b\n    d:f32[3] = dot_general[dimension_numbers=(([], []), ([], []))] c a\n    e:f32[3] = dot_general[dimension_numbers=(([], []), ([], []))] c b\n  in (e, d) }',
    ('outer', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3,3] = dot_general[dimension_numbers=(([], []), ([], []))] a b\n    d:f32[3,3] = dot_general[dimension_numbers=(([], []), ([], []))] a b\n    e:f32[3,3] = dot_general[dimension_numbers=(([], []), ([], []))] a b\n    f:f32[3,3] = add_any d e\n  in (c, f) }',
    ('outer', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[3,3] = dot_general[dimension_numbers=(([], []), ([], []))] a b\n    c:f32[3,3] = dot_general[dimension_numbers=(([], []), ([], []))] a b\n    d:f32[3] = dot_general[dimension_numbers=(([0], [0]), ([], []))] c a\n    e:f32[3] = dot_general[dimension_numbers=(([1], [0]), ([], []))] c b\n  in (e, d) }',
    ('concat', 'jvp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[6] = concatenate[dimension=0] a b\n    d:f32[6] = concatenate[dimension=0] a b\n  in (c, d) }',
    ('concat', 'vjp'): '{ lambda ; a:f32[3] b:f32[3]. let\n    _:f32[6] = concatenate[dimension=0] a b\n    c:f32[6] = concatenate[dimension=0] a b\n    d:f32[3] e:f32[3] = split[axis=0 sizes=(3, 3)] c\n  in (d, e) }',
    ('transpose', 'jvp'): '{ lambda ; a:f32[2,3]. let\n    b:f32[3,2] = transpose[permutation=(1, 0)] a\n    c:f32[3,2] = transpose[permutation=(1, 0)] a\n  in (b, c) }',
    ('transpose', 'vjp'): '{ lambda ; a:f32[2,3]. let\n    _:f32[3,2] = transpose[permutation=(1, 0)] a\n    b:f32[3,2] = transpose[permutation=(1, 0)] a\n    c:f32[2,3] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    ('squeeze', 'jvp'): '{ lambda ; a:f32[2,3]. let\n    b:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n    c:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n    d:f32[3] = squeeze[dimensions=(0,)] b\n    e:f32[3] = squeeze[dimensions=(0,)] c\n  in (d, e) }',
    ('squeeze', 'vjp'): '{ lambda ; a:f32[2,3]. let\n    b:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n    _:f32[3] = squeeze[dimensions=(0,)] b\n    c:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n    d:f32[3] = squeeze[dimensions=(0,)] c\n    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] d\n    f:f32[2,3] = pad[padding_config=((0, np.int64(1), 0), (0, np.int64(0), 0))] e\n      0.0:f32[]\n  in (f,) }',
    ('matvec', 'jvp'): '{ lambda ; a:f32[2,3]. let\n    b:f32[3] = broadcast_in_dim 1.0:f32[]\n    c:f32[2] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b\n    d:f32[2] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b\n  in (c, d) }',
    ('matvec', 'vjp'): '{ lambda ; a:f32[2,3]. let\n    b:f32[3] = broadcast_in_dim 1.0:f32[]\n    _:f32[2] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b\n    c:f32[3] = broadcast_in_dim 1.0:f32[]\n    d:f32[2] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a c\n    e:f32[2,3] = dot_general[dimension_numbers=(([], []), ([], []))] d b\n  in (e,) }',
    ('reduce_sum1', 'jvp'): '{ lambda ; a:f32[2,3]. let\n    b:f32[2] = reduce_sum[axes=(1,) out_sharding=None] a\n    c:f32[2] = reduce_sum[axes=(1,) out_sharding=None] a\n  in (b, c) }',
    ('reduce_sum1', 'vjp'): '{ lambda ; a:f32[2,3]. let\n    _:f32[2] = reduce_sum[axes=(1,) out_sharding=None] a\n    b:f32[2] = reduce_sum[axes=(1,) out_sharding=None] a\n    c:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(0),)] b\n  in (c,) }',
    ('reduce_max1', 'jvp'): '{ lambda ; a:f32[2,3]. let\n    b:f32[2] = reduce_max[axes=(1,)] a\n    c:f32[2,1] = reshape[dimensions=None new_sizes=(2, 1) sharding=None] b\n    d:bool[2,3] = eq a c\n    e:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] d\n    f:f32[2] = reduce_sum[axes=(1,) out_sharding=None] e\n    g:f32[2,3] = mul a e\n    h:f32[2] = reduce_sum[axes=(1,) out_sharding=None] g\n    i:f32[2] = div h f\n  in (b, i) }',
    ('reduce_max1', 'vjp'): '{ lambda ; a:f32[2,3]. let\n    b:f32[2] = reduce_max[axes=(1,)] a\n    c:f32[2,1] = reshape[dimensions=None new_sizes=(2, 1) sharding=None] b\n    d:bool[2,3] = eq a c\n    e:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] d\n    f:f32[2] = reduce_sum[axes=(1,) out_sharding=None] e\n    g:f32[2] = reduce_max[axes=(1,)] a\n    h:f32[2] = div g f\n    i:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(0),)] h\n    j:f32[2,3] = mul i e\n  in (j,) }',
    ('slice2', 'jvp'): '{ lambda ; a:f32[2,3]. let\n    b:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 1) strides=(1, 2)] a\n    c:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 1) strides=(1, 2)] a\n  in (b, c) }',
    ('slice2', 'vjp'): '{ lambda ; a:f32[2,3]. let\n    _:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 1) strides=(1, 2)] a\n    b:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 1) strides=(1, 2)] a\n    c:f32[2,3] = pad[\n      padding_config=((0, np.int64(0), np.int64(0)), (1, np.int64(1), np.int64(1)))\n    ] b 0.0:f32[]\n  in (c,) }',
}
API_JAXPRS = {
    'grad_sin_mul': ('jax.grad(lambda x: jnp.sin(x) * x)', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    c:f32[] = cos a\n    _:f32[] = mul b a\n    d:f32[] = mul b 1.0:f32[]\n    e:f32[] = mul 1.0:f32[] a\n    f:f32[] = mul e c\n    g:f32[] = add_any d f\n  in (g,) }'),
    'grad_sum': ('jax.grad(lambda x: jnp.sum(jnp.sin(x) * 2.0))', '(jnp.ones(3),)',
     '{ lambda ; a:f32[3]. let\n    b:f32[3] = sin a\n    c:f32[3] = cos a\n    d:f32[3] = mul b 2.0:f32[]\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] d\n    e:f32[3] = broadcast_in_dim 1.0:f32[]\n    f:f32[3] = mul e 2.0:f32[]\n    g:f32[3] = mul f c\n  in (g,) }'),
    'grad_dot': ('jax.grad(lambda w, x: jnp.sum(jnp.dot(x, w)))', '(jnp.ones((3, 2)), jnp.ones((4, 3)))',
     '{ lambda ; a:f32[3,2] b:f32[4,3]. let\n    c:f32[4,2] = dot_general[\n      dimension_numbers=(([1], [0]), ([], []))\n      preferred_element_type=float32\n    ] b a\n    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c\n    d:f32[4,2] = broadcast_in_dim 1.0:f32[]\n    e:f32[2,3] = dot_general[\n      dimension_numbers=(([0], [0]), ([], []))\n      preferred_element_type=float32\n    ] d b\n    f:f32[3,2] = transpose[permutation=(1, 0)] e\n  in (f,) }'),
    'jvp_sin': ('lambda x: jax.jvp(jnp.sin, (x,), (x,))', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    c:f32[] = cos a\n    d:f32[] = mul a c\n  in (b, d) }'),
    'grad_grad_sin': ('jax.grad(jax.grad(jnp.sin))', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    _:f32[] = sin a\n    _:f32[] = cos a\n    b:f32[] = cos a\n    c:f32[] = sin a\n    _:f32[] = mul 1.0:f32[] b\n    d:f32[] = mul 1.0:f32[] 1.0:f32[]\n    e:f32[] = neg d\n    f:f32[] = mul e c\n  in (f,) }'),
    'grad_jit_sin': ('jax.grad(jax.jit(jnp.sin))', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    _:f32[] b:f32[] = jit[\n      name=sin\n      jaxpr={ lambda ; a:f32[]. let _:f32[] = sin a; b:f32[] = cos a in (_, b) }\n    ] a\n    c:f32[] = jit[\n      name=sin\n      jaxpr={ lambda ; b:f32[] d:f32[]. let c:f32[] = mul d b in (c,) }\n    ] b 1.0:f32[]\n  in (c,) }'),
    'grad_jit_square': ('jax.grad(lambda x: jax.jit(lambda y: y * y)(x) + 1.0)', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] = jit[\n      name=<lambda>\n      jaxpr={ lambda ; a:f32[]. let b:f32[] = mul a a in (b,) }\n    ] a\n    _:f32[] = add b 1.0:f32[]\n    c:f32[] = jit[\n      name=<lambda>\n      jaxpr={ lambda ; a:f32[] d:f32[]. let\n          e:f32[] = mul a d\n          f:f32[] = mul d a\n          c:f32[] = add_any e f\n        in (c,) }\n    ] a 1.0:f32[]\n  in (c,) }'),
    'vg_cube': ('jax.value_and_grad(lambda x: x ** 3)', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] = integer_pow[y=3] a\n    c:f32[] = integer_pow[y=2] a\n    d:f32[] = mul 3.0:f32[] c\n    e:f32[] = mul 1.0:f32[] d\n  in (b, e) }'),
    'stop_gradient': ('jax.grad(lambda x: lax.stop_gradient(x) * x)', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] = stop_gradient a\n    _:f32[] = mul b a\n    c:f32[] = mul b 1.0:f32[]\n  in (c,) }'),
    'jvp_jit': ('lambda x: jax.jvp(jax.jit(jnp.sin), (x,), (x,))', '(1.0,)',
     '{ lambda ; a:f32[]. let\n    b:f32[] c:f32[] = jit[\n      name=sin\n      jaxpr={ lambda ; a:f32[] d:f32[]. let\n          b:f32[] = sin a\n          e:f32[] = cos a\n          c:f32[] = mul d e\n        in (b, c) }\n    ] a a\n  in (b, c) }'),
    'grad_slice': ('jax.grad(lambda x: jnp.sum(x * 2.0) + jnp.sum(x[1:]))', '(jnp.ones(3),)',
     '{ lambda ; a:f32[3]. let\n    b:f32[3] = mul a 2.0:f32[]\n    c:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n    d:f32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=None] a\n    e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d\n    _:f32[] = add c e\n    f:f32[2] = broadcast_in_dim 1.0:f32[]\n    g:f32[3] = pad[padding_config=((1, np.int64(0), 0),)] f 0.0:f32[]\n    h:f32[3] = broadcast_in_dim 1.0:f32[]\n    i:f32[3] = mul h 2.0:f32[]\n    j:f32[3] = add_any g i\n  in (j,) }'),
    'grad_bcast_mul': ('lambda x, y: jax.grad(lambda a, b: jnp.sum(lax.mul(a, b)), argnums=(0, 1))(x, y)', '(jnp.ones((3, 1)), jnp.ones((1, 2)))',
     '{ lambda ; a:f32[3,1] b:f32[1,2]. let\n    c:f32[3,2] = mul a b\n    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c\n    d:f32[3,2] = broadcast_in_dim 1.0:f32[]\n    e:f32[3,2] = mul a d\n    f:f32[2] = reduce_sum[axes=(0,) out_sharding=None] e\n    g:f32[1,2] = reshape[dimensions=None new_sizes=(1, 2) sharding=None] f\n    h:f32[3,2] = mul d b\n    i:f32[3] = reduce_sum[axes=(1,) out_sharding=None] h\n    j:f32[3,1] = reshape[dimensions=None new_sizes=(3, 1) sharding=None] i\n  in (j, g) }'),
    'grad_const': ('jax.grad(lambda x: 2.0)', '(1.0,)',
     '{ lambda ; a:f32[]. let  in (0.0:f32[],) }'),
    'grad_max': ('jax.grad(lambda x: jnp.sum(jnp.maximum(x, 0.5)))', '(jnp.ones(3),)',
     '{ lambda ; a:f32[3]. let\n    b:f32[3] = max a 0.5:f32[]\n    c:bool[3] = eq a b\n    d:f32[3] = broadcast_in_dim 1.0:f32[]\n    e:f32[3] = broadcast_in_dim 0.0:f32[]\n    f:f32[3] = select_n c e d\n    g:bool[3] = eq 0.5:f32[] b\n    h:f32[3] = broadcast_in_dim 2.0:f32[]\n    i:f32[3] = broadcast_in_dim 1.0:f32[]\n    j:f32[3] = select_n g i h\n    k:f32[3] = div f j\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n    l:f32[3] = broadcast_in_dim 1.0:f32[]\n    m:f32[3] = mul l k\n  in (m,) }'),
    'grad_reduce_max': ('jax.grad(lambda x: jnp.max(x))', '(jnp.ones(3),)',
     '{ lambda ; a:f32[3]. let\n    b:f32[] = reduce_max[axes=(0,)] a\n    c:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] b\n    d:bool[3] = eq a c\n    e:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] d\n    f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e\n    g:f32[] = div 1.0:f32[] f\n    h:f32[3] = broadcast_in_dim g\n    i:f32[3] = mul h e\n  in (i,) }'),
    'grad_concat': ('jax.grad(lambda x: jnp.sum(jnp.concatenate([x, x * 2.0])))', '(jnp.ones(3),)',
     '{ lambda ; a:f32[3]. let\n    b:f32[3] = mul a 2.0:f32[]\n    c:f32[6] = concatenate[dimension=0] a b\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    d:f32[6] = broadcast_in_dim 1.0:f32[]\n    e:f32[3] f:f32[3] = split[axis=0 sizes=(3, 3)] d\n    g:f32[3] = mul f 2.0:f32[]\n    h:f32[3] = add_any e g\n  in (h,) }'),
    'grad_where': ('jax.grad(lambda x: jnp.where(x > 0, x, 0.0).sum())', '(jnp.ones(3),)',
     '{ lambda ; a:f32[3]. let\n    b:bool[3] = gt a 0.0:f32[]\n    c:f32[3] d:f32[3] = jit[\n      name=_where\n      jaxpr={ lambda ; b:bool[3] a:f32[3] e:f32[]. let\n          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e\n          g:f32[3] = broadcast_in_dim f\n          c:f32[3] = select_n b g a\n          d:f32[3] = broadcast_in_dim 0.0:f32[]\n        in (c, d) }\n    ] b a 0.0:f32[]\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    h:f32[3] = broadcast_in_dim 1.0:f32[]\n    i:f32[3] = jit[\n      name=_where\n      jaxpr={ lambda ; b:bool[3] d:f32[3] h:f32[3]. let\n          j:f32[3] = broadcast_in_dim 0.0:f32[]\n          i:f32[3] = select_n b j h\n        in (i,) }\n    ] b d h\n  in (i,) }'),
}


@pytest.mark.parametrize("name,kind", sorted(PRIM_JAXPRS))
def test_primitive_jaxprs_match_jax(name, kind):
    f, args = _case(name)
    if kind == 'jvp':
        j = jax.make_jaxpr(lambda *a: jax.jvp(f, a, a))(*args)
    else:
        j = jax.make_jaxpr(lambda *a: jax.vjp(f, *a)[1](f(*a)))(*args)
    assert str(j) == PRIM_JAXPRS[(name, kind)]


@pytest.mark.parametrize("name", sorted(API_JAXPRS))
def test_api_jaxprs_match_jax(name):
    fun, args, expected = API_JAXPRS[name]
    assert str(jax.make_jaxpr(eval(fun))(*eval(args))) == expected


# --------------------------------------------------------------------------
# Numerical checks: float32 derivatives against float64 central differences

NUMPY_UNARY = {
    'neg': (lax.neg, np.negative, x3), 'exp': (lax.exp, np.exp, x3),
    'exp2': (lax.exp2, np.exp2, x3), 'log': (lax.log, np.log, x3),
    'log1p': (lax.log1p, np.log1p, x3), 'expm1': (lax.expm1, np.expm1, x3),
    'tanh': (lax.tanh, np.tanh, x3), 'logistic': (lax.logistic, lambda x: 1 / (1 + np.exp(-x)), x3),
    'sin': (lax.sin, np.sin, x3), 'cos': (lax.cos, np.cos, x3), 'tan': (lax.tan, np.tan, x3),
    'asin': (lax.asin, np.arcsin, x3), 'acos': (lax.acos, np.arccos, x3),
    'atan': (lax.atan, np.arctan, x3), 'sinh': (lax.sinh, np.sinh, x3),
    'cosh': (lax.cosh, np.cosh, x3), 'asinh': (lax.asinh, np.arcsinh, x3),
    'acosh': (lax.acosh, np.arccosh, x3 + 1.5), 'atanh': (lax.atanh, np.arctanh, x3),
    'sqrt': (lax.sqrt, np.sqrt, x3), 'rsqrt': (lax.rsqrt, lambda x: 1 / np.sqrt(x), x3),
    'cbrt': (lax.cbrt, np.cbrt, x3), 'square': (lax.square, np.square, x3),
    'abs': (lax.abs, np.abs, x3 - 0.45), 'integer_pow': (lambda x: lax.integer_pow(x, 3),
                                                        lambda x: x ** 3, x3),
    'erf': (lax.erf, None, x3), 'reduce_max': (lambda x: lax.reduce_max(x, (0,)), np.max, x3),
    'reduce_min': (lambda x: lax.reduce_min(x, (0,)), np.min, x3),
    'reduce_prod': (lambda x: lax.reduce_prod(x, (0,)), np.prod, x3),
    'reduce_prod_zero': (lambda x: lax.reduce_prod(x, (0,)), np.prod,
                         np.array([0.5, 0.0, 2.0, 3.0, 1.5], np.float32)),
    'reduce_sum2d': (lambda x: lax.reduce_sum(x, (1,)), lambda x: x.sum(1), m23),
    'transpose': (lambda x: lax.transpose(x, (1, 0)), lambda x: x.T, m23),
    'pad': (lambda x: lax.pad(x, 0.0, ((1, 2, 1), (0, -1, 0))),
            lambda x: np.pad(np.stack([x[0], np.zeros(3), x[1]])[:, :2], ((1, 2), (0, 0))), m23),
    'slice_strided': (lambda x: lax.slice(x, (0, 1), (2, 3), (1, 2)), lambda x: x[:, 1:3:2], m23),
    'rev': (lambda x: lax.rev(x, (1,)), lambda x: x[:, ::-1], m23),
    'bcast': (lambda x: lax.broadcast_in_dim(x, (4, 3), (1,)),
              lambda x: np.broadcast_to(x, (4, 3)), x3),
    'dyn_slice': (lambda x: lax.dynamic_slice(x, (1, 1), (1, 2)), lambda x: x[1:2, 1:3], m23),
    'concat': (lambda x: lax.concatenate([x, lax.sin(x)], 0),
               lambda x: np.concatenate([x, np.sin(x)]), x3),
}


def _erf(x):
    import math
    return np.vectorize(math.erf)(x)


NUMPY_UNARY['erf'] = (lax.erf, _erf, x3)


def _fd_jacobian(f, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    y0 = np.asarray(f(x), np.float64)
    jac = np.zeros(y0.shape + x.shape)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        jac[(...,) + i] = (np.asarray(f(x + d)) - np.asarray(f(x - d))) / (2 * eps)
    return jac


@pytest.mark.parametrize("name", sorted(NUMPY_UNARY))
def test_derivatives_match_finite_differences(name):
    f, fnp, x = NUMPY_UNARY[name]
    expected = _fd_jacobian(fnp, x)
    fwd = np.asarray(jax.jacfwd(f)(x))
    rev = np.asarray(jax.jacrev(f)(x))
    np.testing.assert_allclose(fwd, expected, rtol=2e-3, atol=2e-4)
    np.testing.assert_allclose(rev, expected, rtol=2e-3, atol=2e-4)


NUMPY_BINARY = {
    'add': (lax.add, np.add), 'sub': (lax.sub, np.subtract), 'mul': (lax.mul, np.multiply),
    'div': (lax.div, np.divide), 'pow': (lax.pow, np.power), 'atan2': (lax.atan2, np.arctan2),
    'max': (lax.max, np.maximum), 'min': (lax.min, np.minimum), 'rem': (lax.rem, np.fmod),
    'dot': (lambda a, b: lax.dot_general(a, b, (((0,), (0,)), ((), ()))), np.dot),
    'select': (lambda a, b: lax.select(a > b, a, b), lambda a, b: np.where(a > b, a, b)),
    'clamp': (lambda a, b: lax.clamp(0.4, a, b), lambda a, b: np.minimum(np.maximum(a, 0.4), b)),
    'dus': (lambda a, b: lax.dynamic_update_slice(a, b[:2], (1,)),
            lambda a, b: np.concatenate([a[:1], b[:2]])),
}


@pytest.mark.parametrize("name", sorted(NUMPY_BINARY))
def test_binary_derivatives_match_finite_differences(name):
    f, fnp = NUMPY_BINARY[name]
    x, y = x3, np.array([0.45, 0.35, 0.9], np.float32)
    for argnum in (0, 1):
        if argnum == 0:
            expected = _fd_jacobian(lambda v: fnp(v, y.astype(np.float64)), x)
        else:
            expected = _fd_jacobian(lambda v: fnp(x.astype(np.float64), v), y)
        got = np.asarray(jax.jacrev(f, argnums=argnum)(x, y))
        np.testing.assert_allclose(got, expected, rtol=2e-3, atol=2e-4)
        got = np.asarray(jax.jacfwd(f, argnums=argnum)(x, y))
        np.testing.assert_allclose(got, expected, rtol=2e-3, atol=2e-4)


def test_matmul_gradients():
    w = np.arange(6, dtype=np.float32).reshape(3, 2) / 5
    xs = np.arange(12, dtype=np.float32).reshape(4, 3) / 7
    gw, gx = jax.grad(lambda w, x: jnp.sum(jnp.tanh(x @ w)), argnums=(0, 1))(w, xs)
    t = 1 - np.tanh(xs.astype(np.float64) @ w) ** 2
    np.testing.assert_allclose(gw, xs.T @ t, rtol=1e-5)
    np.testing.assert_allclose(gx, t @ w.T, rtol=1e-5)


def test_batched_dot_general_gradients():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    b = np.arange(40, dtype=np.float32).reshape(2, 4, 5) / 10
    f = lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))))  # noqa: E731
    ga, gb = jax.grad(lambda a, b: jnp.sum(f(a, b) ** 2), argnums=(0, 1))(a, b)
    out = np.einsum('bij,bjk->bik', a, b)
    np.testing.assert_allclose(ga, np.einsum('bik,bjk->bij', 2 * out, b), rtol=1e-5)
    np.testing.assert_allclose(gb, np.einsum('bij,bik->bjk', a, 2 * out), rtol=1e-5)


# --------------------------------------------------------------------------
# The API on pytrees, options and composition


def _same(x, value, dtype=np.float32, weak=None):
    assert np.asarray(x).dtype == dtype
    np.testing.assert_allclose(np.asarray(x), value, rtol=1e-6)
    if weak is not None:
        assert x.weak_type is weak


def test_grad_values_and_weak_types():
    _same(jax.grad(lambda x: x * x)(3.0), 6.0, weak=True)
    _same(jax.grad(lambda x: x * x)(np.float64(3.0)), 6.0, weak=False)
    _same(jax.grad(lambda x: 2.0)(3.0), 0.0, weak=True)
    _same(jax.grad(lambda x: jnp.sum(jnp.ones(2)))(jnp.ones(3)), np.zeros(3), weak=False)
    _same(jax.grad(jnp.sqrt)(2.0), 0.35355338, weak=True)
    assert repr(jax.grad(lambda x: x * x)(3.0)) == "Array(6., dtype=float32, weak_type=True)"


def test_grad_pytrees_argnums_aux():
    g = jax.grad(lambda p: p['a'] * p['b'][0])({'a': 2.0, 'b': [3.0, 1.0]})
    assert set(g) == {'a', 'b'}
    _same(g['a'], 3.0)
    _same(g['b'][0], 2.0)
    _same(g['b'][1], 0.0)
    gx, gy = jax.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 3.0)
    _same(gx, 3.0)
    _same(gy, 2.0)
    _same(jax.grad(lambda x, y: x * y, argnums=-1)(1.0, 3.0), 1.0)
    g, aux = jax.grad(lambda x: (x * x, {'a': x}), has_aux=True)(3.0)
    _same(g, 6.0)
    np.testing.assert_allclose(aux['a'], 3.0)
    (v, aux), g = jax.value_and_grad(lambda x: (x ** 3, x + 1), has_aux=True)(2.0)
    _same(v, 8.0)
    _same(g, 12.0)
    np.testing.assert_allclose(aux, 3.0)


def test_allow_int_and_holomorphic():
    gx, gi = jax.grad(lambda x, i: x * i, argnums=(0, 1), allow_int=True)(2.0, 3)
    _same(gx, 3.0)
    assert gi.dtype.names == ('float0',) and gi.shape == ()
    z = jax.grad(lambda x: x * x, holomorphic=True)(1.0 + 1j)
    assert np.asarray(z).dtype == np.complex64
    np.testing.assert_allclose(z, 2 + 2j)
    np.testing.assert_allclose(jax.grad(lambda x: jnp.real(x))(1j), 1 + 0j)


def test_higher_order():
    x = 0.7
    np.testing.assert_allclose(jax.grad(jax.grad(jnp.sin))(x), -np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.grad(jax.grad(jnp.tanh)))(x),
                               -2 * (1 - 4 * np.tanh(x) ** 2 + 3 * np.tanh(x) ** 4)
                               / 1, rtol=1e-5)
    h = jax.hessian(lambda v: jnp.sum(v ** 3))(jnp.arange(3.0))
    np.testing.assert_allclose(h, np.diag(6 * np.arange(3.0)))
    jr = jax.jacrev(lambda v: {'a': v * v})(jnp.arange(2.0))
    np.testing.assert_allclose(jr['a'], np.diag([0.0, 2.0]))


def test_jit_composition():
    f = lambda x: x * jnp.sin(x)  # noqa: E731
    expected = np.sin(2.0) + 2.0 * np.cos(2.0)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(2.0), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.jit(f))(2.0), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.grad(jax.jit(jnp.sin)))(0.3), -np.sin(0.3), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(jax.jit(f)))(2.0), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jvp(jax.jit(f), (2.0,), (1.0,))[1], expected, rtol=1e-6)


def test_vmap_composition():
    xs = np.arange(3.0, dtype=np.float32)
    np.testing.assert_allclose(jax.vmap(jax.grad(jnp.sin))(xs), np.cos(xs), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda v: jnp.sum(jax.vmap(jnp.sin)(v)))(xs), np.cos(xs),
                               rtol=1e-6)


def test_jvp_linearize_vjp():
    y, t = jax.jvp(lambda x: x * x, (3.0,), (1.0,))
    _same(y, 9.0)
    _same(t, 6.0)
    y, f_jvp = jax.linearize(lambda x: jnp.sin(x) * x, 2.0)
    np.testing.assert_allclose(f_jvp(1.0), np.sin(2.0) + 2 * np.cos(2.0), rtol=1e-6)
    out, pull = jax.vjp(lambda x, y: (x * y, x + y), 2.0, 3.0)
    gx, gy = pull((1.0, 1.0))
    _same(gx, 4.0)
    _same(gy, 3.0)
    _, pull = jax.vjp(lambda x, i: x * i, 2.0, 3)
    assert pull(1.0)[1].dtype.names == ('float0',)


def test_faq_where_nan_and_double_where():
    # the untaken branch's NaN gradient leaks through where...
    assert np.isnan(jax.grad(lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0))(0.0))

    # ...unless the input of the unsafe branch is made safe too.
    def safe(x):
        x_safe = jnp.where(x > 0, x, 1.0)
        return jnp.where(x > 0, jnp.sqrt(x_safe), 0.0)
    _same(jax.grad(safe)(0.0), 0.0)
    # the norm at zero: sqrt'(0) * 0 is NaN
    assert np.all(np.isnan(jax.grad(lambda x: jnp.sqrt(jnp.sum(x ** 2)))(jnp.zeros(3))))


def test_stop_gradient():
    _same(jax.grad(lambda x: lax.stop_gradient(x) * x)(3.0), 3.0)
    _same(jax.grad(lambda x: jnp.sum(lax.stop_gradient(x ** 2)) + x[0])(jnp.ones(2)), [1.0, 0.0])


# --------------------------------------------------------------------------
# Errors (messages from JAX 0.10.2)

ERRORS = [
    (lambda: jax.grad(lambda x: x)(jnp.ones(3)), TypeError,
     "Gradient only defined for scalar-output functions. Output had shape: (3,)."),
    (lambda: jax.grad(lambda x: x * 1.0)(1), TypeError,
     "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
     "np.inexact), but got int32. If you want to use Boolean- or integer-valued inputs, use vjp "
     "or set allow_int to True."),
    (lambda: jax.grad(lambda x: 1.0)(True), TypeError,
     "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
     "np.inexact), but got bool. If you want to use Boolean- or integer-valued inputs, use vjp "
     "or set allow_int to True."),
    (lambda: jax.grad(lambda x: x * 1j)(1.0), TypeError,
     "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but "
     "got complex64. For holomorphic differentiation, pass holomorphic=True. For "
     "differentiation of non-holomorphic functions involving complex outputs, use jax.vjp "
     "directly."),
    (lambda: jax.grad(lambda x: x * 2, holomorphic=True)(1.0), TypeError,
     "grad with holomorphic=True requires inputs with complex dtype, but got float32."),
    (lambda: jax.grad(lambda x: x, argnums=1)(1.0), TypeError,
     "differentiating with respect to argnums=1 requires at least 2 positional arguments to be "
     "passed by the caller, but got only 1 positional arguments."),
    (lambda: jax.grad(lambda x: 1.0)("a"), TypeError,
     "Argument 'a' of type <class 'str'> is not a valid JAX type."),
    (lambda: jax.grad(lambda x: 1)(1.0), TypeError,
     "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but "
     "got int32. For differentiation of functions with integer outputs, use jax.vjp directly."),
    (lambda: jax.value_and_grad(lambda x: x)(jnp.ones(2)), TypeError,
     "Gradient only defined for scalar-output functions. Output had shape: (2,)."),
    (lambda: jax.jvp(lambda x: x, (1.0,), (jnp.ones(2),)), ValueError,
     "jvp called with different primal and tangent shapes;Got primal shape () and tangent shape "
     "as (2,)"),
    (lambda: jax.jvp(lambda x: x, (1.0,), (1,)), TypeError,
     "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case of "
     "int/bool primal dtype the tangent dtype must be float0.Got primal dtype float32 and so "
     "expected tangent dtype float32, but got tangent dtype int32 instead."),
    (lambda: jax.jvp(lambda x, y: x, (1.0, 2.0), (1.0,)), TypeError,
     "primal and tangent arguments to jax.jvp must have the same tree structure; primals have "
     "tree structure PyTreeDef((*, *)) whereas tangents have tree structure PyTreeDef((*,))."),
    (lambda: jax.vjp(lambda x: x, 1.0)[1](jnp.ones(2)), ValueError,
     "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got float32[2], but "
     "expected float32[] because the corresponding output of the differentiated function had "
     "JAX type float32[]"),
    (lambda: jax.jacfwd(lambda x: x)(1), TypeError,
     "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but "
     "got int32. For holomorphic differentiation, pass holomorphic=True. For differentiation of "
     "non-holomorphic functions involving complex inputs or integer inputs, use jax.jvp "
     "directly."),
    (lambda: jax.jacrev(lambda x: x)(1), TypeError,
     "jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
     "np.inexact), but got int32. If you want to use Boolean- or integer-valued inputs, use vjp "
     "or set allow_int to True."),
    (lambda: jax.grad(3), TypeError, "Expected a callable value, got 3"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_jax(i):
    fn, cls, msg = ERRORS[i]
    with pytest.raises(cls) as e:
        fn()
    assert str(e.value) == msg


def test_vjp_tree_mismatch_message():
    with pytest.raises(ValueError) as e:
        jax.vjp(lambda x: (x, x), 1.0)[1](1.0)
    assert str(e.value).startswith("unexpected tree structure.")
    assert str(e.value).endswith("  * out was a <class 'tuple'> in the original output, but a "
                                 "pytree leaf here, so their Python types differ.")


def test_tracer_reprs():
    seen = []
    jax.grad(lambda x: (seen.append(repr(x)), x)[1])(1.0)
    jax.jvp(lambda x: (seen.append(repr(x)), x)[1], (1.0,), (1.0,))
    assert seen == ["GradTracer(primal=1.0, typeof(tangent)=f32[])",
                    "JVPTracer(primal=1.0, tangent=1.0)"]
