"""Window reductions and reductions with a Python computation.

``reduce_window_{sum,max,min}`` are the monoid cases (what pooling uses);
``reduce_window`` and ``reduce`` carry the computation as a traced jaxpr of
two scalars, lowered as the region of ``stablehlo.reduce_window`` /
``stablehlo.reduce``. ``lax.reduce_window``/``lax.reduce`` pick the monoid
primitive when the computation and identity are recognised, as JAX does.

Derivatives follow JAX: max/min pooling's tangent is ``select_and_gather_add``
(the tangent at each window's winner) whose transpose is
``select_and_scatter_add``; generic ``reduce_window`` differentiates forward
only (reducing primal/tangent pairs); generic ``reduce`` differentiates a
halving tree of its computation.
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core, sharding_in_types as sit, tree_util
from xjit._src.interpreters import mlir as lowering
from ..core import Primitive, ShapedArray
from xjit._src.interpreters.mlir import i64_array, ttype
from xjit._src.lax import lax as api
from . import reductions as red
from .convolution import _dilate, padtype_to_pads
from .elementwise import ge_p, le_p
from .slicing import lower_fun
from . import sharding_rules


def _window_shape(shape, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation):
    return tuple(max((_dilate(d, bd) + lo + hi - _dilate(w, wd)) // s + 1, 0)
                 for d, w, s, (lo, hi), bd, wd in zip(shape, window_dimensions, window_strides,
                                                      padding, base_dilation, window_dilation))


def _check_window(name, x, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation):
    for what, v in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                    ("padding", padding), ("base_dilation", base_dilation),
                    ("window_dilation", window_dilation)):
        if len(v) != x.ndim:
            raise TypeError(f"{name} got the wrong number of {what} for operand: got operand "
                            f"shape {x.shape} with {what} {tuple(v)}.")


def _window_attrs(window_dimensions, window_strides, padding, base_dilation, window_dilation):
    n = len(padding)
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    pad_attr = f"dense<[{pads}]> : tensor<{n}x2xi64>" if n else "dense<> : tensor<0x2xi64>"
    return (f"window_dimensions = {i64_array(window_dimensions)}, "
            f"window_strides = {i64_array(window_strides)}, "
            f"base_dilations = {i64_array(base_dilation)}, "
            f"window_dilations = {i64_array(window_dilation)}, padding = {pad_attr}")

# -- the monoid primitives


def _monoid_eval(name):
    def rule(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        _check_window(name, x, window_dimensions, window_strides, padding, base_dilation,
                      window_dilation)
        return x.update(shape=_window_shape(x.shape, window_dimensions, window_strides, padding,
                                            base_dilation, window_dilation))
    return rule


def _monoid_lower(reduce_name):
    def rule(ctx, ai, ao, x, **params):
        a = ai[0]
        scalar = a.update(shape=(), weak_type=False)
        init = ctx.constant(red._init_value(reduce_name, a.dtype), scalar)
        region = red.reduce_region(ctx, red._REDUCE_OPS[reduce_name], a.dtype)
        return ctx.op("stablehlo.reduce_window", [x, init], [ttype(a), ttype(scalar)],
                      ttype(ao[0]), attrs=_window_attrs(**params), regions=[region])
    return rule


def _monoid_prim(name, reduce_name):
    p = Primitive(name)
    core.abstract_eval_rules[p] = _monoid_eval(name)
    lowering.rules[p] = _monoid_lower(reduce_name)
    return p


reduce_window_sum_p = _monoid_prim("reduce_window_sum", "reduce_sum")
reduce_window_max_p = _monoid_prim("reduce_window_max", "reduce_max")
reduce_window_min_p = _monoid_prim("reduce_window_min", "reduce_min")

# -- generic computations, as jaxprs of scalars


def _lower_computation(ctx, closed, dtypes_):
    """A region applying ``closed`` (n accumulators, n values -> n results)."""
    avals = [ShapedArray((), d) for d in dtypes_] * 2

    def body(*args):
        outs = lowering.lower_jaxpr(ctx, closed.jaxpr, closed.consts, list(args))
        return [(o, ShapedArray((), d)) for o, d in zip(outs, dtypes_)]
    return ctx.region(avals, body)


def _reduce_window_eval(*args, jaxpr, consts, window_dimensions, window_strides, padding,
                        base_dilation, window_dilation):
    n = len(args) // 2
    xs = args[:n]
    for x in xs:
        _check_window("reduce_window", x, window_dimensions, window_strides, padding,
                      base_dilation, window_dilation)
    shape = _window_shape(xs[0].shape, window_dimensions, window_strides, padding, base_dilation,
                          window_dilation)
    return [x.update(shape=shape, weak_type=False) for x in xs]


def _reduce_window_lower(ctx, ai, ao, *args, jaxpr, consts, **params):
    n = len(args) // 2
    region = _lower_computation(ctx, core.ClosedJaxpr(jaxpr.jaxpr, consts),
                                [a.dtype for a in ai[:n]])
    return ctx.op("stablehlo.reduce_window", list(args), [ttype(a) for a in ai],
                  [ttype(o) for o in ao], attrs=_window_attrs(**params), regions=[region])


reduce_window_p = Primitive("reduce_window")
reduce_window_p.multiple_results = True
core.abstract_eval_rules[reduce_window_p] = _reduce_window_eval
lowering.rules[reduce_window_p] = _reduce_window_lower


def _reduce_eval(*args, computation, jaxpr, dimensions):
    n = len(args) // 2
    for x in args[:n]:
        if any(not 0 <= d < x.ndim for d in dimensions):
            raise ValueError(f"reduction axes {tuple(dimensions)} contains out-of-bounds indices "
                             f"for {x.str_short()}.")
    return [x.update(shape=tuple(s for i, s in enumerate(x.shape) if i not in dimensions),
                     weak_type=False) for x in args[:n]]


def _reduce_lower(ctx, ai, ao, *args, computation, jaxpr, dimensions):
    n = len(args) // 2
    region = _lower_computation(ctx, jaxpr, [a.dtype for a in ai[:n]])
    return ctx.op("stablehlo.reduce", list(args), [ttype(a) for a in ai], [ttype(o) for o in ao],
                  attrs=f"dimensions = {i64_array(dimensions)}", regions=[region])


reduce_p = Primitive("reduce")
reduce_p.multiple_results = True
core.abstract_eval_rules[reduce_p] = _reduce_eval
lowering.rules[reduce_p] = _reduce_lower

# -- the xjit.lax functions


def _trace_computation(computation, init_avals):
    from xjit._src.interpreters.partial_eval import close_jaxpr, trace_to_jaxpr
    n = len(init_avals)
    scalars = [a.update(shape=(), weak_type=False) for a in init_avals]

    def flat(*args):
        if n == 1:
            out = computation(args[0], args[1])
        else:
            out = computation(tuple(args[:n]), tuple(args[n:]))
        return tree_util.tree_leaves(out)
    jaxpr, consts = trace_to_jaxpr(flat, scalars * 2)
    closed, _ = close_jaxpr(jaxpr, consts)
    return closed


def _monoid(computation, init, dtype):
    """The name of the monoid reduction ``computation`` with this ``init`` is, if any."""
    if core.is_concrete(init) and np.ndim(init) == 0:
        v = np.asarray(init)
        if computation is api.add and v == 0:
            return "sum"
        if computation is api.mul and v == 1:
            return "prod"
        if computation is api.max and v == red._init_value("reduce_max", dtype):
            return "max"
        if computation is api.min and v == red._init_value("reduce_min", dtype):
            return "min"
        if dtype == np.bool_ and computation is api.bitwise_and and v:
            return "and"
        if dtype == np.bool_ and computation is api.bitwise_or and not v:
            return "or"
    return None


def _norm_padding(padding, shape, window_dimensions, window_strides, base_dilation,
                  window_dilation):
    if isinstance(padding, str):
        return tuple(padtype_to_pads(
            [_dilate(d, b) for d, b in zip(shape, base_dilation)],
            [_dilate(w, d) for w, d in zip(window_dimensions, window_dilation)],
            window_strides, padding))
    return tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides, padding,
                  base_dilation=None, window_dilation=None):
    """Reduce each window of ``operand`` with ``computation`` (a function of
    two scalars, or of two tuples for several operands)."""
    flat_ops, tree = tree_util.tree_flatten(operand)
    flat_inits = tree_util.tree_leaves(init_value)
    flat_ops = [api.asarray_device(x) for x in flat_ops]
    nd = flat_ops[0].ndim
    window_dimensions = tuple(map(operator.index, window_dimensions))
    window_strides = tuple(map(operator.index, window_strides))
    base_dilation = (1,) * nd if base_dilation is None else tuple(map(int, base_dilation))
    window_dilation = (1,) * nd if window_dilation is None else tuple(map(int, window_dilation))
    if len(window_dimensions) != nd:
        raise TypeError(f"reduce_window got the wrong number of window_dimensions for operand: "
                        f"got operand shape {flat_ops[0].shape} with window_dimensions "
                        f"{window_dimensions}.")
    padding = _norm_padding(padding, flat_ops[0].shape, window_dimensions, window_strides,
                            base_dilation, window_dilation)
    params = dict(window_dimensions=window_dimensions, window_strides=window_strides,
                  padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)
    if len(flat_ops) == 1:
        kind = _monoid(computation, flat_inits[0], flat_ops[0].dtype)
        prim = {"sum": reduce_window_sum_p, "max": reduce_window_max_p,
                "min": reduce_window_min_p}.get(kind)
        if prim is not None:
            return tree_util.tree_unflatten(tree, [prim.bind(flat_ops[0], **params)])
    inits = [api._convert(i, x.dtype, False) for i, x in zip(flat_inits, flat_ops)]
    closed = _trace_computation(computation, [x.aval for x in flat_ops])
    outs = reduce_window_p.bind(*flat_ops, *inits, jaxpr=closed, consts=tuple(closed.consts),
                                **params)
    return tree_util.tree_unflatten(tree, outs)


def _window_monoid(prim):
    def fn(operand, window_dimensions, window_strides, padding, base_dilation=None,
           window_dilation=None):
        operand = api.asarray_device(operand)
        nd = operand.ndim
        bd = (1,) * nd if base_dilation is None else tuple(base_dilation)
        wd = (1,) * nd if window_dilation is None else tuple(window_dilation)
        pads = _norm_padding(padding, operand.shape, window_dimensions, window_strides, bd, wd)
        return prim.bind(operand, window_dimensions=tuple(window_dimensions),
                         window_strides=tuple(window_strides), padding=pads, base_dilation=bd,
                         window_dilation=wd)
    return fn


reduce_window_sum = _window_monoid(reduce_window_sum_p)
reduce_window_max = _window_monoid(reduce_window_max_p)
reduce_window_min = _window_monoid(reduce_window_min_p)


def reduce(operands, init_values, computation, dimensions):
    """Reduce ``operands`` over ``dimensions`` with ``computation``; the
    monoids (add/0, mul/1, max/-inf, min/inf, and/or) become their primitives."""
    flat_ops, tree = tree_util.tree_flatten(operands)
    flat_inits = tree_util.tree_leaves(init_values)
    if len(flat_ops) != len(flat_inits):
        raise ValueError("reduce: operands and init_values must have the same structure")
    flat_ops = [api.asarray_device(x) for x in flat_ops]
    dims = tuple(sorted(operator.index(d) for d in dimensions))
    if len(flat_ops) == 1:
        kind = _monoid(computation, flat_inits[0], flat_ops[0].dtype)
        if kind is not None:
            fn = getattr(api, f"reduce_{kind}")
            return tree_util.tree_unflatten(tree, [fn(flat_ops[0], dims)])
    inits = [api._convert(i, x.dtype, False) for i, x in zip(flat_inits, flat_ops)]
    closed = _trace_computation(computation, [x.aval for x in flat_ops])
    outs = reduce_p.bind(*flat_ops, *inits, computation=computation, jaxpr=closed,
                         dimensions=dims)
    return tree_util.tree_unflatten(tree, outs)

# -- transformation rules


def _sum_transpose(ct, *, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation, operand_shape):
    """Each input element receives the cotangents of the windows holding it:
    a window sum over the stride-dilated cotangent."""
    pads = []
    for d, w, m, (lo, _), s, bd, wd in zip(operand_shape, window_dimensions, ct.shape, padding,
                                            window_strides, base_dilation, window_dilation):
        w_eff, in_dil, out_dil = _dilate(w, wd), _dilate(d, bd), _dilate(m, s)
        before = w_eff - lo - 1
        pads.append((before, in_dil + w_eff - 1 - out_dil - before))
    return reduce_window_sum_p.bind(ct, window_dimensions=window_dimensions,
                                    window_strides=base_dilation, padding=tuple(pads),
                                    base_dilation=window_strides, window_dilation=window_dilation)


# -- the derivatives of max/min pooling, as in JAX


def _select_identity(select_prim, dtype):
    return red._init_value("reduce_max" if select_prim is ge_p else "reduce_min", dtype)


def _sga_eval(t, x, *, select_prim, window_dimensions, window_strides, padding, base_dilation,
              window_dilation):
    if t.shape != x.shape:
        raise TypeError(f"select_and_gather_add tangents and operand shapes must match, got "
                        f"{t.shape} and {x.shape}.")
    _check_window("select_and_gather_add", x, window_dimensions, window_strides, padding,
                  base_dilation, window_dilation)
    return t.update(shape=_window_shape(x.shape, window_dimensions, window_strides, padding,
                                        base_dilation, window_dilation), weak_type=False)


def _sga_impl(t, x, *, select_prim, window_dimensions, window_strides, padding, base_dilation,
              window_dilation):
    """The tangent at each window's selected operand entry: a two-operand
    reduce_window over (operand, tangent) pairs that keeps the pair whose
    operand wins ``select_prim``."""
    def pick(a, b):
        which = select_prim.bind(a[0], b[0])
        return api.select(which, a[0], b[0]), api.select(which, a[1], b[1])
    _, out = reduce_window((x, t), (_select_identity(select_prim, x.dtype), np.zeros((), t.dtype)),
                           pick, window_dimensions, window_strides, padding, base_dilation,
                           window_dilation)
    return out


select_and_gather_add_p = Primitive("select_and_gather_add")
core.abstract_eval_rules[select_and_gather_add_p] = _sga_eval
lowering.rules[select_and_gather_add_p] = lower_fun(_sga_impl)


def select_and_gather_add(t, x, select_prim, window_dimensions, window_strides, padding,
                          base_dilation, window_dilation):
    return select_and_gather_add_p.bind(
        t, x, select_prim=select_prim, window_dimensions=tuple(window_dimensions),
        window_strides=tuple(window_strides), padding=tuple(padding),
        base_dilation=tuple(base_dilation), window_dilation=tuple(window_dilation))


def _sas_eval(source, x, *, select_prim, window_dimensions, window_strides, padding):
    if not len(window_dimensions) == len(window_strides) == len(padding) == x.ndim:
        raise TypeError(f"select_and_scatter_add got window_dimensions {window_dimensions}, "
                        f"window_strides {window_strides} and padding {padding} for an operand "
                        f"of shape {x.shape}.")
    want = _window_shape(x.shape, window_dimensions, window_strides, padding, (1,) * x.ndim,
                         (1,) * x.ndim)
    if source.shape != want:
        raise TypeError(f"select_and_scatter_add source shape {source.shape} does not match the "
                        f"window output shape {want}.")
    return x.update(dtype=source.dtype, weak_type=False)


def _sas_lower(ctx, ai, ao, source, x, *, select_prim, window_dimensions, window_strides,
               padding):
    """``stablehlo.select_and_scatter`` on the operand padded explicitly with
    the selection's identity (the op's own padding crashes XLA:CPU, which JAX
    avoids the same way), then the padding sliced off."""
    s_aval, x_aval = ai
    dtype = x_aval.dtype
    pads = [(lo, hi, 0) for lo, hi in padding]
    xp = lower_fun(lambda x: api.pad(x, _select_identity(select_prim, dtype), pads))(
        ctx, [x_aval], None, x)
    padded = x_aval.update(shape=tuple(d + lo + hi for d, (lo, hi) in zip(x_aval.shape, padding)),
                           weak_type=False)
    sa, sb = ShapedArray((), dtype), ShapedArray((), np.bool_)
    select = ctx.region([sa, sa], lambda a, b: [
        (lowering.rules[select_prim](ctx, [sa, sa], [sb], a, b), sb)])
    scatter = red.reduce_region(ctx, "stablehlo.or" if dtype == np.bool_ else "stablehlo.add", dtype)
    init = ctx.constant(np.zeros((), dtype), sa)
    n = x_aval.ndim
    out = ctx.op("stablehlo.select_and_scatter", [xp, source, init],
                 [ttype(padded), ttype(s_aval), ttype(sa)], ttype(padded),
                 attrs=f"window_dimensions = {i64_array(window_dimensions)}, "
                       f"window_strides = {i64_array(window_strides)}, "
                       f"padding = dense<0> : tensor<{n}x2xi64>", regions=[select, scatter])
    lo = [p[0] for p in padding]
    return lower_fun(lambda y: api.slice(y, lo, [a + d for a, d in zip(lo, x_aval.shape)]))(
        ctx, [padded], None, out)


select_and_scatter_add_p = Primitive("select_and_scatter_add")
core.abstract_eval_rules[select_and_scatter_add_p] = _sas_eval
lowering.rules[select_and_scatter_add_p] = _sas_lower


# -- sharding rules (JAX 0.10.2's): a window's output keeps the operand's
# layout where each split dimension's new size still divides over its axes
def _window_rule(x, *, window_dimensions, window_strides, padding, base_dilation=None,
                 window_dilation=None, **_):
    n = x.ndim
    shape = _window_shape(x.shape, window_dimensions, window_strides, padding,
                          base_dilation or (1,) * n, window_dilation or (1,) * n)
    return sharding_rules.varying_out_shape(x, shape, "reduce_window")


sit.register([reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p], _window_rule)
sit.sharding_rules[reduce_window_p] = lambda *args, jaxpr, consts, **p: [
    _window_rule(x, **p) for x in args[:len(args) // 2]]
sit.sharding_rules[reduce_p] = lambda *args, computation, jaxpr, dimensions: [
    sit.drop_axes_rule(x, axes=dimensions) for x in args[:len(args) // 2]]
sit.sharding_rules[select_and_scatter_add_p] = lambda source, x, **_: sit.P(*sit.parts(x))
sit.sharding_rules[select_and_gather_add_p] = lambda t, x, **p: _window_rule(t, **p)


def select_and_scatter_add(source, x, select_prim, window_dimensions, window_strides, padding):
    return select_and_scatter_add_p.bind(
        source, x, select_prim=select_prim, window_dimensions=tuple(window_dimensions),
        window_strides=tuple(window_strides), padding=tuple(padding))


def _register_rules():
    from xjit._src.interpreters import ad, batching

    def sum_jvp(primals, tangents, **params):
        out = reduce_window_sum_p.bind(primals[0], **params)
        t = tangents[0]
        if type(t) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        return out, reduce_window_sum_p.bind(t, **params)

    def sum_transpose(ct, x, **params):
        ct = ad.instantiate_zeros(ct)
        return [_sum_transpose(ct, operand_shape=x.aval.shape, **params)]

    ad.jvp_rules[reduce_window_sum_p] = sum_jvp
    ad.transpose_rules[reduce_window_sum_p] = sum_transpose

    def monoid_batch(prim):
        def rule(args, dims, *, window_dimensions, window_strides, padding, base_dilation,
                 window_dilation):
            d = dims[0]

            def ins(t, v):
                return tuple(t[:d]) + (v,) + tuple(t[d:])
            return prim.bind(args[0], window_dimensions=ins(window_dimensions, 1),
                             window_strides=ins(window_strides, 1), padding=ins(padding, (0, 0)),
                             base_dilation=ins(base_dilation, 1),
                             window_dilation=ins(window_dilation, 1)), d
        return rule

    for p in (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p):
        batching.batch_rules[p] = monoid_batch(p)

    def chooser_jvp(prim, select_prim):
        def rule(primals, tangents, **params):
            out = prim.bind(primals[0], **params)
            return out, select_and_gather_add_p.bind(tangents[0], primals[0],
                                                     select_prim=select_prim, **params)
        return rule

    ad.jvp_rules[reduce_window_max_p] = chooser_jvp(reduce_window_max_p, ge_p)
    ad.jvp_rules[reduce_window_min_p] = chooser_jvp(reduce_window_min_p, le_p)

    def sga_jvp(primals, tangents, **params):
        out = select_and_gather_add_p.bind(*primals, **params)
        if type(tangents[0]) is ad.Zero:  # the operand only chooses: no tangent through it
            return out, ad.Zero.from_primal_value(out)
        return out, select_and_gather_add_p.bind(tangents[0], primals[1], **params)

    def sga_transpose(ct, t, x, *, select_prim, window_dimensions, window_strides, padding,
                      base_dilation, window_dilation):
        if any(d != 1 for d in window_dilation):
            raise NotImplementedError(f"VJP not implemented for select_and_gather (MaxPool) "
                                      f"with window dilation, got window_dilation="
                                      f"{window_dilation}.")
        if type(ct) is ad.Zero:
            return [ad.Zero(t.aval), None]
        dilated = any(d != 1 for d in base_dilation)
        if dilated:  # the holes of the dilated operand are never selected
            x = api.pad(x, _select_identity(select_prim, x.dtype),
                        tuple((0, 0, d - 1) for d in base_dilation))
        out = select_and_scatter_add(ct, x, select_prim, window_dimensions, window_strides,
                                     padding)
        if dilated:
            out = api.slice(out, (0,) * out.ndim, out.shape, base_dilation)
        return [out, None]

    def sas_jvp(primals, tangents, **params):
        out = select_and_scatter_add_p.bind(*primals, **params)
        if type(tangents[0]) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        return out, select_and_scatter_add_p.bind(tangents[0], primals[1], **params)

    def sas_transpose(ct, source, x, *, select_prim, window_dimensions, window_strides,
                      padding):
        if type(ct) is ad.Zero:
            return [ad.Zero(source.aval), None]
        ones = (1,) * len(window_dimensions)
        return [select_and_gather_add(ct, x, select_prim, window_dimensions, window_strides,
                                      padding, ones, ones), None]

    def front(args, dims):
        size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
        return [batching.bdim_at_front(a, d, size) for a, d in zip(args, dims)]

    def sga_batch(args, dims, *, select_prim, window_dimensions, window_strides, padding,
                  base_dilation, window_dilation):
        t, x = front(args, dims)
        return select_and_gather_add(t, x, select_prim, (1,) + window_dimensions,
                                     (1,) + window_strides, ((0, 0),) + padding,
                                     (1,) + base_dilation, (1,) + window_dilation), 0

    def sas_batch(args, dims, *, select_prim, window_dimensions, window_strides, padding):
        source, x = front(args, dims)
        return select_and_scatter_add(source, x, select_prim, (1,) + window_dimensions,
                                      (1,) + window_strides, ((0, 0),) + padding), 0

    ad.jvp_rules[select_and_gather_add_p] = sga_jvp
    ad.transpose_rules[select_and_gather_add_p] = sga_transpose
    batching.batch_rules[select_and_gather_add_p] = sga_batch
    ad.jvp_rules[select_and_scatter_add_p] = sas_jvp
    ad.transpose_rules[select_and_scatter_add_p] = sas_transpose
    batching.batch_rules[select_and_scatter_add_p] = sas_batch

    def generic_jvp(primals, tangents, *, jaxpr, consts, **params):
        """Reduce (primal, tangent) pairs with the JVP of the computation.
        The pairs cannot be split into a known primal part, so reverse mode
        fails, with JAX's error."""
        n = len(primals) // 2
        if any(type(t) is not ad.Zero for t in tangents[n:]):
            raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
        ts = [ad.instantiate_zeros(t) for t in tangents]

        def pair_jvp(left, right):
            outs, touts = ad.jvp_flat(lambda *a: core.eval_jaxpr(jaxpr.jaxpr, consts, *a),
                                      [*left[:n], *right[:n]], [*left[n:], *right[n:]])
            return [*outs, *(ad.instantiate_zeros(t) for t in touts)]
        outs = reduce_window([*primals[:n], *ts[:n]], [*primals[n:], *ts[n:]], pair_jvp,
                             **params)
        trace = core.trace_ctx.trace
        if isinstance(trace, ad.PETrace) and trace.is_unknown(outs[0]):
            raise ValueError("Linearization failed to produce known values for all output "
                             "primals. This is typically caused by attempting to differentiate "
                             "a function uses an operation that does not support reverse-mode "
                             "autodiff.")
        return outs[:n], outs[n:]

    def generic_batch(args, dims, *, jaxpr, consts, window_dimensions, window_strides, padding,
                      base_dilation, window_dilation):
        n = len(args) // 2
        if any(d is not None for d in dims[n:]):
            raise NotImplementedError("reduce_window batching is not implemented for initial "
                                      "values")
        ops = front(args[:n], dims[:n])
        outs = reduce_window_p.bind(*ops, *args[n:], jaxpr=jaxpr, consts=consts,
                                    window_dimensions=(1,) + window_dimensions,
                                    window_strides=(1,) + window_strides,
                                    padding=((0, 0),) + padding,
                                    base_dilation=(1,) + base_dilation,
                                    window_dilation=(1,) + window_dilation)
        return outs, [0] * n

    ad.jvp_rules[reduce_window_p] = generic_jvp
    batching.batch_rules[reduce_window_p] = generic_batch

    def reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
        """JVP of the halving tree reduction of the operands, with the
        reduced axes moved to the front and flattened into one."""
        n = len(primals) // 2
        if any(type(t) is not ad.Zero for t in tangents[n:]):
            raise NotImplementedError("Gradient of general lax.reduce with non-zero tangents for "
                                      "initial values to reduction not implemented")
        shape = primals[0].shape
        rest = tuple(d for d in range(len(shape)) if d not in dimensions)
        flat = (int(np.prod([shape[d] for d in dimensions], dtype=np.int64)),) + \
            tuple(shape[d] for d in rest)

        def front_flat(x):
            return api.reshape(x, flat, tuple(dimensions) + rest)

        def reducer(*xs):
            return core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs)
        outs, touts = ad.jvp_flat(
            lambda *xs: _reduce_tree(reducer, primals[n:], list(xs)),
            [front_flat(x) for x in primals[:n]],
            [front_flat(ad.instantiate_zeros(t)) for t in tangents[:n]])
        return outs, [ad.instantiate_zeros(t) for t in touts]

    def reduce_batch(args, dims, *, computation, jaxpr, dimensions):
        n = len(args) // 2
        if any(d is not None for d in dims[n:]):
            raise NotImplementedError("reduce batching is not implemented for initial values")
        outs = reduce_p.bind(*front(args[:n], dims[:n]), *args[n:], computation=computation,
                             jaxpr=jaxpr, dimensions=tuple(d + 1 for d in dimensions))
        return outs, [0] * n

    ad.jvp_rules[reduce_p] = reduce_jvp
    batching.batch_rules[reduce_p] = reduce_batch


def _reduce_tree(reducer, inits, xs):
    """Reduce axis 0 of ``xs`` by halving: combine the first half with the
    second (padded with the init value when odd) until one row is left."""
    while xs[0].shape[0] > 1:
        n = xs[0].shape[0]
        half = (n + 1) // 2
        first = [_rows(x, 0, half) for x in xs]
        second = [_rows(x, half, n) for x in xs]
        if n - half != half:
            cfg = [(0, 1, 0)] + [(0, 0, 0)] * (xs[0].ndim - 1)
            second = [api.pad(x, i, cfg) for x, i in zip(second, inits)]
        xs = reducer(*first, *second)
    if xs[0].shape[0] == 0:
        return [api.full(x.shape[1:], i, x.dtype) for x, i in zip(xs, inits)]
    return [api.squeeze(x, (0,)) for x in xs]


def _rows(x, start, limit):
    """``x[start:limit]``, strides spelled out as JAX's slice_in_dim does."""
    return api.slice(x, (start,) + (0,) * (x.ndim - 1), (limit,) + x.shape[1:], (1,) * x.ndim)


_register_rules()
