"""``jit`` over a mesh: one SPMD program partitioned by XLA.

A jitted call whose arguments are laid out on a mesh (or whose
``in_shardings``/``out_shardings`` name a mesh) is lowered once per
signature and sharding to a module with ``num_partitions`` = the mesh's
size, a Shardy mesh (``sdy.mesh``) and ``sdy.sharding`` attributes on the
arguments (and on the results ``out_shardings`` fixes), as JAX 0.10.2 emits.
XLA's partitioner (Shardy) propagates the shardings through the program and
inserts the collectives; the compiled output shardings are read back as
``NamedSharding``s over the mesh. The one-device dispatch path in ``pjit``
branches here only when it sees such an argument or option, or a mesh that
``set_mesh`` put in context (whose results JAX lays out on it, replicated).
A mesh of one device takes this path too: JAX keeps its arrays' shardings
and types as on any mesh.
"""
from __future__ import annotations

import time
import weakref

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as xc

from xjit._src import compiler, core, dispatch, errors, mesh as mesh_lib, monitoring, tree_util
from xjit._src.array import ArrayImpl
from xjit._src.config import config
from xjit._src.mesh import AbstractMesh
from xjit._src.sharded_array import (
    ShardedArrayImpl, _regroup, concrete_mesh, place_sharded, typed_aval)
from xjit._src.sharding import NamedSharding, PartitionSpec, Sharding, spec_from_hlo
from xjit._src.sharding_in_types import parts


_flags = config._values


def sdy_axes(axes) -> str:
    return "{" + ", ".join(f'"{a}"' for a in axes) + "}"


def sdy_sharding(sharding: NamedSharding, ndim: int, open_dims: bool = False) -> str:
    """``#sdy.sharding<@mesh, [{"x"}, {}]>``: the axes each dimension is split
    over; with ``open_dims`` each dimension is open to further (Auto) axes
    XLA may add: ``[{"x", ?}, {?}]``."""
    dims = []
    for d in range(ndim):
        p = sharding.spec.partitions[d] if d < len(sharding.spec) else None
        if p is PartitionSpec.UNCONSTRAINED:
            dims.append("{?}")
            continue
        axes = sdy_axes(() if p is None else p if isinstance(p, tuple) else (p,))
        if open_dims:
            axes = "{?}" if axes == "{}" else axes[:-1] + ", ?}"
        dims.append(axes)
    return f"#sdy.sharding<@mesh, [{', '.join(dims)}]>"


class SpmdModule:
    """What ``mlir.lower_module`` adds for a program over ``mesh``: the
    partition count, the mesh declaration and the sharding attributes."""

    def __init__(self, mesh, in_shardings, in_avals, out_shardings, out_avals):
        self.mesh = mesh
        self.num_partitions = mesh.size
        axes = ", ".join(f'"{n}"={s}' for n, s in mesh.shape_tuple)
        listed = ", ".join(f'{{name = "{n}", size = {s} : i64}}' for n, s in mesh.shape_tuple)
        self.mesh_decl = (f"  sdy.mesh @mesh = <[{axes}]> "
                          f"{{stablehlo.mesh = {{axes = [{listed}]}}}}\n")
        # a key array's trailing dimensions (its key data) are not split
        self._in = [None if s is None else sdy_sharding(s, len(_physical(a).shape))
                    for s, a in zip(in_shardings, in_avals)]
        self._out = [None if s is None else sdy_sharding(s, len(_physical(a).shape))
                     for s, a in zip(out_shardings, out_avals)]

    def type_constraint(self, aval):
        """The ``sdy.sharding`` an explicitly sharded type names, over this
        program's mesh (None for an unsharded extended type)."""
        s = _on(self.mesh, type_layout(self.mesh, aval))
        # on a mesh with Auto axes the type fixes only its Explicit axes: XLA
        # is free to split each dimension further, as JAX lowers it
        return sdy_sharding(s, len(_physical(aval).shape),
                            open_dims=not aval._sharding.mesh.are_all_axes_explicit)

    def arg_attr(self, i, attr):
        s = self._in[i]
        if s is None:
            return attr
        if attr:  # " {tf.aliasing_output = 0 : i32}"
            return f"{attr[:-1]}, sdy.sharding = {s}}}"
        return f" {{sdy.sharding = {s}}}"

    def result_attr(self, j):
        s = self._out[j]
        return "" if s is None else f", sdy.sharding = {s}"


