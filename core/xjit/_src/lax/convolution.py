"""``conv_general_dilated``: the one convolution primitive, with XLA's
semantics (strided, padded, dilated on both sides, grouped).

Dimension numbers say where batch, feature and spatial axes live in each
operand: ``ConvDimensionNumbers(lhs_spec, rhs_spec, out_spec)`` holds, per
operand, the axis indices in the order (batch/out-feature, feature/in-feature,
spatial...). The lowering is a single ``stablehlo.convolution``; complex
operands use three real convolutions (Gauss's trick) since XLA's CPU backend
has no complex convolution. Built on it: ``conv_transpose``, patch extraction,
the unshared ("local") convolution and the output-shape helpers.
"""
from __future__ import annotations

import math
import operator
from typing import NamedTuple, Union

import numpy as np

from xjit._src import core, dtypes
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero, instantiate_zeros, is_undefined_primal
from xjit._src.interpreters.batching import not_mapped
from ..core import Primitive, ShapedArray
from xjit._src.interpreters.mlir import i64_array, ttype
from xjit._src.lax import lax as api
from xjit._src import sharding_in_types as sit
from xjit._src.sharding import canonicalize_sharding
from xjit._src.sharding_in_types import with_param_sharding
from . import sharding_rules
from .dot_general import precision_config_attr


