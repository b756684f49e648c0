"""The user-facing differentiation API on pytrees: ``jvp``, ``linearize``,
``vjp``, ``grad``, ``value_and_grad``, ``jacfwd``, ``jacrev``, ``hessian`` and
``stop_gradient``. Everything here flattens pytrees and calls the flat
machinery of ``ad.py``."""
from __future__ import annotations

import functools
import operator

import numpy as np

from xjit._src.interpreters import ad
from xjit._src import core, dtypes, traceback_util, tree_util, util
from xjit._src.interpreters.ad import Zero


def _check_callable(fun):
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")


def _check_valid_arg(x):
    try:
        core.aval_of(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") from None


def _to_device(x):
    lax = core.lax_ops
    return lax.asarray_device(x)


def _as_arrays(leaves):
    """Host values (Python scalars, NumPy arrays) become arrays, as JAX
    converts differentiated arguments, so rules see typed operands."""
    return [x if isinstance(x, core.Tracer) else _to_device(x) for x in leaves]


def _zeros(aval):
    """Zeros of ``aval`` (float0 for integer values and keys), weak type kept."""
    if aval.dtype.kind in "iub" or aval.dtype == dtypes.float0 or \
            getattr(aval.dtype, "extended", False):
        return np.zeros(aval.shape, dtypes.float0)
    if aval.shape:  # laid out as the aval's type says
        return ad.zeros_like_aval(aval)
    return _to_device(core.lax_ops.host_convert(0, aval.dtype, aval.weak_type))


def _is_host(x):
    return isinstance(x, (bool, int, float, complex, np.ndarray, np.generic))


def _instantiate(t, primal):
    return _zeros(core.aval_of(primal)) if type(t) is Zero else t


def _flatten_fun(fun, in_tree, store):
    """``fun`` on flat leaves, its output tree recorded in ``store``."""
    def flat(*leaves):
        out = fun(*tree_util.tree_unflatten(in_tree, list(leaves)))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        store.append(out_tree)
        return out_leaves
    return flat


def _split_aux(out, has_aux):
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError("expected function with aux output to return a two-element tuple, but "
                        f"got type {type(out)} with value {out}")
    return out


def _strip(x):
    """A value returned as aux: the primal of any differentiation tracer."""
    while isinstance(x, ad.JVPTracer):
        x = x.primal
    return x


# --------------------------------------------------------------------------
# jvp and linearize


@traceback_util.api_boundary
def jvp(fun, primals, tangents, has_aux=False):
    """``(fun(*primals), d fun(primals) . tangents)``."""
    _check_callable(fun)
    for name, v in (("primal", primals), ("tangent", tangents)):
        if not isinstance(v, (tuple, list)):
            raise TypeError(f"{name} arguments to jax.jvp must be a tuple or a list; found "
                            f"{type(v).__name__}.")
    p_leaves, p_tree = tree_util.tree_flatten(tuple(primals))
    t_leaves, t_tree = tree_util.tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {p_tree} whereas tangents have "
                        f"tree structure {t_tree}.")
    for p, t in zip(p_leaves, t_leaves):
        _check_valid_arg(p)
        _check_valid_arg(t)
        pa, ta = core.aval_of(p), core.aval_of(t)
        expected = ad.tangent_aval(pa).dtype
        if ta.dtype != expected:
            raise TypeError("primal and tangent arguments to jax.jvp do not match; dtypes must "
                            "be equal, or in case of int/bool primal dtype the tangent dtype must "
                            f"be float0.Got primal dtype {pa.dtype.name} and so expected tangent "
                            f"dtype {expected.name}, but got tangent dtype {ta.dtype.name} instead.")
        if pa.shape != ta.shape:
            raise ValueError("jvp called with different primal and tangent shapes;Got primal "
                             f"shape {pa.shape} and tangent shape as {ta.shape}")
    # JAX keeps host values (a Python float) as they are: a rule or function that
    # passes one through returns it unconverted (equinox checks the type)
    store = []
    flat = _flatten_fun(lambda *a: fun(*a), p_tree, store)
    if has_aux:
        hidden = []
        flat = _flatten_fun(lambda *a: _aux_pair(fun(*a), hidden), p_tree, store)
    tangents_in = [Zero(ad.tangent_aval(core.aval_of(p))) if core.aval_of(t).dtype == dtypes.float0
                   else t for p, t in zip(p_leaves, t_leaves)]
    outs, touts = ad.jvp_flat(flat, p_leaves, tangents_in)
    touts = [_instantiate(t, p) for t, p in zip(touts, outs)]
    # a tangent computed beside an array primal is an array, as JAX's rules make it
    touts = [_to_device(t) if _is_host(t) and not _is_host(p) and np.result_type(t) != dtypes.float0
             else t for t, p in zip(touts, outs)]
    out_tree = store[0]
    if has_aux:
        (o_tree, _), n = _aux_trees(out_tree)
        out = tree_util.tree_unflatten(o_tree, outs[:n])
        tout = tree_util.tree_unflatten(o_tree, touts[:n])
        aux = _restore_aux(hidden, outs[n:])
        return out, tout, aux
    return tree_util.tree_unflatten(out_tree, outs), tree_util.tree_unflatten(out_tree, touts)


