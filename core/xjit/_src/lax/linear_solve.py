"""``custom_linear_solve`` and ``custom_root``: solvers whose derivatives
come from implicit differentiation rather than from differentiating the
solver's iterations.

``custom_linear_solve`` is one primitive whose parameters hold four staged
functions (matvec, its transpose, solve, transpose_solve), each taking its
closed-over values as leading operands. Its JVP solves again for the
tangent; its transpose solves the transposed system (so reverse mode never
transposes the user's solver loop). ``custom_root`` is a ``custom_jvp``
function whose rule applies the implicit function theorem.
"""
from __future__ import annotations

import operator
from typing import Any, NamedTuple

from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src import core, tree_util
from xjit._src.interpreters.ad import Zero, instantiate_zeros, is_undefined_primal
from xjit._src.interpreters.partial_eval import convert_constvars_jaxpr, trace_to_jaxpr
from xjit._src.lax import lax


class _LinearSolveTuple(NamedTuple):
    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self):
        return _LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def _stage(fun, avals):
    """A closed jaxpr of ``fun`` on flat leaves with its constants turned into
    leading inputs, and those constants."""
    jaxpr, consts = trace_to_jaxpr(fun, list(avals))
    return core.ClosedJaxpr(convert_constvars_jaxpr(jaxpr), []), list(consts)


def _run(closed, consts, args):
    return core.eval_jaxpr(closed.jaxpr, [], *consts, *args)


def _split(args, lengths):
    out, i = [], 0
    for n in lengths:
        out.append(list(args[i:i + n]))
        i += n
    return _LinearSolveTuple(*out), list(args[i:])


linear_solve_p = core.Primitive("custom_linear_solve")
linear_solve_p.multiple_results = True
core.abstract_eval_rules[linear_solve_p] = lambda *avals, const_lengths, jaxprs: list(
    avals[sum(const_lengths):])


def _impl(*args, const_lengths, jaxprs):
    consts, b = _split(args, const_lengths)
    return _run(jaxprs.solve, consts.solve, b)


core.impl_rules[linear_solve_p] = _impl


def _lower(ctx, avals_in, avals_out, *args, const_lengths, jaxprs):
    consts, b = _split(args, const_lengths)
    return lowering.lower_jaxpr(ctx, jaxprs.solve.jaxpr, [], consts.solve + b)


lowering.rules[linear_solve_p] = _lower


def _jvp(primals, tangents, *, const_lengths, jaxprs):
    """x = A^-1 b, so dx = A^-1 (db - dA x): dA x is the JVP of matvec in its
    closed-over values with x held fixed."""
    consts, b = _split(primals, const_lengths)
    dconsts, db = _split(tangents, const_lengths)
    x = linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
    if all(type(t) is Zero for t in db) and all(type(t) is Zero for t in dconsts.matvec):
        return x, [Zero.from_primal_value(v) for v in x]
    rhs = [instantiate_zeros(t) for t in db]
    if any(type(t) is not Zero for t in dconsts.matvec):
        n = len(consts.matvec)
        _, dax = ad.jvp_flat(lambda *a: _run(jaxprs.matvec, a[:n], a[n:]),
                             consts.matvec + list(x),
                             list(dconsts.matvec) + [Zero.from_primal_value(v) for v in x])
        rhs = [r if type(d) is Zero else lax.sub(r, d) for r, d in zip(rhs, dax)]
    flat_consts = [c for group in consts for c in group]
    dx = linear_solve_p.bind(*flat_consts, *rhs, const_lengths=const_lengths, jaxprs=jaxprs)
    return x, dx


def _transpose(cts, *args, const_lengths, jaxprs):
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    consts, b = _split(args, const_lengths)
    if any(is_undefined_primal(c) for group in consts for c in group):
        raise ValueError("custom_linear_solve is not linear in the values its functions "
                         "close over")
    t_consts = consts.transpose()
    cts = [instantiate_zeros(c) for c in cts]
    ct_b = linear_solve_p.bind(*[c for g in t_consts for c in g], *cts,
                               const_lengths=const_lengths.transpose(),
                               jaxprs=jaxprs.transpose())
    return [None] * sum(const_lengths) + list(ct_b)


ad.jvp_rules[linear_solve_p] = _jvp
ad.transpose_rules[linear_solve_p] = _transpose


def _batch(axis_data, args, dims, *, const_lengths, jaxprs):
    """Every operand batched at axis 0, every staged function batched so."""
    size = axis_data.size
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    new = [None if j is None else batching.batch_jaxpr(j, axis_data, [True] * len(j.in_avals),
                                                       True)[0] for j in jaxprs]
    outs = linear_solve_p.bind(*args, const_lengths=const_lengths, jaxprs=_LinearSolveTuple(*new))
    return outs, [0] * len(outs)


batching.axis_batch_rules[linear_solve_p] = _batch


