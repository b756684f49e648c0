"""Top-level transformations built on the core ones: ``linear_transpose``,
``closure_convert`` and ``ensure_compile_time_eval``."""
from __future__ import annotations

import contextlib
import functools

import numpy as np

from . import core, dtypes, tree_util
from .ad_api import _check_callable, jacrev
from .custom_derivatives import closure_convert  # noqa: F401  (JAX's home for it)

jacobian = jacrev


def _aval_of_spec(x):
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, np.ndarray):
        return core.ShapedArray(x.shape, x.dtype, getattr(x, "weak_type", False))
    return core.aval_of(x)


def _is_inexact(dt):
    return dt.kind == "c" or dtypes.is_float(dt)


def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of the linear function ``fun``. ``primals`` only give
    the input shapes and dtypes (arrays or ShapeDtypeStructs); the returned
    function maps output cotangents to a tuple of input cotangents. ``fun``
    is staged once and its jaxpr transposed equation by equation."""
    _check_callable(fun)
    from xjit._src.interpreters.ad import UndefinedPrimal, Zero, backward_pass
    from xjit._src.lax import lax
    from xjit._src.interpreters.partial_eval import trace_to_jaxpr
    leaves, in_tree = tree_util.tree_flatten(primals)
    avals = [_aval_of_spec(x) for x in leaves]
    store = []

    def flat_fun(*xs):
        out_leaves, out_tree = tree_util.tree_flatten(
            fun(*tree_util.tree_unflatten(in_tree, list(xs))))
        store.append(out_tree)
        return out_leaves
    jaxpr, consts = trace_to_jaxpr(flat_fun, avals)
    out_tree = store[0]
    out_avals = [v.aval for v in jaxpr.outvars]
    in_dts, out_dts = [a.dtype for a in avals], [a.dtype for a in out_avals]
    if not ((all(map(_is_inexact, in_dts)) and all(map(_is_inexact, out_dts))) or
            (all(d.kind in "iu" for d in in_dts) and all(d.kind in "iu" for d in out_dts))):
        raise TypeError("linear_transpose only supports [float or complex] -> [float or "
                        "complex], and integer -> integer functions, but got "
                        f"{in_dts} -> {out_dts}.")

    def transposed(ct):
        ct_leaves, ct_tree = tree_util.tree_flatten(ct)
        if ct_tree != out_tree:
            raise TypeError(f"cotangent tree does not match function output, expected {out_tree} "
                            f"but got {ct_tree}")
        ct_avals = [core.aval_of(c) for c in ct_leaves]
        if any(c.shape != o.shape or c.dtype != o.dtype for c, o in zip(ct_avals, out_avals)):
            raise TypeError("cotangent type does not match function output, expected "
                            f"{tuple(o.strip_weak_type() for o in out_avals)} but got {ct_leaves}")
        try:
            cts = backward_pass(jaxpr, consts, [UndefinedPrimal(a) for a in avals], ct_leaves)
        except TypeError as e:  # a rule was handed an unknown value as a factor
            if "UndefinedPrimal" not in str(e):
                raise
            raise TypeError("linear_transpose: the function is not linear in its inputs") \
                from None
        cts = [lax.asarray_device(lax.broadcast_in_dim(lax._convert(0, a.dtype, a.weak_type),
                                                       a.shape, ()))
               if type(c) is Zero else c for c, a in zip(cts, avals)]
        return tree_util.tree_unflatten(in_tree, cts)
    return transposed


class _CompileTimeEvalTrace(core.Trace):
    """Runs primitives on concrete operands eagerly; one given a tracer goes
    to the trace that was current when the context was entered."""

    def __init__(self, parent):
        self.parent = parent

    def process_primitive(self, primitive, args, params):
        if any(isinstance(a, core.Tracer) for a in args):
            return primitive.bind_with_trace(self.parent, args, params)
        return core.eval_trace.process_primitive(primitive, args, params)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Run operations on concrete values eagerly even inside a traced
    function, so values that depend only on constants are computed at trace
    time (and enter the jaxpr as constants)."""
    with core.set_current_trace(_CompileTimeEvalTrace(core.trace_ctx.trace)):
        yield


class _RuleResiduals:
    """custom_gradient's residuals: the closed-over arrays of the user's VJP
    function as pytree children, the converted function as static data."""

    __slots__ = ("fn", "consts")

    def __init__(self, fn, consts):
        self.fn, self.consts = fn, consts


tree_util.register_pytree_node(_RuleResiduals, lambda r: (r.consts, r.fn),
                               lambda fn, consts: _RuleResiduals(fn, list(consts)))


def custom_gradient(fun):
    """``fun(*args) -> (out, vjp_fn)``: differentiate ``fun`` with the VJP
    function it returns alongside its value."""
    from .custom_derivatives import custom_vjp

    @custom_vjp
    def wrapped(*args):
        return fun(*args)[0]

    def fwd(*args):
        out, rule = fun(*args)
        converted, consts = closure_convert(rule, out)
        return out, _RuleResiduals(converted, consts)

    def bwd(res, ct):
        cts = res.fn(ct, *res.consts)
        return tuple(cts) if isinstance(cts, (tuple, list)) else (cts,)

    wrapped.defvjp(fwd, bwd)
    return functools.wraps(fun)(lambda *args: wrapped(*args))