class SpmdExecutable:
    """A compiled SPMD program: its input shardings (arguments are laid out
    by them before each call), and one result handler per output."""

    def __init__(self, exe, mesh, in_shardings, in_avals, out_avals, text, given_out, kept):
        """``kept``: per output, the sharding it keeps when XLA lays it out
        so (JAX recovers the user's sharding: the first argument's, for an
        output of its rank computed from an array on the mesh; on a mesh of
        one device, where every layout is the same, it keeps the spec)."""
        self.exe, self.mesh, self.in_shardings, self.text = exe, mesh, in_shardings, text
        self.in_avals, self.out_avals = in_avals, out_avals
        self.out_shardings = []
        ops = exe.get_output_shardings()  # None from a program of one device
        for op, aval, given, keep in zip(ops or [None] * len(out_avals), out_avals, given_out,
                                         kept):
            if given is not None:  # out_shardings fixed it: as the caller named it
                self.out_shardings.append(given)
                continue
            hlo = xc.HloSharding.replicate() if op is None else xc.HloSharding.from_proto(op)
            # a key array's sharding covers its key data's dimensions too (never split)
            ndim = len(_physical(aval).shape)
            if keep is not None and keep._to_xla_hlo_sharding(ndim) == hlo:
                self.out_shardings.append(keep)
                continue
            spec = spec_from_hlo(mesh, hlo, ndim)
            if spec is None:
                raise NotImplementedError(f"xjit cannot name the output sharding {hlo} as a "
                                          f"PartitionSpec over {mesh}")
            self.out_shardings.append(intern(NamedSharding(mesh, spec)))
        # the arrays' types: from the shardings they come back with (interned, so a
        # later call's signature matches them by identity: see SpmdEntry.signature)
        self.out_avals = [dispatch.intern_aval(typed_aval(a, s))
                          for a, s in zip(out_avals, self.out_shardings)]
        self.handlers = [_jax.array_result_handler(_physical(a), s, True, _skip_checks=True)
                         for a, s in zip(out_avals, self.out_shardings)]

    def run(self, leaves):
        bufs = []
        for x, s, a in zip(leaves, self.in_shardings, self.in_avals):
            # an output of an earlier step carries the very sharding object (interned)
            bufs.append(x._buf if type(x) is ShardedArrayImpl and x._buf._sharding is s
                        else _laid_out(x, s, a))
        try:
            return self.run_laid_out(bufs)
        except _jax.JaxRuntimeError as e:  # a deleted argument: JAX's error for it
            raise dispatch._runtime_error(e, leaves) from None

    def run_laid_out(self, bufs):
        """Execute on buffers already laid out as the program takes them."""
        outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        return [ShardedArrayImpl(b, a) for b, a in zip(outs, self.out_avals)]


def _physical(aval):
    return aval.dtype.physical_aval(aval) if getattr(aval.dtype, "extended", False) else aval


_interned: dict = {}


def intern(sharding):
    """One object per distinct sharding that jit takes or gives, so an output
    fed back as the next step's argument matches its input sharding by
    identity (no ``__eq__`` on the per-call path)."""
    if len(_interned) > 4096:
        _interned.clear()
    return _interned.setdefault(sharding, sharding)


def _laid_out(x, sharding, aval):
    """The device buffer of argument ``x`` laid out by ``sharding``."""
    if type(x) is ShardedArrayImpl:
        own = x._buf._sharding
        if own is sharding or own == sharding:
            return x._buf
    if not isinstance(x, ArrayImpl):
        x = dispatch.host_value(x, aval.dtype)
    return place_sharded(x, sharding)._buf


def _meshes_of(*trees):
    for t in trees:
        for s in tree_util.tree_leaves(t, is_leaf=lambda v: isinstance(v, Sharding)):
            if isinstance(s, NamedSharding) and s._is_concrete:
                yield s.mesh


def _check_devices(mesh, other, what):
    if tuple(mesh.devices.flat) != tuple(other.devices.flat):
        raise ValueError(
            "Received incompatible devices for jitted computation. Got "
            f"{what} with device ids {[d.id for d in other.devices.flat]} and another "
            f"sharding with device ids {[d.id for d in mesh.devices.flat]}")


