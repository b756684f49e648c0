"""Splitting an array into pieces along an axis: ``split`` (equal sections
or explicit indices), ``array_split`` (uneven sections) and the
``hsplit``/``vsplit``/``dsplit`` shorthands."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from . import util
from .lax_numpy import asarray


def _split(name, ary, indices_or_sections, axis, even):
    util.check_arraylike(name, ary)
    ary = asarray(ary)
    axis = operator.index(util.concrete_arg(axis, f"jnp.{name} argument `axis`"))
    n = ary.shape[axis]  # JAX sizes the axis first: one past the rank is an IndexError
    axis = util.canonicalize_axis(axis, ary.ndim)
    if np.ndim(indices_or_sections) == 0:
        k = operator.index(util.concrete_arg(indices_or_sections, f"jnp.{name}"))
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        q, r = divmod(n, k)
        if even and r:
            raise ValueError(f"array split does not result in an equal division: rest is {r}")
        sizes = [np.int64(q + 1)] * r + [np.int64(q)] * (k - r)
    else:
        idx = [builtins.min(builtins.max(int(i) + n if int(i) < 0 else int(i), 0), n)
               for i in np.asarray(indices_or_sections)]
        bounds = [0] + idx + [n]
        sizes = [np.int64(builtins.max(b - a, 0)) for a, b in zip(bounds[:-1], bounds[1:])]
    from ..lax.structural import split_p
    return split_p.bind(ary, sizes=tuple(sizes), axis=axis)


def split(ary, indices_or_sections, axis=0):
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary, indices_or_sections, axis=0):
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary, indices_or_sections):
    a = asarray(ary)
    return _split("hsplit", a, indices_or_sections, 0 if a.ndim == 1 else 1, True)


def vsplit(ary, indices_or_sections):
    a = asarray(ary)
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return _split("vsplit", a, indices_or_sections, 0, True)


def dsplit(ary, indices_or_sections):
    a = asarray(ary)
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _split("dsplit", a, indices_or_sections, 2, True)