def _aux_pair(out, hidden):
    out, aux = _split_aux(out, True)
    return (out, _hide_aux(aux, hidden))


def _hide_aux(aux, hidden):
    """The aux leaves that are JAX values, to return through the trace. The
    others ('hi', a class) are kept in ``hidden``: JAX hands them back as they were."""
    leaves, tree = tree_util.tree_flatten(aux)
    traced = [core.valid_jaxtype(x) for x in leaves]
    hidden.append((tree, traced, [None if t else x for t, x in zip(traced, leaves)]))
    return [x for t, x in zip(traced, leaves) if t]


def _restore_aux(hidden, outs):
    """The aux pytree from ``_hide_aux``'s record and the traced leaves' outputs."""
    tree, traced, others = hidden[0]
    it = (_strip(x) for x in outs)
    return tree_util.tree_unflatten(tree, [next(it) if t else x for t, x in zip(traced, others)])


def _aux_trees(tree):
    o_tree, a_tree = tree_util.treedef_children(tree)
    return (o_tree, a_tree), o_tree.num_leaves


@traceback_util.api_boundary
def linearize(fun, *primals, has_aux=False):
    """``(fun(*primals), f_jvp)`` where ``f_jvp`` evaluates the linearized map."""
    _check_callable(fun)
    p_leaves, p_tree = tree_util.tree_flatten(primals)
    for p in p_leaves:
        _check_valid_arg(p)
    p_leaves = _as_arrays(p_leaves)
    store, hidden = [], []
    body = (lambda *a: _aux_pair(fun(*a), hidden)) if has_aux else fun
    outs, lin = ad.linearize_flat(_flatten_fun(body, p_tree, store), p_leaves)
    out_tree = store[0]
    n = len(outs)
    if has_aux:
        (out_tree, _), n = _aux_trees(out_tree)
        aux = _restore_aux(hidden, outs[n:])

    # a Partial whose leaves are the residuals, as JAX returns it
    f_jvp = tree_util.Partial(functools.partial(
        _lift_linearized, lin, p_tree, [core.aval_of(p) for p in p_leaves], out_tree,
        [core.aval_of(o) for o in outs[:n]]), lin.consts)
    out = tree_util.tree_unflatten(out_tree, outs[:n])
    return (out, f_jvp, aux) if has_aux else (out, f_jvp)


