"""Advanced indexing, gather/scatter and .at[] against JAX 0.10.2.

Each case is an expression evaluated with ``xjit`` as ``jax``; the expected
text is what JAX 0.10.2 printed for it (``repr`` of values, ``str`` of
jaxprs, ``Class: first line`` of errors), stored as literals."""

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from util import eval_expr

CASES = [
    ('oob_getitem', 'jnp.arange(10)[11]',
     'Array(9, dtype=int32)'),
    ('oob_at_get', 'jnp.arange(10.0).at[11].get()',
     'Array(9., dtype=float32)'),
    ('oob_at_get_fill', "jnp.arange(10.0).at[11].get(mode='fill', fill_value=jnp.nan)",
     'Array(nan, dtype=float32)'),
    ('at_set_row', 'jnp.zeros((3,3), dtype=jnp.float32).at[1, :].set(1.0)',
     'Array([[0., 0., 0.],\n       [1., 1., 1.],\n       [0., 0., 0.]], dtype=float32)'),
    ('at_add_strided', 'jnp.ones((5, 6)).at[::2, 3:].add(7.)',
     'Array([[1., 1., 1., 8., 8., 8.],\n       [1., 1., 1., 1., 1., 1.],\n       [1., 1., 1., 8., 8., 8.],\n       [1., 1., 1., 1., 1., 1.],\n       [1., 1., 1., 8., 8., 8.]], dtype=float32)'),
    ('faq_at_set', 'jnp.arange(5).at[0].set(10)',
     'Array([10,  1,  2,  3,  4], dtype=int32)'),
    ('int_array', 'jnp.arange(10.)[jnp.array([1, -1, 3])]',
     'Array([1., 9., 3.], dtype=float32)'),
    ('int_array_oob_clamps', 'jnp.arange(10.)[jnp.array([0, 11, -1, -11])]',
     'Array([0., 9., 9., 0.], dtype=float32)'),
    ('get_fill_neg1', "jnp.arange(10.).at[jnp.array([0, 11, -1, -11])].get(mode='fill', fill_value=-1)",
     'Array([ 0., -1.,  9., -1.], dtype=float32)'),
    ('get_fill_default_int', "jnp.arange(10).at[jnp.array([0, 11, -1, -11])].get(mode='fill')",
     'Array([          0, -2147483648,           9, -2147483648], dtype=int32)'),
    ('get_fill_default_float', "jnp.arange(10.).at[jnp.array([0, 11])].get(mode='fill')",
     'Array([ 0., nan], dtype=float32)'),
    ('get_clip', "jnp.arange(10.).at[jnp.array([0, 11, -11])].get(mode='clip')",
     'Array([0., 9., 0.], dtype=float32)'),
    ('set_oob_dropped', 'jnp.arange(10.).at[jnp.array([0, 11, -1, -11])].set(100.)',
     'Array([100.,   1.,   2.,   3.,   4.,   5.,   6.,   7.,   8., 100.],      dtype=float32)'),
    ('set_clip', "jnp.arange(10.).at[jnp.array([0, 11])].set(100., mode='clip')",
     'Array([100.,   1.,   2.,   3.,   4.,   5.,   6.,   7.,   8., 100.],      dtype=float32)'),
    ('mixed_noncontig', 'jnp.arange(120.).reshape(4,5,6)[jnp.array([1,2]), :, jnp.array([1,2])]',
     'Array([[31., 37., 43., 49., 55.],\n       [62., 68., 74., 80., 86.]], dtype=float32)'),
    ('mixed_contig', 'jnp.arange(120.).reshape(4,5,6)[:, jnp.array([1,2]), jnp.array([1,2])]',
     'Array([[  7.,  14.],\n       [ 37.,  44.],\n       [ 67.,  74.],\n       [ 97., 104.]], dtype=float32)'),
    ('mixed_int_arrays', 'jnp.arange(120.).reshape(4,5,6)[1, jnp.array([1,2]), jnp.array([[0,1],[2,3]])]',
     'Array([[36., 43.],\n       [38., 45.]], dtype=float32)'),
    ('newaxis_ellipsis_rev', 'jnp.arange(120.).reshape(4,5,6)[None, jnp.array([1,2]), ..., ::-1]',
     'Array([[[[35., 34., 33., 32., 31., 30.],\n         [41., 40., 39., 38., 37., 36.],\n         [47., 46., 45., 44., 43., 42.],\n         [53., 52., 51., 50., 49., 48.],\n         [59., 58., 57., 56., 55., 54.]],\n\n        [[65., 64., 63., 62., 61., 60.],\n         [71., 70., 69., 68., 67., 66.],\n         [77., 76., 75., 74., 73., 72.],\n         [83., 82., 81., 80., 79., 78.],\n         [89., 88., 87., 86., 85., 84.]]]], dtype=float32)'),
    ('bool_mask', 'jnp.arange(120.).reshape(4,5,6)[jnp.array([True, False, True, False])]',
     'Array([[[ 0.,  1.,  2.,  3.,  4.,  5.],\n        [ 6.,  7.,  8.,  9., 10., 11.],\n        [12., 13., 14., 15., 16., 17.],\n        [18., 19., 20., 21., 22., 23.],\n        [24., 25., 26., 27., 28., 29.]],\n\n       [[60., 61., 62., 63., 64., 65.],\n        [66., 67., 68., 69., 70., 71.],\n        [72., 73., 74., 75., 76., 77.],\n        [78., 79., 80., 81., 82., 83.],\n        [84., 85., 86., 87., 88., 89.]]], dtype=float32)'),
    ('bool_mask_2d', 'jnp.arange(6).reshape(2,3)[jnp.array([[True, False, True],[False, True, False]])]',
     'Array([0, 2, 4], dtype=int32)'),
    ('bool_scalar_true', 'jnp.arange(3)[True]',
     'Array([[0, 1, 2]], dtype=int32)'),
    ('bool_scalar_false', 'jnp.arange(3)[False]',
     'Array([], shape=(0, 3), dtype=int32)'),
    ('tuple_with_list', 'jnp.arange(120.).reshape(4,5,6)[(1, [1, 2])]',
     'Array([[36., 37., 38., 39., 40., 41.],\n       [42., 43., 44., 45., 46., 47.]], dtype=float32)'),
    ('broadcast_idx', 'jnp.arange(120.).reshape(4,5,6)[jnp.array([1,2])[:, None], jnp.array([1,2])]',
     'Array([[[36., 37., 38., 39., 40., 41.],\n        [42., 43., 44., 45., 46., 47.]],\n\n       [[66., 67., 68., 69., 70., 71.],\n        [72., 73., 74., 75., 76., 77.]]], dtype=float32)'),
    ('slice_and_array', 'jnp.arange(120.).reshape(4,5,6)[1:3, jnp.array([1,2])]',
     'Array([[[36., 37., 38., 39., 40., 41.],\n        [42., 43., 44., 45., 46., 47.]],\n\n       [[66., 67., 68., 69., 70., 71.],\n        [72., 73., 74., 75., 76., 77.]]], dtype=float32)'),
    ('at_add_dupes', 'jnp.zeros(5).at[jnp.array([1, 1, 3])].add(1.)',
     'Array([0., 2., 0., 1., 0.], dtype=float32)'),
    ('at_mul', 'jnp.ones(5).at[jnp.array([1, 1, 3])].multiply(3.)',
     'Array([1., 9., 1., 3., 1.], dtype=float32)'),
    ('at_min', 'jnp.arange(5.).at[jnp.array([1, 3])].min(jnp.array([0., 9.]))',
     'Array([0., 0., 2., 3., 4.], dtype=float32)'),
    ('at_max', 'jnp.arange(5.).at[jnp.array([1, 3])].max(jnp.array([0., 9.]))',
     'Array([0., 1., 2., 9., 4.], dtype=float32)'),
    ('at_divide', 'jnp.arange(5.).at[jnp.array([1, 3])].divide(2.)',
     'Array([0. , 0.5, 2. , 1.5, 4. ], dtype=float32)'),
    ('at_power', 'jnp.arange(5.).at[jnp.array([1, 3])].power(2)',
     'Array([0., 1., 2., 9., 4.], dtype=float32)'),
    ('at_apply', 'jnp.arange(5.).at[jnp.array([1, 3])].apply(jnp.negative)',
     'Array([ 0., -1.,  2., -3.,  4.], dtype=float32)'),
    ('at_set_bcast', 'jnp.zeros((3, 4)).at[1].set(jnp.arange(4))',
     'Array([[0., 0., 0., 0.],\n       [0., 1., 2., 3.],\n       [0., 0., 0., 0.]], dtype=float32)'),
    ('at_set_bool_mask', 'jnp.arange(5).at[jnp.array([True, False, True, False, True])].set(0)',
     'Array([0, 1, 0, 3, 0], dtype=int32)'),
    ('at_set_negstep', 'jnp.zeros(6).at[::-2].set(jnp.array([1., 2., 3.]))',
     'Array([0., 3., 0., 2., 0., 1.], dtype=float32)'),
    ('at_set_newaxis', 'jnp.zeros((2, 3)).at[None, 1].set(5.)',
     'Array([[0., 0., 0.],\n       [5., 5., 5.]], dtype=float32)'),
    ('at_set_all', 'jnp.zeros(3).at[:].set(2.)',
     'Array([2., 2., 2.], dtype=float32)'),
    ('at_get_drop_row', "jnp.ones((4, 5)).at[7].get(mode='drop')",
     'Array([nan, nan, nan, nan, nan], dtype=float32)'),
    ('take_default_fill', 'jnp.take(jnp.arange(5.), jnp.array([0, 7, -1]))',
     'Array([ 0., nan,  4.], dtype=float32)'),
    ('take_axis', 'jnp.take(jnp.arange(12).reshape(3, 4), jnp.array([3, 0]), axis=1)',
     'Array([[ 3,  0],\n       [ 7,  4],\n       [11,  8]], dtype=int32)'),
    ('take_clip', "jnp.take(jnp.arange(5), jnp.array([0, 7]), mode='clip')",
     'Array([0, 4], dtype=int32)'),
    ('take_along', 'jnp.take_along_axis(jnp.arange(12.).reshape(3, 4), jnp.array([[1], [2], [-1]]), axis=1)',
     'Array([[ 1.],\n       [ 6.],\n       [11.]], dtype=float32)'),
    ('nonzero_size', 'jnp.nonzero(jnp.array([0, 1, 0, 2, 3]), size=4, fill_value=-1)',
     '(Array([ 1,  3,  4, -1], dtype=int32),)'),
    ('nonzero_size_2d', 'jnp.nonzero(jnp.array([[0, 1], [2, 0]]), size=3)',
     '(Array([0, 1, 0], dtype=int32), Array([1, 0, 0], dtype=int32))'),
    ('err_list', 'jnp.arange(10.)[[1, 2]]',
     'TypeError: Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more information.'),
    ('err_float', 'jnp.arange(10.)[jnp.array([1.0])]',
     'TypeError: Indexer must have integer or boolean type, got indexer with type float32'),
    ('err_str', "jnp.arange(10.)['a']",
     "TypeError: JAX does not support string indexing; got idx='a'"),
    ('err_too_many', 'jnp.arange(10.)[jnp.array([1]), 1]',
     'IndexError: Too many indices: array is 1-dimensional, but 2 were indexed'),
    ('err_bool_shape', 'jnp.ones((4, 5))[jnp.array([True, False])]',
     'IndexError: boolean index did not match shape of indexed array in index 0: got (2,), expected [4]'),
    ('err_bcast', 'jnp.ones((4, 5))[jnp.array([1, 2]), jnp.array([1, 2, 3])]',
     'ValueError: Incompatible shapes for broadcasting: shapes=[(2,), (3,)]'),
    ('err_nonconcrete_bool', 'jax.jit(lambda x: x[x > 2])(jnp.arange(4))',
     'NonConcreteBooleanIndexError: Array boolean indices must be concrete; got bool[4]'),
    ('err_mode', "jnp.arange(10.).at[1].get(mode='bad')",
     'ValueError: Unknown gather mode "bad"'),
    ('err_attr', 'jnp.arange(10.).at[1].foo(1)',
     "AttributeError: '_IndexUpdateRef' object has no attribute 'foo'"),
    ('err_update_shape', 'jnp.arange(10.).at[1].set(jnp.ones(3))',
     'ValueError: Cannot broadcast to shape with fewer dimensions: arr_shape=(3,) shape=()'),
    ('err_immutable', 'jnp.zeros(3).__setitem__(0, 1.)',
     'TypeError: JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html'),
    ('jx_int_array', 'jax.make_jaxpr(lambda x, i: x[i])(jnp.arange(10.), jnp.array([1,2]))',
     '{ lambda ; a:f32[10] b:i32[2]. let\n    c:bool[2] = lt b 0:i32[]\n    d:i32[2] = add b 10:i32[]\n    e:i32[2] = select_n c b d\n    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:f32[2] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1,)\n      unique_indices=False\n    ] a f\n  in (g,) }'),
    ('jx_np_array', 'jax.make_jaxpr(lambda x: x[np.array([1, 2])])(jnp.arange(10.))',
     '{ lambda a:i32[2] b:bool[2]; c:f32[10]. let\n    d:i32[2] = add a 10:i32[]\n    e:i32[2] = select_n b a d\n    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:f32[2] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1,)\n      unique_indices=False\n    ] c f\n  in (g,) }'),
    ('jx_fill', "jax.make_jaxpr(lambda x: x.at[11].get(mode='fill', fill_value=jnp.nan))(jnp.arange(10.))",
     '{ lambda ; a:f32[10]. let\n    b:i32[1] = broadcast_in_dim 11:i32[]\n    c:f32[] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=nan\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      slice_sizes=(1,)\n      unique_indices=True\n    ] a b\n  in (c,) }'),
    ('jx_fill_neg', "jax.make_jaxpr(lambda x: x.at[-1].get(mode='fill', fill_value=jnp.nan))(jnp.arange(10.))",
     '{ lambda ; a:f32[10]. let\n    b:i32[1] = broadcast_in_dim 9:i32[]\n    c:f32[] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=nan\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      slice_sizes=(1,)\n      unique_indices=True\n    ] a b\n  in (c,) }'),
    ('jx_fill_traced', "jax.make_jaxpr(lambda x, k: x.at[k].get(mode='fill', fill_value=0))(jnp.arange(10.), 3)",
     '{ lambda ; a:f32[10] b:i32[]. let\n    c:bool[] = lt b 0:i32[]\n    d:i32[] = add b 10:i32[]\n    e:i32[] = select_n c b d\n    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e\n    g:i32[1] = broadcast_in_dim f\n    h:f32[] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=0\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      slice_sizes=(1,)\n      unique_indices=True\n    ] a g\n  in (h,) }'),
    ('jx_set_scalar', 'jax.make_jaxpr(lambda x: x.at[1].set(3.))(jnp.arange(10.))',
     '{ lambda ; a:f32[10]. let\n    b:i32[1] = broadcast_in_dim 1:i32[]\n    c:f32[10] = scatter[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=True\n      update_consts=()\n      update_jaxpr=None\n    ] a b 3.0:f32[]\n  in (c,) }'),
    ('jx_add_array', 'jax.make_jaxpr(lambda x, i: x.at[i].add(3.))(jnp.arange(10.), jnp.array([1,2]))',
     '{ lambda ; a:f32[10] b:i32[2]. let\n    c:bool[2] = lt b 0:i32[]\n    d:i32[2] = add b 10:i32[]\n    e:i32[2] = select_n c b d\n    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:f32[2] = broadcast_in_dim 3.0:f32[]\n    h:f32[10] = scatter-add[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=False\n      update_consts=()\n      update_jaxpr={ lambda ; i:f32[] j:f32[]. let k:f32[] = add i j in (k,) }\n    ] a f g\n  in (h,) }'),
    ('jx_add_strided', 'jax.make_jaxpr(lambda y: y.at[::2, 3:].add(7.))(jnp.ones((5, 6)))',
     '{ lambda ; a:f32[5,6]. let\n    b:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] \n    c:i32[3] = mul 2:i32[] b\n    d:i32[3] = add 0:i32[] c\n    e:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] d\n    f:i32[3,1] = broadcast_in_dim 3:i32[]\n    g:i32[3,2] = concatenate[dimension=1] e f\n    h:f32[3,3] = broadcast_in_dim 7.0:f32[]\n    i:f32[5,6] = scatter-add[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0, 1), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=True\n      update_consts=()\n      update_jaxpr={ lambda ; j:f32[] k:f32[]. let l:f32[] = add j k in (l,) }\n    ] a g h\n  in (i,) }'),
    ('jx_set_row', 'jax.make_jaxpr(lambda y: y.at[1, :].set(1.))(jnp.ones((5, 6)))',
     '{ lambda ; a:f32[5,6]. let\n    b:i32[1] = broadcast_in_dim 1:i32[]\n    c:f32[6] = broadcast_in_dim 1.0:f32[]\n    d:f32[5,6] = scatter[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=True\n      update_consts=()\n      update_jaxpr=None\n    ] a b c\n  in (d,) }'),
    ('jx_noncontig', 'jax.make_jaxpr(lambda y, i: y[i, :, i])(jnp.arange(120.).reshape(4,5,6), jnp.array([1,2]))',
     '{ lambda ; a:f32[4,5,6] b:i32[2]. let\n    c:bool[2] = lt b 0:i32[]\n    d:i32[2] = add b 4:i32[]\n    e:i32[2] = select_n c b d\n    f:bool[2] = lt b 0:i32[]\n    g:i32[2] = add b 6:i32[]\n    h:i32[2] = select_n f b g\n    i:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    j:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] h\n    k:i32[2,2] = concatenate[dimension=1] i j\n    l:f32[2,5] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0, 2), start_index_map=(0, 2), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1, 5, 1)\n      unique_indices=False\n    ] a k\n  in (l,) }'),
    ('jx_mixed_ints', 'jax.make_jaxpr(lambda y, i, j: y[1, i, j])(jnp.arange(120.).reshape(4,5,6), jnp.array([1,2]), jnp.array([[0, 1], [2, 3]]))',
     '{ lambda ; a:f32[4,5,6] b:i32[2] c:i32[2,2]. let\n    d:bool[2] = lt b 0:i32[]\n    e:i32[2] = add b 5:i32[]\n    f:i32[2] = select_n d b e\n    g:bool[2,2] = lt c 0:i32[]\n    h:i32[2,2] = add c 6:i32[]\n    i:i32[2,2] = select_n g c h\n    j:i32[2,2] = broadcast_in_dim 1:i32[]\n    k:i32[2,2] = broadcast_in_dim[broadcast_dimensions=(1,)] f\n    l:i32[2,2] = convert_element_type[new_dtype=int32 weak_type=False] j\n    m:i32[2,2,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] l\n    n:i32[2,2,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] k\n    o:i32[2,2,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] i\n    p:i32[2,2,3] = concatenate[dimension=2] m n o\n    q:f32[2,2] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1, 2), start_index_map=(0, 1, 2), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1, 1, 1)\n      unique_indices=False\n    ] a p\n  in (q,) }'),
    ('jx_newaxis_rev', 'jax.make_jaxpr(lambda y, i: y[None, i, ..., ::-1])(jnp.arange(120.).reshape(4,5,6), jnp.array([1,2]))',
     '{ lambda ; a:f32[4,5,6] b:i32[2]. let\n    c:bool[2] = lt b 0:i32[]\n    d:i32[2] = add b 4:i32[]\n    e:i32[2] = select_n c b d\n    f:i32[6] = iota[dimension=0 dtype=int32 shape=(6,) sharding=None] \n    g:i32[6] = mul -1:i32[] f\n    h:i32[6] = add 5:i32[] g\n    i:i32[6] = rev[dimensions=(0,)] h\n    j:i32[2,6,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    k:i32[2,6,1] = broadcast_in_dim[broadcast_dimensions=(1,)] i\n    l:i32[2,6,2] = concatenate[dimension=2] j k\n    m:f32[2,5,6] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0, 2), start_index_map=(0, 2), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1, 5, 1)\n      unique_indices=False\n    ] a l\n    n:f32[2,5,6] = rev[dimensions=(2,)] m\n    o:f32[1,2,5,6] = broadcast_in_dim[broadcast_dimensions=(1, 2, 3)] n\n  in (o,) }'),
    ('jx_int_and_array', 'jax.make_jaxpr(lambda y, i: y[i, 2])(jnp.arange(120.).reshape(4,5,6), jnp.array([1,2]))',
     '{ lambda ; a:f32[4,5,6] b:i32[2]. let\n    c:bool[2] = lt b 0:i32[]\n    d:i32[2] = add b 4:i32[]\n    e:i32[2] = select_n c b d\n    f:i32[2] = broadcast_in_dim 2:i32[]\n    g:i32[2] = convert_element_type[new_dtype=int32 weak_type=False] f\n    h:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    i:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] g\n    j:i32[2,2] = concatenate[dimension=1] h i\n    k:f32[2,6] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1, 1, 6)\n      unique_indices=False\n    ] a j\n  in (k,) }'),
    ('jx_bool_true', 'jax.make_jaxpr(lambda y: y[True])(jnp.arange(120.).reshape(4,5,6))',
     '{ lambda a:i32[1] b:bool[1]; c:f32[4,5,6]. let\n    d:i32[1] = add a 1:i32[]\n    e:i32[1] = select_n b a d\n    f:i32[1,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:f32[1,4,5,6] = broadcast_in_dim[broadcast_dimensions=(1, 2, 3)] c\n    h:f32[1,4,5,6] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(1, 2, 3), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1, 4, 5, 6)\n      unique_indices=False\n    ] g f\n  in (h,) }'),
    ('jx_bcast_idx', 'jax.make_jaxpr(lambda y, i: y[i[:, None], i])(jnp.arange(120.).reshape(4,5,6), jnp.array([1,2]))',
     '{ lambda ; a:f32[4,5,6] b:i32[2]. let\n    c:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] b\n    d:bool[2,1] = lt c 0:i32[]\n    e:i32[2,1] = add c 4:i32[]\n    f:i32[2,1] = select_n d c e\n    g:bool[2] = lt b 0:i32[]\n    h:i32[2] = add b 5:i32[]\n    i:i32[2] = select_n g b h\n    j:i32[2,2] = broadcast_in_dim[broadcast_dimensions=(0, 1)] f\n    k:i32[2,2] = broadcast_in_dim[broadcast_dimensions=(1,)] i\n    l:i32[2,2,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] j\n    m:i32[2,2,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] k\n    n:i32[2,2,2] = concatenate[dimension=2] l m\n    o:f32[2,2,6] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(2,), collapsed_slice_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1, 1, 6)\n      unique_indices=False\n    ] a n\n  in (o,) }'),
    ('jx_newaxis_between', 'jax.make_jaxpr(lambda y: y[jnp.array([1]), None, jnp.array([1])])(jnp.arange(120.).reshape(4,5,6))',
     '{ lambda a:i32[1] b:i32[1]; c:f32[4,5,6]. let\n    d:bool[1] = lt a 0:i32[]\n    e:i32[1] = add a 4:i32[]\n    f:i32[1] = select_n d a e\n    g:bool[1] = lt b 0:i32[]\n    h:i32[1] = add b 5:i32[]\n    i:i32[1] = select_n g b h\n    j:i32[1,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n    k:i32[1,1] = broadcast_in_dim[broadcast_dimensions=(0,)] i\n    l:i32[1,2] = concatenate[dimension=1] j k\n    m:f32[1,6] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1, 1, 6)\n      unique_indices=False\n    ] c l\n    n:f32[1,1,6] = broadcast_in_dim[broadcast_dimensions=(0, 2)] m\n  in (n,) }'),
    ('jx_uint8', 'jax.make_jaxpr(lambda x: x[jnp.array([1, 2], dtype=jnp.uint8)])(jnp.arange(10.))',
     '{ lambda a:u8[2]; b:f32[10]. let\n    c:i32[2] = convert_element_type[new_dtype=int32 weak_type=False] a\n    d:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c\n    e:f32[2] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1,)\n      unique_indices=False\n    ] b d\n  in (e,) }'),
    ('jx_int8', 'jax.make_jaxpr(lambda x: x[jnp.array([1, 2], dtype=jnp.int8)])(jnp.arange(10.))',
     '{ lambda a:i8[2]; b:f32[10]. let\n    c:bool[2] = lt a 0:i8[]\n    d:i8[2] = add a 10:i8[]\n    e:i8[2] = select_n c a d\n    f:i32[2] = convert_element_type[new_dtype=int32 weak_type=False] e\n    g:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n    h:f32[2] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1,)\n      unique_indices=False\n    ] b g\n  in (h,) }'),
    ('jx_two_adds', 'jax.make_jaxpr(lambda x: x.at[1].add(2.).at[2].add(3.))(jnp.arange(10.))',
     'let jaxpr = { lambda ; a:f32[] b:f32[]. let c:f32[] = add a b in (c,) } in\n{ lambda ; d:f32[10]. let\n    e:i32[1] = broadcast_in_dim 1:i32[]\n    f:f32[10] = scatter-add[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=True\n      update_consts=()\n      update_jaxpr=jaxpr\n    ] d e 2.0:f32[]\n    g:i32[1] = broadcast_in_dim 2:i32[]\n    h:f32[10] = scatter-add[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=True\n      update_consts=()\n      update_jaxpr=jaxpr\n    ] f g 3.0:f32[]\n  in (h,) }'),
    ('jx_negstep_set', 'jax.make_jaxpr(lambda x: x.at[::-2].set(1.))(jnp.arange(10.))',
     '{ lambda ; a:f32[10]. let\n    b:i32[5] = iota[dimension=0 dtype=int32 shape=(5,) sharding=None] \n    c:i32[5] = mul -2:i32[] b\n    d:i32[5] = add 9:i32[] c\n    e:i32[5] = rev[dimensions=(0,)] d\n    f:i32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:f32[5] = broadcast_in_dim 1.0:f32[]\n    h:f32[5] = rev[dimensions=(0,)] g\n    i:f32[10] = scatter[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=True\n      update_consts=()\n      update_jaxpr=None\n    ] a f h\n  in (i,) }'),
    ('jx_mask_mul', 'jax.make_jaxpr(lambda x: x.at[np.array([True] * 5 + [False] * 5)].mul(2))(jnp.arange(10.))',
     '{ lambda a:i32[5] b:bool[5]; c:f32[10]. let\n    d:i32[5] = add a 10:i32[]\n    e:i32[5] = select_n b a d\n    f:i32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:f32[5] = broadcast_in_dim 2.0:f32[]\n    h:f32[10] = scatter-mul[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=False\n      update_consts=()\n      update_jaxpr={ lambda ; i:f32[] j:f32[]. let k:f32[] = mul i j in (k,) }\n    ] c f g\n  in (h,) }'),
    ('jx_max_slice', 'jax.make_jaxpr(lambda y, i: y.at[i, 1:3].max(2))(jnp.ones((4, 5)), jnp.array([1,2]))',
     '{ lambda ; a:f32[4,5] b:i32[2]. let\n    c:bool[2] = lt b 0:i32[]\n    d:i32[2] = add b 4:i32[]\n    e:i32[2] = select_n c b d\n    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:i32[2,1] = broadcast_in_dim 1:i32[]\n    h:i32[2,2] = concatenate[dimension=1] f g\n    i:f32[2,2] = broadcast_in_dim 2.0:f32[]\n    j:f32[4,5] = scatter-max[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0, 1), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=False\n      update_consts=()\n      update_jaxpr={ lambda ; k:f32[] l:f32[]. let m:f32[] = max k l in (m,) }\n    ] a h i\n  in (j,) }'),
    ('jx_divide', 'jax.make_jaxpr(lambda x, i: x.at[i].divide(2.))(jnp.arange(10.), jnp.array([1,2]))',
     '{ lambda ; a:f32[10] b:i32[2]. let\n    c:f32[10] = broadcast_in_dim 1.0:f32[]\n    d:bool[2] = lt b 0:i32[]\n    e:i32[2] = add b 10:i32[]\n    f:i32[2] = select_n d b e\n    g:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n    h:f32[2] = broadcast_in_dim 2.0:f32[]\n    i:f32[10] = scatter-mul[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=False\n      update_consts=()\n      update_jaxpr={ lambda ; j:f32[] k:f32[]. let l:f32[] = mul j k in (l,) }\n    ] c g h\n    m:f32[10] = div a i\n  in (m,) }'),
    ('jx_power', 'jax.make_jaxpr(lambda x, i: x.at[i].power(2))(jnp.arange(10.), jnp.array([1,2]))',
     '{ lambda ; a:f32[10] b:i32[2]. let\n    c:f32[10] = broadcast_in_dim 1.0:f32[]\n    d:bool[2] = lt b 0:i32[]\n    e:i32[2] = add b 10:i32[]\n    f:i32[2] = select_n d b e\n    g:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n    h:f32[2] = broadcast_in_dim 2.0:f32[]\n    i:f32[10] = scatter-mul[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=False\n      update_consts=()\n      update_jaxpr={ lambda ; j:f32[] k:f32[]. let l:f32[] = mul j k in (l,) }\n    ] c g h\n    m:f32[10] = pow a i\n  in (m,) }'),
    ('jx_set_clip', "jax.make_jaxpr(lambda x, i: x.at[i].set(2., mode='clip'))(jnp.arange(10.), jnp.array([1,2]))",
     '{ lambda ; a:f32[10] b:i32[2]. let\n    c:bool[2] = lt b 0:i32[]\n    d:i32[2] = add b 10:i32[]\n    e:i32[2] = select_n c b d\n    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:f32[2] = broadcast_in_dim 2.0:f32[]\n    h:f32[10] = scatter[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=False\n      mode=GatherScatterMode.CLIP\n      unique_indices=False\n      update_consts=()\n      update_jaxpr=None\n    ] a f g\n  in (h,) }'),
    ('jx_set_promise', "jax.make_jaxpr(lambda x, i: x.at[i].set(2., mode='promise_in_bounds', indices_are_sorted=True, unique_indices=True))(jnp.arange(10.), jnp.array([1,2]))",
     '{ lambda ; a:f32[10] b:i32[2]. let\n    c:bool[2] = lt b 0:i32[]\n    d:i32[2] = add b 10:i32[]\n    e:i32[2] = select_n c b d\n    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:f32[2] = broadcast_in_dim 2.0:f32[]\n    h:f32[10] = scatter[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=True\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      unique_indices=True\n      update_consts=()\n      update_jaxpr=None\n    ] a f g\n  in (h,) }'),
    ('jx_get_drop', "jax.make_jaxpr(lambda y: y.at[1].get(mode='drop'))(jnp.ones((4, 5)))",
     '{ lambda ; a:f32[4,5]. let\n    b:i32[1] = broadcast_in_dim 1:i32[]\n    c:f32[5] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=nan\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      slice_sizes=(1, 5)\n      unique_indices=True\n    ] a b\n  in (c,) }'),
    ('jx_set_int_to_float', 'jax.make_jaxpr(lambda y: y.at[1].set(jnp.arange(5)))(jnp.ones((4, 5)))',
     '{ lambda ; a:f32[4,5]. let\n    b:i32[5] = iota[dimension=0 dtype=int32 shape=(5,) sharding=None] \n    c:i32[1] = broadcast_in_dim 1:i32[]\n    d:f32[5] = convert_element_type[new_dtype=float32 weak_type=False] b\n    e:f32[4,5] = scatter[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=True\n      update_consts=()\n      update_jaxpr=None\n    ] a c d\n  in (e,) }'),
    ('jx_set_all', 'jax.make_jaxpr(lambda x: x.at[:].set(1.))(jnp.arange(10.))',
     '{ lambda a:i32[0]; b:f32[10]. let\n    c:f32[10] = broadcast_in_dim 1.0:f32[]\n    d:f32[10] = scatter[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(), scatter_dims_to_operand_dims=(), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=True\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=True\n      update_consts=()\n      update_jaxpr=None\n    ] b a c\n  in (d,) }'),
    ('jx_set_bool_scalar', 'jax.make_jaxpr(lambda x: x.at[True].set(2))(jnp.arange(3))',
     '{ lambda a:i32[1] b:bool[1]; c:i32[3]. let\n    d:i32[1] = add a 1:i32[]\n    e:i32[1] = select_n b a d\n    f:i32[1,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n    g:i32[1,3] = broadcast_in_dim 2:i32[]\n    h:i32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n    i:i32[1,3] = scatter[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=False\n      update_consts=()\n      update_jaxpr=None\n    ] h f g\n    j:i32[3] = squeeze[dimensions=(0,)] i\n  in (j,) }'),
    ('jx_take', 'jax.make_jaxpr(lambda x: jnp.take(x, jnp.array([1, 2])))(jnp.arange(10.))',
     '{ lambda a:i32[2]; b:f32[10]. let\n    c:f32[2] = jit[\n      name=_take\n      jaxpr={ lambda ; b:f32[10] a:i32[2]. let\n          d:bool[2] = lt a 0:i32[]\n          e:i32[2] = add a 10:i32[]\n          f:i32[2] = jit[\n            name=_where\n            jaxpr={ lambda ; d:bool[2] e:i32[2] a:i32[2]. let\n                f:i32[2] = select_n d a e\n              in (f,) }\n          ] d e a\n          g:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n          c:f32[2] = gather[\n            dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n            fill_value=nan\n            indices_are_sorted=False\n            mode=GatherScatterMode.FILL_OR_DROP\n            slice_sizes=(1,)\n            unique_indices=False\n          ] b g\n        in (c,) }\n    ] b a\n  in (c,) }'),
    ('jx_take_axis', 'jax.make_jaxpr(lambda y: jnp.take(y, jnp.array([1, 2]), axis=1))(jnp.ones((4, 5)))',
     '{ lambda a:i32[2]; b:f32[4,5]. let\n    c:f32[4,2] = jit[\n      name=_take\n      jaxpr={ lambda ; b:f32[4,5] a:i32[2]. let\n          d:bool[2] = lt a 0:i32[]\n          e:i32[2] = add a 5:i32[]\n          f:i32[2] = jit[\n            name=_where\n            jaxpr={ lambda ; d:bool[2] e:i32[2] a:i32[2]. let\n                f:i32[2] = select_n d a e\n              in (f,) }\n          ] d e a\n          g:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n          c:f32[4,2] = gather[\n            dimension_numbers=GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(1,), operand_batching_dims=(), start_indices_batching_dims=())\n            fill_value=nan\n            indices_are_sorted=False\n            mode=GatherScatterMode.FILL_OR_DROP\n            slice_sizes=(4, 1)\n            unique_indices=False\n          ] b g\n        in (c,) }\n    ] b a\n  in (c,) }'),
    ('jx_take_along', 'jax.make_jaxpr(lambda y: jnp.take_along_axis(y, jnp.array([[1], [2], [0], [0]]), axis=1))(jnp.ones((4, 5)))',
     '{ lambda a:i32[4,1]; b:f32[4,5]. let\n    c:f32[4,1] = jit[\n      name=take_along_axis\n      jaxpr={ lambda ; b:f32[4,5] a:i32[4,1]. let\n          d:bool[4,1] = lt a 0:i32[]\n          e:i32[4,1] = add a 5:i32[]\n          f:i32[4,1] = select_n d a e\n          g:i32[4,1,1] = reshape[\n            dimensions=None\n            new_sizes=(4, 1, 1)\n            sharding=None\n          ] f\n          c:f32[4,1] = gather[\n            dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,), operand_batching_dims=(0,), start_indices_batching_dims=(0,))\n            fill_value=nan\n            indices_are_sorted=False\n            mode=GatherScatterMode.FILL_OR_DROP\n            slice_sizes=(1, 1)\n            unique_indices=False\n          ] b g\n        in (c,) }\n    ] b a\n  in (c,) }'),
    ('jx_lax_gather', 'jax.make_jaxpr(lambda x: lax.gather(x, jnp.array([[1], [11]]), lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)), (1,)))(jnp.arange(10.))',
     '{ lambda a:i32[2,1]; b:f32[10]. let\n    c:f32[2] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=None\n      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n      slice_sizes=(1,)\n      unique_indices=False\n    ] b a\n  in (c,) }'),
    ('jx_lax_gather_fill', "jax.make_jaxpr(lambda x: lax.gather(x, np.array([[1], [11]]), lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)), (1,), mode='fill'))(jnp.arange(10.))",
     '{ lambda a:i32[2,1]; b:f32[10]. let\n    c:f32[2] = gather[\n      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n      fill_value=nan\n      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n      slice_sizes=(1,)\n      unique_indices=False\n    ] b a\n  in (c,) }'),
    ('jx_lax_scatter_add', 'jax.make_jaxpr(lambda x: lax.scatter_add(x, np.array([[1], [11]]), jnp.ones(2), lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))))(jnp.arange(10.))',
     '{ lambda a:i32[2,1]; b:f32[10]. let\n    c:f32[2] = broadcast_in_dim 1.0:f32[]\n    d:f32[10] = scatter-add[\n      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=False\n      update_consts=()\n      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }\n    ] b a c\n  in (d,) }'),
    ('lax_gather', 'lax.gather(jnp.arange(10.), jnp.array([[1], [11]]), lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)), (1,))',
     'Array([1., 9.], dtype=float32)'),
    ('lax_gather_fill', "lax.gather(jnp.arange(10.), jnp.array([[1], [11]]), lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)), (1,), mode='fill')",
     'Array([ 1., nan], dtype=float32)'),
    ('lax_gather_window', 'lax.gather(jnp.arange(20.).reshape(4, 5), jnp.array([[0, 1], [2, 3]]), lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1)), (2, 2))',
     'Array([[[ 1.,  2.],\n        [ 6.,  7.]],\n\n       [[13., 14.],\n        [18., 19.]]], dtype=float32)'),
    ('lax_scatter_add', 'lax.scatter_add(jnp.arange(10.), np.array([[1], [11]]), jnp.ones(2), lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)))',
     'Array([0., 2., 2., 3., 4., 5., 6., 7., 8., 9.], dtype=float32)'),
    ('lax_scatter_clip', "lax.scatter(jnp.arange(10.), np.array([[1], [11]]), jnp.ones(2), lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)), mode='clip')",
     'Array([0., 1., 2., 3., 4., 5., 6., 7., 8., 1.], dtype=float32)'),
    ('lax_scatter_batching', 'lax.scatter(jnp.zeros((2, 3)), jnp.array([[1], [2]]), jnp.array([5., 6.]), lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,)))',
     'Array([[0., 5., 0.],\n       [0., 0., 6.]], dtype=float32)'),
    ('gdn_repr', 'lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))',
     'GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())'),
    ('sdn_repr', 'lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))',
     'ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())'),
    ('mode_repr', "[lax.GatherScatterMode.from_any(m) for m in (None, 'clip', 'fill', 'drop', 'promise_in_bounds')]",
     '[<GatherScatterMode.FILL_OR_DROP: 2>, <GatherScatterMode.CLIP: 1>, <GatherScatterMode.FILL_OR_DROP: 2>, <GatherScatterMode.FILL_OR_DROP: 2>, <GatherScatterMode.PROMISE_IN_BOUNDS: 3>]'),
]


