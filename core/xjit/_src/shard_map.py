"""``jax.shard_map`` on one device.

``shard_map(f, mesh=..., in_specs=..., out_specs=...)`` runs ``f`` once per
shard, with the mesh axes bound as named axes so collectives (``psum``,
``axis_index``, ``all_gather`` ...) see them. xjit has one device, so the
shards run as a batch: each manual mesh axis becomes one named ``vmap`` axis
of that axis' size, an input dimension partitioned over axes ``(a, b)`` is
split into ``(size_a, size_b, shard)`` with the mesh axes batched, and outputs
are put back together by their ``out_specs``. On a concrete mesh (whose axes
all have size 1 here) every shard is the whole array; on an ``AbstractMesh``
the shards are real slices, computed one batch at a time. ``pmap`` is built on
this, as in JAX.

On a concrete mesh of several devices whose axes are all manual, the body
instead runs on every device as one SPMD program (``shard_map_spmd``), its
collectives lowered to XLA's; the batched form remains for abstract meshes,
partly manual meshes, and the rules of that program under jvp and vmap.
"""
from __future__ import annotations

import functools
import math

from xjit._src import tree_util
from xjit._src.lax.sharding_constraint import with_sharding_constraint
from xjit._src.mesh import AbstractMesh, get_abstract_mesh
from xjit._src.sharding import Mesh, NamedSharding, PartitionSpec, place
from xjit._src.traceback_util import api_boundary


class InferFromArgs:
    """``in_specs=jax.sharding.Infer``: take the specs from the arguments'
    shardings (all manual axes must be Explicit)."""

    def __repr__(self):
        return "jax.sharding.Infer"

    def __reduce__(self):
        return (_get_infer, ())


def _get_infer():
    return Infer


Infer = InferFromArgs()


def _is_spec_leaf(x):
    return x is None or isinstance(x, PartitionSpec)


def _check_mesh(mesh, axis_names):
    context = get_abstract_mesh()
    if mesh is None:
        if context.empty:
            raise ValueError("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to "
                             "enter into a mesh context")
        mesh = context
    elif not context.empty and mesh.abstract_mesh != context:
        raise ValueError(f"The context mesh {context} should match the mesh passed to "
                         f"shard_map {mesh}")
    if not isinstance(mesh, (Mesh, AbstractMesh)):
        raise TypeError("shard_map requires a `jax.sharding.Mesh` or a "
                        "`jax.sharding.AbstractMesh` instance for its second argument, but got "
                        f"{mesh} of type {type(mesh)}.")
    if mesh.empty:
        raise ValueError(f"shard_map requires a non-empty mesh. Got {mesh}")
    if not isinstance(axis_names, (frozenset, set)):
        raise TypeError("`axis_names` argument of shard_map should be of type `frozenset` or "
                        f"`set`. Got type: {type(axis_names)}")
    axis_names = frozenset(axis_names) or frozenset(mesh.axis_names)
    if not axis_names <= frozenset(mesh.axis_names):
        raise ValueError(f"jax.shard_map requires axis_names={axis_names} to be a subset of "
                         f"mesh.axis_names={frozenset(mesh.axis_names)}")
    return mesh, axis_names


def _check_specs(specs, which, manual):
    """Every leaf of ``specs`` is a PartitionSpec (or None) naming manual axes only."""
    paths = tree_util.tree_flatten_with_path(specs, is_leaf=_is_spec_leaf)[0]
    for path, spec in paths:
        if spec is None:
            continue
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"shard_map {which}_specs argument must be a pytree of "
                            f"`jax.sharding.PartitionSpec` instances, but it contained {spec!r}")
        for name in spec._axis_names():
            if name not in manual:
                raise ValueError(
                    f"shard_map {which}_specs argument must refer to an axis marked as manual "
                    f"({manual}), but:\n\n  {which}_specs{tree_util.keystr(path)} refers to "
                    f"{name!r}\n\nCheck the {which}_specs values passed to shard_map.")


def _dim_axes(spec, ndim, manual, which):
    """For each dimension, the tuple of manual mesh axes it is split over."""
    if len(spec) > ndim:
        raise ValueError(
            f"shard_map was given an {which}_specs entry which is too long to be compatible "
            f"with the corresponding value:\n\n{which}_specs is {spec} which has length "
            f"{len(spec)}, but the value has rank {ndim} (and {ndim} < {len(spec)})\n\n"
            f"Entries in {which}_specs must be of length no greater than the number of axes "
            "in the corresponding value.")
    out = []
    for d in range(ndim):
        p = spec[d] if d < len(spec) else None
        axes = () if p is None or p is PartitionSpec.UNCONSTRAINED else \
            (p if isinstance(p, tuple) else (p,))
        out.append(tuple(a for a in axes if a in manual))
    return out


