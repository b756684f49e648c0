"""``linear_call(fun, fun_transpose, residual_args, linear_args)``: call ``fun``,
a function linear in ``linear_args``, with a user-given transpose.

It is a ``linear_call`` equation holding ``fun``'s jaxpr (``callee``) and a
thunk that traces ``fun_transpose(residual_args, cotangents)`` when first
needed. Its JVP is itself applied to the tangents of the linear arguments;
its transpose is a ``linear_call`` of ``fun_transpose`` whose own transpose
is ``fun`` again. Residual arguments are not differentiable (as in JAX)."""
from __future__ import annotations

from xjit._src import core, tree_util
from xjit._src.custom_derivatives import _stage
from xjit._src.interpreters import ad, mlir
from xjit._src.interpreters.ad import Zero

linear_call_p = core.Primitive("linear_call")
linear_call_p.multiple_results = True


def linear_call(fun, fun_transpose, residual_args, linear_args):
    """``fun(residual_args, linear_args)``, transposed by ``fun_transpose``."""
    res_flat, res_tree = tree_util.tree_flatten(residual_args)
    lin_flat, lin_tree = tree_util.tree_flatten(linear_args)
    out_tree_box = []

    def flat_fun(*xs):
        res = tree_util.tree_unflatten(res_tree, list(xs[:len(res_flat)]))
        lin = tree_util.tree_unflatten(lin_tree, list(xs[len(res_flat):]))
        out, out_tree = tree_util.tree_flatten(fun(res, lin))
        out_tree_box.append(out_tree)
        return out

    callee, callee_consts = _stage(flat_fun, res_flat + lin_flat, "linear_call")
    out_tree = out_tree_box[0]
    res_avals = [core.aval_of(x) for x in res_flat]
    lin_avals = [core.aval_of(x) for x in lin_flat]

    def trace_transpose():
        def flat_transpose(*xs):
            res = tree_util.tree_unflatten(res_tree, list(xs[:len(res_avals)]))
            cts = tree_util.tree_unflatten(out_tree, list(xs[len(res_avals):]))
            out, tree = tree_util.tree_flatten(fun_transpose(res, cts))
            if tree != lin_tree:
                raise TypeError(
                    "transpose output pytree structure must match that of linear inputs, "
                    f"got output structure {tree} and input structure {lin_tree}.")
            return out
        avals = res_avals + list(callee.out_avals)
        closed, consts = _stage(flat_transpose, [_Placeholder(a) for a in avals],
                                "linear_call transpose")
        for got, want in zip(closed.out_avals, lin_avals):
            if (got.shape, got.dtype) != (want.shape, want.dtype):
                raise TypeError("transpose output shapes and dtypes must match those of the "
                                f"linear inputs: got {got.str_short()} for {want.str_short()}")
        return closed, consts

    outs = linear_call_p.bind(*callee_consts, *res_flat, *lin_flat, callee=callee,
                              transpose_thunk=_memoize(trace_transpose),
                              num_callee_consts=len(callee_consts), num_res=len(res_flat))
    return tree_util.tree_unflatten(out_tree, outs)


class _Placeholder:
    """Stands for a value of ``aval`` when tracing needs only its type."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval


def _memoize(thunk):
    box = []

    def memoized():
        if not box:
            box.append(thunk())
        return box[0]
    return memoized


def _eval(*args, callee, **_):
    return core.eval_jaxpr(callee.jaxpr, callee.consts, *args)


core.impl_rules[linear_call_p] = _eval
core.abstract_eval_rules[linear_call_p] = lambda *avals, callee, **_: callee.out_avals
mlir.rules[linear_call_p] = lambda ctx, ai, ao, *args, callee, **_: mlir.lower_jaxpr(
    ctx, callee.jaxpr, callee.consts, args)


def _linear_call_jvp(primals, tangents, *, num_callee_consts, num_res, **params):
    n = num_callee_consts + num_res
    if any(type(t) is not Zero for t in tangents[:n]):
        raise AssertionError("linear_call: its function is linear only in linear_args; "
                             "differentiating with respect to residual_args is not supported")
    outs = linear_call_p.bind(*primals, num_callee_consts=num_callee_consts, num_res=num_res,
                              **params)
    touts = linear_call_p.bind(*primals[:n], *map(ad.instantiate_zeros, tangents[n:]),
                               num_callee_consts=num_callee_consts, num_res=num_res, **params)
    return outs, touts


def _linear_call_transpose(cts, *args, callee, transpose_thunk, num_callee_consts, num_res):
    n = num_callee_consts + num_res
    if any(ad.is_undefined_primal(x) for x in args[:n]):
        raise AssertionError("linear_call: residual_args must not depend on the linear inputs "
                             "being transposed")
    t_closed, t_consts = transpose_thunk()
    ct_args = [ad.instantiate_zeros(c) if type(c) is Zero else c for c in cts]
    consts, res = args[:num_callee_consts], args[num_callee_consts:n]
    back = _memoize(lambda: (callee, list(consts)))
    outs = linear_call_p.bind(*t_consts, *res, *ct_args, callee=t_closed, transpose_thunk=back,
                              num_callee_consts=len(t_consts), num_res=num_res)
    return [None] * n + list(outs)


ad.jvp_rules[linear_call_p] = _linear_call_jvp
ad.transpose_rules[linear_call_p] = _linear_call_transpose