@pytest.mark.parametrize("name,code,expected", CASES, ids=[c[0] for c in CASES])
def test_matches_jax(name, code, expected):
    got = eval_expr(code)
    if expected.startswith("{ lambda") or expected.startswith("let "):
        assert got == expected
    else:  # value reprs: line wrapping of long arrays is the array printer's business
        assert " ".join(got.split()) == " ".join(expected.split())


# -- values against NumPy on random data, eagerly and under jit

_rng = np.random.default_rng(0)
_A = _rng.standard_normal((5, 6, 7)).astype(np.float32)
_INDEXERS = [
    lambda: (np.array([4, 0, -1, 2]),),
    lambda: (slice(None), np.array([[1, 2], [3, -6]])),
    lambda: (np.array([0, 1]), slice(1, 5, 2), np.array([6, 0])),
    lambda: (np.array([0, 1]), None, np.array([5, 0])),
    lambda: (Ellipsis, np.array([3, 0, 6])),  # distinct: set with duplicates is unordered
    lambda: (1, np.array([[0], [5]]), np.array([1, 2, 3])),
    lambda: (_A[:, 0, 0] > 0,),
    lambda: (slice(None, None, -1), np.array([2, 4])),
]


@pytest.mark.parametrize("k", range(len(_INDEXERS)))
def test_getitem_matches_numpy(k):
    idx = _INDEXERS[k]()
    np.testing.assert_array_equal(np.asarray(jnp.asarray(_A)[idx]), _A[idx])
    if not any(isinstance(i, np.ndarray) and i.dtype == bool for i in idx):
        f = jax.jit(lambda a, *ix: a[tuple(ix)])
        got = f(jnp.asarray(_A), *[jnp.asarray(i) if isinstance(i, np.ndarray) else i
                                    for i in idx]) if all(
            isinstance(i, np.ndarray) for i in idx) else jnp.asarray(_A)[idx]
        np.testing.assert_array_equal(np.asarray(got), _A[idx])