class ConvDimensionNumbers(NamedTuple):
    """Axis indices of (batch, feature, *spatial) for lhs, (out feature, in
    feature, *spatial) for rhs and (batch, feature, *spatial) for the output."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """Normalise ``None``, a ConvDimensionNumbers, or a triple of layout
    strings such as ``('NHWC', 'HWIO', 'NHWC')``."""
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} "
                        f"and {len(rhs_shape)}.")
    nd = len(lhs_shape)
    if dimension_numbers is None:
        iota = tuple(range(nd))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(dimension_numbers) != 3:
        raise TypeError("convolution dimension_numbers must be a ConvDimensionNumbers or a tuple of "
                        f"three strings, got {dimension_numbers}.")
    if all(isinstance(s, str) for s in dimension_numbers):
        for i, s in enumerate(dimension_numbers):
            if len(s) != nd:
                raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the ndim "
                                f"of lhs and rhs, got {len(s)} for lhs and rhs shapes "
                                f"{tuple(lhs_shape)} and {tuple(rhs_shape)}.")
        return _specs_from_strings(*dimension_numbers)
    return ConvDimensionNumbers(*(tuple(map(operator.index, s)) for s in dimension_numbers))


def _specs_from_strings(lhs, rhs, out):
    """'NCHW'-style strings to axis indices. Spatial axes are ordered as they
    appear in the rhs string; lhs and output name them the same way."""
    spatial = [c for c in rhs if c not in "OI"]
    for s in (lhs, out):
        if sorted(c for c in s if c not in "NC") != sorted(spatial):
            raise ValueError(f"convolution dimension_numbers spatial dimension names must match, "
                             f"got {(lhs, rhs, out)}.")
    lhs_spec = (lhs.index("N"), lhs.index("C")) + tuple(lhs.index(c) for c in spatial)
    rhs_spec = (rhs.index("O"), rhs.index("I")) + tuple(rhs.index(c) for c in spatial)
    out_spec = (out.index("N"), out.index("C")) + tuple(out.index(c) for c in spatial)
    return ConvDimensionNumbers(lhs_spec, rhs_spec, out_spec)


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """Explicit [(lo, hi), ...] pads for 'SAME', 'SAME_LOWER' or 'VALID' (a list, as JAX returns)."""
    if not isinstance(padding, str):
        raise TypeError(f"Unknown padding type: {padding}.")
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind in ("SAME", "SAME_LOWER"):
        pads = []
        for n, w, s in zip(in_shape, window_shape, window_strides):
            out = -(-n // s)
            total = max((out - 1) * s + w - n, 0)
            lo = total // 2 if kind == "SAME" else total - total // 2
            pads.append(tuple(v.item() if isinstance(v, np.generic) else v
                              for v in (lo, total - lo)))
        return pads
    raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', "
                       f"got {padding}.")


def _dilate(d, r):
    return 0 if d == 0 else 1 + r * (d - 1)


def conv_shape(lhs_shape, rhs_shape, strides, padding, lhs_dilation, rhs_dilation, dnums,
               batch_group_count):
    """The output shape, in the output's own layout."""
    lhs_perm, rhs_perm, out_perm = dnums
    lspatial = [_dilate(lhs_shape[i], r) for i, r in zip(lhs_perm[2:], lhs_dilation)]
    rspatial = [_dilate(rhs_shape[i], r) for i, r in zip(rhs_perm[2:], rhs_dilation)]
    spatial = [max((l + lo + hi - k) // s + 1, 0)
               for l, (lo, hi), k, s in zip(lspatial, padding, rspatial, strides)]
    canonical = [lhs_shape[lhs_perm[0]] // batch_group_count, rhs_shape[rhs_perm[0]], *spatial]
    out = [0] * len(canonical)
    for pos, axis in enumerate(out_perm):
        out[axis] = canonical[pos]
    return tuple(out)


def _conv_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count, batch_group_count, precision,
               preferred_element_type, out_sharding=None):
    if lhs.dtype != rhs.dtype and preferred_element_type is None:
        raise TypeError("lax.conv_general_dilated requires arguments to have the same dtypes, got "
                        f"{lhs.dtype.name}, {rhs.dtype.name}.")
    lspec, rspec, _ = dimension_numbers
    lhs_feat, rhs_in, rhs_out = lhs.shape[lspec[1]], rhs.shape[rspec[1]], rhs.shape[rspec[0]]
    if feature_group_count > 1 and lhs_feat % feature_group_count:
        raise ValueError("conv_general_dilated feature_group_count must divide lhs feature "
                         f"dimension size, but {feature_group_count} does not divide {lhs_feat}.")
    if lhs_feat // feature_group_count != rhs_in:
        raise ValueError("conv_general_dilated lhs feature dimension size divided by "
                         "feature_group_count must equal the rhs input feature dimension size, but "
                         f"{lhs_feat} // {feature_group_count} != {rhs_in}.")
    if rhs_out % feature_group_count:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a multiple "
                         f"of feature_group_count, but {rhs_out} is not a multiple of "
                         f"{feature_group_count}.")
    lhs_batch = lhs.shape[lspec[0]]
    if lhs_batch % batch_group_count:
        raise ValueError("conv_general_dilated batch_group_count must divide lhs batch dimension "
                         f"size, but {batch_group_count} does not divide {lhs_batch}.")
    if rhs_out % batch_group_count:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a multiple "
                         f"of batch_group_count, but {rhs_out} is not a multiple of "
                         f"{batch_group_count}.")
    shape = conv_shape(lhs.shape, rhs.shape, window_strides, padding, lhs_dilation, rhs_dilation,
                       dimension_numbers, batch_group_count)
    dt = preferred_element_type or lhs.dtype
    return with_param_sharding(ShapedArray(shape, dt, False), out_sharding)


def _conv_attrs(window_strides, padding, lhs_dilation, rhs_dilation, dnums, fgc, bgc, precision):
    lspec, rspec, ospec = dnums
    dn = (f"#stablehlo.conv<raw input_batch_dimension = {lspec[0]}, "
          f"input_feature_dimension = {lspec[1]}, "
          f"input_spatial_dimensions = [{', '.join(map(str, lspec[2:]))}], "
          f"kernel_input_feature_dimension = {rspec[1]}, "
          f"kernel_output_feature_dimension = {rspec[0]}, "
          f"kernel_spatial_dimensions = [{', '.join(map(str, rspec[2:]))}], "
          f"output_batch_dimension = {ospec[0]}, output_feature_dimension = {ospec[1]}, "
          f"output_spatial_dimensions = [{', '.join(map(str, ospec[2:]))}]>")
    n = len(padding)
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    pad_attr = f"dense<[{pads}]> : tensor<{n}x2xi64>" if n else "dense<> : tensor<0x2xi64>"
    prec = ", " + precision_config_attr(precision)
    return (f"batch_group_count = {bgc} : i64, dimension_numbers = {dn}, "
            f"feature_group_count = {fgc} : i64, lhs_dilation = {i64_array(lhs_dilation)}, "
            f"padding = {pad_attr}, rhs_dilation = {i64_array(rhs_dilation)}, "
            f"window_strides = {i64_array(window_strides)}{prec}")