def _lift_linearized(lin, p_tree, p_avals, out_tree, out_avals, consts, *tangents):
    """The linear map of ``linearize`` at ``tangents``, with residuals ``consts``."""
    t_leaves, t_tree = tree_util.tree_flatten(tangents)
    if t_tree != p_tree:
        raise TypeError(f"expected {p_tree}, got {t_tree}")
    for p, t in zip(p_avals, t_leaves):
        want, got = ad.tangent_aval(p), core.aval_of(t)
        if want.shape != got.shape or want.dtype != got.dtype:
            raise ValueError(
                "linearized function called on tangent values inconsistent with the original "
                f"primal values:\nGot tangent aval {_aval_text(got)} for primal aval "
                f"{_aval_text(p)} but expected {_aval_text(want)}.")
    lin = ad.Linearized(lin.jaxpr, consts, lin.in_avals, lin.in_zero, lin.out_avals,
                        lin.out_zero)
    touts = lin.apply(t_leaves)
    return tree_util.tree_unflatten(out_tree, [_zeros(a) if type(t) is Zero else t
                                               for t, a in zip(touts, out_avals)])


def _aval_text(aval):
    return ("~" if aval.weak_type else "") + aval.str_short(False)


# --------------------------------------------------------------------------
# vjp


def _vjp(fun, primals, has_aux, fun_name=None):
    p_leaves, p_tree = tree_util.tree_flatten(primals)
    for p in p_leaves:
        _check_valid_arg(p)
    p_leaves = _as_arrays(p_leaves)
    store, hidden = [], []
    body = (lambda *a: _aux_pair(fun(*a), hidden)) if has_aux else fun
    outs, lin = ad.linearize_flat(_flatten_fun(body, p_tree, store), p_leaves)
    out_tree = store[0]
    n, aux = len(outs), None
    if has_aux:
        (out_tree, _), n = _aux_trees(out_tree)
        aux = _restore_aux(hidden, outs[n:])
    return p_leaves, p_tree, outs[:n], out_tree, lin, aux


@traceback_util.api_boundary
def vjp(fun, *primals, has_aux=False):
    """``(fun(*primals), vjp_fun)``; ``vjp_fun(ct)`` returns one cotangent per
    primal. ``vjp_fun`` is a ``VJP``: a pytree whose leaves are the residuals."""
    _check_callable(fun)
    p_leaves, p_tree, outs, out_tree, lin, aux = _vjp(fun, primals, has_aux)
    name = getattr(fun, "__name__", type(fun).__name__)
    ids = {id(x): i for i, x in enumerate(p_leaves)}
    used, opaque, spec = set(), [], []
    for r in lin.consts:  # residuals that are inputs are kept as the inputs
        i = ids.get(id(r))
        if i is not None:
            used.add(i)
            spec.append((True, i))
        else:
            spec.append((False, len(opaque)))
            opaque.append(r)
    args_res = [x if i in used else NotNeeded() for i, x in enumerate(p_leaves)]
    apply = functools.partial(_vjp_apply, tuple(spec), lin, [core.aval_of(p) for p in p_leaves],
                              [core.aval_of(o) for o in outs], name, fun)
    f_vjp = VJP(apply, p_tree, out_tree, args_res, opaque)
    out = tree_util.tree_unflatten(out_tree, outs)
    return (out, f_vjp, aux) if has_aux else (out, f_vjp)


class NotNeeded:
    """Stands in ``VJP.args_res`` for an input the linear map does not read."""

    __slots__ = ()

    def __repr__(self):
        return "NotNeeded()"


tree_util.register_pytree_node(NotNeeded, lambda x: ((), None), lambda aux, ch: NotNeeded())


class VJP:
    """The function returned by ``vjp``. As a pytree its leaves are the
    residuals: the inputs the linear map reads (``args_res``), then the other
    values it saved (``opaque_residuals``); so it can be returned from
    ``jit`` or inspected with ``tree.leaves``."""

    __slots__ = ("fun", "in_tree", "out_tree", "args_res", "opaque_residuals", "__weakref__")

    def __init__(self, fun, in_tree, out_tree, args_res, opaque_residuals):
        self.fun, self.in_tree, self.out_tree = fun, in_tree, out_tree
        self.args_res, self.opaque_residuals = args_res, opaque_residuals

    def __call__(self, out_ct, *extra_args):
        if extra_args:
            raise TypeError(_VJP_TOO_MANY_ARGS.format(self.fun.args[4], len(extra_args) + 1))
        return self.fun(self.in_tree, self.out_tree, self.args_res, self.opaque_residuals, out_ct)

    def __repr__(self):
        return (f"VJP(fun={self.fun.args[4]}, in_tree={self.in_tree}, out_tree={self.out_tree}, "
                f"args_res={self.args_res}, opaque_residuals={self.opaque_residuals})")