@pytest.mark.parametrize("k", range(len(_INDEXERS)))
def test_at_set_and_add_match_numpy(k):
    idx = _INDEXERS[k]()
    upd = np.arange(np.asarray(_A[idx]).size, dtype=np.float32).reshape(_A[idx].shape)
    want = _A.copy()
    want[idx] = upd
    np.testing.assert_array_equal(np.asarray(jnp.asarray(_A).at[idx].set(upd)), want)
    want = _A.copy()
    np.add.at(want, idx, upd)
    np.testing.assert_allclose(np.asarray(jnp.asarray(_A).at[idx].add(upd)), want, rtol=1e-6)


def test_fill_mode_under_jit_and_scatter_drop():
    x = jnp.arange(10.)
    f = jax.jit(lambda x, i: x.at[i].get(mode="fill", fill_value=-5.))
    np.testing.assert_array_equal(np.asarray(f(x, jnp.array([0, 9, 10, -1, -11]))),
                                  [0., 9., -5., 9., -5.])
    g = jax.jit(lambda x, i: x.at[i].add(1.))
    np.testing.assert_array_equal(np.asarray(g(x, jnp.array([0, 10, 10, -11]))),
                                  np.arange(10.) + np.eye(10)[0])


def test_take_along_axis_matches_numpy():
    a = _rng.standard_normal((3, 4, 5)).astype(np.float32)
    idx = np.argsort(a, axis=1)
    np.testing.assert_array_equal(np.asarray(jnp.take_along_axis(jnp.asarray(a), idx, axis=1)),
                                  np.take_along_axis(a, idx, axis=1))