def _flat_shardings(spec_tree, tree_of, n, what):
    """One sharding (or None) per leaf of ``tree_of`` from a prefix tree."""
    if spec_tree is None:
        return [None] * n
    if isinstance(spec_tree, (Sharding, PartitionSpec)):
        return [_spec_on_context(spec_tree, what)] * n
    flat = tree_util.broadcast_prefix(
        spec_tree, tree_of, is_leaf=lambda v: v is None or isinstance(v, (Sharding, PartitionSpec)))
    return [_spec_on_context(s, what) for s in flat]


def _spec_on_context(s, what):
    """A bare PartitionSpec names axes of the mesh ``set_mesh`` put in context."""
    if not isinstance(s, PartitionSpec):
        return s
    mesh = mesh_lib.get_concrete_mesh()
    if mesh is None or mesh.empty:
        raise ValueError(f"{what} given as a bare PartitionSpec needs a mesh in context; pass "
                         "a NamedSharding")
    return NamedSharding(mesh, s)


def needs_spmd(jf, leaves) -> bool:
    """Whether this call runs over a mesh."""
    if getattr(jf, "_shardings", None) is not None or mesh_lib._context.concrete is not None:
        return True
    for x in leaves:
        if type(x) is ShardedArrayImpl:
            return True
    return False


_jaxpr_meshes: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _find_mesh(jaxpr):
    for eqn in jaxpr.eqns:
        mesh = eqn.params.get("mesh")
        if mesh is not None and not isinstance(mesh, AbstractMesh):
            return mesh
        sharding = eqn.params.get("sharding")
        if isinstance(sharding, NamedSharding) and sharding._is_concrete:
            return sharding.mesh
        for v in eqn.params.values():
            inner = v.jaxpr if isinstance(v, core.ClosedJaxpr) else v
            if isinstance(inner, core.Jaxpr):
                mesh = _find_mesh(inner)
                if mesh is not None:
                    return mesh
    return None


def jaxpr_mesh(closed):
    """The (concrete) mesh a traced program's ``shard_map`` or
    sharding constraint names, or None (looked up once per jaxpr)."""
    try:
        return _jaxpr_meshes[closed]
    except KeyError:
        mesh = _jaxpr_meshes[closed] = _find_mesh(closed.jaxpr)
        return mesh


def call(jf, key, dyn, dkw, static_key, leaves, treedef, avals, mesh=None):
    """Run the jitted ``jf`` over a mesh and return the output tree, or
    return None when no sharding involved names a mesh. ``mesh``: the
    mesh a shard_map in the program runs on."""
    arg_shardings = tuple(x._buf._sharding if type(x) is ShardedArrayImpl else None
                          for x in leaves)
    fast = jf.__dict__.setdefault("_spmd_calls", {})
    fast_key = (key, arg_shardings, mesh, mesh_lib._context.concrete)
    hit = fast.get(fast_key)
    if hit is None:
        plan = _plan(jf, key, dyn, dkw, static_key, leaves, treedef, avals, mesh)
        if plan is None:
            return None
        entry, mesh, ins, outs, kept = plan
        cache = jf.__dict__.setdefault("_spmd_executables", {})
        exe_key = (key, tuple(ins), tuple(outs), kept)
        exe = cache.get(exe_key)
        if exe is None:
            exe = cache[exe_key] = compile_spmd(jf._name, entry.closed, entry.donated, mesh,
                                                ins, outs, kept)
            observer = monitoring.jit_observer
            if observer is not None and jf._fid:  # inspect's lower and compile events
                observer.compiled(jf._fid, _Compiled(entry.closed, exe))
        hit = fast[fast_key] = (entry, exe, SpmdEntry(entry, exe))
    entry, exe, spmd_entry = hit  # this signature and these arguments' shardings ran before
    if not dkw and _fast_path_ok(leaves, exe):
        jf.remember_tree(dyn, static_key, spmd_entry.signature(leaves), spmd_entry)
    observer = monitoring.jit_observer if jf._fid else None
    if observer is None:
        outs = exe.run(leaves)
    else:  # inspect counts and times the calls
        t0 = time.perf_counter()
        outs = exe.run(leaves)
        observer.executed(jf._fid, jf._name, time.perf_counter() - t0)
    if _flags["jax_debug_nans"] or _flags["jax_debug_infs"]:
        _check_nans(jf, entry, outs, leaves, dyn, dkw, static_key)
    return tree_util.tree_unflatten(entry.out_tree, outs)