def _conv_lower(ctx, ai, ao, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count, batch_group_count, precision,
                preferred_element_type, out_sharding=None):
    la, ra, o = ai[0], ai[1], ao[0]
    if la.dtype != o.dtype:
        lhs = ctx.op("stablehlo.convert", [lhs], [ttype(la)], ttype(la.update(dtype=o.dtype)))
        la = la.update(dtype=o.dtype)
    if ra.dtype != o.dtype:
        rhs = ctx.op("stablehlo.convert", [rhs], [ttype(ra)], ttype(ra.update(dtype=o.dtype)))
        ra = ra.update(dtype=o.dtype)
    attrs = _conv_attrs(window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                        feature_group_count, batch_group_count, precision)

    def conv(l, r, dt):
        return ctx.op("stablehlo.convolution", [l, r],
                      [ttype(la.update(dtype=dt)), ttype(ra.update(dtype=dt))],
                      ttype(o.update(dtype=dt)), attrs=attrs)

    if o.dtype.kind != "c":
        return conv(lhs, rhs, o.dtype)
    # (a + ib)(c + id) = (k1 - k3) + i(k1 + k2), k1 = c(a + b), k2 = a(d - c), k3 = b(c + d)
    rt = np.dtype(np.float32 if o.dtype == np.complex64 else np.float64)

    def part(op, x, a):
        return ctx.op(op, [x], [ttype(a)], ttype(a.update(dtype=rt)))

    def bin(op, x, y, a):
        t = ttype(a.update(dtype=rt))
        return ctx.op(op, [x, y], [t, t], t)

    a, b = part("stablehlo.real", lhs, la), part("stablehlo.imag", lhs, la)
    c, d = part("stablehlo.real", rhs, ra), part("stablehlo.imag", rhs, ra)
    k1 = conv(bin("stablehlo.add", a, b, la), c, rt)
    k2 = conv(a, bin("stablehlo.subtract", d, c, ra), rt)
    k3 = conv(b, bin("stablehlo.add", c, d, ra), rt)
    re = bin("stablehlo.subtract", k1, k3, o)
    im = bin("stablehlo.add", k1, k2, o)
    t = ttype(o.update(dtype=rt))
    return ctx.op("stablehlo.complex", [re, im], [t, t], ttype(o))


conv_general_dilated_p = Primitive("conv_general_dilated")
core.abstract_eval_rules[conv_general_dilated_p] = _conv_eval
lowering.rules[conv_general_dilated_p] = _conv_lower


def _conv_sharding(lhs, rhs, *, out_sharding=None, dimension_numbers, **params):
    """JAX's rule: the lhs's layout, when the kernel is unsplit and so is
    the lhs's feature dimension; else ``out_sharding`` must say."""
    if out_sharding is not None:
        return out_sharding
    if rhs.spec is None and sit.parts(lhs)[dimension_numbers[0][1]] is None:
        out = _conv_eval(lhs, rhs, dimension_numbers=dimension_numbers, **params)
        return sharding_rules.varying_out_shape(lhs, out.shape, "conv_general_dilated")
    raise sit.ShardingTypeError("Please specify the output sharding via `out_sharding` "
                                "parameter of `conv_general_dilated`")