# -- transformations of gather/scatter

GRAD_GATHER_JAXPR = """{ lambda a:i32[3]; b:f32[5]. let
    c:bool[3] = lt a 0:i32[]
    d:i32[3] = add a 5:i32[]
    e:i32[3] = select_n c a d
    f:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e
    g:f32[3] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1,)
      unique_indices=False
    ] b f
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] g
    h:f32[3] = broadcast_in_dim 1.0:f32[]
    i:f32[5] = broadcast_in_dim 0.0:f32[]
    j:f32[5] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; k:f32[] l:f32[]. let m:f32[] = add k l in (m,) }
    ] i f h
  in (j,) }"""


def _grad_of_gather():
    return lambda x: x[jnp.array([0, 0, 3])].sum()


def test_grad_of_gather_is_scatter_add():
    x = jnp.arange(5.)
    np.testing.assert_array_equal(np.asarray(jax.grad(_grad_of_gather())(x)), [2., 0., 0., 1., 0.])


def test_grad_of_gather_jaxpr():
    assert str(jax.make_jaxpr(jax.grad(_grad_of_gather()))(jnp.arange(5.))) == GRAD_GATHER_JAXPR


def test_grad_of_scatters():
    x = jnp.arange(5.)
    np.testing.assert_array_equal(
        np.asarray(jax.grad(lambda x: x.at[jnp.array([1, 2])].set(0.).sum())(x)),
        [1., 0., 0., 1., 1.])
    np.testing.assert_array_equal(
        np.asarray(jax.grad(lambda x: x.at[jnp.array([1, 1])].add(x[:2] * 3).sum())(x)),
        [4., 4., 1., 1., 1.])


