"""Convolutions built on ``conv_general_dilated``: the transposed
convolution, patch extraction, unshared ("local") convolution, and the
output-shape helpers JAX exposes."""
from __future__ import annotations

import math
import operator
from typing import Union

import numpy as np

from xjit._src.lax import lax
from .convolution import (ConvDimensionNumbers, _dilate, _specs_from_strings,
                          conv_dimension_numbers, conv_general_dilated, padtype_to_pads)

ConvGeneralDilatedDimensionNumbers = Union[tuple, ConvDimensionNumbers, None]


def conv_general_permutations(dimension_numbers):
    """Axis permutations (lhs, rhs, out) into the canonical conv layout, from
    layout strings like ``('NHWC', 'HWIO', 'NHWC')``."""
    lhs, rhs, out = dimension_numbers
    if len(lhs) != len(rhs) or len(rhs) != len(out):
        raise TypeError(f"convolution dimension_numbers must have the same length, got {lhs}, "
                        f"{rhs} and {out}.")
    for name, spec, need in (("lhs", lhs, "NC"), ("rhs", rhs, "OI"), ("out", out, "NC")):
        if not all(c in spec for c in need) or len(set(spec)) != len(spec):
            raise TypeError(f"convolution dimension_numbers[{('lhs', 'rhs', 'out').index(name)}] "
                            f"must contain the characters '{need[0]}' and '{need[1]}' exactly "
                            f"once, got {spec}.")
    return tuple(_specs_from_strings(lhs, rhs, out))


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """Output shape of a convolution in the canonical (NC..., OI...) layout."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    spatial = [np.int64(max((n + lo + hi - k) // s + 1, 0))  # JAX computes these in NumPy
               for n, (lo, hi), k, s in zip(lhs_shape[2:], pads, rhs_shape[2:], strides)]
    return (lhs_shape[0] // batch_group_count, rhs_shape[0], *spatial)


def _permuted(shape, perm):
    return tuple(shape[i] for i in perm)


def _unpermute(shape, perm):
    out = [0] * len(shape)
    for pos, axis in enumerate(perm):
        out[axis] = shape[pos]
    return tuple(out)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """Output shape of ``conv_general_dilated`` in the output's own layout."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs_c, rhs_c = _permuted(lhs_shape, dn.lhs_spec), _permuted(rhs_shape, dn.rhs_spec)
    out = conv_shape_tuple(lhs_c, rhs_c, window_strides, padding)
    return tuple(np.int64(d) for d in _unpermute(out, dn.out_spec))