def _check_divisible(shape, spec, sizes, manual, fun_name):
    """The manual axes each dimension is split over, checked to divide it."""
    dims = _dim_axes(spec, len(shape), manual, "in")
    for d, axes in enumerate(dims):
        parts = math.prod(sizes[a] for a in axes)
        if shape[d] % parts:
            raise ValueError(
                f"shard_map applied to the function {fun_name!r} was given argument arrays "
                "with axis sizes that are not evenly divisible by the corresponding mesh "
                f"axis sizes:\n\nThe value of shape {tuple(shape)} with in_specs {spec} has "
                f"dimension {d} of size {shape[d]}, not divisible by the {parts} shards of "
                f"mesh axes {axes}.")
    return dims


def _check_explicit_specs(mesh, manual, leaves, specs):
    """Over a mesh whose axes are all manual here and Explicit, an argument's
    type says how it is laid out: ``in_specs`` must say the same (JAX's
    error, which names ``jax.reshard`` for a different layout)."""
    from xjit._src import core
    if manual != frozenset(mesh.axis_names) or not manual <= set(mesh.explicit_axes):
        return
    for x, spec in zip(leaves, specs):
        if spec is None:
            continue
        aval = core.aval_of(x)
        want = _padded(spec, aval.ndim)
        have = _padded(aval.sharding.spec, aval.ndim)
        if tuple(want) != tuple(have):
            raise ValueError(
                f"in_specs passed to shard_map: {want} does not match the specs of the input: "
                f"{have} for arg: {aval.str_short(False)}. `in_specs` is an optional argument "
                "so you can omit specifying it and shard_map will infer the in_specs from the "
                "arguments. If you want to reshard your inputs, you can use `jax.reshard` on "
                "the arguments and then pass those args to shard_map.")


def _padded(spec, ndim):
    parts = tuple(spec)
    return PartitionSpec(*parts, *(None,) * (ndim - len(parts)))


def _out_spec_leaves(out_specs, out, out_tree, manual):
    _check_specs(out_specs, "out", manual)
    try:
        return tree_util.broadcast_prefix(out_specs, out, is_leaf=_is_spec_leaf)
    except ValueError:
        raise ValueError(f"shard_map out_specs {out_specs} is not a tree prefix of the "
                         f"outputs' structure {out_tree}") from None


def _spmd(f, mesh, manual, leaves, in_tree, specs, out_specs, check_vma, fun_name):
    """shard_map over a mesh of several devices: one SPMD program."""
    from xjit._src import core, shard_map_spmd
    sizes = dict(mesh.shape_tuple)
    dynamic = [i for i, s in enumerate(specs) if s is not None]  # None: passed as it is
    avals = [core.aval_of(leaves[i]) for i in dynamic]
    for a, i in zip(avals, dynamic):
        _check_divisible(a.shape, specs[i], sizes, manual, fun_name)
    box = []

    def per_shard(*xs):
        full = list(leaves)
        for i, x in zip(dynamic, xs):
            full[i] = x
        out = f(*tree_util.tree_unflatten(in_tree, full))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        spec_leaves = [s or PartitionSpec()
                       for s in _out_spec_leaves(out_specs, out, out_tree, manual)]
        _check_out_ranks(out_specs, out_leaves, spec_leaves, out_tree, fun_name)
        if check_vma:
            out_leaves = _match_out_vma(mesh, out_leaves, spec_leaves, out_tree, fun_name)
        box.append((out_tree, spec_leaves))
        return out_leaves

    dyn_specs = [specs[i] for i in dynamic]
    closed, tracer_consts = shard_map_spmd.trace_body(per_shard, mesh, avals, dyn_specs,
                                                      check_vma, manual)
    out_tree, spec_leaves = box[-1]
    outs = shard_map_spmd.shard_map_p.bind(
        *tracer_consts, *(leaves[i] for i in dynamic), jaxpr=closed, mesh=mesh,
        in_specs=(PartitionSpec(),) * len(tracer_consts) + tuple(dyn_specs),
        out_specs=tuple(spec_leaves), newly_manual_axes=frozenset(manual), check_vma=check_vma)
    return tree_util.tree_unflatten(out_tree, outs)