def test_vmap_of_gather_and_scatter():
    a = jnp.arange(12.).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda r: r[jnp.array([3, 0])])(a)),
                                  np.asarray(a)[:, [3, 0]])
    x = jnp.arange(5.)
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda i: x[i])(jnp.array([[0, 3], [1, 1]]))),
                                  [[0., 3.], [1., 1.]])
    np.testing.assert_array_equal(
        np.asarray(jax.vmap(lambda r, i: r.at[i].add(10.))(jnp.zeros((2, 3)), jnp.array([0, 2]))),
        [[10., 0., 0.], [0., 0., 10.]])
    np.testing.assert_array_equal(
        np.asarray(jax.vmap(lambda u: x.at[jnp.array([0, 4])].set(u))(
            jnp.array([[7., 8.], [9., 10.]]))),
        [[7., 1., 2., 3., 8.], [9., 1., 2., 3., 10.]])


def test_scatter_min_clip_grad_follows_the_clip():
    """x.at[4].min(y, mode='clip') on 4 entries is x.at[3].min(y): position 3
    takes y, so it has no derivative in x. (JAX 0.10.2's derivative ignores the
    clip and gives it 1: the fuzz corpus's at-min-clip-grad keeps that known.)"""
    x = np.array([-1.845, -0.169, -2.184, -0.672], np.float32)
    y = np.float32(-3.849)

    def clipped(x, y):
        return jnp.asarray(x).at[np.uint8(4)].min(y, mode='clip').sum()

    def explicit(x, y):
        return jnp.asarray(x).at[3].min(y).sum()

    want_x, want_y = jax.grad(explicit, (0, 1))(x, y)
    np.testing.assert_array_equal(np.asarray(want_x), [1., 1., 1., 0.])
    assert float(want_y) == 1.0
    for f in (jax.grad(clipped, (0, 1)), jax.jit(jax.grad(clipped, (0, 1)))):
        gx, gy = f(x, y)
        np.testing.assert_array_equal(np.asarray(gx), np.asarray(want_x))
        assert float(gy) == 1.0
    gx = jax.vmap(jax.grad(clipped), (0, None))(np.stack([x, x + 10]), y)
    np.testing.assert_array_equal(np.asarray(gx), [[1., 1., 1., 0.], [1., 1., 1., 0.]])
    eps = np.float32(1e-2)  # central differences at position 3 and at y
    d = np.zeros(4, np.float32)
    d[3] = eps
    assert float(clipped(x + d, y) - clipped(x - d, y)) == 0.0
    assert abs(float(clipped(x, y + eps) - clipped(x, y - eps)) / (2 * eps) - 1.0) < 1e-3