def _transpose_pads(k, s, padding):
    """(lo, hi) padding of the transposed convolution for one spatial axis,
    given the forward convolution's padding mode or explicit pads."""
    if padding == "SAME":
        total = k + s - 2
        lo = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        lo = k - 1
    elif isinstance(padding, tuple):
        lo, hi = (k - p - 1 for p in padding)
        total = lo + hi
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return lo, total - lo


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """Output shape of ``conv_transpose`` in the output's own layout."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs_c, rhs_c = _permuted(lhs_shape, dn.lhs_spec), _permuted(rhs_shape, dn.rhs_spec)
    if isinstance(padding, str):
        padding = [_transpose_pads(k, s, padding) for k, s in zip(rhs_c[2:], window_strides)]
    spatial = [(n - 1) * s - k + 2 + lo + hi
               for n, s, k, (lo, hi) in zip(lhs_c[2:], window_strides, rhs_c[2:], padding)]
    return tuple(np.int64(d) for d in _unpermute((lhs_c[0], rhs_c[0], *spatial), dn.out_spec))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """Output shape of ``reduce_window`` with explicit (lo, hi) padding."""
    if base_dilation is not None:
        operand_shape = [_dilate(d, r) for d, r in zip(operand_shape, base_dilation)]
    if window_dilation is not None:
        window_dimensions = [_dilate(d, r) for d, r in zip(window_dimensions, window_dilation)]
    return tuple(max((d + lo + hi - w) // s + 1, 0) for d, (lo, hi), w, s in
                 zip(operand_shape, padding, window_dimensions, window_strides))


_DEFAULT_TRANSPOSE_DNUMS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                            4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """The gradient-of-convolution ("deconvolution"): a convolution of the
    input dilated by ``strides``, padded as Keras' Conv2DTranspose does."""
    lhs, rhs = lax.asarray_device(lhs), lax.asarray_device(rhs)
    nd = lhs.ndim
    if nd != rhs.ndim or nd < 2:
        raise ValueError(f"conv_transpose requires lhs and rhs of the same rank >= 2, got "
                         f"{lhs.shape} and {rhs.shape}")
    if dimension_numbers is None:
        if nd not in _DEFAULT_TRANSPOSE_DNUMS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _DEFAULT_TRANSPOSE_DNUMS[nd]
    dn = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    ksizes = [rhs.shape[i] for i in dn.rhs_spec[2:]]
    rhs_dilation = (1,) * (nd - 2) if rhs_dilation is None else tuple(rhs_dilation)
    strides = tuple(map(operator.index, strides))
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        per_axis = [padding] * len(strides) if isinstance(padding, str) else list(padding)
        pads = tuple(_transpose_pads(_dilate(k, r), s, p if isinstance(p, str) else tuple(p))
                     for k, r, s, p in zip(ksizes, rhs_dilation, strides, per_axis))
    else:
        pads = padding
    if transpose_kernel:
        rhs = lax.rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(nd))
        o, i = dn.rhs_spec[0], dn.rhs_spec[1]
        perm[o], perm[i] = perm[i], perm[o]
        rhs = lax.transpose(rhs, perm)
    return conv_general_dilated(lhs, rhs, (1,) * (nd - 2), pads, strides, rhs_dilation, dn,
                                precision=precision, preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """Every receptive-field patch of ``lhs`` flattened into the feature axis
    (channel-major, then filter position), via a grouped convolution with a
    one-hot kernel."""
    lhs = lax.asarray_device(lhs)
    filter_shape = tuple(map(operator.index, filter_shape))
    if len(filter_shape) != lhs.ndim - 2:
        raise ValueError(f"filter_shape {filter_shape} must have one entry per spatial axis of "
                         f"lhs of shape {lhs.shape}")
    dn = conv_dimension_numbers(lhs.shape, (0,) * lhs.ndim, dimension_numbers)
    channels = lhs.shape[dn.lhs_spec[1]]
    k = math.prod(filter_shape)
    onehot = np.eye(k, dtype=lhs.dtype).reshape((k, 1) + filter_shape)
    kernel = np.tile(onehot, (channels,) + (1,) * (lhs.ndim - 1))
    canonical = tuple(range(lhs.ndim))
    dn = ConvDimensionNumbers(dn.lhs_spec, canonical, dn.out_spec)
    return conv_general_dilated(lhs, kernel, window_strides, padding, lhs_dilation, rhs_dilation,
                                dn, feature_group_count=channels, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape, lhs_dilation=None,
                               rhs_dilation=None, dimension_numbers=None, precision=None):
    """A convolution whose kernel differs at every output position: ``rhs``'s
    spatial axes index output positions and its input-feature axis holds
    (channel, filter position) pairs, as the patches are laid out."""
    lhs, rhs = lax.asarray_device(lhs), lax.asarray_device(rhs)
    dn = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dn, precision)
    ns = lhs.ndim - 2
    # patches in the output layout: (batch, features, *out spatial)
    p = lax.transpose(patches, tuple(dn.out_spec[2:]) + (dn.out_spec[0], dn.out_spec[1]))
    r = lax.transpose(rhs, tuple(dn.rhs_spec[2:]) + (dn.rhs_spec[1], dn.rhs_spec[0]))
    batch = tuple(range(ns))
    out = lax.dot_general(p, r, (((ns + 1,), (ns,)), (batch, batch)), precision=precision)
    # out is (*spatial, batch, out features): back to the output layout
    canonical = (ns, ns + 1) + batch
    return lax.transpose(out, _out_perm(canonical, dn.out_spec))


def _out_perm(canonical, out_spec):
    """The permutation taking axes in ``canonical`` order (out spec order)
    to the output layout."""
    perm = [0] * len(out_spec)
    for pos, axis in enumerate(out_spec):
        perm[axis] = canonical[pos]
    return tuple(perm)