tree_util.register_pytree_node(
    VJP, lambda v: ((v.args_res, v.opaque_residuals), (v.fun, v.in_tree, v.out_tree)),
    lambda meta, children: VJP(*meta, *children))


def _vjp_apply(spec, lin, p_avals, out_avals, name, fun, in_tree, out_tree, args_res, opaque,
               ct):
    """Cotangents of the inputs, given the residuals the ``VJP`` carries."""
    ct_leaves, ct_tree = tree_util.tree_flatten(ct)
    if ct_tree != out_tree:
        raise ValueError(_ct_tree_message(name, fun, out_tree, ct_tree))
    flat = []
    for c, a in zip(ct_leaves, out_avals):
        ca = core.aval_of(c)
        want = ad.tangent_aval(a)
        if ca.shape != want.shape or (ca.dtype != want.dtype and want.dtype != dtypes.float0):
            raise ValueError(
                "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                f"{ca.str_short(False)}, but expected {want.str_short(False)} because the "
                "corresponding output of the differentiated function had JAX type "
                f"{a.str_short(False)}")
        flat.append(Zero(want) if want.dtype == dtypes.float0 else c)
    residuals = [args_res[i] if is_arg else opaque[i] for is_arg, i in spec]
    lin = ad.Linearized(lin.jaxpr, residuals, lin.in_avals, lin.in_zero, lin.out_avals,
                        lin.out_zero)
    res = lin.transpose(flat + [Zero(a) for a in lin.out_avals[len(flat):]])
    return tree_util.tree_unflatten(in_tree, [_zeros(a) if type(c) is Zero else c
                                              for c, a in zip(res, p_avals)])


_VJP_TOO_MANY_ARGS = """
The function returned by `jax.vjp` applied to {} was called with {} arguments,
but functions returned by `jax.vjp` must be called with a single argument
corresponding to the single value returned by the function being differentiated
(even if that returned value is a tuple or other container).

For example, if we have:

  def f(x):
    return (x, x)
  _, f_vjp = jax.vjp(f, 1.0)

the function `f` returns a single tuple as output, and so we call `f_vjp` with a
single tuple as its argument:

  x_bar, = f_vjp((2.0, 2.0))

If we instead call `f_vjp(2.0, 2.0)`, with the values 'splatted out' as
arguments rather than in a tuple, this error can arise.
"""


def _ct_tree_message(name, fun, out_tree, ct_tree):
    from xjit._src.interpreters.partial_eval import _fun_location
    loc = _fun_location(fun)
    where = f"{name} at {loc}" if loc else name
    return ("unexpected tree structure.\n\nThe argument to a VJP function returned by `jax.vjp` "
            f"must match the pytree\nstructure of the differentiated function {where}.\n\n"
            "But the tree structures differ:\n  * " + _tree_difference(out_tree, ct_tree))


def _tree_difference(a, b):
    """The first difference between two treedefs, worded as JAX does."""
    def kind(t):
        if tree_util.treedef_is_leaf(t):
            return "a pytree leaf"
        node = t.node_data()
        return f"a {node[0]}" if node else "a pytree node"
    if kind(a) != kind(b):
        return (f"out was {kind(a)} in the original output, but {kind(b)} here, so their Python "
                "types differ.")
    return f"out has structure {a} in the original output, but {b} here."


# --------------------------------------------------------------------------
# grad and value_and_grad


def _argnums_tuple(argnums):
    if isinstance(argnums, int):
        return (argnums,), True
    return tuple(operator.index(a) for a in argnums), False


