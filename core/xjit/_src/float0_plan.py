"""float0 values in compiled programs: XLA has no such type, so a program
whose arguments or results include them runs without them (``Float0Plan``)."""
from __future__ import annotations

import numpy as np

from xjit._src import core, dtypes


def _is_float0(aval):
    return getattr(aval, "dtype", None) == dtypes.float0


class Float0Plan:
    """How a program whose arguments or results include float0 values runs.

    float0 values (the tangents of integers) carry no data, and XLA has no
    such type: the executable is compiled without them. float0 arguments
    are dropped before the call; float0 results are made on the host as
    NumPy float0 zeros of their shape, which is what JAX returns. Equations
    that only make float0 values nobody else reads are pruned; a float0 value
    still read by an equation stays, and the lowering then reports its dtype
    (JAX lowers float0 as bool there).
    """

    __slots__ = ("closed", "donated", "keep", "out_shapes")

    @staticmethod
    def of(closed, donated=()):
        """The plan for ``closed``, or None when no argument or result is float0."""
        if any(map(_is_float0, closed.in_avals)) or any(map(_is_float0, closed.out_avals)):
            return Float0Plan(closed, donated)
        return None

    def __init__(self, closed, donated):
        jaxpr = closed.jaxpr
        outvars = [v for v in jaxpr.outvars if not _is_float0(v.aval)]
        live = {v for v in outvars if type(v) is not core.Literal}
        eqns = []
        for eqn in reversed(jaxpr.eqns):
            if eqn.outvars and all(_is_float0(v.aval) and v not in live for v in eqn.outvars):
                continue  # (an equation without results is kept: it may be a callback)
            eqns.append(eqn)
            live.update(v for v in eqn.invars if type(v) is not core.Literal)
        self.keep = [not _is_float0(v.aval) or v in live for v in jaxpr.invars]
        used = [not _is_float0(v.aval) or v in live for v in jaxpr.constvars]
        pruned = core.Jaxpr([v for v, u in zip(jaxpr.constvars, used) if u],
                            [v for v, k in zip(jaxpr.invars, self.keep) if k], outvars,
                            eqns[::-1], jaxpr.debug_info)
        self.closed = core.ClosedJaxpr(pruned, [c for c, u in zip(closed.consts, used) if u])
        self.donated = tuple(d for d, k in zip(donated or (False,) * len(self.keep), self.keep)
                             if k)
        self.out_shapes = [v.aval.shape if _is_float0(v.aval) else None for v in jaxpr.outvars]

    def kept(self, xs):
        """The items of ``xs`` (one per argument) the executable takes."""
        return [x for x, k in zip(xs, self.keep) if k]

    def merge(self, outs):
        """All results, in order, from the executable's ``outs``."""
        it = iter(outs)
        return [next(it) if shape is None else np.zeros(shape, dtypes.float0)
                for shape in self.out_shapes]
