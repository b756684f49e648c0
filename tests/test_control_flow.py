"""Control flow (cond/switch/while_loop/fori_loop/scan/map): printed jaxprs,
values, dtypes/weak types and error messages, all checked against literals
recorded from JAX 0.10.2."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

JAXPR_CASES = {'vmap_cond_batched_index': 'c = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x '
                            '** 3, x); f = jax.vmap(c); args = (jnp.ones(3),)',
 'vmap_cond_unbatched_index': 'f = jax.vmap(lambda x: lax.cond(True, jnp.sin, jnp.cos, x)); args = '
                              '(jnp.ones(3),)',
 'vmap_while_batched_pred': 'w = lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2, x); f '
                            '= jax.vmap(w); args = (jnp.ones(3),)',
 'cond': 'f = lambda p, x: lax.cond(p, lambda x: x + 1., lambda x: x * 2., x); args = (True, 1.0)',
 'cond_vec': 'f = lambda p, x: lax.cond(p, lambda x: x + 1., lambda x: x * 2., x); args = '
             '(jnp.array(True), jnp.ones(3))',
 'cond_float_pred': 'f = lambda x: lax.cond(x, lambda x: x, lambda x: -x, x); args = (1.0,)',
 'cond_int_pred': 'f = lambda x: lax.cond(x.astype(int), lambda x: x, lambda x: -x, x); args = '
                  '(1.0,)',
 'cond_literal_pred': 'f = lambda x: lax.cond(True, lambda: 1.0, lambda: x); args = (2.0,)',
 'cond_no_operands': 'f = lambda p: lax.cond(p, lambda: (), lambda: ()); args = (True,)',
 'cond_weak_join': 'f = lambda x: lax.cond(x > 0, lambda: 1.0, lambda: jnp.float32(2)); args = '
                   '(1.0,)',
 'cond_two_operands': 'f = lambda x: lax.cond(x > 0, lambda x, y: x + y, lambda x, y: x - y, x, '
                      'jnp.ones(3)); args = (1.0,)',
 'cond_consts': 'k = jnp.arange(3.); f = lambda x: lax.cond(x > 0, lambda: x + k, lambda: k * 2); '
                'args = (1.0,)',
 'cond_consts_order': 'k = jnp.arange(3.); f = lambda x, y: lax.cond(x > 0, lambda: x + k, lambda: '
                      'y * k); args = (1.0, 2.0)',
 'cond_forward': 'f = lambda x, y: lax.cond(x > 0, lambda x, y: (x, y+1), lambda x, y: (x, y*2), '
                 'x, y); args = (1.0, 2.0)',
 'cond_forward_partial': 'f = lambda x, y: lax.cond(x > 0, lambda x, y: (y, x), lambda x, y: (y, '
                         'y), x, y); args = (1.0, 2.0)',
 'cond_forward_const': 'k = jnp.arange(3.); f = lambda x, y: lax.cond(x > 0, lambda x, y: (y, k), '
                       'lambda x, y: (y, k), x, y); args = (1.0, 2.0)',
 'cond_big_branch': 'def big(x):\n'
                    '    for i in range(12): x = jnp.sin(x)\n'
                    '    return x\n'
                    'f = lambda p, x: lax.cond(p, big, lambda x: x, x); args = (True, 1.)',
 'switch': 'f = lambda i, x: lax.switch(i, [lambda x: x + 1., lambda x: x * 2., lambda x: '
           'jnp.sin(x)], x); args = (1, 1.0)',
 'switch_strong_index': 'f = lambda i, x: lax.switch(i, [lambda x: x, lambda x: -x], x); args = '
                        '(jnp.int32(1), 1.0)',
 'switch_uint8': 'f = lambda x: lax.switch(x.astype(jnp.uint8), [lambda x: x, lambda x: -x], x); '
                 'args = (1.0,)',
 'switch_const_index': 'f = lambda i, x: lax.switch(2, [lambda x: x, lambda x: -x], x); args = (1, '
                       '1.0)',
 'switch_literals': 'f = lambda p: lax.switch(p, [lambda: 1, lambda: 2, lambda: 3]); args = (1,)',
 'while': 'f = lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * x), (0, '
          'x)); args = (2.0,)',
 'while_weak_carry': 'f = lambda x: lax.while_loop(lambda c: c < 10, lambda c: c + jnp.float32(1), '
                     'x); args = (2.0,)',
 'while_promote': 'f = lambda x: lax.while_loop(lambda c: c < 1, lambda c: c.astype(jnp.float16), '
                  'x); args = (1.0,)',
 'while_literal_body': 'f = lambda x: lax.while_loop(lambda c: c < 10, lambda c: 11.0, x); args = '
                       '(jnp.float32(2),)',
 'while_move_to_const': 'f = lambda x, y: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, '
                        'c[1]), (x, y)); args = (1.0, 2.0)',
 'while_consts': 'k = jnp.arange(3.); f = lambda x, y, z: lax.while_loop(lambda c: c[0] + c[2] < '
                 'z, lambda c: (c[0] + k[0] * y, c[1], c[2]), (x, y, z)); args = (1.0, 2.0, 3.0)',
 'fori_dynamic': 'f = lambda n, x: lax.fori_loop(0, n, lambda i, c: c * x + i, x); args = (3, 2.0)',
 'fori_jnp_bounds': 'f = lambda x: lax.fori_loop(jnp.int32(0), jnp.int32(3), lambda i, c: c + i, '
                    'x); args = (1.0,)',
 'fori_static': 'f = lambda x: lax.fori_loop(0, 10, lambda i, c: c * x + i, x); args = (2.0,)',
 'fori_numpy_bounds': 'f = lambda x: lax.fori_loop(np.int32(0), np.int32(3), lambda i, c: c + i, '
                      'x); args = (1.0,)',
 'fori_empty': 'f = lambda x: lax.fori_loop(5, 2, lambda i, c: c + i, x); args = (1.0,)',
 'fori_unroll': 'f = lambda x: lax.fori_loop(0, 4, lambda i, c: c + i, x, unroll=True); args = '
                '(1.0,)',
 'scan': 'f = lambda c, xs: lax.scan(lambda c, x: (c + x, c * x), c, xs); args = (0.0, '
         'jnp.arange(5.))',
 'scan_reverse_unroll': 'f = lambda c, xs: lax.scan(lambda c, x: (c + x, c * x), c, xs, '
                        'reverse=True, unroll=2); args = (0.0, jnp.arange(5.))',
 'scan_length_only': 'f = lambda x: lax.scan(lambda c, _: (c + jnp.float32(1), None), x, '
                     'length=3); args = (2.0,)',
 'scan_literal_carry': 'f = lambda x: lax.scan(lambda c, _: (1.0, None), x, length=3); args = '
                       '(jnp.float32(2),)',
 'scan_forwarding': 'f = lambda x, y: lax.scan(lambda c, z: ((c[0] + z, c[1]), (z, c[1], c[0])), '
                    '(x, y), jnp.ones(3)); args = (1.0, 2.0)',
 'scan_move_consts': 'k = jnp.arange(3.); f = lambda x, y, z: lax.scan(lambda c, t: ((c[0] + k[0] '
                     '* z, c[1], c[2]+t), ()), (x, y, x), jnp.ones(3)); args = (1.0, 2.0, 3.0)',
 'scan_unroll_true': 'f = lambda x: lax.scan(lambda c, t: (c+t, None), x, jnp.ones(4), '
                     'unroll=True); args = (1.0,)',
 'map': 'f = lambda xs: lax.map(jnp.sin, xs); args = (jnp.arange(5.),)',
 'map_batch': 'f = lambda xs: lax.map(lambda x: x * 2, xs, batch_size=2); args = (jnp.ones(4),)',
 'scan_big_body': 'def big(x):\n'
                  '    for i in range(12): x = jnp.sin(x)\n'
                  '    return x\n'
                  'f = lambda x: lax.scan(lambda c, _: (big(c), None), x, length=2); args = (1.,)'}

EXPECTED_JAXPRS = {'vmap_cond_batched_index': '{ lambda ; a:f32[3]. let\n'
                            '    b:bool[3] = gt a 0.0:f32[]\n'
                            '    c:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] '
                            'b\n'
                            '    d:bool[3] = eq c 0:i32[]\n'
                            '    e:f32[3] = stop_gradient a\n'
                            '    f:f32[3] = select_n d e a\n'
                            '    g:f32[3] = integer_pow[y=3] f\n'
                            '    h:bool[3] = eq c 1:i32[]\n'
                            '    i:f32[3] = stop_gradient a\n'
                            '    j:f32[3] = select_n h i a\n'
                            '    k:f32[3] = sin j\n'
                            '    l:f32[3] = mul k j\n'
                            '    m:f32[3] = select_n c g l\n'
                            '  in (m,) }',
 'vmap_cond_unbatched_index': '{ lambda ; a:f32[3]. let\n'
                              '    b:f32[3] = cond[\n'
                              '      branches=(\n'
                              '        { lambda ; c:f32[3]. let d:f32[3] = cos c in (d,) }\n'
                              '        { lambda ; e:f32[3]. let f:f32[3] = sin e in (f,) }\n'
                              '      )\n'
                              '    ] 1:i32[] a\n'
                              '  in (b,) }',
 'vmap_while_batched_pred': '{ lambda ; a:f32[3]. let\n'
                            '    b:f32[3] = while[\n'
                            '      body_jaxpr={ lambda ; c:f32[3]. let d:f32[3] = mul c 2.0:f32[] '
                            'in (d,) }\n'
                            '      body_nconsts=0\n'
                            '      cond_jaxpr={ lambda ; e:f32[3]. let f:bool[3] = lt e 10.0:f32[] '
                            'in (f,) }\n'
                            '      cond_nconsts=0\n'
                            '    ] a\n'
                            '  in (b,) }',
 'cond': '{ lambda ; a:bool[] b:f32[]. let\n'
         '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
         '    d:f32[] = cond[\n'
         '      branches=(\n'
         '        { lambda ; e:f32[]. let f:f32[] = mul e 2.0:f32[] in (f,) }\n'
         '        { lambda ; g:f32[]. let h:f32[] = add g 1.0:f32[] in (h,) }\n'
         '      )\n'
         '    ] c b\n'
         '  in (d,) }',
 'cond_vec': '{ lambda ; a:bool[] b:f32[3]. let\n'
             '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
             '    d:f32[3] = cond[\n'
             '      branches=(\n'
             '        { lambda ; e:f32[3]. let f:f32[3] = mul e 2.0:f32[] in (f,) }\n'
             '        { lambda ; g:f32[3]. let h:f32[3] = add g 1.0:f32[] in (h,) }\n'
             '      )\n'
             '    ] c b\n'
             '  in (d,) }',
 'cond_float_pred': '{ lambda ; a:f32[]. let\n'
                    '    b:bool[] = ne a 0.0:f32[]\n'
                    '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
                    '    d:f32[] = cond[\n'
                    '      branches=(\n'
                    '        { lambda ; e:f32[]. let f:f32[] = neg e in (f,) }\n'
                    '        { lambda ; g:f32[]. let  in (g,) }\n'
                    '      )\n'
                    '    ] c a\n'
                    '  in (d,) }',
 'cond_int_pred': '{ lambda ; a:f32[]. let\n'
                  '    b:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
                  '    c:bool[] = ne b 0:i32[]\n'
                  '    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n'
                  '    e:f32[] = cond[\n'
                  '      branches=(\n'
                  '        { lambda ; f:f32[]. let g:f32[] = neg f in (g,) }\n'
                  '        { lambda ; h:f32[]. let  in (h,) }\n'
                  '      )\n'
                  '    ] d a\n'
                  '  in (e,) }',
 'cond_literal_pred': '{ lambda ; a:f32[]. let\n'
                      '    b:f32[] = cond[\n'
                      '      branches=(\n'
                      '        { lambda ; c:f32[]. let  in (c,) }\n'
                      '        { lambda ; d:f32[]. let  in (1.0:f32[],) }\n'
                      '      )\n'
                      '    ] 1:i32[] a\n'
                      '  in (b,) }',
 'cond_no_operands': '{ lambda ; a:bool[]. let\n'
                     '    b:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
                     '    cond[branches=({ lambda ; . let  in () } { lambda ; . let  in () })] b\n'
                     '  in () }',
 'cond_weak_join': '{ lambda ; a:f32[]. let\n'
                   '    b:bool[] = gt a 0.0:f32[]\n'
                   '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
                   '    d:f32[] = cond[\n'
                   '      branches=(\n'
                   '        { lambda ; . let  in (2.0:f32[],) }\n'
                   '        { lambda ; . let  in (1.0:f32[],) }\n'
                   '      )\n'
                   '    ] c\n'
                   '  in (d,) }',
 'cond_two_operands': '{ lambda ; a:f32[]. let\n'
                      '    b:bool[] = gt a 0.0:f32[]\n'
                      '    c:f32[3] = broadcast_in_dim 1.0:f32[]\n'
                      '    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
                      '    e:f32[3] = cond[\n'
                      '      branches=(\n'
                      '        { lambda ; f:f32[] g:f32[3]. let\n'
                      '            h:f32[] = convert_element_type[new_dtype=float32 '
                      'weak_type=False] f\n'
                      '            i:f32[3] = sub h g\n'
                      '          in (i,) }\n'
                      '        { lambda ; j:f32[] k:f32[3]. let\n'
                      '            l:f32[] = convert_element_type[new_dtype=float32 '
                      'weak_type=False] j\n'
                      '            m:f32[3] = add l k\n'
                      '          in (m,) }\n'
                      '      )\n'
                      '    ] d a c\n'
                      '  in (e,) }',
 'cond_consts': '{ lambda a:f32[3]; b:f32[]. let\n'
                '    c:bool[] = gt b 0.0:f32[]\n'
                '    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n'
                '    e:f32[3] = cond[\n'
                '      branches=(\n'
                '        { lambda ; f:f32[] g:f32[3]. let h:f32[3] = mul g 2.0:f32[] in (h,) }\n'
                '        { lambda ; i:f32[] j:f32[3]. let\n'
                '            k:f32[] = convert_element_type[new_dtype=float32 weak_type=False] i\n'
                '            l:f32[3] = add k j\n'
                '          in (l,) }\n'
                '      )\n'
                '    ] d b a\n'
                '  in (e,) }',
 'cond_consts_order': '{ lambda a:f32[3]; b:f32[] c:f32[]. let\n'
                      '    d:bool[] = gt b 0.0:f32[]\n'
                      '    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] d\n'
                      '    f:f32[3] = cond[\n'
                      '      branches=(\n'
                      '        { lambda ; g:f32[] h:f32[3] i:f32[]. let\n'
                      '            j:f32[] = convert_element_type[new_dtype=float32 '
                      'weak_type=False] i\n'
                      '            k:f32[3] = mul j h\n'
                      '          in (k,) }\n'
                      '        { lambda ; l:f32[] m:f32[3] n:f32[]. let\n'
                      '            o:f32[] = convert_element_type[new_dtype=float32 '
                      'weak_type=False] l\n'
                      '            p:f32[3] = add o m\n'
                      '          in (p,) }\n'
                      '      )\n'
                      '    ] e b a c\n'
                      '  in (f,) }',
 'cond_forward': '{ lambda ; a:f32[] b:f32[]. let\n'
                 '    c:bool[] = gt a 0.0:f32[]\n'
                 '    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n'
                 '    e:f32[] = cond[\n'
                 '      branches=(\n'
                 '        { lambda ; f:f32[] g:f32[]. let h:f32[] = mul g 2.0:f32[] in (h,) }\n'
                 '        { lambda ; i:f32[] j:f32[]. let k:f32[] = add j 1.0:f32[] in (k,) }\n'
                 '      )\n'
                 '    ] d a b\n'
                 '  in (a, e) }',
 'cond_forward_partial': '{ lambda ; a:f32[] b:f32[]. let\n'
                         '    c:bool[] = gt a 0.0:f32[]\n'
                         '    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n'
                         '    e:f32[] = cond[\n'
                         '      branches=(\n'
                         '        { lambda ; f:f32[] g:f32[]. let  in (g,) }\n'
                         '        { lambda ; h:f32[] i:f32[]. let  in (h,) }\n'
                         '      )\n'
                         '    ] d a b\n'
                         '  in (b, e) }',
 'cond_forward_const': '{ lambda a:f32[3]; b:f32[] c:f32[]. let\n'
                       '    d:bool[] = gt b 0.0:f32[]\n'
                       '    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] d\n'
                       '    cond[\n'
                       '      branches=(\n'
                       '        { lambda ; f:f32[3] g:f32[] h:f32[]. let  in () }\n'
                       '        { lambda ; i:f32[3] j:f32[] k:f32[]. let  in () }\n'
                       '      )\n'
                       '    ] e a b c\n'
                       '  in (c, a) }',
 'cond_big_branch': 'let jaxpr = { lambda ; a:f32[]. let\n'
                    '    b:f32[] = sin a\n'
                    '    c:f32[] = sin b\n'
                    '    d:f32[] = sin c\n'
                    '    e:f32[] = sin d\n'
                    '    f:f32[] = sin e\n'
                    '    g:f32[] = sin f\n'
                    '    h:f32[] = sin g\n'
                    '    i:f32[] = sin h\n'
                    '    j:f32[] = sin i\n'
                    '    k:f32[] = sin j\n'
                    '    l:f32[] = sin k\n'
                    '    m:f32[] = sin l\n'
                    '  in (m,) } in\n'
                    '{ lambda ; n:bool[] o:f32[]. let\n'
                    '    p:i32[] = convert_element_type[new_dtype=int32 weak_type=False] n\n'
                    '    q:f32[] = cond[branches=({ lambda ; r:f32[]. let  in (r,) } jaxpr)] p o\n'
                    '  in (q,) }',
 'switch': '{ lambda ; a:i32[] b:f32[]. let\n'
           '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
           '    d:i32[] = clamp 0:i32[] c 2:i32[]\n'
           '    e:f32[] = cond[\n'
           '      branches=(\n'
           '        { lambda ; f:f32[]. let g:f32[] = add f 1.0:f32[] in (g,) }\n'
           '        { lambda ; h:f32[]. let i:f32[] = mul h 2.0:f32[] in (i,) }\n'
           '        { lambda ; j:f32[]. let k:f32[] = sin j in (k,) }\n'
           '      )\n'
           '    ] d b\n'
           '  in (e,) }',
 'switch_strong_index': '{ lambda ; a:i32[] b:f32[]. let\n'
                        '    c:i32[] = clamp 0:i32[] a 1:i32[]\n'
                        '    d:f32[] = cond[\n'
                        '      branches=(\n'
                        '        { lambda ; e:f32[]. let  in (e,) }\n'
                        '        { lambda ; f:f32[]. let g:f32[] = neg f in (g,) }\n'
                        '      )\n'
                        '    ] c b\n'
                        '  in (d,) }',
 'switch_uint8': '{ lambda ; a:f32[]. let\n'
                 '    b:u8[] = convert_element_type[new_dtype=uint8 weak_type=False] a\n'
                 '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
                 '    d:i32[] = clamp 0:i32[] c 1:i32[]\n'
                 '    e:f32[] = cond[\n'
                 '      branches=(\n'
                 '        { lambda ; f:f32[]. let  in (f,) }\n'
                 '        { lambda ; g:f32[]. let h:f32[] = neg g in (h,) }\n'
                 '      )\n'
                 '    ] d a\n'
                 '  in (e,) }',
 'switch_const_index': '{ lambda ; a:i32[] b:f32[]. let\n'
                       '    c:i32[] = clamp 0:i32[] 2:i32[] 1:i32[]\n'
                       '    d:f32[] = cond[\n'
                       '      branches=(\n'
                       '        { lambda ; e:f32[]. let  in (e,) }\n'
                       '        { lambda ; f:f32[]. let g:f32[] = neg f in (g,) }\n'
                       '      )\n'
                       '    ] c b\n'
                       '  in (d,) }',
 'switch_literals': '{ lambda ; a:i32[]. let\n'
                    '    b:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
                    '    c:i32[] = clamp 0:i32[] b 2:i32[]\n'
                    '    d:i32[] = cond[\n'
                    '      branches=(\n'
                    '        { lambda ; . let  in (1:i32[],) }\n'
                    '        { lambda ; . let  in (2:i32[],) }\n'
                    '        { lambda ; . let  in (3:i32[],) }\n'
                    '      )\n'
                    '    ] c\n'
                    '  in (d,) }',
 'while': '{ lambda ; a:f32[]. let\n'
          '    b:i32[] c:f32[] = while[\n'
          '      body_jaxpr={ lambda ; d:f32[] e:i32[] f:f32[]. let\n'
          '          g:i32[] = add e 1:i32[]\n'
          '          h:f32[] = mul f d\n'
          '        in (g, h) }\n'
          '      body_nconsts=1\n'
          '      cond_jaxpr={ lambda ; i:i32[] j:f32[]. let\n'
          '          k:bool[] = lt i 10:i32[]\n'
          '        in (k,) }\n'
          '      cond_nconsts=0\n'
          '    ] a 0:i32[] a\n'
          '  in (b, c) }',
 'while_weak_carry': '{ lambda ; a:f32[]. let\n'
                     '    b:f32[] = while[\n'
                     '      body_jaxpr={ lambda ; c:f32[]. let\n'
                     '          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] '
                     'c\n'
                     '          e:f32[] = add d 1.0:f32[]\n'
                     '        in (e,) }\n'
                     '      body_nconsts=0\n'
                     '      cond_jaxpr={ lambda ; f:f32[]. let g:bool[] = lt f 10.0:f32[] in (g,) '
                     '}\n'
                     '      cond_nconsts=0\n'
                     '    ] a\n'
                     '  in (b,) }',
 'while_promote': '{ lambda ; a:f32[]. let\n'
                  '    b:f16[] = convert_element_type[new_dtype=float16 weak_type=False] a\n'
                  '    c:f16[] = while[\n'
                  '      body_jaxpr={ lambda ; d:f16[]. let  in (d,) }\n'
                  '      body_nconsts=0\n'
                  '      cond_jaxpr={ lambda ; e:f16[]. let f:bool[] = lt e 1.0:f16[] in (f,) }\n'
                  '      cond_nconsts=0\n'
                  '    ] b\n'
                  '  in (c,) }',
 'while_literal_body': '{ lambda ; a:f32[]. let\n'
                       '    b:f32[] = while[\n'
                       '      body_jaxpr={ lambda ; c:f32[]. let  in (11.0:f32[],) }\n'
                       '      body_nconsts=0\n'
                       '      cond_jaxpr={ lambda ; d:f32[]. let e:bool[] = lt d 10.0:f32[] in '
                       '(e,) }\n'
                       '      cond_nconsts=0\n'
                       '    ] a\n'
                       '  in (b,) }',
 'while_move_to_const': '{ lambda ; a:f32[] b:f32[]. let\n'
                        '    c:f32[] = while[\n'
                        '      body_jaxpr={ lambda ; d:f32[] e:f32[]. let\n'
                        '          f:f32[] = add e 1.0:f32[]\n'
                        '        in (f,) }\n'
                        '      body_nconsts=1\n'
                        '      cond_jaxpr={ lambda ; g:f32[]. let h:bool[] = lt g 3.0:f32[] in '
                        '(h,) }\n'
                        '      cond_nconsts=0\n'
                        '    ] b a\n'
                        '  in (c, b) }',
 'while_consts': '{ lambda a:f32[3]; b:f32[] c:f32[] d:f32[]. let\n'
                 '    e:f32[] f:f32[] = while[\n'
                 '      body_jaxpr={ lambda ; g:f32[] h:f32[3] i:f32[] j:f32[] k:f32[]. let\n'
                 '          l:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=None] '
                 'h\n'
                 '          m:f32[] = squeeze[dimensions=(0,)] l\n'
                 '          n:f32[] = convert_element_type[new_dtype=float32 weak_type=False] i\n'
                 '          o:f32[] = mul m n\n'
                 '          p:f32[] = convert_element_type[new_dtype=float32 weak_type=False] j\n'
                 '          q:f32[] = add p o\n'
                 '        in (q, k) }\n'
                 '      body_nconsts=3\n'
                 '      cond_jaxpr={ lambda ; r:f32[] s:f32[] t:f32[]. let\n'
                 '          u:f32[] = add s t\n'
                 '          v:bool[] = lt u r\n'
                 '        in (v,) }\n'
                 '      cond_nconsts=1\n'
                 '    ] d c a c b d\n'
                 '  in (e, c, f) }',
 'fori_dynamic': '{ lambda ; a:i32[] b:f32[]. let\n'
                 '    _:i32[] _:i32[] c:f32[] = while[\n'
                 '      body_jaxpr={ lambda ; d:f32[] e:i32[] f:i32[] g:f32[]. let\n'
                 '          h:i32[] = add e 1:i32[]\n'
                 '          i:f32[] = mul g d\n'
                 '          j:f32[] = convert_element_type[new_dtype=float32 weak_type=True] e\n'
                 '          k:f32[] = add i j\n'
                 '        in (h, f, k) }\n'
                 '      body_nconsts=1\n'
                 '      cond_jaxpr={ lambda ; l:i32[] m:i32[] n:f32[]. let\n'
                 '          o:bool[] = lt l m\n'
                 '        in (o,) }\n'
                 '      cond_nconsts=0\n'
                 '    ] b 0:i32[] a b\n'
                 '  in (c,) }',
 'fori_jnp_bounds': '{ lambda ; a:f32[]. let\n'
                    '    _:i32[] _:i32[] b:f32[] = while[\n'
                    '      body_jaxpr={ lambda ; c:i32[] d:i32[] e:f32[]. let\n'
                    '          f:i32[] = add c 1:i32[]\n'
                    '          g:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c\n'
                    '          h:f32[] = add e g\n'
                    '        in (f, d, h) }\n'
                    '      body_nconsts=0\n'
                    '      cond_jaxpr={ lambda ; i:i32[] j:i32[] k:f32[]. let\n'
                    '          l:bool[] = lt i j\n'
                    '        in (l,) }\n'
                    '      cond_nconsts=0\n'
                    '    ] 0:i32[] 3:i32[] a\n'
                    '  in (b,) }',
 'fori_static': '{ lambda ; a:f32[]. let\n'
                '    _:i32[] b:f32[] = scan[\n'
                '      jaxpr={ lambda ; c:f32[] d:i32[] e:f32[]. let\n'
                '          f:i32[] = add d 1:i32[]\n'
                '          g:f32[] = mul e c\n'
                '          h:f32[] = convert_element_type[new_dtype=float32 weak_type=True] d\n'
                '          i:f32[] = add g h\n'
                '        in (f, i) }\n'
                '      length=10\n'
                '      num_carry=2\n'
                '      num_consts=1\n'
                '      reverse=False\n'
                '      unroll=1\n'
                '    ] a 0:i32[] a\n'
                '  in (b,) }',
 'fori_numpy_bounds': '{ lambda ; a:f32[]. let\n'
                      '    _:i32[] b:f32[] = scan[\n'
                      '      jaxpr={ lambda ; c:i32[] d:f32[]. let\n'
                      '          e:i32[] = add c 1:i32[]\n'
                      '          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] '
                      'c\n'
                      '          g:f32[] = add d f\n'
                      '        in (e, g) }\n'
                      '      length=3\n'
                      '      num_carry=2\n'
                      '      num_consts=0\n'
                      '      reverse=False\n'
                      '      unroll=1\n'
                      '    ] 0:i32[] a\n'
                      '  in (b,) }',
 'fori_empty': '{ lambda ; a:f32[]. let\n'
               '    _:i32[] b:f32[] = scan[\n'
               '      jaxpr={ lambda ; c:i32[] d:f32[]. let\n'
               '          e:i32[] = add c 1:i32[]\n'
               '          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c\n'
               '          g:f32[] = add d f\n'
               '        in (e, g) }\n'
               '      length=0\n'
               '      num_carry=2\n'
               '      num_consts=0\n'
               '      reverse=False\n'
               '      unroll=1\n'
               '    ] 5:i32[] a\n'
               '  in (b,) }',
 'fori_unroll': '{ lambda ; a:f32[]. let\n'
                '    _:i32[] b:f32[] = scan[\n'
                '      jaxpr={ lambda ; c:i32[] d:f32[]. let\n'
                '          e:i32[] = add c 1:i32[]\n'
                '          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c\n'
                '          g:f32[] = add d f\n'
                '        in (e, g) }\n'
                '      length=4\n'
                '      num_carry=2\n'
                '      num_consts=0\n'
                '      reverse=False\n'
                '      unroll=4\n'
                '    ] 0:i32[] a\n'
                '  in (b,) }',
 'scan': '{ lambda ; a:f32[] b:f32[5]. let\n'
         '    c:f32[] d:f32[5] = scan[\n'
         '      jaxpr={ lambda ; e:f32[] f:f32[]. let\n'
         '          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e\n'
         '          h:f32[] = add g f\n'
         '          i:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e\n'
         '          j:f32[] = mul i f\n'
         '        in (h, j) }\n'
         '      length=5\n'
         '      num_carry=1\n'
         '      num_consts=0\n'
         '      reverse=False\n'
         '      unroll=1\n'
         '    ] a b\n'
         '  in (c, d) }',
 'scan_reverse_unroll': '{ lambda ; a:f32[] b:f32[5]. let\n'
                        '    c:f32[] d:f32[5] = scan[\n'
                        '      jaxpr={ lambda ; e:f32[] f:f32[]. let\n'
                        '          g:f32[] = convert_element_type[new_dtype=float32 '
                        'weak_type=False] e\n'
                        '          h:f32[] = add g f\n'
                        '          i:f32[] = convert_element_type[new_dtype=float32 '
                        'weak_type=False] e\n'
                        '          j:f32[] = mul i f\n'
                        '        in (h, j) }\n'
                        '      length=5\n'
                        '      num_carry=1\n'
                        '      num_consts=0\n'
                        '      reverse=True\n'
                        '      unroll=2\n'
                        '    ] a b\n'
                        '  in (c, d) }',
 'scan_length_only': '{ lambda ; a:f32[]. let\n'
                     '    b:f32[] = scan[\n'
                     '      jaxpr={ lambda ; c:f32[]. let\n'
                     '          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] '
                     'c\n'
                     '          e:f32[] = add d 1.0:f32[]\n'
                     '        in (e,) }\n'
                     '      length=3\n'
                     '      num_carry=1\n'
                     '      num_consts=0\n'
                     '      reverse=False\n'
                     '      unroll=1\n'
                     '    ] a\n'
                     '  in (b,) }',
 'scan_literal_carry': '{ lambda ; a:f32[]. let\n'
                       '    b:f32[] = scan[\n'
                       '      jaxpr={ lambda ; c:f32[]. let  in (1.0:f32[],) }\n'
                       '      length=3\n'
                       '      num_carry=1\n'
                       '      num_consts=0\n'
                       '      reverse=False\n'
                       '      unroll=1\n'
                       '    ] a\n'
                       '  in (b,) }',
 'scan_forwarding': '{ lambda ; a:f32[] b:f32[]. let\n'
                    '    c:f32[3] = broadcast_in_dim 1.0:f32[]\n'
                    '    d:f32[] e:f32[3] f:f32[3] = scan[\n'
                    '      jaxpr={ lambda ; g:f32[] h:f32[] i:f32[]. let\n'
                    '          j:f32[] = convert_element_type[new_dtype=float32 weak_type=False] '
                    'h\n'
                    '          k:f32[] = add j i\n'
                    '        in (k, g, h) }\n'
                    '      length=3\n'
                    '      num_carry=1\n'
                    '      num_consts=1\n'
                    '      reverse=False\n'
                    '      unroll=1\n'
                    '    ] b a c\n'
                    '  in (d, b, c, e, f) }',
 'scan_move_consts': '{ lambda a:f32[3]; b:f32[] c:f32[] d:f32[]. let\n'
                     '    e:f32[3] = broadcast_in_dim 1.0:f32[]\n'
                     '    f:f32[] g:f32[] = scan[\n'
                     '      jaxpr={ lambda ; h:f32[] i:f32[3] j:f32[] k:f32[] l:f32[] m:f32[]. '
                     'let\n'
                     '          n:f32[1] = slice[limit_indices=(1,) start_indices=(0,) '
                     'strides=None] i\n'
                     '          o:f32[] = squeeze[dimensions=(0,)] n\n'
                     '          p:f32[] = convert_element_type[new_dtype=float32 weak_type=False] '
                     'j\n'
                     '          q:f32[] = mul o p\n'
                     '          r:f32[] = convert_element_type[new_dtype=float32 weak_type=False] '
                     'k\n'
                     '          s:f32[] = add r q\n'
                     '          t:f32[] = convert_element_type[new_dtype=float32 weak_type=False] '
                     'l\n'
                     '          u:f32[] = add t m\n'
                     '        in (s, u) }\n'
                     '      length=3\n'
                     '      num_carry=2\n'
                     '      num_consts=3\n'
                     '      reverse=False\n'
                     '      unroll=1\n'
                     '    ] c a d b b e\n'
                     '  in (f, c, g) }',
 'scan_unroll_true': '{ lambda ; a:f32[]. let\n'
                     '    b:f32[4] = broadcast_in_dim 1.0:f32[]\n'
                     '    c:f32[] = scan[\n'
                     '      jaxpr={ lambda ; d:f32[] e:f32[]. let\n'
                     '          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] '
                     'd\n'
                     '          g:f32[] = add f e\n'
                     '        in (g,) }\n'
                     '      length=4\n'
                     '      num_carry=1\n'
                     '      num_consts=0\n'
                     '      reverse=False\n'
                     '      unroll=4\n'
                     '    ] a b\n'
                     '  in (c,) }',
 'map': '{ lambda ; a:f32[5]. let\n'
        '    b:f32[5] = scan[\n'
        '      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }\n'
        '      length=5\n'
        '      num_carry=0\n'
        '      num_consts=0\n'
        '      reverse=False\n'
        '      unroll=1\n'
        '    ] a\n'
        '  in (b,) }',
 'map_batch': '{ lambda ; a:f32[4]. let\n'
              '    b:f32[2,2] = reshape[dimensions=None new_sizes=(2, 2) sharding=None] a\n'
              '    c:f32[2,2] = scan[\n'
              '      jaxpr={ lambda ; d:f32[2]. let e:f32[2] = mul d 2.0:f32[] in (e,) }\n'
              '      length=2\n'
              '      num_carry=0\n'
              '      num_consts=0\n'
              '      reverse=False\n'
              '      unroll=1\n'
              '    ] b\n'
              '    f:f32[4] = reshape[dimensions=None new_sizes=(4,) sharding=None] c\n'
              '  in (f,) }',
 'scan_big_body': 'let jaxpr = { lambda ; a:f32[]. let\n'
                  '    b:f32[] = sin a\n'
                  '    c:f32[] = sin b\n'
                  '    d:f32[] = sin c\n'
                  '    e:f32[] = sin d\n'
                  '    f:f32[] = sin e\n'
                  '    g:f32[] = sin f\n'
                  '    h:f32[] = sin g\n'
                  '    i:f32[] = sin h\n'
                  '    j:f32[] = sin i\n'
                  '    k:f32[] = sin j\n'
                  '    l:f32[] = sin k\n'
                  '    m:f32[] = sin l\n'
                  '  in (m,) } in\n'
                  '{ lambda ; n:f32[]. let\n'
                  '    o:f32[] = scan[\n'
                  '      jaxpr=jaxpr\n'
                  '      length=2\n'
                  '      num_carry=1\n'
                  '      num_consts=0\n'
                  '      reverse=False\n'
                  '      unroll=1\n'
                  '    ] n\n'
                  '  in (o,) }'}

VALUE_CASES = {'grad_cond_true': 'c = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x ** 3, x); '
                   'r = jax.grad(c)(1.5)',
 'grad_cond_false': 'c = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x ** 3, x); '
                    'r = jax.grad(c)(-1.5)',
 'jvp_cond': 'c = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x ** 3, x); r = '
             'jax.jvp(c, (1.5,), (2.0,))',
 'jit_grad_cond': 'c = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x ** 3, x); r '
                  '= jax.jit(jax.grad(c))(-1.5)',
 'grad_cond_two_outputs': 'c2 = lambda x, y: lax.cond(x > y, lambda a, b: (a * b, a), lambda a, b: '
                          '(a + b, b * 2.), x, y); r = jax.grad(lambda x, y: c2(x, y)[0] + c2(x, '
                          'y)[1] * 3, argnums=(0, 1))(2.0, 3.0)',
 'grad_switch': 'sw = lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda x: x * x], x); r = '
                '[jax.grad(sw, argnums=1)(i, 0.7) for i in range(3)]',
 'jvp_while': 'w = lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2, x); r = jax.jvp(w, '
              '(1.0,), (1.0,))',
 'grad_fori_static': 'r = jax.grad(lambda x: lax.fori_loop(0, 5, lambda i, c: c * x + i, x))(1.1)',
 'jvp_fori_static': 'r = jax.jvp(lambda x: lax.fori_loop(0, 5, lambda i, c: c * x + i, x), (1.1,), '
                    '(1.0,))',
 'grad_scan_xs': 's = lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) * x, c * x), c, xs); xs = '
                 'jnp.arange(1., 5.); r = jax.grad(lambda c, xs: s(c, xs)[1].sum(), argnums=(0, '
                 '1))(0.5, xs)',
 'grad_scan_reverse': 'xs = jnp.arange(1., 5.); r = jax.grad(lambda c, xs: lax.scan(lambda c, x: '
                      '(c * x + jnp.cos(c), c ** 2), c, xs, reverse=True)[1].sum(), argnums=(0, '
                      '1))(0.3, xs)',
 'jvp_scan': 's = lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) * x, c * x), c, xs); xs = '
             'jnp.arange(1., 5.); r = jax.jvp(lambda c: s(c, xs), (0.5,), (1.0,))',
 'grad_scan_consts': 'xs = jnp.arange(1., 5.); k = jnp.array([1., 2., 3.]); r = jax.grad(lambda k: '
                     'lax.scan(lambda c, x: (c + k * x, (c * k).sum()), jnp.zeros(3), '
                     'xs)[1].sum())(k)',
 'jit_grad_scan': 's = lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) * x, c * x), c, xs); xs = '
                  'jnp.arange(1., 5.); r = jax.jit(jax.grad(lambda c: s(c, xs)[0]))(0.5)',
 'vmap_cond_batched_pred': 'c = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x ** '
                           '3, x); r = jax.vmap(c)(jnp.array([-1., 2., 0.5]))',
 'vmap_cond_unbatched_pred': 'r = jax.vmap(lambda x: lax.cond(True, jnp.sin, jnp.cos, '
                             'x))(jnp.array([-1., 2., 0.5]))',
 'vmap_switch': 'sw = lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda x: x * x], x); r = '
                'jax.vmap(sw)(jnp.array([0, 1, 2, 5]), jnp.array([0.1, 0.2, 0.3, 0.4]))',
 'vmap_while_batched_pred': 'w = lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2, x); r '
                            '= jax.vmap(w)(jnp.array([1., 3., 20.]))',
 'vmap_while_matrix_carry': 'r = jax.vmap(lambda x: lax.while_loop(lambda c: c.sum() < 10, lambda '
                            'c: c * 2, x))(jnp.arange(1., 7.).reshape(3, 2))',
 'vmap_fori_dynamic': 'r = jax.vmap(lambda x: lax.fori_loop(0, jnp.int32(3), lambda i, c: c * x, '
                      'x))(jnp.array([1., 3., 2.]))',
 'vmap_scan': 's = lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) * x, c * x), c, xs); xs = '
              'jnp.arange(1., 5.); r = jax.vmap(lambda c, xs: s(c, xs))(jnp.array([0.1, 0.2]), '
              'jnp.arange(8.).reshape(2, 4))',
 'vmap_scan_in_axes': 's = lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) * x, c * x), c, xs); xs '
                      '= jnp.arange(1., 5.); r = jax.vmap(lambda xs: s(0.3, xs), '
                      'in_axes=1)(jnp.arange(8.).reshape(4, 2))',
 'vmap_grad_scan': 's = lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) * x, c * x), c, xs); xs = '
                   'jnp.arange(1., 5.); r = jax.vmap(jax.grad(lambda c: s(c, '
                   'xs)[0]))(jnp.array([0.1, 0.2]))',
 'grad_vmap_cond': 'c = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x ** 3, x); '
                   'r = jax.grad(lambda x: jax.vmap(c)(x).sum())(jnp.array([-1., 2.]))',
 'cond_true': 'r = lax.cond(True, lambda x: x + 1., lambda x: x * 2., jnp.arange(3.))',
 'cond_false': 'r = lax.cond(jnp.array(False), lambda x: x + 1., lambda x: x * 2., jnp.arange(3.))',
 'cond_float_pred': 'r = lax.cond(1.5, lambda x: x, lambda x: -x, 1.0)',
 'cond_weak_out': 'r = lax.cond(jnp.float32(1.) > 0, lambda: 1.0, lambda: 2.0)',
 'cond_pytree': "r = lax.cond(False, lambda x: {'a': x, 'b': (x, x * 2)}, lambda x: {'a': -x, 'b': "
                '(x + 1, x)}, jnp.float32(3.))',
 'switch_clamp_hi': 'r = lax.switch(7, [lambda x: x, lambda x: -x, lambda x: x * 10], '
                    'jnp.arange(3))',
 'switch_clamp_lo': 'r = lax.switch(-3, [lambda x: x, lambda x: -x, lambda x: x * 10], '
                    'jnp.arange(3))',
 'switch_one': 'r = lax.switch(5, [lambda x: x + 1], 1.0)',
 'while': 'r = lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.5), (0, '
          'jnp.float32(1.)))',
 'while_promote': 'r = lax.while_loop(lambda c: c < 1, lambda c: c.astype(jnp.float16), 1.0)',
 'while_zero_trips': 'r = lax.while_loop(lambda c: c[0] > 100, lambda c: c * 2, jnp.arange(4))',
 'fori_static': 'r = lax.fori_loop(0, 10, lambda i, c: c * 2. + i, 1.0)',
 'fori_dynamic': 'r = jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 0))(5)',
 'fori_i16': 'r = lax.fori_loop(jnp.int16(1), jnp.int16(4), lambda i, c: c * i, jnp.int16(1))',
 'fori_tuple': 'r = lax.fori_loop(0, 4, lambda i, c: (c[0] + i, c[1] * 2), (0, jnp.ones(2)))',
 'scan_cumsum': 'r = lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(6.))',
 'scan_reverse': 'r = lax.scan(lambda c, x: (c + x, c * x), 1.0, jnp.arange(1., 6.), reverse=True)',
 'scan_unroll': 'r = lax.scan(lambda c, x: (c * 2 + x, (x, c)), jnp.zeros(2), '
                'jnp.arange(10.).reshape(5, 2), unroll=3)',
 'scan_pytree_xs': "r = lax.scan(lambda c, x: (c + x['a'] * x['b'], x['a'] - c), 0.0, {'a': "
                   "jnp.arange(4.), 'b': jnp.ones(4)})",
 'scan_length': 'r = lax.scan(lambda c, _: (c + 1, c * c), 0, None, length=4)',
 'scan_length0': 'r = lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.zeros((0,)))',
 'scan_matrix': 'r = lax.scan(lambda c, x: (c @ x, c.sum()), jnp.eye(2), '
                'jnp.arange(12.).reshape(3, 2, 2))',
 'scan_forward': 'r = lax.scan(lambda c, z: ((c[0] + z, c[1]), (z, c[1], c[0])), (1.0, 2.0), '
                 'jnp.arange(3.))',
 'map': 'r = lax.map(lambda x: x ** 2, jnp.arange(5.))',
 'map_batch_rem': 'r = lax.map(lambda x: x * 3, jnp.arange(5.), batch_size=2)',
 'jit_cond': 'r = jax.jit(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x))(False, jnp.arange(3.))',
 'jit_scan_consts': 'k = jnp.arange(3.); r = jax.jit(lambda x: lax.scan(lambda c, t: (c + k * t, '
                    'c.sum()), x, jnp.arange(4.)))(jnp.ones(3))',
 'nested': 'r = jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: lax.cond(i % 2 == 0, lambda c: '
           'c + 1, lambda c: c * 2, c), x))(1.0)'}

EXPECTED_VALUES = {'grad_cond_true': ['PyTreeDef(*)', [[1.1036007404327393, 'float32', True, []]]],
 'grad_cond_false': ['PyTreeDef(*)', [[6.75, 'float32', True, []]]],
 'jvp_cond': ['PyTreeDef((*, *))',
              [[1.4962425231933594, 'float32', True, []],
               [2.2072014808654785, 'float32', True, []]]],
 'jit_grad_cond': ['PyTreeDef(*)', [[6.75, 'float32', True, []]]],
 'grad_cond_two_outputs': ['PyTreeDef((*, *))',
                           [[1.0, 'float32', True, []], [7.0, 'float32', True, []]]],
 'grad_switch': ['PyTreeDef([*, *, *])',
                 [[0.7648422122001648, 'float32', True, []],
                  [-0.6442176699638367, 'float32', True, []],
                  [1.399999976158142, 'float32', True, []]]],
 'jvp_while': ['PyTreeDef((*, *))', [[16.0, 'float32', True, []], [16.0, 'float32', True, []]]],
 'grad_fori_static': ['PyTreeDef(*)', [[20.69306182861328, 'float32', True, []]]],
 'jvp_fori_static': ['PyTreeDef((*, *))',
                     [[12.822562217712402, 'float32', True, []],
                      [20.69306182861328, 'float32', True, []]]],
 'grad_scan_xs': ['PyTreeDef((*, *))',
                  [[18.71047592163086, 'float32', False, []],
                   [[10.175277709960938, 5.205398082733154, 4.111088275909424, 2.3914120197296143],
                    'float32',
                    False,
                    [4]]]],
 'grad_scan_reverse': ['PyTreeDef((*, *))',
                       [[594.9241333007812, 'float32', True, []],
                        [[0.0, 150.94297790527344, 155.35215759277344, 48.13017272949219],
                         'float32',
                         False,
                         [4]]]],
 'jvp_scan': ['PyTreeDef(((*, *), (*, *)))',
              [[2.727083683013916, 'float32', False, []],
               [[0.5, 0.9588510990142822, 2.7676172256469727, 9.565648078918457],
                'float32',
                False,
                [4]],
               [-8.254584312438965, 'float32', False, []],
               [[1.0, 1.7551651000976562, 4.671863555908203, 11.283449172973633],
                'float32',
                False,
                [4]]]],
 'grad_scan_consts': ['PyTreeDef(*)', [[[20.0, 40.0, 60.0], 'float32', False, [3]]]],
 'jit_grad_scan': ['PyTreeDef(*)', [[-8.254584312438965, 'float32', True, []]]],
 'vmap_cond_batched_pred': ['PyTreeDef(*)',
                            [[[-1.0, 1.8185948133468628, 0.23971277475357056],
                              'float32',
                              False,
                              [3]]]],
 'vmap_cond_unbatched_pred': ['PyTreeDef(*)',
                              [[[-0.8414709568023682, 0.9092974066734314, 0.4794255495071411],
                                'float32',
                                False,
                                [3]]]],
 'vmap_switch': ['PyTreeDef(*)',
                 [[[0.0998334214091301,
                    0.9800665974617004,
                    0.09000000357627869,
                    0.1600000113248825],
                   'float32',
                   False,
                   [4]]]],
 'vmap_while_batched_pred': ['PyTreeDef(*)', [[[16.0, 12.0, 20.0], 'float32', False, [3]]]],
 'vmap_while_matrix_carry': ['PyTreeDef(*)',
                             [[[[4.0, 8.0], [6.0, 8.0], [5.0, 6.0]], 'float32', False, [3, 2]]]],
 'vmap_fori_dynamic': ['PyTreeDef(*)', [[[1.0, 81.0, 16.0], 'float32', False, [3]]]],
 'vmap_scan': ['PyTreeDef((*, *))',
               [[[0.0, -4.286014556884766], 'float32', False, [2]],
                [[[0.0, 0.0, 0.0, 0.0],
                  [0.800000011920929, 3.973386526107788, 21.409128189086914, -17.37849235534668]],
                 'float32',
                 False,
                 [2, 4]]]],
 'vmap_scan_in_axes': ['PyTreeDef((*, *))',
                       [[[0.0, -4.466526031494141], 'float32', False, [2]],
                        [[[0.0, 0.0, 0.0, 0.0],
                          [0.30000001192092896,
                           0.8865606784820557,
                           4.368563175201416,
                           26.835119247436523]],
                         'float32',
                         False,
                         [2, 4]]]],
 'vmap_grad_scan': ['PyTreeDef(*)',
                    [[[19.300493240356445, 8.623446464538574], 'float32', False, [2]]]],
 'grad_vmap_cond': ['PyTreeDef(*)', [[[3.0, 0.07700371742248535], 'float32', False, [2]]]],
 'cond_true': ['PyTreeDef(*)', [[[1.0, 2.0, 3.0], 'float32', False, [3]]]],
 'cond_false': ['PyTreeDef(*)', [[[0.0, 2.0, 4.0], 'float32', False, [3]]]],
 'cond_float_pred': ['PyTreeDef(*)', [[1.0, 'float32', True, []]]],
 'cond_weak_out': ['PyTreeDef(*)', [[1.0, 'float32', True, []]]],
 'cond_pytree': ["PyTreeDef({'a': *, 'b': (*, *)})",
                 [[-3.0, 'float32', False, []],
                  [4.0, 'float32', False, []],
                  [3.0, 'float32', False, []]]],
 'switch_clamp_hi': ['PyTreeDef(*)', [[[0, 10, 20], 'int32', False, [3]]]],
 'switch_clamp_lo': ['PyTreeDef(*)', [[[0, 1, 2], 'int32', False, [3]]]],
 'switch_one': ['PyTreeDef(*)', [[2.0, 'float64', False, []]]],
 'while': ['PyTreeDef((*, *))', [[10, 'int32', True, []], [57.6650390625, 'float32', False, []]]],
 'while_promote': ['PyTreeDef(*)', [[1.0, 'float16', False, []]]],
 'while_zero_trips': ['PyTreeDef(*)', [[[0, 1, 2, 3], 'int32', False, [4]]]],
 'fori_static': ['PyTreeDef(*)', [[2037.0, 'float32', True, []]]],
 'fori_dynamic': ['PyTreeDef(*)', [[10, 'int32', True, []]]],
 'fori_i16': ['PyTreeDef(*)', [[6, 'int16', False, []]]],
 'fori_tuple': ['PyTreeDef((*, *))',
                [[6, 'int32', True, []], [[16.0, 16.0], 'float32', False, [2]]]],
 'scan_cumsum': ['PyTreeDef((*, *))',
                 [[15.0, 'float32', False, []],
                  [[0.0, 0.0, 1.0, 3.0, 6.0, 10.0], 'float32', True, [6]]]],
 'scan_reverse': ['PyTreeDef((*, *))',
                  [[16.0, 'float32', False, []],
                   [[15.0, 26.0, 30.0, 24.0, 5.0], 'float32', False, [5]]]],
 'scan_unroll': ['PyTreeDef((*, (*, *)))',
                 [[[52.0, 83.0], 'float32', False, [2]],
                  [[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
                   'float32',
                   False,
                   [5, 2]],
                  [[[0.0, 0.0], [0.0, 1.0], [2.0, 5.0], [8.0, 15.0], [22.0, 37.0]],
                   'float32',
                   False,
                   [5, 2]]]],
 'scan_pytree_xs': ['PyTreeDef((*, *))',
                    [[6.0, 'float32', False, []], [[0.0, 1.0, 1.0, 0.0], 'float32', False, [4]]]],
 'scan_length': ['PyTreeDef((*, *))', [[4, 'int32', True, []], [[0, 1, 4, 9], 'int32', True, [4]]]],
 'scan_length0': ['PyTreeDef((*, *))', [[0.0, 'float32', False, []], [[], 'float32', False, [0]]]],
 'scan_matrix': ['PyTreeDef((*, *))',
                 [[[[118.0, 131.0], [518.0, 575.0]], 'float32', False, [2, 2]],
                  [[2.0, 6.0, 70.0], 'float32', False, [3]]]],
 'scan_forward': ['PyTreeDef(((*, *), (*, *, *)))',
                  [[4.0, 'float32', False, []],
                   [2.0, 'float64', False, []],
                   [[0.0, 1.0, 2.0], 'float32', False, [3]],
                   [[2.0, 2.0, 2.0], 'float32', True, [3]],
                   [[1.0, 1.0, 2.0], 'float32', True, [3]]]],
 'map': ['PyTreeDef(*)', [[[0.0, 1.0, 4.0, 9.0, 16.0], 'float32', False, [5]]]],
 'map_batch_rem': ['PyTreeDef(*)', [[[0.0, 3.0, 6.0, 9.0, 12.0], 'float32', False, [5]]]],
 'jit_cond': ['PyTreeDef(*)',
              [[[1.0, 0.5403022766113281, -0.416146844625473], 'float32', False, [3]]]],
 'jit_scan_consts': ['PyTreeDef((*, *))',
                     [[[1.0, 7.0, 13.0], 'float32', False, [3]],
                      [[3.0, 3.0, 6.0, 12.0], 'float32', False, [4]]]],
 'nested': ['PyTreeDef(*)', [[5.0, 'float32', True, []]]]}

ERROR_CASES = {'grad_while': 'jax.grad(lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2, x))(1.0)',
 'grad_fori_dynamic': 'jax.jit(jax.grad(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2, '
                      'x)))(1.0, 3)',
 'pred_shape': 'lax.cond(jnp.array([True, False]), lambda x: x, lambda x: x, 1.0)',
 'pred_complex': 'lax.cond(1j, lambda x: x, lambda x: x, 1.0)',
 'pred_str': "lax.cond('a', lambda x: x, lambda x: x, 1.0)",
 'not_callable': 'lax.cond(True, 1, lambda x: x, 1.0)',
 'branch_tree': 'lax.cond(True, lambda x: x, lambda x: (x, x), 1.0)',
 'branch_dtype': 'lax.cond(True, lambda x: x, lambda x: jnp.int32(1), 1.0)',
 'branch_shape': 'lax.cond(True, lambda x: x, lambda x: jnp.ones(3), 1.0)',
 'branch_meta': "lax.cond(True, lambda x: {'a': x}, lambda x: {'b': x}, 1.0)",
 'branch_children': "lax.cond(True, lambda x: {'a': x}, lambda x: {'a': x, 'b': x}, 1.0)",
 'branch_len': 'lax.cond(True, lambda x: (x, (x, x)), lambda x: (x, (x,)), 1.0)',
 'branch_none': 'lax.cond(True, lambda x: (x, None), lambda x: (x, x), 1.0)',
 'branch_multi': "lax.cond(True, lambda x: {'a': x, 'b': (x, jnp.ones(2))}, lambda x: {'a': "
                 "x.astype(int), 'b': (x, jnp.ones(3))}, 1.0)",
 'branch_both': 'lax.cond(True, lambda x: x, lambda x: x.astype(int).reshape(1), 1.0)',
 'switch_float': 'lax.switch(1.5, [lambda x: x, lambda x: x], 1.0)',
 'switch_shape': 'lax.switch(jnp.array([1]), [lambda x: x, lambda x: x], 1.0)',
 'switch_empty': 'lax.switch(1, [], 1.0)',
 'switch_dtype': 'lax.switch(1, [lambda x: (x, 1.), lambda x: (x, 1.), lambda x: (x, 2)], 1.0)',
 'switch_tree': 'lax.switch(0, [lambda x: (x, x), lambda x: x, lambda x: (x,)], 1.0)',
 'while_pred_float': 'lax.while_loop(lambda c: c, lambda c: c + 1, 1.0)',
 'while_pred_shape': 'lax.while_loop(lambda c: jnp.array([True, True]), lambda c: c + 1, 1.0)',
 'while_pred_tree': 'lax.while_loop(lambda c: (c < 1, c < 2), lambda c: c + 1, 1.0)',
 'while_carry_dtype': 'lax.while_loop(lambda c: c < 1, lambda c: jnp.int32(1), jnp.float32(1))',
 'while_carry_path': 'lax.while_loop(lambda c: c[0] < 1, lambda c: (c[0], c[1].astype(jnp.int32)), '
                     '(1.0, 1.0))',
 'while_carry_multi': 'lax.while_loop(lambda c: c[0] < 1, lambda c: (c[0].astype(int), '
                      'c[1].astype(int)), (1.0, 1.0))',
 'while_carry_dict': "lax.while_loop(lambda c: c['a'] < 1, lambda c: {'a': c['a'].astype(int), "
                     "'b': c['b']}, {'a': 1.0, 'b': 1.0})",
 'while_carry_tree': 'lax.while_loop(lambda c: c < 1, lambda c: (c, c), 1.0)',
 'while_carry_none': 'lax.while_loop(lambda c: True, lambda c: None, 1.0)',
 'while_carry_len': 'lax.while_loop(lambda c: True, lambda c: (), (1.0, 1.0))',
 'while_carry_leaf_none': 'lax.while_loop(lambda c: True, lambda c: (c[0], None), (1.0, 1.0))',
 'while_carry_both': 'lax.while_loop(lambda c: True, lambda c: c.astype(int).reshape(1), '
                     'jnp.float32(1))',
 'scan_carry_dtype': 'lax.scan(lambda c, y: (c.astype(jnp.int32), y), jnp.float32(1), jnp.ones(3))',
 'scan_carry_tree': 'lax.scan(lambda c, y: ((c, c), y), 1.0, jnp.ones(3))',
 'scan_carry_none': 'lax.scan(lambda c, y: (None, None), 1.0, jnp.ones(2))',
 'scan_lengths': 'lax.scan(lambda c, y: (c, y), 1.0, (jnp.ones(3), jnp.ones(4)))',
 'scan_no_length': 'lax.scan(lambda c, y: (c, y), 1.0, None)',
 'scan_length_mismatch': 'lax.scan(lambda c, y: (c, y), 1.0, jnp.ones(3), length=4)',
 'scan_not_pair': 'lax.scan(lambda c, y: c, 1.0, jnp.ones(3))',
 'fori_carry': 'lax.fori_loop(0, 3, lambda i, c: c.astype(jnp.int32), 1.0)',
 'fori_carry_tree': 'lax.fori_loop(0, 3, lambda i, c: (c[0],), (1.0, 1.0))',
 'fori_bound_types': 'lax.fori_loop(0.0, 3, lambda i, c: c, 1.0)',
 'fori_unroll_dynamic': 'jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c, 1.0, unroll=2))(3)'}

EXPECTED_ERRORS = {'grad_while': ['ValueError',
                'Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop '
                'with dynamic start/stop values. Try using lax.scan, or using fori_loop with '
                'static start/stop.'],
 'grad_fori_dynamic': ['ValueError',
                       'Reverse-mode differentiation does not work for lax.while_loop or '
                       'lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using '
                       'fori_loop with static start/stop.'],
 'pred_shape': ['TypeError', 'Pred must be a scalar, got [ True False] of shape (2,).'],
 'pred_complex': ['TypeError', 'Pred type must be either boolean or number, got complex64.'],
 'pred_str': ['TypeError', "Pred must be a scalar, got a of type <class 'str'>"],
 'not_callable': ['TypeError', 'lax.cond: true_fun and false_fun arguments should be callable.'],
 'branch_tree': ['TypeError',
                 'cond branch outputs must have the same pytree structure, but they differ:\n'
                 '\n'
                 'true_fun is <lambda> at <string>:1\n'
                 'false_fun is <lambda> at <string>:1\n'
                 '\n'
                 "true_fun output is a pytree leaf but false_fun output is a <class 'tuple'>, so "
                 'their Python types differ.\n'
                 '\n'
                 'Revise true_fun and/or false_fun so that they have the same pytree structure.'],
 'branch_dtype': ['TypeError',
                  'cond branches must have equal output types but they differ.\n'
                  '\n'
                  'true_fun is <lambda> at <string>:1\n'
                  'false_fun is <lambda> at <string>:1\n'
                  '\n'
                  'The output of true_fun has type float32[] but the corresponding output of '
                  'false_fun has type int32[], so the dtypes do not match.\n'
                  '\n'
                  'Revise true_fun and/or false_fun so that all output types match.'],
 'branch_shape': ['TypeError',
                  'cond branches must have equal output types but they differ.\n'
                  '\n'
                  'true_fun is <lambda> at <string>:1\n'
                  'false_fun is <lambda> at <string>:1\n'
                  '\n'
                  'The output of true_fun has type float32[] but the corresponding output of '
                  'false_fun has type float32[3], so the shapes do not match.\n'
                  '\n'
                  'Revise true_fun and/or false_fun so that all output types match.'],
 'branch_meta': ['TypeError',
                 'cond branch outputs must have the same pytree structure, but they differ:\n'
                 '\n'
                 'true_fun is <lambda> at <string>:1\n'
                 'false_fun is <lambda> at <string>:1\n'
                 '\n'
                 "true_fun output is a <class 'dict'> with pytree metadata ('a',) but false_fun "
                 "output is a <class 'dict'> with pytree metadata ('b',), so the pytree node "
                 'metadata does not match.\n'
                 '\n'
                 'Revise true_fun and/or false_fun so that they have the same pytree structure.'],
 'branch_children': ['TypeError',
                     'cond branch outputs must have the same pytree structure, but they differ:\n'
                     '\n'
                     'true_fun is <lambda> at <string>:1\n'
                     'false_fun is <lambda> at <string>:1\n'
                     '\n'
                     "true_fun output is a <class 'dict'> with 1 child but false_fun output is a "
                     "<class 'dict'> with 2 children, so the numbers of children do not match, "
                     "with the symmetric difference of key sets: {'b'}.\n"
                     '\n'
                     'Revise true_fun and/or false_fun so that they have the same pytree '
                     'structure.'],
 'branch_len': ['TypeError',
                'cond branch outputs must have the same pytree structure, but they differ:\n'
                '\n'
                'true_fun is <lambda> at <string>:1\n'
                'false_fun is <lambda> at <string>:1\n'
                '\n'
                'true_fun output at path [1] is a tuple of length 2 but false_fun output at path '
                '[1] is a tuple of length 1, so the lengths do not match.\n'
                '\n'
                'Revise true_fun and/or false_fun so that they have the same pytree structure.'],
 'branch_none': ['TypeError',
                 'cond branch outputs must have the same pytree structure, but they differ:\n'
                 '\n'
                 'true_fun is <lambda> at <string>:1\n'
                 'false_fun is <lambda> at <string>:1\n'
                 '\n'
                 "true_fun output at path [1] is a <class 'NoneType'> but false_fun output at path "
                 '[1] is a pytree leaf, so their Python types differ.\n'
                 '\n'
                 'Revise true_fun and/or false_fun so that they have the same pytree structure.'],
 'branch_multi': ['TypeError',
                  'cond branches must have equal output types but they differ.\n'
                  '\n'
                  'true_fun is <lambda> at <string>:1\n'
                  'false_fun is <lambda> at <string>:1\n'
                  '\n'
                  "  * the output of true_fun at path ['a'] has type float32[] but the "
                  'corresponding output of false_fun has type int32[], so the dtypes do not '
                  'match;\n'
                  "  * the output of true_fun at path ['b'][1] has type float32[2] but the "
                  'corresponding output of false_fun has type float32[3], so the shapes do not '
                  'match.\n'
                  '\n'
                  'Revise true_fun and/or false_fun so that all output types match.'],
 'branch_both': ['TypeError',
                 'cond branches must have equal output types but they differ.\n'
                 '\n'
                 'true_fun is <lambda> at <string>:1\n'
                 'false_fun is <lambda> at <string>:1\n'
                 '\n'
                 'The output of true_fun has type float32[] but the corresponding output of '
                 'false_fun has type int32[1], so the dtypes do not match, and the shapes do not '
                 'match.\n'
                 '\n'
                 'Revise true_fun and/or false_fun so that all output types match.'],
 'switch_float': ['TypeError', 'Index type must be an integer, got 1.5 as float32'],
 'switch_shape': ['TypeError', 'Branch index must be scalar, got [1] of shape (1,).'],
 'switch_empty': ['ValueError', 'Empty branch sequence'],
 'switch_dtype': ['TypeError',
                  'switch branches must have equal output types but they differ.\n'
                  '\n'
                  'branch 0 is <lambda> at <string>:1\n'
                  'branch2 is <lambda> at <string>:1\n'
                  '\n'
                  'The output of branch 0 at path [1] has type float32[] but the corresponding '
                  'output of branch2 has type int32[], so the dtypes do not match.\n'
                  '\n'
                  'Revise branch 0 and/or branch2 so that all output types match.'],
 'switch_tree': ['TypeError',
                 'switch branch outputs must have the same pytree structure, but they differ:\n'
                 '\n'
                 'branch 0 is <lambda> at <string>:1\n'
                 'branch1 is <lambda> at <string>:1\n'
                 '\n'
                 "branch 0 output is a <class 'tuple'> but branch1 output is a pytree leaf, so "
                 'their Python types differ.\n'
                 '\n'
                 'Revise branch 0 and/or branch1 so that they have the same pytree structure.'],
 'while_pred_float': ['TypeError',
                      'cond_fun must return a boolean scalar, but got output type(s) '
                      '[ShapedArray(float32[], weak_type=True)].'],
 'while_pred_shape': ['TypeError',
                      'cond_fun must return a boolean scalar, but got output type(s) '
                      '[ShapedArray(bool[2])].'],
 'while_pred_tree': ['TypeError',
                     'cond_fun must return a boolean scalar, but got pytree PyTreeDef((*, *)).'],
 'while_carry_dtype': ['TypeError',
                       'while_loop body function carry input and carry output must have equal '
                       'types, but they differ:\n'
                       '\n'
                       'The input carry c has type float32[] but the corresponding output carry '
                       'component has type int32[], so the dtypes do not match.\n'
                       '\n'
                       'Revise the function so that all output types match the corresponding input '
                       'types.'],
 'while_carry_path': ['TypeError',
                      'while_loop body function carry input and carry output must have equal '
                      'types, but they differ:\n'
                      '\n'
                      'The input carry component c[1] has type float32[] but the corresponding '
                      'output carry component has type int32[], so the dtypes do not match.\n'
                      '\n'
                      'Revise the function so that all output types match the corresponding input '
                      'types.'],
 'while_carry_multi': ['TypeError',
                       'while_loop body function carry input and carry output must have equal '
                       'types, but they differ:\n'
                       '\n'
                       '  * the input carry component c[0] has type float32[] but the '
                       'corresponding output carry component has type int32[], so the dtypes do '
                       'not match;\n'
                       '  * the input carry component c[1] has type float32[] but the '
                       'corresponding output carry component has type int32[], so the dtypes do '
                       'not match.\n'
                       '\n'
                       'Revise the function so that all output types match the corresponding input '
                       'types.'],
 'while_carry_dict': ['TypeError',
                      'while_loop body function carry input and carry output must have equal '
                      'types, but they differ:\n'
                      '\n'
                      "The input carry component c['a'] has type float32[] but the corresponding "
                      'output carry component has type int32[], so the dtypes do not match.\n'
                      '\n'
                      'Revise the function so that all output types match the corresponding input '
                      'types.'],
 'while_carry_tree': ['TypeError',
                      'while_loop body function carry input and carry output must have the same '
                      'pytree structure, but they differ:\n'
                      '\n'
                      "The input carry c is a <class 'jax._src.core.ShapedArray'> but the "
                      "corresponding component of the carry output is a <class 'tuple'>, so their "
                      'Python types differ.\n'
                      '\n'
                      'Revise the function so that the carry output has the same pytree structure '
                      'as the carry input.'],
 'while_carry_none': ['TypeError',
                      'while_loop body function carry input and carry output must have the same '
                      'pytree structure, but they differ:\n'
                      '\n'
                      'the input tree structure is:\n'
                      'PyTreeDef(*)\n'
                      'the output tree structure is:\n'
                      'PyTreeDef(None)\n'
                      '\n'
                      'Revise the function so that the carry output has the same pytree structure '
                      'as the carry input.'],
 'while_carry_len': ['TypeError',
                     'while_loop body function carry input and carry output must have the same '
                     'pytree structure, but they differ:\n'
                     '\n'
                     'The input carry c is a tuple of length 2 but the corresponding component of '
                     'the carry output is a tuple of length 0, so the lengths do not match.\n'
                     '\n'
                     'Revise the function so that the carry output has the same pytree structure '
                     'as the carry input.'],
 'while_carry_leaf_none': ['TypeError',
                           'while_loop body function carry input and carry output must have the '
                           'same pytree structure, but they differ:\n'
                           '\n'
                           'The input carry component c[1] is a <class '
                           "'jax._src.core.ShapedArray'> but the corresponding component of the "
                           "carry output is a <class 'NoneType'>, so their Python types differ.\n"
                           '\n'
                           'Revise the function so that the carry output has the same pytree '
                           'structure as the carry input.'],
 'while_carry_both': ['TypeError',
                      'while_loop body function carry input and carry output must have equal '
                      'types, but they differ:\n'
                      '\n'
                      'The input carry c has type float32[] but the corresponding output carry '
                      'component has type int32[1], so the dtypes do not match, and the shapes do '
                      'not match.\n'
                      '\n'
                      'Revise the function so that all output types match the corresponding input '
                      'types.'],
 'scan_carry_dtype': ['TypeError',
                      'scan body function carry input and carry output must have equal types, but '
                      'they differ:\n'
                      '\n'
                      'The input carry c has type float32[] but the corresponding output carry '
                      'component has type int32[], so the dtypes do not match.\n'
                      '\n'
                      'Revise the function so that all output types match the corresponding input '
                      'types.'],
 'scan_carry_tree': ['TypeError',
                     'scan body function carry input and carry output must have the same pytree '
                     'structure, but they differ:\n'
                     '\n'
                     "The input carry c is a <class 'jax._src.core.ShapedArray'> but the "
                     "corresponding component of the carry output is a <class 'tuple'>, so their "
                     'Python types differ.\n'
                     '\n'
                     'Revise the function so that the carry output has the same pytree structure '
                     'as the carry input.'],
 'scan_carry_none': ['TypeError',
                     'scan body function carry input and carry output must have the same pytree '
                     'structure, but they differ:\n'
                     '\n'
                     'the input tree structure is:\n'
                     'PyTreeDef(*)\n'
                     'the output tree structure is:\n'
                     'PyTreeDef(None)\n'
                     '\n'
                     'Revise the function so that the carry output has the same pytree structure '
                     'as the carry input.'],
 'scan_lengths': ['ValueError', 'scan got values with different leading axis sizes: 3, 4.'],
 'scan_no_length': ['ValueError', 'scan got no values to scan over and `length` not provided.'],
 'scan_length_mismatch': ['ValueError',
                          'scan got `length` argument of 4 which disagrees with leading axis sizes '
                          '[3].'],
 'scan_not_pair': ['TypeError', 'scan body output must be a pair, got ~float32[].'],
 'fori_carry': ['TypeError',
                'scan body function carry input and carry output must have equal types, but they '
                'differ:\n'
                '\n'
                'The input carry component loop_carry[1] has type float32[] but the corresponding '
                'output carry component has type int32[], so the dtypes do not match.\n'
                '\n'
                'Revise the function so that all output types match the corresponding input '
                'types.'],
 'fori_carry_tree': ['TypeError',
                     'scan body function carry input and carry output must have the same pytree '
                     'structure, but they differ:\n'
                     '\n'
                     'The input carry component loop_carry[1] is a tuple of length 2 but the '
                     'corresponding component of the carry output is a tuple of length 1, so the '
                     'lengths do not match.\n'
                     '\n'
                     'Revise the function so that the carry output has the same pytree structure '
                     'as the carry input.'],
 'fori_bound_types': ['TypeError',
                      'lower and upper arguments to fori_loop must have equal types, got float32 '
                      'and int32'],
 'fori_unroll_dynamic': ['ValueError',
                         'Can only use `unroll` in `fori_loop` if the loop bounds are statically '
                         'known.']}


def _ns():
    return dict(jax=jax, jnp=jnp, lax=lax, np=np)


@pytest.mark.parametrize("name", list(JAXPR_CASES))
def test_jaxpr(name):
    ns = _ns()
    exec(JAXPR_CASES[name], ns)
    assert str(jax.make_jaxpr(ns["f"])(*ns["args"])) == EXPECTED_JAXPRS[name]


# Cotangents of a weakly typed scan carry: JAX's weak type depends on how the
# carry's cotangent was seeded; xjit keeps the carry input's weak type.
WEAK_TYPE_DIVERGES = {"grad_scan_xs"}


def _check_value(got, want, check_weak=True):
    tree, leaves = want
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    assert str(got_tree) == tree
    assert len(got_leaves) == len(leaves)
    for g, (vals, dtype, weak, shape) in zip(got_leaves, leaves):
        assert list(np.shape(g)) == shape
        assert str(np.asarray(g).dtype) == dtype
        assert not check_weak or bool(getattr(g, "weak_type", False)) == weak
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64), np.asarray(vals, np.float64),
                                   rtol=1e-6)


@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_value(name):
    ns = _ns()
    exec(VALUE_CASES[name], ns)
    _check_value(ns["r"], EXPECTED_VALUES[name], name not in WEAK_TYPE_DIVERGES)


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_error(name):
    cls, msg = EXPECTED_ERRORS[name]
    with pytest.raises(Exception) as info:
        exec(ERROR_CASES[name], _ns())
    assert type(info.value).__name__ == cls
    got = str(info.value).replace("test_control_flow.py", "<file>")
    assert _unlocate(got) == _unlocate(msg)


def _unlocate(msg):
    """Branch functions are named with their file and line; compare without."""
    import re
    return re.sub(r" at \S+:\d+", " at <loc>", msg)


# linearize of a while loop: the primal outputs are values, computed by a loop
# over the known carries; the tangents a recorded loop over all of them (JAX's
# printed jaxpr, recorded from 0.10.2)
LINEARIZED_WHILE_JAXPR = '''\
{ lambda ; a:f32[]. let
    _:i32[] _:f32[] = while[
      body_jaxpr={ lambda ; b:i32[] c:f32[]. let
          d:i32[] = add b 1:i32[]
          e:f32[] = mul c 1.5:f32[]
        in (d, e) }
      body_nconsts=0
      cond_jaxpr={ lambda ; f:i32[] g:f32[]. let
          h:bool[] = lt f 5:i32[]
        in (h,) }
      cond_nconsts=0
    ] 0:i32[] a
    _:i32[] _:f32[] i:f32[] = while[
      body_jaxpr={ lambda ; j:i32[] k:f32[] l:f32[]. let
          m:i32[] = add j 1:i32[]
          n:f32[] = mul k 1.5:f32[]
          o:f32[] = mul l 1.5:f32[]
        in (m, n, o) }
      body_nconsts=0
      cond_jaxpr={ lambda ; p:i32[] q:f32[] r:f32[]. let
          s:bool[] = lt p 5:i32[]
        in (s,) }
      cond_nconsts=0
    ] 0:i32[] a 1.0:f32[]
  in (i,) }
'''


def test_linearize_while_loop():
    f = lambda x: lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))[1]
    y, lin = jax.linearize(f, 2.0)
    assert type(y) is type(jnp.ones(())) and float(y) == 15.1875
    assert float(lin(1.0)) == 7.59375 and float(lin(2.0)) == 15.1875
    assert str(jax.make_jaxpr(lambda x: jax.linearize(f, x)[1](1.0))(2.0)) == \
        LINEARIZED_WHILE_JAXPR.rstrip("\n")
    h = lambda x: lax.while_loop(lambda c: c[0] < 4,
                                 lambda c: (c[0] + 1, jnp.sin(c[1]) * x), (0, x))[1]
    y, lin = jax.linearize(h, 0.7)
    np.testing.assert_allclose([float(y), float(lin(1.0))], [0.14609715, 0.95323545], rtol=1e-6)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jax.grad(f)(2.0)


def test_cond_in_its_old_five_argument_form():
    """``cond(pred, true_operand, true_fun, false_operand, false_fun)``: JAX
    0.10.2 still takes it (numpyro's NUTS does), with each branch given its own
    operand; the staged cond is the new form's (printed as JAX prints it)."""
    def f(p):
        return lax.cond(p, 1.0, lambda x: x + 1, 2.0, lambda x: x * 10)
    assert float(f(True)) == 2.0 and float(jax.jit(f)(False)) == 20.0
    assert str(jax.make_jaxpr(f)(True)) == """{ lambda ; a:bool[]. let
    b:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    c:f32[] = cond[
      branches=(
        { lambda ; d:f32[] e:f32[]. let f:f32[] = mul e 10.0:f32[] in (f,) }
        { lambda ; g:f32[] h:f32[]. let i:f32[] = add g 1.0:f32[] in (i,) }
      )
    ] b 1.0:f32[] 2.0:f32[]
  in (c,) }"""
