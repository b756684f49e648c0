"""The lax primitives (``xjit.lax``), as in ``jax.lax``."""
from xjit._src.lax.lax import (
    Precision,
    RoundingMethod,
    abs,
    acos,
    acosh,
    add,
    argmax,
    argmin,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    broadcast,
    broadcast_in_dim,
    broadcasted_iota,
    cbrt,
    ceil,
    clamp,
    clz,
    complex,
    concatenate,
    conj,
    convert_element_type,
    cos,
    cosh,
    digamma,
    div,
    dot,
    dot_general,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    eq,
    erf,
    erf_inv,
    erfc,
    exp,
    exp2,
    expand_dims,
    expm1,
    floor,
    full,
    full_like,
    ge,
    gt,
    imag,
    index_in_dim,
    integer_pow,
    iota,
    is_finite,
    le,
    lgamma,
    log,
    log1p,
    logistic,
    lt,
    max,
    min,
    mul,
    ne,
    neg,
    nextafter,
    pad,
    population_count,
    pow,
    real,
    reduce_and,
    reduce_max,
    reduce_min,
    reduce_or,
    reduce_prod,
    reduce_sum,
    reduce_xor,
    rem,
    reshape,
    rev,
    round,
    rsqrt,
    select,
    select_n,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
    sign,
    sin,
    sinh,
    slice,
    slice_in_dim,
    sqrt,
    square,
    squeeze,
    sub,
    tan,
    tanh,
    transpose,
    zeros_like_array,
)
from xjit._src.prng import bitcast_convert_type  # noqa: E402,F401
from xjit._src.lax.gather_scatter import (  # noqa: E402,F401
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers, gather, scatter,
    scatter_add, scatter_apply, scatter_max, scatter_min, scatter_mul, scatter_sub)
from xjit._src.lax.control_flow import (  # noqa: E402,F401
    cond, fori_loop, map, scan, switch, while_loop)
from xjit._src.lax.sorting import (  # noqa: E402,F401
    cumlogsumexp, cummax, cummin, cumprod, cumsum, sort, sort_key_val, top_k)
from xjit._src.ad_api import stop_gradient  # noqa: E402,F401
from xjit._src.lax.structural import split  # noqa: E402,F401
from xjit._src.lax.convolution import (  # noqa: E402,F401
    ConvDimensionNumbers, conv, conv_dimension_numbers, conv_general_dilated,
    conv_with_general_padding, padtype_to_pads)
from xjit._src.lax.fft import FftType, fft  # noqa: E402,F401
from xjit.lax import linalg  # noqa: E402,F401
from xjit._src.lax.windowed import (  # noqa: E402,F401
    reduce, reduce_p, reduce_window, reduce_window_max_p, reduce_window_min_p, reduce_window_p,
    reduce_window_sum_p)
from xjit._src.lax.windowed import (  # noqa: E402,F401
    select_and_gather_add_p, select_and_scatter_add_p)
from xjit._src.lax.sorting import (  # noqa: E402,F401
    cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p)
from xjit._src.lax.special import (  # noqa: E402,F401
    bessel_i0e, bessel_i0e_p, bessel_i1e, bessel_i1e_p, betainc, igamma, igamma_grad_a,
    igamma_grad_a_p, igamma_p, igammac, igammac_p, polygamma, polygamma_p, random_gamma_grad,
    regularized_incomplete_beta_p, zeta, zeta_p)
from xjit._src.lax.lax import (  # noqa: E402,F401
    PrecisionLike, batch_matmul, broadcast_like, broadcast_shapes, broadcast_to_rank, collapse,
    composite, dtype, dynamic_index_in_dim, dynamic_update_index_in_dim, empty, index_take,
    optimization_barrier, reciprocal, stack, tile, unstack, with_sharding_constraint)
from xjit._src.lax.elementwise import mulhi, reduce_precision  # noqa: E402,F401
from xjit._src.lax.dot_general import (  # noqa: E402,F401
    DotAlgorithm, DotAlgorithmPreset, DotDimensionNumbers, ragged_dot)
from xjit._src.lax.rng import RandomAlgorithm, rng_bit_generator, rng_uniform  # noqa: E402,F401
from xjit._src.lax.ann import approx_max_k, approx_min_k  # noqa: E402,F401
from xjit._src.lax.control_flow.conditionals import platform_dependent  # noqa: E402,F401
from xjit._src.lax.assoc_scan import associative_scan  # noqa: E402,F401
from xjit._src.lax.convolution import (  # noqa: E402,F401
    ConvGeneralDilatedDimensionNumbers, conv_general_dilated_local, conv_general_dilated_patches,
    conv_general_permutations, conv_general_shape_tuple, conv_shape_tuple, conv_transpose,
    conv_transpose_shape_tuple, reduce_window_shape_tuple)
from xjit._src.lax.primitive_names import *  # noqa: E402,F401,F403
from xjit._src.lax.linear_solve import (  # noqa: E402,F401
    custom_linear_solve, custom_root, linear_solve_p)
from xjit._src.lax.parallel import (  # noqa: E402,F401
    all_gather, all_gather_p, all_to_all, all_to_all_p, axis_index, axis_index_p, axis_size,
    pbroadcast, pmax, pmax_p, pmean, pmin, pmin_p, ppermute, ppermute_p, pshuffle, psum,
    psum_p, psum_scatter, pswapaxes)
from xjit._src.lax.parallel_vma import pcast  # noqa: E402,F401


def __getattr__(name):
    if name == "pvary":  # as JAX 0.10.2: removed, with the replacement named
        raise AttributeError("jax.lax.pvary was deprecated in JAX v0.8.2 and removed in JAX "
                             "v0.10.0; use `jax.lax.pcast(..., to='varying')")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
