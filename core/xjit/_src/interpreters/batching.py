"""``vmap``: batching as an interpreter.

A ``BatchTracer`` carries a value one rank bigger than the value it stands
for, plus the position of the extra (batch) axis. ``BatchTrace`` processes a
primitive by asking its batching rule how to apply it to the batched values:

    batch_rules[prim](batched_args, batch_dims, **params) -> (out, out_dim)

``batch_dims[i]`` is the batch axis of ``batched_args[i]``, or ``not_mapped``
(None) for a value every example shares. Rules run with the *parent* trace
current, so the operations they bind are processed one level down (recorded
into a jaxpr under ``jit``, run eagerly at top level, batched again under an
outer ``vmap``). Multiple-results primitives return ``(outs, out_dims)``.
Rules that need the axis itself (its size or name) go in
``axis_batch_rules[prim](axis_data, batched_args, batch_dims, **params)``.

The module that defines a primitive registers its rule, usually through one
of the constructors here: ``defvectorized`` (unary elementwise: the batch axis
stays put), ``defbroadcasting`` (n-ary elementwise: operands broadcast
against each other) and ``defreducer`` (reductions over ``axes``).

Primitives with sub-jaxprs batch them recursively with ``batch_jaxpr2``
(batch axes wherever they fall, as the ``jit`` rule does) or ``batch_jaxpr``
(batch axes moved to the front, as control flow wants):

    batched, out_dims = batch_jaxpr2(closed_jaxpr, axis_data, in_dims)
    batched, out_batched = batch_jaxpr(closed_jaxpr, axis_data, in_batched, instantiate)
"""
from __future__ import annotations

import collections
import contextlib
import inspect
import operator
import threading

import numpy as np

from xjit._src import core, dtypes, traceback_util, tree_util, util
from xjit._src.core import Tracer
from xjit._src.interpreters import vmappable
from xjit._src.interpreters.vmappable import (  # noqa: F401  (JAX's names, in JAX's module)
    from_elt_handlers, is_vmappable, make_iota_handlers, register_vmappable, spec_types,
    to_elt_handlers, unregister_vmappable, vmappables)

not_mapped = None

batch_rules: dict = {}
axis_batch_rules: dict = {}


class AxisData:
    """The axis being vmapped over: its name (or None) and size.
    ``check_vma`` marks a mesh axis of a ``shard_map(check_vma=True)`` body,
    where JAX's collectives follow which axes a value varies over."""

    __slots__ = ("name", "size", "check_vma")

    def __init__(self, name, size, check_vma=False):
        self.name, self.size, self.check_vma = name, size, check_vma

    def __repr__(self):
        return f"AxisData(name={self.name!r}, size={self.size})"


class _AxisEnv(threading.local):
    """Named axes bound by the vmaps being traced (outermost first), so that
    collectives can find an axis's size and reject names no vmap binds. Each
    thread traces under its own vmaps."""

    def __init__(self):
        self.axes = []

    def __iter__(self):
        return iter(self.axes)

    def __reversed__(self):
        return reversed(self.axes)

    def __len__(self):
        return len(self.axes)


_axis_env = _AxisEnv()


def axis_data(name):
    """The innermost binding of the axis ``name``."""
    for a in reversed(_axis_env):
        if a.name == name:
            return a
    raise NameError(f"unbound axis name: {name}")


def axis_size(name):
    return axis_data(name).size


def axis_exists(name):
    return any(a.name == name for a in _axis_env)


@contextlib.contextmanager
def extend_axis_env(axes):
    """Bind named axes (``AxisData``) for the duration of a trace."""
    env = _axis_env.axes
    n = len(env)
    env.extend(axes)
    try:
        yield
    finally:
        del env[n:]


# prim -> params -> the axis names it communicates over. A collective runs
# its axis rule even on unbatched operands when it names the vmapped axis.
collective_axes: dict = {}


# --------------------------------------------------------------------------
# Tracer and trace


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim", "_aval", "_site")

    def __init__(self, trace, val, batch_dim, site=None):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim
        self._aval = None
        self._site = site

    @property
    def aval(self):
        a = self._aval
        if a is None:
            full = core.aval_of(self.val)
            shape = full.shape[:self.batch_dim] + full.shape[self.batch_dim + 1:]
            a = self._aval = full.update(shape=shape)
        return a

    def __repr__(self):
        return (f"VmapTracer(aval={self.aval.str_short(False)}, "
                f"batched={core.aval_of(self.val).str_short(False)})")

    __str__ = __repr__