class SpmdEntry:
    """What ``PjitFunction.__call__``'s fast path reads of a compiled
    signature (pjit's TraceEntry's fields), for a call whose arguments are
    already laid out as the program takes them: their buffers go to
    jaxlib as they are, and the outputs come back as sharded arrays."""

    array_type = ShardedArrayImpl
    float0 = None

    def __init__(self, entry, exe):
        self.out_tree, self.single_out = entry.out_tree, entry.single_out
        self.donated = entry.donated
        self.execute, self.handlers = exe.exe.execute_sharded, exe.handlers
        self.out_avals, self.in_shardings = exe.out_avals, exe.in_shardings
        self._exe = exe

    def signature(self, leaves):
        """Each argument's aval and then its sharding: the program's own
        (interned) object, which the outputs of an earlier step carry too."""
        sig = []
        for x, s in zip(leaves, self.in_shardings):
            sig.append(dispatch.intern_aval(x.aval))
            sig.append(s)
        return sig

    def run(self, bufs, describe=None):
        """As TraceEntry.run (the calls inspect times): the arguments are laid
        out already, so there is no device to choose (``describe``)."""
        return self._exe.run_laid_out(bufs)


def _fast_path_ok(leaves, exe) -> bool:
    """Whether later calls with arguments like ``leaves`` may skip the
    layout step: every one is a sharded array laid out as the program
    takes it, and no flag checks each call."""
    if any(_flags[f] for f in dispatch.CHECKED_FLAGS) or len(leaves) != len(exe.in_shardings):
        return False
    for x, s in zip(leaves, exe.in_shardings):
        if type(x) is not ShardedArrayImpl:
            return False
        own = x._buf._sharding
        if own is not s and own != s:
            return False
    return True


class _Compiled:
    """What inspect reads of a compiled signature (pjit's TraceEntry's
    fields): the program, its executable and the lower and compile times."""

    def __init__(self, closed, exe):
        self.closed, self.executable = closed, exe
        self.lower_s, self.compile_s = exe.lower_s, exe.compile_s


def _check_nans(jf, entry, outs, leaves, dyn, dkw, static_key):
    """``jax_debug_nans``/``jax_debug_infs``: a NaN among the outputs replays
    the function op by op, which raises at the user's line that made it."""
    from xjit._src.inspect import nans
    if not nans.check_jit_outputs(jf._name, outs):
        return
    if static_key:  # the static arguments are folded in: replay the traced program
        closed = entry.closed
        nans.replay_deoptimized(lambda *a: core.eval_jaxpr(closed.jaxpr, closed.consts, *a),
                                tuple(leaves), {})
    else:
        nans.replay_deoptimized(jf._fun, tuple(dyn), dkw)
    raise FloatingPointError(
        f"invalid value encountered in the output of jit({jf._name}). The de-optimized "
        "function (i.e., the function as if the `jit` decorator were removed) did not produce "
        "invalid values during its execution.")