def _check_input_dtype(what, aval, holomorphic, allow_int):
    dt = aval.dtype
    if holomorphic:
        if dt.kind != "c":
            raise TypeError(f"{what} with holomorphic=True requires inputs with complex dtype, "
                            f"but got {dt.name}.")
    if dt.kind in "iub" and not allow_int:
        raise TypeError(f"{what} requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but got {dt.name}. If you want to use "
                        "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def _check_output(what, out, holomorphic):
    try:
        aval = core.aval_of(out)
    except TypeError:
        raise TypeError(f"Gradient only defined for scalar-output functions. Output was {out}.") \
            from None
    if aval.shape:
        raise TypeError("Gradient only defined for scalar-output functions. Output had shape: "
                        f"{aval.shape}.")
    dt = aval.dtype
    if holomorphic:
        if dt.kind != "c":
            raise TypeError(f"{what} with holomorphic=True requires outputs with complex dtype, "
                            f"but got {dt.name}.")
    elif dt.kind == "c":
        raise TypeError(f"{what} requires real-valued outputs (output dtype that is a sub-dtype of "
                        f"np.floating), but got {dt.name}. For holomorphic differentiation, pass "
                        "holomorphic=True. For differentiation of non-holomorphic functions "
                        "involving complex outputs, use jax.vjp directly.")
    elif dt.kind in "iub":
        raise TypeError(f"{what} requires real-valued outputs (output dtype that is a sub-dtype of "
                        f"np.floating), but got {dt.name}. For differentiation of functions with "
                        "integer outputs, use jax.vjp directly.")
    return aval


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """``(fun(*args), gradient of fun with respect to args[argnums])``."""
    _check_callable(fun)
    nums, single = _argnums_tuple(argnums)

    @util.wraps(fun)
    @traceback_util.api_boundary
    def value_and_grad_f(*args, **kwargs):
        n = len(args)
        for a in nums:
            if not -n <= a < n:
                raise TypeError(f"differentiating with respect to argnums={argnums} requires at "
                                f"least {max(nums) + 1} positional arguments to be passed by the "
                                f"caller, but got only {n} positional arguments.")
        idx = [a % n for a in nums]
        dyn = args[idx[0]] if single else tuple(args[i] for i in idx)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        for x in leaves:
            _check_valid_arg(x)
            _check_input_dtype("grad", core.aval_of(x), holomorphic, allow_int)
        leaves = _as_arrays(leaves)

        def f_dyn(d):
            full = list(args)
            for i, v in zip(idx, (d,) if single else d):
                full[i] = v
            return fun(*full, **kwargs)

        store = []

        def flat(*xs):
            out = f_dyn(tree_util.tree_unflatten(in_tree, list(xs)))
            out, aux = _split_aux(out, has_aux)
            _check_output("grad", out, holomorphic)
            return [out] + (_hide_aux(aux, store) if has_aux else [])

        outs, lin = ad.linearize_flat(flat, leaves)
        out = outs[0]
        seed = _one(core.aval_of(out))
        cts = lin.transpose([seed] + [Zero(a) for a in lin.out_avals[1:]])
        grads = [_ct_out(c, x) for c, x in zip(cts, leaves)]
        g = tree_util.tree_unflatten(in_tree, grads)
        out = _to_device(out)
        if has_aux:
            aux = _restore_aux(store, outs[1:])
            return (out, aux), g
        return out, g

    return value_and_grad_f


def _one(aval):
    """The seed cotangent. Of a value typed over a mesh with Explicit axes,
    traced: JAX's ``reshard`` of the literal to the mesh, unsplit (it shows
    in printed jaxprs)."""
    one = core.lax_ops.host_convert(1, aval.dtype, aval.weak_type)
    s = getattr(aval, "sharding", None)  # the type's, over the mesh in context
    if s is None or s.mesh.empty or not s.mesh._any_axis_explicit \
            or core.trace_ctx.trace is core.eval_trace:
        return one
    from xjit._src.reshard import reshard_p
    from xjit._src.sharding import PartitionSpec
    return reshard_p.bind(one, dst_sharding=s.update(spec=PartitionSpec()), concrete_mesh=None)


def _ct_out(ct, primal):
    """The gradient leaf for ``primal``: zeros where none flowed; otherwise the
    cotangent as the transposes left it (its weak type is theirs, as in JAX)."""
    if type(ct) is Zero:
        return _zeros(core.aval_of(primal))
    return _to_device(ct)


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """The gradient of scalar-valued ``fun`` with respect to ``args[argnums]``."""
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, reduce_axes)

    @util.wraps(fun)
    @traceback_util.api_boundary
    def grad_f(*args, **kwargs):
        (_, aux), g = vg(*args, **kwargs) if has_aux else ((None, None), vg(*args, **kwargs)[1])
        return (g, aux) if has_aux else g

    return grad_f