def _check_out_ranks(out_specs, outs, specs, out_tree, fun_name):
    """JAX's error for an out_specs entry longer than its output's rank."""
    from xjit._src import core
    spec_paths = [p for p, _ in tree_util.tree_flatten_with_path(out_specs,
                                                                   is_leaf=_is_spec_leaf)[0]]
    out_paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(out_tree, [0] * len(outs)))[0]]
    msgs, scalar = [], False
    for path, y, spec in zip(out_paths, outs, specs):
        aval = core.aval_of(y)
        if len(spec) <= aval.ndim:
            continue
        scalar |= not aval.ndim
        key = next((p for p in spec_paths if tuple(path[:len(p)]) == tuple(p)), ())
        msgs.append(f"* out_specs{tree_util.keystr(key)} is {spec} which has length "
                    f"{len(spec)}, but {fun_name}(*args){tree_util.keystr(path)} has shape "
                    f"{aval.str_short(False)}, which has rank {aval.ndim} (and {aval.ndim} < "
                    f"{len(spec)})")
    if not msgs:
        return
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    msg = (f"shard_map applied to the function '{fun_name}' was given an out_specs entry "
           "which is too long to be compatible with the corresponding output value from the "
           "function:\n\n" + "\n\n".join(msgs) + "\n\nEntries in out_specs must be of length "
           "no greater than the number of axes in the corresponding output value.\n\nEither "
           f"revise the spec to be shorter, or modify '{fun_name}' so that its outputs have "
           "sufficient rank.")
    if scalar:
        msg += ("\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`, "
                "where `P = jax.sharding.PartitionSpec`. In particular, for rank 0 outputs "
                "which are not constant over the mesh, add at least one (singleton) axis to "
                "them so that they can be concatenated using out_specs.")
    raise ValueError(msg)


def _match_out_vma(mesh, outs, specs, out_tree, fun_name):
    """A check_vma body's outputs against their out_specs: pvary-ed over the
    axes a spec names that the value does not vary over (as JAX), and an
    error for one varying over an axis its spec leaves out (it would have to
    be replicated there)."""
    from xjit._src.lax import parallel_vma
    fixed, vmas = [], []
    for y, spec in zip(outs, specs):
        named = set(spec._axis_names())
        missing = named - parallel_vma.varying(y)
        if missing:
            y = parallel_vma.pvary(y, tuple(missing))
        fixed.append(y)
        vmas.append(parallel_vma.varying(y))
    _check_replication(mesh, specs, vmas, out_tree, fun_name)
    return fixed


