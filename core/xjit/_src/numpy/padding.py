"""``jnp.pad``: constant padding is one ``pad`` primitive; the edge,
reflect, symmetric and wrap modes are built axis by axis from slices of the
array, and a callable mode from NumPy's vector-function protocol."""
from __future__ import annotations

import builtins

import numpy as np

from xjit._src.lax import lax
from ..lax.structural import pad_p
from . import util
from .repetition import repeat
from .lax_numpy import _is_array, asarray, util_dtype
from .shape_ops import reshape
from xjit._src.pjit import jit_named


def _pad_widths(pad_width, nd):
    pw = np.asarray(util.concrete_arg(pad_width, "jnp.pad pad_width"))
    if pw.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    pw = np.broadcast_to(pw, (nd, 2)) if pw.size in (1, 2) or pw.shape == (nd, 2) else pw
    if pw.shape != (nd, 2):
        raise ValueError(f"jnp.pad: pad_width with nd={nd} has unsupported shape {pw.shape}. Valid "
                         f"shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")
    if (pw < 0).any():
        raise ValueError("index can't contain negative values")
    return tuple((np.int64(lo), np.int64(hi)) for lo, hi in pw)


def _pad_edge_axis(x, axis, lo, hi, mode, odd=False):
    n = x.shape[axis]

    def piece(start, stop):
        return lax.slice_along(x, start, stop, axis=axis)

    if mode == "edge":
        parts = [repeat(piece(0, 1), lo, axis), x, repeat(piece(n - 1, n), hi, axis)]
        return lax.concatenate([p for p in parts if p.shape[axis]], axis)
    if mode == "wrap":
        reps = -(-(lo + hi) // n) + 1 if n else 0
        big = lax.concatenate([x] * (2 * reps + 1), axis)
        return lax.slice_along(big, reps * n - lo, reps * n + n + hi, axis=axis)
    # reflect / symmetric: extend by mirrored copies until long enough
    skip = 1 if mode == "reflect" else 0
    while lo or hi:
        n = x.shape[axis]
        avail = builtins.max(n - skip, 1 if n == 1 else 0)
        take_lo, take_hi = builtins.min(lo, avail), builtins.min(hi, avail)
        parts = []
        if take_lo:
            s = skip if n > 1 else 0
            parts.append(_reflected(lax.rev(piece(s, s + take_lo), (axis,)), piece(0, 1), odd))
        parts.append(x)
        if take_hi:
            e = n - skip if n > 1 else n
            parts.append(_reflected(lax.rev(piece(e - take_hi, e), (axis,)), piece(n - 1, n),
                                    odd))
        x = lax.concatenate(parts, axis) if len(parts) > 1 else x
        lo, hi = lo - take_lo, hi - take_hi
    return x


def _reflected(mirror, edge, odd):
    """Mirrored values; with ``reflect_type='odd'`` reflected through the
    edge value instead (``2 * edge - mirror``)."""
    if not odd:
        return mirror
    two = lax._convert(2, util_dtype(edge), False)
    return lax.sub(lax.mul(two, util.broadcast_to(edge, mirror.shape)), mirror)


def _pad_with_function(array, pad_width, func, kwargs):
    """NumPy's callable mode: zero-pad, then let ``func`` rewrite each 1-D
    vector along each axis in turn (vmapped over the other axes)."""
    from xjit._src.interpreters.batching import vmap
    array = pad_p.bind(array, lax._convert(0, util_dtype(array), False),
                       padding_config=tuple((int(lo), int(hi), 0) for lo, hi in pad_width))
    for axis in range(array.ndim):
        moved = lax.transpose(array, tuple(d for d in range(array.ndim) if d != axis) + (axis,))
        rows = reshape(moved, (-1, moved.shape[-1]))
        width = tuple(int(w) for w in pad_width[axis])
        out = vmap(lambda v, ax=axis, w=width: func(v, w, ax, kwargs))(rows)
        if out.shape != rows.shape:
            raise ValueError("Padding function must return a vector of the same shape as its "
                             "input")
        out = reshape(out, moved.shape)
        inv = list(range(array.ndim - 1))
        inv.insert(axis, array.ndim - 1)
        array = lax.transpose(out, tuple(inv))
    return array


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


@jit_named("_pad", static_argnames=("pad_width", "mode", "odd"))
def _pad(array, pad_width, mode, constant_values, odd=False):
    if mode == "constant":
        cv = np.asarray(constant_values) if not _is_array(constant_values) else constant_values
        if util.ndim_of(cv) == 0:
            val = lax._convert(cv, util_dtype(array), array.weak_type)  # weak as the array
            return pad_p.bind(array, val, padding_config=tuple((lo, hi, 0) for lo, hi in pad_width))
        cv = util.broadcast_to(asarray(cv), (array.ndim, 2))
        for ax, (lo, hi) in enumerate(pad_width):
            for side, width in ((0, lo), (1, hi)):
                cfg = [(0, 0, 0)] * array.ndim
                cfg[ax] = (width, 0, 0) if side == 0 else (0, width, 0)
                val = lax.reshape(lax.slice(cv, (ax, side), (ax + 1, side + 1)), ())
                array = lax.pad(array, lax._convert(val, util_dtype(array), array.weak_type),
                                cfg)
        return array
    for ax, (lo, hi) in enumerate(pad_width):
        if lo or hi:
            if array.shape[ax] == 0:
                raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant' "
                                 "or 'empty'")
            array = _pad_edge_axis(array, ax, lo, hi, mode, odd)
    return array


def pad(array, pad_width, mode="constant", **kwargs):
    util.check_arraylike("pad", array)
    array = asarray(array)
    pw = _pad_widths(pad_width, array.ndim)
    if callable(mode):
        return _pad_with_function(array, pw, mode, kwargs)
    if mode not in _PAD_MODES:
        if mode in ("linear_ramp", "maximum", "mean", "median", "minimum", "empty"):
            raise NotImplementedError(f"jnp.pad mode '{mode}' is not implemented")
        raise ValueError(f"Unimplemented padding mode '{mode}' for np.pad.")
    allowed = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}}.get(mode, set())
    bad = set(kwargs) - allowed
    if bad:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {bad}")
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise AssertionError(f"reflect_type must be 'even' or 'odd'; got {reflect_type!r}")
    cv = kwargs.get("constant_values", 0)
    if isinstance(cv, (list, tuple)):
        cv = np.asarray(cv)
    return _pad(array, pw, mode, cv, odd=reflect_type == "odd")