# --------------------------------------------------------------------------
# Jacobians


def _std_basis(leaves):
    """The tangents of a Jacobian: the identity, made as ``jnp.eye`` makes it
    (traced under a trace, as JAX's), split into one block per leaf."""
    lax = core.lax_ops
    avals = [core.aval_of(x) for x in leaves]
    n = sum(int(np.prod(a.shape, dtype=np.int64)) for a in avals)
    dt = dtypes.result_type(*leaves) if leaves else np.dtype(np.float32)
    rows, cols = (lax.broadcasted_iota(np.int32, (n, n), d) for d in (0, 1))
    eye = lax.convert_element_type_p.bind(lax.eq(lax.add(rows, np.int32(0)), cols),
                                          new_dtype=dt, weak_type=False, sharding=None)
    return _unravel(eye, 1, avals, leaves, staged=True)


def _unravel(arr, axis, avals, examples, staged=False):
    """``arr`` split along ``axis`` into one block per aval (JAX's
    ``_unravel_array_into_pytree``): each reshaped to that aval's shape there
    and converted to its example's dtype and weak type. JAX's trace forwards
    a conversion that changes nothing, except the basis's (``staged``), whose
    sharding argument never equals the type's."""
    lax = core.lax_ops
    shape = core.aval_of(arr).shape
    axis %= len(shape)
    sizes = tuple(np.int64(np.prod(a.shape, dtype=np.int64)) for a in avals)
    if core.aval_of(arr).dtype == dtypes.float0:  # integer inputs' (allow_int): zeros
        return [lax.convert_element_type_p.bind(
                    lax.full(shape[:axis] + a.shape + shape[axis + 1:], 0, ex.dtype),
                    new_dtype=ex.dtype, weak_type=ex.weak_type, sharding=None)
                for a, ex in zip(avals, map(core.aval_of, examples))]
    parts = lax.split_p.bind(arr, sizes=sizes, axis=axis)
    out = []
    for part, a, example in zip(parts, avals, examples):
        part = lax.reshape(part, shape[:axis] + a.shape + shape[axis + 1:])
        ex = core.aval_of(example)
        if part.dtype.kind == "c" and ex.dtype.kind != "c":
            part = lax.real(part)
        got = core.aval_of(part)
        if (got.dtype, got.weak_type) != (ex.dtype, ex.weak_type) or (
                staged and core.trace_ctx.trace is not core.eval_trace):
            part = lax.convert_element_type_p.bind(part, new_dtype=ex.dtype,
                                                   weak_type=ex.weak_type, sharding=None)
        out.append(part)
    return out


def _jac_dyn(fun, argnums, args, kwargs, what, holomorphic, allow_int):
    nums, single = _argnums_tuple(argnums)
    n = len(args)
    idx = [a % n for a in nums]
    dyn = args[idx[0]] if single else tuple(args[i] for i in idx)
    leaves, in_tree = tree_util.tree_flatten(dyn)
    for x in leaves:
        _check_valid_arg(x)
        dt = core.aval_of(x).dtype
        if what == "jacfwd" and not holomorphic and not dtypes.issubdtype(dt, np.floating):
            raise TypeError("jacfwd requires real-valued inputs (input dtype that is a sub-dtype "
                            f"of np.floating), but got {dt.name}. For holomorphic differentiation, "
                            "pass holomorphic=True. For differentiation of non-holomorphic "
                            "functions involving complex inputs or integer inputs, use jax.jvp "
                            "directly.")
        if what == "jacrev":
            _check_input_dtype("jacrev", core.aval_of(x), holomorphic, allow_int)
    leaves = _as_arrays(leaves)

    def f_dyn(*xs):
        d = tree_util.tree_unflatten(in_tree, list(xs))
        full = list(args)
        for i, v in zip(idx, (d,) if single else d):
            full[i] = v
        return fun(*full, **kwargs)

    return leaves, in_tree, f_dyn