sit.sharding_rules[conv_general_dilated_p] = _conv_sharding


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count=1, batch_group_count=1,
                         precision=None, preferred_element_type=None, out_sharding=None):
    """General n-d convolution (XLA's ConvGeneralDilated)."""
    lhs, rhs = api.asarray_device(lhs), api.asarray_device(rhs)
    dnums = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    nspatial = lhs.ndim - 2
    lhs_dilation = (1,) * nspatial if lhs_dilation is None else tuple(map(int, lhs_dilation))
    rhs_dilation = (1,) * nspatial if rhs_dilation is None else tuple(map(int, rhs_dilation))
    window_strides = tuple(map(int, window_strides))
    if len(window_strides) != nspatial:
        raise ValueError("conv_general_dilated window and window_strides must have the same number "
                         f"of dimensions, but got {nspatial} and {len(window_strides)}")
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise ValueError("String padding is not implemented for transposed convolution using "
                             "this op. Please either exactly specify the required padding or use "
                             "conv_transpose.")
        window = [_dilate(rhs.shape[i], r) for i, r in zip(dnums.rhs_spec[2:], rhs_dilation)]
        padding = tuple(padtype_to_pads([lhs.shape[i] for i in dnums.lhs_spec[2:]], window,
                                        window_strides, padding))
    else:
        padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        if len(padding) != nspatial:
            raise TypeError("Wrong number of explicit pads for convolution: expected "
                            f"{nspatial}, got {len(padding)}.")
    pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dnums,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=api.canonicalize_precision(precision), preferred_element_type=pet,
        out_sharding=canonicalize_sharding(out_sharding, "conv_general_dilated"))


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """NCHW/OIHW convolution without dilation."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


# The transposes are convolutions too, in the primal's own layouts: the
# dimension numbers name the cotangent's and kernel's roles anew, so no
# operand is transposed (a canonical NCHW detour cost XLA extra copies).

def _swap_io(spec):
    """A spec with its first two roles exchanged (batch <-> feature, out <-> in)."""
    return (spec[1], spec[0]) + tuple(spec[2:])


def _vjp_lhs_padding(in_sp, k, out_sp, padding, window_strides, lhs_dilation, rhs_dilation):
    pads = []
    for n, kk, m, (lo, _), s, ld, rd in zip(in_sp, k, out_sp, padding, window_strides,
                                             lhs_dilation, rhs_dilation):
        k_eff, in_dil, out_dil = _dilate(kk, rd), _dilate(n, ld), _dilate(m, s)
        before = k_eff - lo - 1
        pads.append((before, in_dil + k_eff - 1 - out_dil - before))
    return tuple(pads)


def _vjp_rhs_padding(in_sp, k, out_sp, padding, window_strides, lhs_dilation, rhs_dilation):
    return tuple((lo, _dilate(m, s) - _dilate(n, ld) + _dilate(kk, rd) - lo - 1)
                 for n, kk, m, (lo, _), s, ld, rd in zip(in_sp, k, out_sp, padding, window_strides,
                                                         lhs_dilation, rhs_dilation))


def _fold(x, src, dst):
    """Axis ``src`` of ``x`` folded into axis ``dst`` (numbered without
    ``src``) as its outer part, by one reshape that reads ``x`` permuted."""
    shape = core.aval_of(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    sizes = [d for i, d in enumerate(shape) if i != src]
    sizes[dst] *= shape[src]
    return api.reshape(x, tuple(sizes), tuple(perm))


def _conv_transpose_lhs(ct, rhs_aval, lhs_aval, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
                        precision, preferred_element_type):
    """d lhs: the cotangent convolved with the spatially flipped kernel, its
    in and out features exchanged, strides and lhs dilation exchanged. Feature
    (or batch) groups move from the kernel's out features into its in features."""
    lspec, rspec, ospec = dimension_numbers
    groups = max(feature_group_count, batch_group_count)  # one of them is 1
    if groups > 1:
        rhs = _fold(_split(rhs, rspec[0], groups), rspec[0], rspec[1])
    pads = _vjp_lhs_padding([lhs_aval.shape[d] for d in lspec[2:]],
                            [rhs_aval.shape[d] for d in rspec[2:]],
                            [core.aval_of(ct).shape[d] for d in ospec[2:]], padding,
                            window_strides, lhs_dilation, rhs_dilation)
    w = api.rev(rhs, tuple(rspec[2:]))
    if core.aval_of(w).dtype != core.aval_of(ct).dtype:
        w = api._convert(w, core.aval_of(ct).dtype, False)
    out = conv_general_dilated_p.bind(
        ct, w, window_strides=tuple(lhs_dilation), padding=pads,
        lhs_dilation=tuple(window_strides), rhs_dilation=tuple(rhs_dilation),
        dimension_numbers=ConvDimensionNumbers(tuple(ospec), _swap_io(rspec), tuple(lspec)),
        feature_group_count=groups, batch_group_count=1, precision=precision,
        preferred_element_type=preferred_element_type,
        out_sharding=sit.primal_sharding(lhs_aval, core.aval_of(ct), core.aval_of(w)))
    if core.aval_of(out).dtype != lhs_aval.dtype:
        out = api._convert(out, lhs_aval.dtype, False)
    if batch_group_count > 1:  # the groups came out in the features: back into the batch
        out = _fold(_split(out, lspec[1], batch_group_count), lspec[1], lspec[0])
    return out


