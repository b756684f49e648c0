"""1-D ``convolve`` and ``correlate`` as a ``conv_general_dilated`` over one
spatial dimension, with NumPy's ``full``/``same``/``valid`` modes."""
from __future__ import annotations

from xjit._src.lax import lax
from ..lax.convolution import conv_general_dilated
from . import util
from .reordering import _flip
from .lax_numpy import util_dtype
from xjit._src.pjit import jit_named


@jit_named("_conv", static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type):
    if util.ndim_of(x) != 1 or util.ndim_of(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = util.promote_dtypes_inexact(x, y)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    if op == "correlate" and util_dtype(y).kind == "c":
        y = lax.conj(y)
    swapped = x.shape[0] < y.shape[0]
    if swapped:
        x, y = y, x
    if op == "convolve":
        y = _flip(y, axis=(0,))
    ny = y.shape[0]
    padding = {"valid": [(0, 0)], "same": [(ny // 2, ny - ny // 2 - 1)],
               "full": [(ny - 1, ny - 1)]}[mode]
    out = conv_general_dilated(lax.broadcast_in_dim(x, (1, 1) + x.shape, (2,)),
                               lax.broadcast_in_dim(y, (1, 1) + y.shape, (2,)), (1,), padding,
                               precision=precision, preferred_element_type=preferred_element_type)
    if swapped and op == "correlate":
        out = lax.rev(out, (2,))
    return lax.squeeze(out, (0, 1))


def _conv_entry(op):
    def fn(a, v, mode, precision, preferred_element_type):
        util.check_arraylike(op, a, v)
        return _conv(a, v, mode=mode, op=op, precision=precision,
                     preferred_element_type=preferred_element_type)
    return jit_named(op, static_argnames=("mode", "precision", "preferred_element_type"))(fn)


_convolve, _correlate = _conv_entry("convolve"), _conv_entry("correlate")


def _check_mode(mode):
    if mode not in ("full", "same", "valid"):
        raise ValueError("mode must be one of ['full', 'same', 'valid']")


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    _check_mode(mode)
    return _convolve(a, v, mode=mode, precision=precision,
                     preferred_element_type=preferred_element_type)


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    _check_mode(mode)
    return _correlate(a, v, mode=mode, precision=precision,
                      preferred_element_type=preferred_element_type)