def _unravel_last(arr, out_shape, in_leaves):
    """Split the trailing basis axis of ``arr`` into one block per input leaf."""
    lax = core.lax_ops
    pieces, start = [], 0
    for x in in_leaves:
        shape = core.aval_of(x).shape
        s = int(np.prod(shape, dtype=np.int64))
        nd = len(out_shape) + 1
        blk = lax.slice(arr, (0,) * (nd - 1) + (start,), tuple(out_shape) + (start + s,))
        pieces.append(lax.reshape(blk, tuple(out_shape) + shape))
        start += s
    return pieces


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of ``fun`` by forward mode (a vmapped ``jvp``)."""
    _check_callable(fun)
    from xjit._src.interpreters.batching import vmap

    @util.wraps(fun)
    def jacfun(*args, **kwargs):
        leaves, in_tree, f_dyn = _jac_dyn(fun, argnums, args, kwargs, "jacfwd", holomorphic, False)
        in_avals = [core.aval_of(x) for x in leaves]

        def pushfwd(*tangents):
            return jvp(f_dyn, tuple(leaves), tuple(tangents), has_aux=has_aux)

        out_axes = (None, -1, None) if has_aux else (None, -1)
        y, jac, *aux = vmap(pushfwd, out_axes=out_axes)(*_std_basis(leaves))
        y_leaves, out_tree = tree_util.tree_flatten(y)
        jac_leaves = out_tree.flatten_up_to(jac)
        per_out = [tree_util.tree_unflatten(in_tree, _unravel(j, -1, in_avals, [yl] * len(leaves)))
                   for yl, j in zip(y_leaves, jac_leaves)]
        result = tree_util.tree_unflatten(out_tree, per_out)
        return (result, aux[0]) if has_aux else result

    return jacfun


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The Jacobian of ``fun`` by reverse mode (a vmapped ``vjp``)."""
    _check_callable(fun)
    from xjit._src.interpreters.batching import vmap

    @util.wraps(fun)
    def jacfun(*args, **kwargs):
        leaves, in_tree, f_dyn = _jac_dyn(fun, argnums, args, kwargs, "jacrev", holomorphic,
                                          allow_int)
        res = vjp(f_dyn, *leaves, has_aux=has_aux)
        y, pullback = res[0], res[1]
        y_leaves, y_tree = tree_util.tree_flatten(y)
        basis = _std_basis(y_leaves)
        cts = vmap(lambda *b: pullback(tree_util.tree_unflatten(y_tree, list(b))))(*basis)
        y_avals = [core.aval_of(yl) for yl in y_leaves]
        by_input = [_unravel(c, 0, y_avals, [x] * len(y_leaves)) for c, x in zip(cts, leaves)]
        per_out = [tree_util.tree_unflatten(in_tree, [blocks[i] for blocks in by_input])
                   for i in range(len(y_leaves))]
        result = tree_util.tree_unflatten(y_tree, per_out)
        return (result, res[2]) if has_aux else result

    return jacfun


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """``jacfwd(jacrev(fun))``."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                  has_aux=has_aux, holomorphic=holomorphic)


# --------------------------------------------------------------------------
# stop_gradient


def stop_gradient(x):
    """``x`` with no gradient flowing through it (PRNG keys pass as is)."""
    from .interpreters.ad import stop_gradient_p

    def stop(v):
        if dtypes.issubdtype(core.aval_of(v).dtype, dtypes.extended):
            return v
        return stop_gradient_p.bind(v)
    return tree_util.tree_map(stop, x)