def test_vmap_over_a_batch_of_none_with_batched_indices():
    """vmap of size 0 with batched indices (optax's hungarian_algorithm on a
    (0, n, m) batch): the gathers and scatters take slices of none, as in JAX
    0.10.2, whose results are recorded here."""
    x = jnp.ones((0, 3))
    cases = {
        "dyn_idx_set": (lambda a: a.at[jnp.argmax(a)].set(0.0), (0, 3)),
        "dynamic_slice": (lambda a: jax.lax.dynamic_slice(a, (jnp.argmax(a),), (2,)), (0, 2)),
        "dynamic_update_slice": (lambda a: jax.lax.dynamic_update_slice(
            a, jnp.zeros(1), (jnp.argmax(a),)), (0, 3)),
    }
    for name, (f, shape) in cases.items():
        assert jax.vmap(f)(x).shape == shape, name
        assert jax.jit(jax.vmap(f))(x).shape == shape, name


def test_nonzero_with_size_on_an_empty_array_is_zeros():
    """As JAX 0.10.2: nothing to count, so every index is 0 and fill_value is
    not used (xjit padded with 1, and with fill_value)."""
    for got in (jnp.nonzero(jnp.zeros((2, 0)), size=1),
                jnp.nonzero(jnp.zeros((2, 0)), size=3, fill_value=7),
                jax.jit(lambda a: jnp.nonzero(a, size=3))(jnp.zeros((2, 0), jnp.int32))):
        assert len(got) == 2
        for g in got:
            assert g.dtype == jnp.int32 and not np.asarray(g).any()
    np.testing.assert_array_equal(jnp.argwhere(jnp.zeros((2, 0)), size=2), [[0, 0], [0, 0]])


def test_scatter_into_an_empty_array_under_vmap_has_the_canonical_dtype():
    """A NumPy uint64/int64 batch (x64 off) through `.at[]` on an empty
    operand: JAX 0.10.2 gives uint32/int32; xjit returned the raw input."""
    idx = np.array([1, -4], np.int32)
    f = lambda x, v, i: x.at[i].min(v, mode="promise_in_bounds")
    assert jax.vmap(f, in_axes=(0, None, None))(
        np.zeros((2, 0, 4), np.uint64), np.uint64(5), idx).dtype == jnp.uint32
    g = lambda x, i: x.at[i].add(1, mode="clip")
    assert jax.vmap(g, in_axes=(0, None))(np.zeros((2, 0, 4), np.int64), idx).dtype == jnp.int32