def _conv_transpose_rhs(ct, lhs, rhs_aval, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
                        precision, preferred_element_type):
    """d rhs: the input correlated with the cotangent, batch and feature roles
    exchanged (feature groups become batch groups and vice versa)."""
    lspec, rspec, ospec = dimension_numbers
    ct_aval, lhs_aval = core.aval_of(ct), core.aval_of(lhs)
    if ct_aval.size == 0:  # a degenerate convolution with empty spatial kernel
        return Zero(rhs_aval)
    pads = _vjp_rhs_padding([lhs_aval.shape[d] for d in lspec[2:]],
                            [rhs_aval.shape[d] for d in rspec[2:]],
                            [ct_aval.shape[d] for d in ospec[2:]], padding, window_strides,
                            lhs_dilation, rhs_dilation)
    if lhs_aval.dtype != ct_aval.dtype:
        lhs = api._convert(lhs, ct_aval.dtype, False)
    out = conv_general_dilated_p.bind(
        lhs, ct, window_strides=tuple(rhs_dilation), padding=pads,
        lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(window_strides),
        dimension_numbers=ConvDimensionNumbers(_swap_io(lspec), _swap_io(ospec), _swap_io(rspec)),
        feature_group_count=batch_group_count, batch_group_count=feature_group_count,
        precision=precision, preferred_element_type=preferred_element_type,
        out_sharding=sit.primal_sharding(rhs_aval, lhs_aval, ct_aval))
    if core.aval_of(out).dtype != rhs_aval.dtype:
        out = api._convert(out, rhs_aval.dtype, False)
    return out


def _conv_transpose(ct, lhs, rhs, **params):
    if type(ct) is Zero:
        return [None if not is_undefined_primal(lhs) else Zero(lhs.aval),
                None if not is_undefined_primal(rhs) else Zero(rhs.aval)]
    ct = instantiate_zeros(ct)
    if is_undefined_primal(lhs):
        return [_conv_transpose_lhs(ct, rhs.aval if is_undefined_primal(rhs) else core.aval_of(rhs),
                                    lhs.aval, rhs, **params), None]
    return [None, _conv_transpose_rhs(ct, lhs, rhs.aval, **params)]


