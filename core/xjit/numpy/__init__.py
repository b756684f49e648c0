"""NumPy's API on xjit arrays (``import xjit.numpy as jnp``)."""
from xjit._src.numpy.lax_numpy import *  # noqa: F401,F403
from xjit._src.numpy.lax_numpy import abs, bool, ndarray, pow, round  # noqa: F401
from xjit._src.numpy.reductions import (  # noqa: F401
    all, amax, amin, any, argmax, argmin, count_nonzero, max, mean, min, prod, std, sum, var)
from xjit._src.numpy.shape_ops import (  # noqa: F401
    atleast_1d, atleast_2d, broadcast_arrays, broadcast_shapes, broadcast_to, concatenate, dot,
    expand_dims, hstack, inner, matmul, matrix_transpose, moveaxis, outer, permute_dims, ravel,
    reshape, squeeze, stack, swapaxes, tensordot, transpose, vdot, vstack)
from xjit._src.numpy.indexing import nonzero  # noqa: F401
from xjit._src.numpy.more_ops import (  # noqa: F401
    append, array_split, atleast_3d, column_stack, convolve, copy, correlate, delete, diag,
    diagflat, diagonal, dsplit, dstack, flip, fliplr, flipud, geomspace, hsplit, insert, logspace,
    meshgrid, pad, repeat, roll, rot90, split, tile, trace, tri, tril, triu, vsplit)
from xjit._src.numpy.more_math import (  # noqa: F401
    allclose, array_equal, array_equiv, average, copysign, cross, deg2rad, degrees, diff, ediff1d,
    fmax, fmin, frexp, gcd, heaviside, histogram, histogram_bin_edges, hypot, interp, isclose,
    kron, lcm, ldexp, logaddexp, logaddexp2, nan_to_num, nanargmax, nanargmin, nanmax, nanmean,
    nanmin, nanprod, nanstd, nansum, nanvar, piecewise, polyval, ptp, rad2deg, radians, select,
    signbit, sinc, trapezoid, vander)
from xjit.numpy import fft, linalg  # noqa: E402,F401
from xjit._src.numpy.einsum import einsum  # noqa: E402,F401
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
from xjit._src.numpy.products import einsum_path, matvec, vecdot, vecmat  # noqa: E402,F401
from xjit._src.numpy.vectorize import vectorize  # noqa: E402,F401
from xjit._src.numpy.manipulation_io import (  # noqa: E402,F401
    apply_along_axis, apply_over_axes, array_repr, array_str, from_dlpack, frombuffer, fromfile,
    fromfunction, fromiter, fromstring, load, save, savez)
from xjit._src.numpy.ufuncs_api import (  # noqa: E402,F401
    add, bitwise_and, bitwise_or, bitwise_xor, frompyfunc, logaddexp, logaddexp2, logical_and,
    logical_or, logical_xor, maximum, minimum, multiply, negative, subtract, ufunc)
from xjit._src.numpy.array_api_metadata import (  # noqa: E402,F401
    __array_api_version__, __array_namespace_info__)