def _check_tree(what, expected, got):
    if expected != got:
        raise TypeError(f"{what} output must have same type structure as its input, got "
                        f"{got} and {expected}.")


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False, has_aux=False):
    """``solve(matvec, b)``, differentiated implicitly: tangents and
    cotangents are found with further solves (``transpose_solve`` for reverse
    mode; ``symmetric=True`` reuses ``solve``)."""
    b_leaves, b_tree = tree_util.tree_flatten(b)
    b_leaves = [lax.asarray_device(x) for x in b_leaves]
    b_avals = [core.aval_of(x).strip_weak_type() for x in b_leaves]
    unflat = lambda xs: tree_util.tree_unflatten(b_tree, list(xs))  # noqa: E731

    def flat_matvec(*xs):
        out_leaves, out_tree = tree_util.tree_flatten(matvec(unflat(xs)))
        _check_tree("matvec", b_tree, out_tree)
        return out_leaves

    aux_store = []

    def solver(fn):
        def flat_solve(*xs):
            out = fn(lambda v: unflat(flat_matvec(*tree_util.tree_leaves(v))), unflat(xs))
            if has_aux:
                out, aux = out
                aux_store.append(aux)
            out_leaves, out_tree = tree_util.tree_flatten(out)
            _check_tree("solve", b_tree, out_tree)
            return out_leaves
        return flat_solve

    mv, mv_c = _stage(flat_matvec, b_avals)
    sv, sv_c = _stage(solver(solve), b_avals)
    if symmetric:
        vm, vm_c, ts, ts_c = mv, mv_c, sv, sv_c
    else:
        from ..ad_api import vjp

        def flat_vecmat(*cts):
            zeros = [lax.full(a.shape, 0, a.dtype) for a in b_avals]
            _, pull = vjp(flat_matvec, *zeros)
            return list(pull(list(cts)))
        vm, vm_c = _stage(flat_vecmat, b_avals)
        if transpose_solve is None:
            ts, ts_c = None, []
        else:
            vecmat_fn = lambda v: unflat(flat_vecmat(*tree_util.tree_leaves(v)))  # noqa: E731

            def flat_tsolve(*xs):
                out = transpose_solve(vecmat_fn, unflat(xs))
                out = out[0] if has_aux else out
                out_leaves, out_tree = tree_util.tree_flatten(out)
                _check_tree("transpose_solve", b_tree, out_tree)
                return out_leaves
            ts, ts_c = _stage(flat_tsolve, b_avals)
    lengths = _LinearSolveTuple(len(mv_c), len(vm_c), len(sv_c), len(ts_c))
    x = linear_solve_p.bind(*mv_c, *vm_c, *sv_c, *ts_c, *b_leaves, const_lengths=lengths,
                            jaxprs=_LinearSolveTuple(mv, vm, sv, ts))
    x = unflat(x)
    return (x, aux_store[0]) if has_aux else x


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """``solve(f, initial_guess)``, differentiated by the implicit function
    theorem at the root: d(root) = -(df/dx)^-1 (df/dparams . dparams), the
    tangent system solved by ``tangent_solve(g, y)`` (g the linearized f)."""
    from ..ad_api import jvp, linearize
    from ..custom_derivatives import closure_convert, custom_jvp

    f_conv, params = closure_convert(f, initial_guess)
    g_leaves, g_tree = tree_util.tree_flatten(initial_guess)
    out_leaves, out_tree = tree_util.tree_flatten(f(initial_guess))
    if out_tree != g_tree:
        raise TypeError(f"f() output pytree structure must match initial_guess, got {out_tree} "
                        f"and {g_tree}.")

    # solve and tangent_solve may close over traced values too (JAX stages
    # both): their closures become explicit arguments of ``root`` whose
    # tangents are ignored, so the rule never sees an outer tracer.
    solve_conv, solve_params = closure_convert(lambda x: solve(lambda y: f_conv(y, *params), x),
                                               initial_guess)

    def linearize_and_solve(x, b):
        _, f_lin = linearize(lambda y: f_conv(y, *params), x)
        return tangent_solve(f_lin, b)
    ls_conv, ls_params = closure_convert(linearize_and_solve, initial_guess, initial_guess)
    n_f, n_s = len(params), len(solve_params)

    @custom_jvp
    def root(consts, guess):
        return solve_conv(guess, *consts[n_f:n_f + n_s])

    @root.defjvp
    def root_jvp(primals, tangents):
        consts, guess = primals
        params, ls_consts = consts[:n_f], consts[n_f + n_s:]
        out = root(consts, guess)
        sol, aux = out if has_aux else (out, None)
        _, rhs = jvp(lambda *p: f_conv(sol, *p), tuple(params), tuple(tangents[0][:n_f]))
        sol_dot = tree_util.tree_map(operator.neg, ls_conv(sol, rhs, *ls_consts))
        if has_aux:
            return (sol, aux), (sol_dot, tree_util.tree_map(lax.zeros_like_array, aux))
        return sol, sol_dot

    return root([*params, *solve_params, *ls_params], initial_guess)