def _split(x, axis, outer):
    """Axis ``axis`` of ``x`` split into (outer, rest)."""
    shape = list(core.aval_of(x).shape)
    shape[axis:axis + 1] = [outer, shape[axis] // outer]
    return api.reshape(x, tuple(shape))


def _conv_batch(args, dims, **params):
    """vmap, in the operands' own layouts: the mapped axis folds into a
    dimension the convolution already has, so each example gets its own
    convolution: the batch (lhs mapped), the output features (kernel mapped),
    or, both mapped, the feature (or batch) groups. Existing groups stay
    outermost in the dimension they occupy."""
    lhs, rhs = args
    ld, rd = dims
    lspec, rspec, ospec = params["dimension_numbers"]
    fg, bg = params["feature_group_count"], params["batch_group_count"]

    def conv(x, w, fg=fg, bg=bg):
        return conv_general_dilated_p.bind(x, w, **dict(params, feature_group_count=fg,
                                                       batch_group_count=bg))
    if rd is not_mapped:
        b = core.aval_of(lhs).shape[ld]
        if bg == 1:
            out = conv(_fold(lhs, ld, lspec[0]), rhs)
        else:  # the batch groups stay outermost: the examples go inside each
            x = _split(lhs, lspec[0] + (ld <= lspec[0]), bg)
            x = _fold(x, ld + (lspec[0] < ld), lspec[0] + 1)
            out = conv(_fold(x, lspec[0], lspec[0]), rhs)
        return _split(out, ospec[0], b), ospec[0]
    b = core.aval_of(rhs).shape[rd]
    if ld is not_mapped:
        if fg == 1 and bg == 1:
            return _split(conv(lhs, _fold(rhs, rd, rspec[0])), ospec[1], b), ospec[1]
        groups = fg if fg > 1 else bg  # outermost in the out features, the examples inside
        w = _split(rhs, rspec[0] + (rd <= rspec[0]), groups)
        w = _fold(w, rd + (rspec[0] < rd), rspec[0] + 1)
        out = _split(conv(lhs, _fold(w, rspec[0], rspec[0])), ospec[1], groups)
        out = _split(out, ospec[1] + 1, b)
        return _fold(out, ospec[1], ospec[1] + 1), ospec[1]
    if bg > 1:
        x, bg = _fold(lhs, ld, lspec[0]), bg * b
    else:
        x, fg = _fold(lhs, ld, lspec[1]), fg * b
    out = conv(x, _fold(rhs, rd, rspec[0]), fg, bg)
    return _split(out, ospec[1], b), ospec[1]


def _conv_jvp(primals, tangents, **params):
    lhs, rhs = primals
    tl, tr = tangents
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    terms = []
    if type(tl) is not Zero:
        terms.append(conv_general_dilated_p.bind(tl, rhs, **params))
    if type(tr) is not Zero:
        terms.append(conv_general_dilated_p.bind(lhs, tr, **params))
    if not terms:
        return out, Zero.from_primal_value(out)
    return out, terms[0] if len(terms) == 1 else ad.add_any_p.bind(*terms)


ad.jvp_rules[conv_general_dilated_p] = _conv_jvp
ad.transpose_rules[conv_general_dilated_p] = \
    lambda ct, lhs, rhs, out_sharding=None, **p: _conv_transpose(ct, lhs, rhs, **p)
batching.batch_rules[conv_general_dilated_p] = _conv_batch


# --------------------------------------------------------------------------
# Built on conv_general_dilated: the transposed convolution, patch
# extraction, unshared ("local") convolution, and the output-shape helpers
# JAX exposes.

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
    lhs, rhs = api.asarray_device(lhs), api.asarray_device(rhs)
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
        rhs = api.rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(nd))
        o, i = dn.rhs_spec[0], dn.rhs_spec[1]
        perm[o], perm[i] = perm[i], perm[o]
        rhs = api.transpose(rhs, perm)
    return conv_general_dilated(lhs, rhs, (1,) * (nd - 2), pads, strides, rhs_dilation, dn,
                                precision=precision, preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """Every receptive-field patch of ``lhs`` flattened into the feature axis
    (channel-major, then filter position), via a grouped convolution with a
    one-hot kernel."""
    lhs = api.asarray_device(lhs)
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
    lhs, rhs = api.asarray_device(lhs), api.asarray_device(rhs)
    dn = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dn, precision)
    ns = lhs.ndim - 2
    # patches in the output layout: (batch, features, *out spatial)
    p = api.transpose(patches, tuple(dn.out_spec[2:]) + (dn.out_spec[0], dn.out_spec[1]))
    r = api.transpose(rhs, tuple(dn.rhs_spec[2:]) + (dn.rhs_spec[1], dn.rhs_spec[0]))
    batch = tuple(range(ns))
    out = api.dot_general(p, r, (((ns + 1,), (ns,)), (batch, batch)), precision=precision)
    # out is (*spatial, batch, out features): back to the output layout
    canonical = (ns, ns + 1) + batch
    return api.transpose(out, _out_perm(canonical, dn.out_spec))


def _out_perm(canonical, out_spec):
    """The permutation taking axes in ``canonical`` order (out spec order)
    to the output layout."""
    perm = [0] * len(out_spec)
    for pos, axis in enumerate(out_spec):
        perm[axis] = canonical[pos]
    return tuple(perm)