def _plan(jf, key, dyn, dkw, static_key, leaves, treedef, avals, mesh):
    """(trace entry, mesh, input shardings, fixed output shardings, kept output
    shardings (see SpmdExecutable)) of a call, or None when it involves no
    mesh (nor one ``set_mesh`` put in context)."""
    arg_shardings = [x.sharding if type(x) is ShardedArrayImpl else None for x in leaves]
    in_spec, out_spec = getattr(jf, "_shardings", None) or (None, None)
    n_pos = len(tree_util.tree_leaves(tuple(dyn)))  # in_shardings covers positional args
    in_flat = _flat_shardings(in_spec, tuple(dyn), n_pos, "in_shardings") + \
        [None] * (len(leaves) - n_pos)
    for g, own, aval in zip(in_flat, arg_shardings, avals):
        if g is not None and own is not None and isinstance(g, NamedSharding) and \
                g._to_xla_hlo_sharding(aval.ndim) != own._to_xla_hlo_sharding(aval.ndim):
            raise ValueError("Sharding passed to jit does not match the sharding on the "
                             f"respective arg. Got jit sharding: {g},\narg sharding: {own} "
                             f"for arg type: {aval!r}")
    staging = _Staging([g if g is not None else own for g, own in zip(in_flat, arg_shardings)])
    _staging.append(staging)
    try:
        entry, tracer_consts, ref_consts = jf._entry(key, dyn, dkw, static_key, leaves,
                                                     treedef, avals)
    finally:
        _staging.pop()
    if staging.read:  # the program depends on these shardings: traced again for others
        jf._cache.pop(key, None)
    out_avals = entry.closed.out_avals
    out_tree_proto = tree_util.tree_unflatten(entry.out_tree, list(range(len(out_avals))))
    out_flat = _flat_shardings(out_spec, out_tree_proto, len(out_avals), "out_shardings")
    if mesh is None and entry.executable is None:
        mesh = jaxpr_mesh(entry.closed)
    meshes = ([] if mesh is None else [mesh]) + list(_meshes_of(in_flat, out_flat,
                                                                 arg_shardings))
    context = mesh_lib.get_concrete_mesh()  # set_mesh: results laid out on it, replicated
    if not meshes and context is not None and not context.empty:
        if tracer_consts or ref_consts:  # the one-device path runs it, as before set_mesh
            return None
        meshes.append(context)
    if not meshes:
        return None
    if tracer_consts or ref_consts:
        raise NotImplementedError("xjit's jit over many devices takes no closed-over refs")
    mesh = meshes[0]  # the program's mesh; the others name its axes differently
    for m in set(meshes[1:]):
        _check_devices(mesh, m, "a sharding")
        if m.axis_sizes != mesh.axis_sizes:
            raise ValueError(f"xjit's jit over many devices needs meshes of one shape; got "
                             f"{mesh} and {m}")
    replicated = NamedSharding(mesh, PartitionSpec())
    in_flat, out_flat = _concrete(in_flat, mesh), _concrete(out_flat, mesh)
    ins = []
    for given, own, aval in zip(in_flat, arg_shardings, avals):
        s = given if given is not None else own if own is not None else replicated
        if not isinstance(s, NamedSharding):  # on one device (a SingleDeviceSharding)
            s = replicated
        s.check_compatible_aval(aval.shape)
        s.shard_shape(aval.shape)  # divisibility, with JAX's message
        ins.append(intern(s))
    outs = [s if isinstance(s, NamedSharding) else None for s in out_flat]
    reached = _reached(entry.closed, leaves)
    outs = [s if s is not None or not _types_decide(mesh, a, r) else intern(type_layout(mesh, a))
            for s, a, r in zip(outs, out_avals, reached)]  # explicit axes: as its type says
    first = ins[0] if ins else None  # JAX recovers the first argument's sharding (see _kept)
    kept = tuple(first if r and a.ndim == avals[0].ndim else None
                 for a, r in zip(out_avals, reached))
    return entry, mesh, ins, outs, kept


def _types_decide(mesh, aval, reached) -> bool:
    """Whether a program over ``mesh`` lays output ``aval`` out by its type:
    under ``set_mesh``, when all the axes in context (``auto_axes`` may make
    them Auto) are Explicit; with no mesh in context, when the mesh's axes
    are and the output's type has the mesh: it names it, or the output is
    computed from an array on it (``_reached``). Otherwise XLA lays it out."""
    context = mesh_lib.get_abstract_mesh()
    if context.empty:
        return mesh.are_all_axes_explicit and (reached or aval._sharding is not None)
    return context.are_all_axes_explicit


def _reached(closed, leaves):
    """Per output of the traced program, whether it is computed from an
    argument laid out on a mesh: JAX's types carry the mesh from operands to
    results (Auto axes included, which xjit's types leave out)."""
    marked = {v for v, x in zip(closed.jaxpr.invars, leaves) if type(x) is ShardedArrayImpl}
    if not marked:
        return [False] * len(closed.jaxpr.outvars)
    for eqn in closed.jaxpr.eqns:
        if any(type(v) is not core.Literal and v in marked for v in eqn.invars):
            marked.update(eqn.outvars)
    return [type(v) is not core.Literal and v in marked for v in closed.jaxpr.outvars]