def _creation_site():
    """The user frame creating a tracer, kept as (code, lasti, lineno) and
    formatted only if an error message needs it."""
    f = core.user_frame()
    return None if f is None else (f.f_code, f.f_lasti, f.f_lineno)


def _format_site(site):
    if site is None:
        return ""
    code, lasti, lineno = site
    col = 0
    try:
        pos = list(code.co_positions())[lasti // 2]
        if pos[2] is not None:
            col = pos[2]
    except (IndexError, AttributeError):
        pass
    return f"{code.co_filename}:{lineno}:{col} ({getattr(code, 'co_qualname', code.co_name)})"


class BatchTrace(core.Trace):
    """Traces over the same axis (one ``AxisData``) share their tracers, as
    JAX's batch traces sharing a tag do: a custom rule that closes over
    vmapped values runs batched in a subtrace that recognises them."""
    tracer_name = "BatchTracer"

    def __init__(self, parent, axis_data: AxisData):
        self.parent = parent
        self.axis_data = axis_data

    def __repr__(self):
        return f"BatchTrace({self.axis_data})"

    def fun_desc(self):
        return "a function transformed by vmap"

    def origin_message(self, tracer):
        return (f"This BatchTracer with object id {id(tracer)} was created on line:\n"
                f"  {_format_site(tracer._site)}")

    def new_tracer(self, val, dim):
        return BatchTracer(self, val, dim, _creation_site())

    def to_batch_info(self, x):
        if isinstance(x, BatchTracer) and x._trace.axis_data is self.axis_data:
            return x.val, x.batch_dim
        return x, not_mapped

    def process_primitive(self, primitive, args, params):
        vals, dims = [], []
        for x in args:
            if isinstance(x, BatchTracer) and x._trace.axis_data is self.axis_data:
                vals.append(x.val)
                dims.append(x.batch_dim)
            else:
                vals.append(x)
                dims.append(not_mapped)
        with core.set_current_trace(self.parent):
            if all(d is not_mapped for d in dims) and not self._names_me(primitive, params):
                return primitive.bind(*vals, **params)
            vals, dims = tuple(vals), tuple(dims)  # JAX's rules get tuples
            rule = axis_batch_rules.get(primitive)
            if rule is not None:
                out, out_dim = rule(self.axis_data, vals, dims, **params)
            else:
                rule = batch_rules.get(primitive)
                if rule is None:
                    raise NotImplementedError(
                        f"Batching rule for '{primitive.name}' not implemented")
                out, out_dim = rule(vals, dims, **params)
        if primitive.multiple_results:
            return [self._wrap(v, d) for v, d in zip(out, out_dim)]
        return self._wrap(out, out_dim)

    def _names_me(self, primitive, params):
        name = self.axis_data.name
        if name is None:
            return False
        names = collective_axes.get(primitive)
        if names is not None:
            return name in names(params)
        return _params_mention(params, name)

    def _wrap(self, val, dim):
        return val if dim is not_mapped else BatchTracer(self, val, dim, _creation_site())


def _params_mention(params, name):
    """Whether a sub-jaxpr among ``params`` (jit, scan, cond, ...) holds a
    collective over ``name``: then it must be batched even if no operand is."""
    for v in params.values():
        for j in (v if isinstance(v, (tuple, list)) else (v,)):
            jaxpr = getattr(j, "jaxpr", j)
            if isinstance(jaxpr, core.Jaxpr) and _jaxpr_mentions(jaxpr, name):
                return True
    return False


def _jaxpr_mentions(jaxpr, name):
    for eqn in jaxpr.eqns:
        names = collective_axes.get(eqn.primitive)
        if names is not None and name in names(eqn.params) or _params_mention(eqn.params, name):
            return True
    return False


# --------------------------------------------------------------------------
# Axis helpers (bind under whatever trace is current)


def _ndim(x):
    return len(core.aval_of(x).shape)


def canonicalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def moveaxis(x, src, dst):
    """Move axis ``src`` of ``x`` to position ``dst`` with one transpose."""
    if src == dst:
        return x
    n = _ndim(x)
    src, dst = src % n, dst % n
    perm = [i for i in range(n) if i != src]
    perm.insert(dst, src)
    return core.lax_ops.transpose(x, perm)


def broadcast(x, size, axis):
    """Insert a new axis of length ``size`` at ``axis``."""
    aval = core.aval_of(x)
    shape = list(aval.shape)
    shape.insert(axis, size)
    if aval.dtype == dtypes.float0:  # no data to broadcast: float0 zeros live on the host
        return np.zeros(shape, dtypes.float0)
    dims = tuple(np.delete(np.arange(len(shape)), axis))
    return core.lax_ops.broadcast_in_dim(x, shape, dims)


def bdim_at_front(x, bdim, size):
    """``x`` with its batch axis first, broadcasting an unbatched value."""
    if bdim is not_mapped:
        return broadcast(x, size, 0)
    return moveaxis(x, bdim, 0)


def _check_output(x):
    try:
        core.aval_of(x)
    except TypeError:
        raise TypeError(f"Output from batched function {x!r} with type {type(x)} is not a "
                        "valid JAX type") from None


def matchaxis(axis_data, src, dst, x):
    """Move (or create, by broadcasting) the batch axis from ``src`` to ``dst``."""
    _check_output(x)
    if src == dst:
        return x
    if src is not not_mapped and dst is not not_mapped:
        return moveaxis(x, src, dst)
    if src is not_mapped:
        return broadcast(x, axis_data.size, canonicalize_axis(dst, _ndim(x) + 1))
    raise ValueError(f"vmap has mapped output (axis_name={axis_data.name}) but out_axes is {dst}")


# --------------------------------------------------------------------------
# Rule constructors, for the modules that define primitives


def vectorized_batcher(prim):
    """Unary elementwise: apply as is; the batch axis stays where it is."""
    def rule(args, dims, **params):
        return prim.bind(*args, **params), dims[0]
    return rule


def defvectorized(prim):
    batch_rules[prim] = vectorized_batcher(prim)


def _expand_trailing(x, nd):
    """A batched operand with fewer dims than the others gets trailing unit
    axes, so that lax's size-1 broadcasting lines it up."""
    n = _ndim(x)
    return x if n == nd else core.lax_ops.expand_dims(x, tuple(range(n, nd)))


def broadcast_batcher(prim):
    """n-ary elementwise with lax broadcasting (equal ranks, size-1 dims or
    scalars). If all non-scalar operands agree on shape and batch axis, bind
    as is; otherwise move batch axes to the front (unbatched operands get a
    unit axis there) and let the primitive broadcast."""
    def rule(args, dims, **params):
        shape, dim = next((core.aval_of(x).shape, d) for x, d in zip(args, dims)
                          if d is not not_mapped)
        if all(core.aval_of(x).shape == shape and d == dim
               for x, d in zip(args, dims) if _ndim(x)):
            return prim.bind(*args, **params), dim
        args = [bdim_at_front(x, d, 1) if _ndim(x) else x for x, d in zip(args, dims)]
        nd = max(_ndim(x) for x in args)
        args = [x if d is not_mapped else _expand_trailing(x, nd) for x, d in zip(args, dims)]
        return prim.bind(*args, **params), 0
    return rule


def defbroadcasting(prim):
    batch_rules[prim] = broadcast_batcher(prim)


def reducer_batcher(prim):
    """A reduction over ``axes``: the axes shift past the batch axis, which
    stays in the output at its position among the kept axes. (The shifted
    axes are NumPy integers, as JAX's are: they print so.)"""
    def rule(args, dims, *, axes, **params):
        x, = args
        bdim = dims[0]
        axes = tuple(np.where(np.less(axes, bdim), axes, np.add(axes, 1)))
        out_dim = int(list(np.delete(np.arange(_ndim(x)), axes)).index(bdim))
        return prim.bind(x, axes=axes, **params), out_dim
    return rule


def defreducer(prim):
    batch_rules[prim] = reducer_batcher(prim)


# --------------------------------------------------------------------------
# Batching flat functions and jaxprs


def batch_flat(fun, axis_data, args, in_dims):
    """Apply flat ``fun(*args) -> list`` to ``args`` batched along ``in_dims``.
    Returns ``(outs, out_dims)``: raw values at the current trace's level."""
    trace = BatchTrace(core.trace_ctx.trace, axis_data)
    tracers = [x if d is not_mapped else trace.new_tracer(x, d) for x, d in zip(args, in_dims)]
    with core.set_current_trace(trace):
        outs = fun(*tracers)
    pairs = [trace.to_batch_info(x) for x in outs]
    return [v for v, _ in pairs], [d for _, d in pairs]


def _batched_avals(closed, axis_data, in_dims):
    avals = []
    for a, d in zip(closed.in_avals, in_dims):
        if d is not_mapped:
            avals.append(a)
        else:
            shape = list(a.shape)
            shape.insert(d, axis_data.size)
            avals.append(a.update(shape=shape))
    return avals


def _trace_closed(fun, avals, debug_info):
    from xjit._src.interpreters.partial_eval import close_jaxpr, trace_to_jaxpr
    jaxpr, consts = trace_to_jaxpr(fun, avals, debug_info)
    batched, tracer_consts = close_jaxpr(jaxpr, consts)
    if tracer_consts:
        raise NotImplementedError("batching a jaxpr that closes over traced values")
    return batched


def batch_jaxpr2(closed, axis_data, in_dims, arg_avals=None):
    """Batch a closed jaxpr whose inputs have batch axes ``in_dims``; the
    outputs keep whatever batch axes the rules gave them. ``arg_avals``: the
    batched arguments' types, whose explicit shardings the inputs take.
    Returns ``(batched_closed_jaxpr, out_dims)``."""
    in_dims = list(in_dims)
    out_dims = []

    def fun(*args):
        outs, dims = batch_flat(lambda *a: core.eval_jaxpr(closed.jaxpr, closed.consts, *a),
                                axis_data, args, in_dims)
        out_dims[:] = dims
        return outs

    avals = _batched_avals(closed, axis_data, in_dims)
    if arg_avals is not None and any(getattr(a, "typed", False) for a in arg_avals):
        avals = [b.update(sharding=a._sharding) if getattr(a, "_sharding", None) is not None
                 and a.shape == b.shape else b for a, b in zip(arg_avals, avals)]
    batched = _trace_closed(fun, avals, closed.jaxpr.debug_info)
    return batched, out_dims


def batch_jaxpr(closed, axis_data, in_batched, instantiate):
    """Batch a closed jaxpr with batch axes at the front of inputs and outputs.

    ``in_batched[i]`` says whether input i has a leading batch axis;
    ``instantiate`` (a bool, or one per output) forces unbatched outputs to be
    broadcast. Returns ``(batched_closed_jaxpr, out_batched)``."""
    n_out = len(closed.out_avals)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    in_dims = [0 if b else not_mapped for b in in_batched]
    out_batched = []

    def fun(*args):
        outs, dims = batch_flat(lambda *a: core.eval_jaxpr(closed.jaxpr, closed.consts, *a),
                                axis_data, args, in_dims)
        dests = [0 if d is not not_mapped or i else not_mapped for d, i in zip(dims, inst)]
        out_batched[:] = [d is not not_mapped for d in dests]
        return [v if d == dd else matchaxis(axis_data, d, dd, v)
                for v, d, dd in zip(outs, dims, dests)]

    batched = _trace_closed(fun, _batched_avals(closed, axis_data, in_dims),
                            closed.jaxpr.debug_info)
    return batched, out_batched


# --------------------------------------------------------------------------
# The user-facing transformation


class PytreeLeaf:
    """Stands for an array leaf when reporting an axis-spec structure error."""

    def __repr__(self):
        return "pytree leaf"


# JAX names this placeholder class in its messages; so do we.
PytreeLeaf.__module__ = "jax._src.api_util"

_NONE_AXIS = object()  # None is an empty pytree; as an axis spec it is a leaf
_IN_AXES_MSG = ("vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                "positional arguments passed to the function, but got ")


def flatten_axes(name, full_tree, axis_tree, is_leaf=None):
    """One axis spec per leaf of ``full_tree``; ``axis_tree`` is a prefix of
    it whose None entries mean "not mapped" for their whole subtree.
    ``is_leaf`` marks nodes of ``full_tree`` that count as one leaf (vmappables)."""
    if is_leaf is not None:  # stand-ins, so that a vmappable's own children don't count
        treedef = tree_util.tree_structure(full_tree, is_leaf)
        full_tree = tree_util.tree_unflatten(treedef, [PytreeLeaf()] * treedef.num_leaves)
    replaced = tree_util.tree_map(lambda a: _NONE_AXIS if a is None else a, axis_tree,
                                  is_leaf=lambda a: a is None)
    try:
        flat = tree_util.broadcast_prefix(replaced, full_tree)
    except ValueError:
        treedef = tree_util.tree_structure(full_tree)
        dummy = tree_util.tree_unflatten(treedef, [PytreeLeaf()] * treedef.num_leaves)
        errors = tree_util.prefix_errors(axis_tree, dummy)
        details = "\n  ".join(str(e(name)) for e in errors)
        raise ValueError(f"{name} specification must be a tree prefix of the corresponding "
                         f"value; \n  Mismatch details ({len(errors)} found):\n  {details}") from None
    return [None if a is _NONE_AXIS else a for a in flat]


def _axis_size_of(name, shape, axis):
    try:
        return shape[axis]
    except IndexError:
        raise ValueError(f"{name} was requested to map its argument along axis {axis}, which "
                         f"implies that its rank should be at least "
                         f"{axis + 1 if axis >= 0 else -axis}, but is only {len(shape)} "
                         f"(its shape is {shape})") from None


def _leaf_descriptions(fun, args, kwargs, is_leaf=None):
    """How JAX names each argument leaf in its inconsistent-sizes message."""
    names = None
    try:
        sig = inspect.signature(fun)
        sig.bind(*args, **kwargs)
        names = list(sig.parameters)
    except (TypeError, ValueError):
        pass
    out = []
    for i, a in enumerate(args):
        head = f"argument {names[i]}" if names is not None and i < len(names) else f"args[{i}]"
        for path, x in tree_util.tree_flatten_with_path(a, is_leaf)[0]:
            out.append((f"{head}{tree_util.keystr(path)}", x))
    for path, x in tree_util.tree_flatten_with_path(kwargs, is_leaf)[0]:
        out.append((f"kwargs{tree_util.keystr(path)}", x))
    return out


def _type_str(x):
    try:
        return core.aval_of(x).str_short(False)
    except TypeError:
        try:  # a vmappable with an array's shape and dtype (BCOO)
            return core.ShapedArray(tuple(x.shape), np.dtype(x.dtype)).str_short(False)
        except (AttributeError, TypeError):
            return "unknown"


def _leaf_axis_size(x, d, is_leaf):
    if d is None:
        return None
    if type(d) is not int or is_leaf is not None and is_leaf(x):
        try:  # a vmappable's size is checked by its handler, if it has no shape
            return np.shape(x)[d]
        except (IndexError, TypeError):
            return None
    return _axis_size_of("vmap", np.shape(x), d)


def mapped_axis_size(fun, args, kwargs, leaves, dims, axis_size, is_leaf=None):
    sizes = [_leaf_axis_size(x, d, is_leaf) for x, d in zip(leaves, dims)]
    distinct = {s for s in sizes if s is not None}
    if axis_size is not None:
        if distinct <= {axis_size}:
            return axis_size
    elif len(distinct) == 1:
        return distinct.pop()
    elif not distinct:
        if not leaves:
            raise ValueError("vmap wrapped function must be passed at least one argument "
                             "containing an array or axis_size must be specified, got empty "
                             f"*args={args} and **kwargs={kwargs}")
        raise ValueError("vmap must have at least one non-None value in in_axes or axis_size "
                         "must be specified")
    descs = _leaf_descriptions(fun, args, kwargs, is_leaf)
    lines = ["vmap got inconsistent sizes for array axes to be mapped:\n"]
    if axis_size is not None:
        lines.append(f"  * the `axis_size` argument was {axis_size};\n")
    counts = collections.Counter(s for s in sizes if s is not None).most_common()
    for k, (sz, ct) in enumerate(counts):
        i = sizes.index(sz)
        where = f"axis {dims[i]} of {descs[i][0]} of type {_type_str(leaves[i])}"
        if ct == 1:
            lines.append(f"  * one axis had size {sz}: {where};\n")
        else:
            lead = "most" if k == 0 else "some"
            lines.append(f"  * {lead} axes ({ct} of them) had size {sz}, e.g. {where};\n")
    raise ValueError("".join(lines)[:-2])


def _check_axis_spec(name, spec):
    leaves = tree_util.tree_leaves(spec)
    if not all(vmappable.is_spec(a) for a in leaves):
        raise TypeError(f"{name} must be an int, None, or (nested) container with those types "
                        f"as leaves, but got {spec}.")


_JAX_ARRAY_MSG = ("Triggering __jax_array__() during abstractification is no longer supported. "
                  "To avoid this error, either explicitly convert your object using "
                  "jax.numpy.array(), or register your object as a pytree.")


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """Vectorize ``fun`` over the axes ``in_axes`` of its arguments, putting
    the mapped axis of its outputs at ``out_axes``."""
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not (in_axes is None or type(in_axes) in (int, tuple, *spec_types)):
        raise TypeError(f"{_IN_AXES_MSG}{in_axes}.")
    _check_axis_spec("vmap in_axes", in_axes)
    _check_axis_spec("vmap out_axes", out_axes)

    @util.wraps(fun)
    @traceback_util.api_boundary
    def vmap_f(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(f"{_IN_AXES_MSG}len(in_axes)={len(in_axes)}, len(args)={len(args)}")
        is_leaf = vmappable.leaf_predicate()
        arg_leaves = tree_util.tree_leaves(args, is_leaf)
        kw_leaves = tree_util.tree_leaves(kwargs, is_leaf)
        leaves = arg_leaves + kw_leaves
        dims = flatten_axes("vmap in_axes", args, in_axes, is_leaf) + [0] * len(kw_leaves)
        for x, d in zip(leaves, dims):
            if d is None or is_leaf is not None and is_leaf(x):
                continue  # an unmapped leaf reaches ``fun`` as it is: any Python object
            try:
                core.aval_of(x)
            except TypeError:
                if getattr(x, "__jax_array__", None) is not None:
                    raise ValueError(_JAX_ARRAY_MSG) from None
                q = "" if isinstance(x, str) else "'"  # JAX quotes all but a str's type
                raise TypeError(f"Argument '{x}' of type {q}{type(x)}{q} is not a valid JAX "
                                "type") from None
        size = mapped_axis_size(fun, args, kwargs, leaves, dims, axis_size, is_leaf)
        # a vmappable's spec goes to its handler as given
        dims = [canonicalize_axis(d, np.ndim(x)) if type(d) is int
                and (is_leaf is None or not is_leaf(x)) else d for x, d in zip(leaves, dims)]
        axis_data = AxisData(axis_name, size)
        out_tree_box = []

        def flat_fun(*flat):
            a = tree_util.tree_unflatten(tree_util.tree_structure(args, is_leaf),
                                         flat[:len(arg_leaves)])
            k = tree_util.tree_unflatten(tree_util.tree_structure(kwargs, is_leaf),
                                         flat[len(arg_leaves):])
            out = fun(*a, **k)
            out_tree_box.append(out)
            # a vmappable the function registered while running counts as one output
            return tree_util.tree_leaves(out, vmappable.leaf_predicate())

        with extend_axis_env([axis_data] if axis_name is not None else []):
            results, out = _vmap_flat(flat_fun, out_tree_box, axis_data, leaves, dims, out_axes)
        return tree_util.tree_unflatten(
            tree_util.tree_structure(out, vmappable.leaf_predicate()), results)

    return vmap_f


def _vmap_flat(flat_fun, out_tree_box, axis_data, leaves, dims, out_axes):
    """Run ``flat_fun`` on the per-example views of ``leaves`` (mapped along
    ``dims``) and stack its outputs along ``out_axes``: arrays leaf by leaf,
    vmappables through their handlers. Returns the flat results and the
    function's output tree."""
    trace = BatchTrace(core.trace_ctx.trace, axis_data)
    get_idx = vmappable.index_getter(trace, axis_data.size)
    tracers = [vmappable.to_elt(trace, get_idx, x, d) for x, d in zip(leaves, dims)]
    with core.set_current_trace(trace):
        outs = flat_fun(*tracers)
    out = out_tree_box[0]
    is_leaf = vmappable.leaf_predicate()
    dests = flatten_axes("vmap out_axes", out, out_axes, is_leaf)
    paths = [p for p, _ in tree_util.tree_flatten_with_path(out, is_leaf)[0]]
    axis_name = axis_data.name

    def leaf(i, x, dd):
        v, d = trace.to_batch_info(x)
        _check_output(v)
        if dd is None and d is not None:
            if axis_name is not None:
                raise ValueError(f"vmap has mapped output (axis_name={axis_name}) but "
                                 "out_axes is None")
            raise ValueError(f"at vmap out_axes{tree_util.keystr(paths[i])}, got axis spec "
                             f"None but output was batched on axis {d}")
        if dd is not None:
            if type(dd) is not int:
                raise TypeError(f"vmap out_axes entry {dd!r} (of type {type(dd).__name__}) "
                                f"applies to an array output, which only an int axis maps")
            dd = canonicalize_axis(dd, _ndim(v) + (d is None))
        with core.set_current_trace(trace.parent):
            return matchaxis(axis_data, d, dd, v)

    results = [vmappable.from_elt(trace, axis_data.size, leaf, i, x, dd)
               for i, (x, dd) in enumerate(zip(outs, dests))]
    return results, out


