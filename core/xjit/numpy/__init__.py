"""NumPy's API on xjit arrays (``import xjit.numpy as jnp``)."""
from xjit._src.numpy.lax_numpy import *  # noqa: F401,F403
from xjit._src.numpy.lax_numpy import abs, bool, ndarray, pow, round  # noqa: F401
from xjit._src.numpy.reductions import (  # noqa: F401
    all, amax, amin, any, argmax, argmin, count_nonzero, max, mean, min, prod, std, sum, var)
from xjit._src.numpy.shape_ops import (  # noqa: F401
    atleast_1d, atleast_2d, atleast_3d, broadcast_arrays, broadcast_shapes, broadcast_to,
    column_stack, concatenate, dstack, expand_dims, hstack, matrix_transpose, moveaxis,
    permute_dims, ravel, reshape, squeeze, stack, swapaxes, transpose, vstack)
from xjit._src.numpy.indexing import nonzero  # noqa: F401
from xjit._src.numpy.tensor_contractions import (  # noqa: F401
    cross, dot, inner, kron, matmul, matvec, outer, tensordot, vdot, vecdot, vecmat)
from xjit._src.numpy.array_creation import copy, geomspace, logspace, meshgrid, tri  # noqa: F401
from xjit._src.numpy.diagonals import diag, diagflat, diagonal, trace, tril, triu  # noqa: F401
from xjit._src.numpy.repetition import repeat, tile  # noqa: F401
from xjit._src.numpy.padding import pad  # noqa: F401
from xjit._src.numpy.reordering import flip, fliplr, flipud, roll, rot90  # noqa: F401
from xjit._src.numpy.splitting import array_split, dsplit, hsplit, split, vsplit  # noqa: F401
from xjit._src.numpy.insert_delete import append, delete, insert  # noqa: F401
from xjit._src.numpy.convolution import convolve, correlate  # noqa: F401
from xjit._src.numpy.comparison import allclose, array_equal, array_equiv, isclose  # noqa: F401
from xjit._src.numpy.reductions import (  # noqa: F401
    average, nanargmax, nanargmin, nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar, ptp)
from xjit._src.numpy.ufuncs import (  # noqa: F401
    copysign, deg2rad, degrees, fmax, fmin, frexp, gcd, heaviside, hypot, lcm, ldexp, logaddexp,
    logaddexp2, nan_to_num, rad2deg, radians, signbit, sinc)
from xjit._src.numpy.statistics import (  # noqa: F401
    diff, ediff1d, histogram, histogram_bin_edges, interp, trapezoid)
from xjit._src.numpy.manipulation import piecewise, select  # noqa: F401
from xjit._src.numpy.polynomial import polyval, vander  # noqa: F401
from xjit._src.numpy.einsum import einsum, einsum_path  # noqa: F401
from xjit.numpy import fft, linalg  # noqa: E402,F401
from xjit._src.numpy.quantiles import (  # noqa: E402,F401
    median, nanmedian, nanpercentile, nanquantile, percentile, quantile)
from xjit._src.numpy import array_methods as _am

_am.install_all()
del _am
from xjit._src.numpy.advanced_indexing import take, take_along_axis  # noqa: E402,F401
from xjit._src.numpy.sorting import (  # noqa: E402,F401
    argsort, cumprod, cumsum, lexsort, nancumprod, nancumsum, searchsorted, sort, unique)
from xjit._src.numpy.manipulation import (  # noqa: E402,F401
    argpartition, argwhere, bincount, block, choose, compress, concat, cumulative_prod,
    cumulative_sum, digitize, extract, fill_diagonal, flatnonzero, packbits, partition, place, put,
    put_along_axis, resize, rollaxis, trim_zeros, unpackbits, unstack)
from xjit._src.numpy.index_tricks import (  # noqa: E402,F401
    c_, diag_indices, diag_indices_from, index_exp, indices, ix_, mask_indices, mgrid, ogrid, r_,
    ravel_multi_index, s_, tril_indices, tril_indices_from, triu_indices, triu_indices_from,
    unravel_index)
from xjit._src.numpy.ufuncs import (  # noqa: E402,F401
    angle, atan2, bitwise_count, bitwise_left_shift, bitwise_right_shift, conj, conjugate, fabs, i0,
    iscomplex, iscomplexobj, isneginf, isposinf, isreal, isrealobj, log10, log2, modf, nextafter,
    rint, sort_complex, spacing, trunc)
from xjit._src.numpy.setops import (  # noqa: E402,F401
    intersect1d, isin, setdiff1d, setxor1d, union1d, unique_all, unique_counts, unique_inverse,
    unique_values)
from xjit._src.numpy.statistics import (  # noqa: E402,F401
    corrcoef, cov, gradient, histogram2d, histogramdd, unwrap)
from xjit._src.numpy.windows import bartlett, blackman, hamming, hanning, kaiser  # noqa: E402,F401
from xjit._src.numpy.polynomial import (  # noqa: E402,F401
    poly, polyadd, polyder, polydiv, polyfit, polyint, polymul, polysub, roots)
from xjit._src.numpy.vectorize import vectorize  # noqa: E402,F401
from xjit._src.numpy.manipulation_io import (  # noqa: E402,F401
    apply_along_axis, apply_over_axes, array_repr, array_str, from_dlpack, frombuffer, fromfile,
    fromfunction, fromiter, fromstring, load, save, savez)
from xjit._src.numpy.ufuncs_api import (  # noqa: E402,F401
    add, bitwise_and, bitwise_or, bitwise_xor, frompyfunc, logaddexp, logaddexp2, logical_and,
    logical_or, logical_xor, maximum, minimum, multiply, negative, subtract, ufunc)
from xjit._src.numpy.array_api_metadata import (  # noqa: E402,F401
    __array_api_version__, __array_namespace_info__)