def _shard_input(x, spec, sizes, order, manual, fun_name):
    """``x`` with its partitioned dimensions split and the mesh axes moved to the
    front in ``order``; returns the array and the axes it carries."""
    from xjit._src.numpy import shape_ops as jnp  # asarray, reshape, transpose
    from xjit._src.reshard import untyped  # split as the mesh splits it, not as its type
    x = untyped(jnp.asarray(x))
    dims = _check_divisible(x.shape, spec, sizes, manual, fun_name)
    shape, labels = [], []
    for d, axes in enumerate(dims):
        parts = math.prod(sizes[a] for a in axes)
        shape += [sizes[a] for a in axes] + [x.shape[d] // parts]
        labels += list(axes) + [("dim", d)]
    carried = [a for a in order if a in labels]
    if not carried:
        return x, ()
    x = jnp.reshape(x, shape)
    perm = [labels.index(a) for a in carried] + \
        [i for i, lab in enumerate(labels) if isinstance(lab, tuple)]
    return jnp.transpose(x, perm), tuple(carried)


def _unshard_output(y, spec, sizes, order, manual):
    """The global value of an output whose leading axes are the mesh axes in
    ``order`` (one per manual axis), by its ``out_specs`` entry."""
    from xjit._src.numpy import shape_ops as jnp  # asarray, reshape, transpose
    from xjit._src.reshard import untyped
    y = untyped(y)
    ndim = y.ndim - len(order)
    dims = _dim_axes(spec, ndim, manual, "out")
    mentioned = {a for axes in dims for a in axes}
    replicated = [a for a in order if a not in mentioned]
    perm = [order.index(a) for a in replicated]
    final_shape = []
    for d, axes in enumerate(dims):
        perm += [order.index(a) for a in axes] + [len(order) + d]
        n = 1
        for a in axes:
            n *= sizes[a]
        final_shape.append(n * y.shape[len(order) + d])
    y = jnp.transpose(y, perm)
    if replicated:  # identical across those axes (as check_vma would ensure): take one
        y = y[(0,) * len(replicated)]
    return jnp.reshape(y, final_shape)


def _shard_map(f, mesh, in_specs, out_specs, axis_names, check_vma, emulate=False):
    if not callable(f):
        raise TypeError("shard_map requires a callable for its first argument, "
                        f"but got {f} of type {type(f)}.")

    @functools.wraps(f)
    @api_boundary
    def wrapped(*args):
        from xjit._src.interpreters.batching import vmap
        m, manual = _check_mesh(mesh, axis_names)
        sizes = dict(m.shape_tuple)
        order = [a for a in m.axis_names if a in manual]
        leaves, in_tree = tree_util.tree_flatten(args)
        if in_specs is Infer:
            specs = [_inferred_spec(x, manual, sizes) for x in leaves]
        else:
            _check_specs(in_specs, "in", manual)
            try:
                specs = tree_util.broadcast_prefix(in_specs, args, is_leaf=_is_spec_leaf)
            except ValueError:
                raise ValueError(f"shard_map in_specs {in_specs} is not a tree prefix of the "
                                 f"arguments' structure {in_tree}") from None
        fun_name = getattr(f, "__name__", repr(f))
        if not emulate and in_specs is not Infer:
            _check_explicit_specs(m, manual, leaves, specs)
        eager_mesh = None if emulate else _eager_mesh(m, manual, specs)
        if eager_mesh is not None:
            return _eager(f, eager_mesh, leaves, in_tree, specs, out_specs, check_vma, fun_name)
        if not emulate:
            return _spmd(f, m, manual, leaves, in_tree, specs, out_specs, check_vma, fun_name)
        dynamic = [i for i, s in enumerate(specs) if s is not None]
        shards, carried = [], []
        for i in dynamic:
            x, axes = _shard_input(leaves[i], specs[i], sizes, order, manual, fun_name)
            shards.append(x)
            carried.append(axes)
        out_tree_box = []

        def per_shard(*dyn):
            full = list(leaves)
            for i, v in zip(dynamic, dyn):
                full[i] = v
            out = f(*tree_util.tree_unflatten(in_tree, full))
            out_leaves, out_tree = tree_util.tree_flatten(out)
            out_tree_box.append((out, out_tree))
            return out_leaves

        body = per_shard
        for level in reversed(range(len(order))):
            name = order[level]
            in_axes = tuple(0 if name in axes else None for axes in carried)
            body = vmap(body, in_axes=in_axes, out_axes=0, axis_name=name,
                        axis_size=sizes[name])
        out_leaves = body(*shards)
        out, out_tree = out_tree_box[-1]
        out_spec_leaves = _out_spec_leaves(out_specs, out, out_tree, manual)
        results = []
        for y, s in zip(out_leaves, out_spec_leaves):
            y = _unshard_output(y, s or PartitionSpec(), sizes, order, manual)
            if isinstance(m, Mesh) and m.size > 1 and not emulate:  # laid out by out_specs
                y = with_sharding_constraint(y, NamedSharding(m, s or PartitionSpec()))
            results.append(y)
        return tree_util.tree_unflatten(out_tree, results)

    return wrapped


def _devices(mesh):
    """The concrete mesh a shard_map over ``mesh`` runs on: itself, or for
    the abstract mesh ``set_mesh`` put in context, the concrete one there."""
    from xjit._src.shard_map_spmd import _concrete
    return _concrete(mesh)


def _eager_mesh(mesh, manual, specs):
    """The concrete mesh an eager shard_map runs its body on one primitive at
    a time (``shard_map_eager``): outside any trace, over all axes of a
    concrete mesh (given, or the one ``set_mesh`` put in context)."""
    from xjit._src import core, mesh as mesh_lib
    if core.trace_ctx.trace is not core.eval_trace or any(s is None for s in specs):
        return None
    if not isinstance(mesh, Mesh):
        context = mesh_lib.get_concrete_mesh()
        if context is None or context.abstract_mesh != mesh:
            return None
        mesh = context
    return mesh if manual == frozenset(mesh.axis_names) else None


def _eager(f, mesh, leaves, in_tree, specs, out_specs, check_vma, fun_name):
    from xjit._src import shard_map_eager
    sizes, order = dict(mesh.shape_tuple), list(mesh.axis_names)
    manual = frozenset(order)

    def shard_input(x, spec):
        return _shard_input(x, spec, sizes, order, manual, fun_name)

    outs, out_tree, out = shard_map_eager.run(f, mesh, leaves, in_tree, specs, check_vma,
                                              shard_input)
    spec_leaves = _out_spec_leaves(out_specs, out, out_tree, manual)
    if check_vma:
        _check_replication(mesh, spec_leaves, [vma for _, vma in outs], out_tree)
    results = []
    for (y, _), spec in zip(outs, spec_leaves):
        y = _unshard_output(y, spec or PartitionSpec(), sizes, order, manual)
        results.append(place(y, NamedSharding(mesh, spec or PartitionSpec())))
    return tree_util.tree_unflatten(out_tree, results)


def _check_replication(mesh, specs, vmas, out_tree, fun_name="_rem_singleton"):
    """JAX's error for outputs whose ``out_specs`` leave out a mesh axis the
    value may vary over (it would have to be replicated there)."""
    paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(out_tree, [0] * len(vmas)))[0]]
    msgs = []
    for path, spec, vma in zip(paths, specs, vmas):
        spec = spec or PartitionSpec()
        mentioned = set(spec._axis_names())
        unmentioned = [n for n in mesh.axis_names if n not in mentioned]
        if vma is None or not vma - mentioned:
            continue
        where = f"out_specs{tree_util.keystr(path)} is {spec} which implies that the " \
            "corresponding output value is"
        if len(unmentioned) > 1:
            need = ",".join(n for n in mesh.axis_names if n in mentioned)
            diff = ",".join(n for n in unmentioned if n in vma)
            got = ",".join(n for n in mesh.axis_names if n in vma)
            msgs.append(f"* {where} only varying across mesh axes {{{need}}} and not "
                        f"{{{diff}}}, but it was inferred to be possibly varying over {{{got}}}")
        else:
            msgs.append(f"* {where} replicated across mesh axis '{unmentioned[0]}', but could "
                        "not infer replication over any axes")
    if not msgs:
        return
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    # JAX's eager shard_map finds this in the inner shard_map that reassembles
    # the outputs, so its message names that helper rather than the body.
    raise ValueError(
        f"shard_map applied to the function '{fun_name}' was given out_specs which require "
        "replication which can't be statically inferred given the mesh:\n\nThe mesh given has "
        f"shape {tuple(mesh.axis_sizes)} with corresponding axis names {mesh.axis_names}.\n\n"
        + "\n\n".join(msgs) + "\n\nCheck if these output values are meant to be replicated "
        "over those mesh axes. If not, consider revising the corresponding out_specs entries. "
        "If so, consider disabling the check by passing the check_vma=False argument to "
        "`jax.shard_map`.")


