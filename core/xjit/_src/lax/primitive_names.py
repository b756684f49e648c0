"""The primitive objects ``jax.lax`` exports (``add_p``, ``scan_p``, ...),
gathered under JAX's names from the modules that define them, for code that
inspects jaxprs (``eqn.primitive is lax.add_p``)."""
from __future__ import annotations

from ..interpreters.ad import stop_gradient_p
from ..prng import bitcast_convert_type_p
from .ann import approx_top_k_p
from .control_flow import cond_p, scan_p, while_p
from .convolution import conv_general_dilated_p
from .dot_general import dot_general_p
from .elementwise import (
    abs_p, acos_p, acosh_p, add_p, and_p, asin_p, asinh_p, atan2_p, atan_p, atanh_p, cbrt_p,
    ceil_p, clz_p, complex_p, conj_p, cos_p, cosh_p, digamma_p, div_p, eq_p, erf_inv_p, erf_p,
    erfc_p, exp2_p, exp_p, expm1_p, floor_p, ge_p, gt_p, imag_p, integer_pow_p, is_finite_p,
    le_p, lgamma_p, log1p_p, log_p, logistic_p, lt_p, max_p, min_p, mul_p, mulhi_p, ne_p, neg_p,
    nextafter_p, not_p, or_p, population_count_p, pow_p, real_p, reduce_precision_p, rem_p,
    round_p, rsqrt_p, shift_left_p, shift_right_arithmetic_p, shift_right_logical_p, sign_p,
    sin_p, sinh_p, sqrt_p, square_p, sub_p, tan_p, tanh_p, xor_p)
from .fft import fft_p
from .lax import optimization_barrier_p
from .linear_solve import linear_solve_p
from .reductions import (argmax_p, argmin_p, reduce_and_p, reduce_max_p, reduce_min_p,
                         reduce_or_p, reduce_prod_p, reduce_sum_p, reduce_xor_p)
from .rng import rng_bit_generator_p, rng_uniform_p
from .gather_scatter import (gather_p, scatter_add_p, scatter_max_p, scatter_min_p,
                             scatter_mul_p, scatter_p, scatter_sub_p)
from .slicing import dynamic_slice_p, dynamic_update_slice_p
from .sorting import (cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p, sort_p,
                      top_k_p)
from .structural import (
    broadcast_in_dim_p, clamp_p, concatenate_p, convert_element_type_p, copy_p, empty_p, iota_p,
    pad_p, reshape_p, rev_p, select_n_p, slice_p, split_p, squeeze_p, stack_p, transpose_p,
    unstack_p)
from .tile import tile_p

__all__ = [name for name in dir() if name.endswith("_p") and not name.startswith("_")]