def type_layout(mesh, aval):
    """The sharding over ``mesh``'s devices that ``aval``'s type names: its
    spec over a mesh of those devices shaped as the type's mesh."""
    s = aval._sharding
    full = PartitionSpec(*parts(aval))  # as JAX names it: one entry a dimension
    if s is None:
        return NamedSharding(mesh, full)
    spec = full if not (s.spec.unreduced or s.spec.reduced) else \
        s.spec.update(partitions=full.partitions)
    return NamedSharding(concrete_mesh(s.mesh, mesh), spec)




def _concrete(shardings, mesh):
    """Shardings over an abstract mesh (named in a trace under ``set_mesh``)
    laid over the program's mesh."""
    return [NamedSharding(mesh, s.spec) if isinstance(s, NamedSharding) and not s._is_concrete
            else s for s in shardings]


class _Staging:
    """The shardings of the arguments of the jit ``_plan`` is tracing (one
    per flat argument; None: not laid out on a mesh), and whether the trace
    read one (``shard_map``'s ``in_specs=Infer``)."""

    def __init__(self, shardings):
        self.shardings, self.read = shardings, False


_staging: list = []


def traced_arg_sharding(x):
    """The sharding of the argument that tracer ``x`` stands for, when ``x``
    is an argument of the jit over many devices being traced; else raises
    LookupError. (xjit's avals carry no sharding: JAX reads it from
    ``x``'s type.)"""
    while hasattr(x, "primal"):  # under grad/jvp inside the jit: its primal's
        x = x.primal
    trace = getattr(x, "_trace", None)
    if not _staging or getattr(trace, "parent", None) is not core.eval_trace:
        raise LookupError(x)
    staging = _staging[-1]
    invars = getattr(trace, "invars", ())
    if len(invars) != len(staging.shardings) or getattr(x, "var", None) not in invars:
        raise LookupError(x)
    staging.read = True
    return staging.shardings[invars.index(x.var)]


def lower(jf, args, kwargs):
    """``jit(f).lower(*args)`` for a call over many devices (an
    ``SpmdLowered``), or None for a call on one device."""
    from xjit._src.pjit import _context_key
    from xjit._src.interpreters import mlir
    dyn, dkw, static_key = jf._split(args, kwargs)
    leaves, treedef = tree_util.tree_flatten((dyn, dkw))
    avals = [core.aval_of(x) for x in leaves]
    key = (treedef, static_key, _context_key(), *avals)
    if not needs_spmd(jf, leaves):
        # only a shard_map inside names a mesh: of one device (pmap's on one device),
        # lowered as a one-device program, whose Lowered/Compiled have stages' full API
        inner = jaxpr_mesh(jf._entry(key, dyn, dkw, static_key, leaves, treedef, avals)[0].closed)
        if inner is None or inner.size == 1:
            return None
    plan = _plan(jf, key, dyn, dkw, static_key, leaves, treedef, avals, None)
    if plan is None:
        return None
    entry, mesh, ins, outs, kept = plan
    spmd = SpmdModule(mesh, [_on(mesh, s) for s in ins], entry.closed.in_avals,
                      [_on(mesh, s) for s in outs], entry.closed.out_avals)
    text = mlir.lower_module(jf._name, entry.closed, entry.donated, spmd=spmd)
    return SpmdLowered(jf, entry, mesh, ins, outs, kept, text)


class SpmdLowered:
    """A jitted call over many devices, lowered: ``as_text()`` is its module."""

    def __init__(self, jf, entry, mesh, ins, outs, kept, text):
        self._jf, self._entry, self._mesh, self._ins, self._outs = jf, entry, mesh, ins, outs
        self._kept = kept
        self._text = text

    def as_text(self, dialect=None, *, debug_info=False):
        from xjit._src.stages import _pretty_mlir
        return self._text if debug_info else _pretty_mlir(self._text)

    def compile(self, compiler_options=None):
        e = self._entry
        exe = compile_spmd(self._jf._name, e.closed, e.donated, self._mesh, self._ins,
                           self._outs, self._kept)
        return SpmdCompiled(exe, e)


class SpmdCompiled:
    """A compiled program over many devices: its XLA text (after
    partitioning: per-device shapes and collectives) and shardings."""

    def __init__(self, exe, entry):
        self._exe, self._entry = exe, entry

    def as_text(self):
        return self._exe.exe.hlo_modules()[0].to_string()

    input_shardings = property(lambda self: (tuple(self._exe.in_shardings), {}))
    output_shardings = property(lambda self: tree_util.tree_unflatten(
        self._entry.out_tree, self._exe.out_shardings))

    def __call__(self, *args):
        leaves = tree_util.tree_leaves(args)
        return tree_util.tree_unflatten(self._entry.out_tree, self._exe.run(leaves))