def _inferred_spec(x, manual, sizes):
    """The in_spec of ``x`` read from its sharding: a concrete array's, or for
    an argument of the jit over many devices being traced, that argument's
    (xjit's avals carry no sharding, so a traced value elsewhere fails unless
    every manual axis has size 1, rather than guess it replicated)."""
    from xjit._src import pxla
    from xjit._src.core import Tracer
    if isinstance(x, Tracer):
        try:
            sharding = pxla.traced_arg_sharding(x)
        except LookupError:
            if any(sizes[a] > 1 for a in manual):
                raise NotImplementedError(
                    "shard_map with in_specs=jax.sharding.Infer (the default) cannot read the "
                    "sharding of this traced value in xjit (only of the arguments of the jit "
                    "being traced); pass in_specs explicitly") from None
            return PartitionSpec()
    else:
        sharding = getattr(x, "sharding", None)
    if isinstance(sharding, NamedSharding):
        return PartitionSpec(*[
            tuple(a for a in (p if isinstance(p, tuple) else (p,)) if a in manual) or None
            if p is not None else None for p in sharding.spec])
    return PartitionSpec()


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """Map ``f`` over the shards of its inputs on ``mesh`` (one device: see the
    module docstring). Used as ``shard_map(f, ...)`` or as a decorator
    ``@shard_map(out_specs=...)``."""
    if f is None:
        return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                 axis_names=axis_names, check_vma=check_vma)
    return _shard_map(f, mesh, in_specs, out_specs, axis_names, check_vma)