def _on(mesh, sharding):
    """``sharding`` over ``mesh``: the same layout, its mesh's axes renamed
    to ``mesh``'s (a mesh of the same devices and shape)."""
    if sharding is None or sharding.mesh.axis_names == mesh.axis_names:
        return sharding
    if sharding.mesh.axis_sizes != mesh.axis_sizes:  # axes regrouped (a reshaped mesh)
        groups = _regroup(sharding.mesh, mesh)
        if groups is None:
            raise NotImplementedError(f"xjit cannot lay {sharding} out over {mesh}")
        parts = [p if p is None or p is PartitionSpec.UNCONSTRAINED else
                 tuple(a for n in (p if isinstance(p, tuple) else (p,)) for a in groups[n])
                 for p in sharding.spec.partitions]
        return NamedSharding(mesh, PartitionSpec(*parts))
    rename = dict(zip(sharding.mesh.axis_names, mesh.axis_names))
    parts = [tuple(rename[a] for a in p) if isinstance(p, tuple) else
             rename.get(p, p) if isinstance(p, str) else p for p in sharding.spec]
    return NamedSharding(mesh, PartitionSpec(*parts))


def compile_spmd(name, closed, donated, mesh, in_shardings, out_shardings, kept):
    """Lower ``closed`` as an SPMD program over ``mesh`` and compile it."""
    from xjit._src.interpreters import mlir
    spmd = SpmdModule(mesh, [_on(mesh, s) for s in in_shardings], closed.in_avals,
                      [_on(mesh, s) for s in out_shardings], closed.out_avals)
    t0 = time.perf_counter()
    text = mlir.lower_module(name, closed, donated, spmd=spmd)
    t1 = time.perf_counter()
    devices = tuple(mesh.devices.flat)
    options = xc.CompileOptions()
    options.num_replicas = 1
    options.num_partitions = len(devices)
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = True
    options.device_assignment = xc.DeviceAssignment.create(
        np.array([[d.id for d in devices]], dtype=np.int64))
    callbacks = getattr(text, "host_callbacks", ())
    module = compiler.parse_module(text) if callbacks else text
    try:
        raw = compiler.backend_compile_and_load(devices[0].client, module,
                                                _jax.DeviceList(devices), options, callbacks)
        loaded = compiler.tracked(raw, callbacks, compiler.needs_serializing(raw, devices))
    except _jax.JaxRuntimeError as e:
        raise errors.JaxRuntimeError(f"XLA compilation failed: {e}") from None
    exe = SpmdExecutable(loaded, mesh, in_shardings, closed.in_avals, closed.out_avals, text,
                         out_shardings, kept)
    exe.lower_s, exe.compile_s = t1 - t0, time.perf_counter() - t1
    return exe


_primitive_jits: dict = {}


def apply_primitive(prim, args, params):
    """An eager primitive with an argument over several devices: a jit of the
    one primitive over their devices, so the result stays laid out there."""
    from xjit._src.pjit import jit
    try:
        key = (prim, *params.items())
        fun = _primitive_jits.get(key)
    except TypeError:  # unhashable params
        key, fun = None, None
    if fun is None:
        fun = jit(lambda *a: prim.bind(*a, **params))
        fun._name, fun._fid = prim.name, 0  # an eager op: no inspect events of its own
        if key is not None:
            _primitive_jits[key] = fun
    checked = _flags["jax_debug_nans"] or _flags["jax_debug_infs"]
    if not (checked or _flags["jax_disable_jit"]):
        return fun(*args)
    # one primitive: run it as the jit (also under disable_jit, which would
    # otherwise bind it eagerly again) and check it as an eager op, not by replay
    with config.override("jax_disable_jit", False), config.override("jax_debug_nans", False), \
            config.override("jax_debug_infs", False):
        out = fun(*args)
    if checked and dispatch.check_nans is not None:
        dispatch.check_nans(prim, params, args, out if prim.multiple_results else [out])
    return out


dispatch.apply_sharded = apply_primitive
