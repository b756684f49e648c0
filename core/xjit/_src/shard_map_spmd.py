"""``shard_map`` over a mesh of several devices as one SPMD program.

The body is traced once at the per-shard shapes, with the mesh axes bound
as named axes, into the ``shard_map`` primitive. Inside jit over many
devices (``pxla``) it lowers to Shardy's ``sdy.manual_computation``: each
device runs the body on its shard, and the named-axis collectives in it
lower to XLA's collectives between devices (``lax.parallel``). Applied
eagerly it runs as such a jit. Under ``jvp``/``vmap`` the primitive is
computed by the one-device emulation (``shard_map``'s batched form), whose
rules those transformations already have.
"""
from __future__ import annotations

import math
import weakref

from xjit._src import core
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.partial_eval import DebugInfo, close_jaxpr, trace_to_jaxpr
from xjit._src.sharding import NamedSharding, PartitionSpec
from xjit._src.sharding_in_types import type_sharding

shard_map_p = core.Primitive("shard_map")
shard_map_p.multiple_results = True


def _dim_axes(spec, ndim):
    out = []
    for d in range(ndim):
        p = spec[d] if d < len(spec) else None
        out.append(() if p is None else tuple(p) if isinstance(p, tuple) else (p,))
    return out


def shard_aval(aval, spec, mesh, manual=None):
    """The per-device aval of a global value laid out by ``spec``; with
    ``manual`` (a check_vma body's manual axes) it varies over those the
    spec names."""
    sizes = mesh.shape
    dims = _dim_axes(spec, len(aval.shape))
    shape = [n // math.prod(sizes[a] for a in axes) for n, axes in zip(aval.shape, dims)]
    if manual is None:
        return aval.update(shape=tuple(shape), sharding=None)
    vma = aval.manual_axis_type.varying | {a for axes in dims for a in axes if a in manual}
    return aval.update(shape=tuple(shape), sharding=None,  # the manual axes leave the type
                       manual_axis_type=aval.manual_axis_type.update(varying=vma))


def global_aval(aval, spec, mesh, manual=frozenset()):
    """The global aval of per-device values laid out by ``spec`` (varying no
    longer over the manual axes: the layout says how they differ)."""
    sizes = mesh.shape
    shape = [n * math.prod(sizes[a] for a in axes)
             for n, axes in zip(aval.shape, _dim_axes(spec, len(aval.shape)))]
    mat = aval.manual_axis_type
    # over Explicit mesh axes the global value's type carries its layout
    sharding = type_sharding(NamedSharding(mesh.abstract_mesh, spec))
    return aval.update(shape=tuple(shape), sharding=sharding, manual_axis_type=mat.update(
        varying=mat.varying - manual))


def trace_body(f, mesh, in_avals, in_specs, check_vma=False, manual=None):
    """The body's closed jaxpr at the per-shard avals (and the tracers it
    closes over, which become leading replicated operands). With
    ``check_vma`` the avals carry the manual axes each input varies over."""
    from xjit._src.interpreters.batching import AxisData, extend_axis_env
    manual = frozenset(mesh.axis_names) if manual is None else frozenset(manual)
    shard_avals = [shard_aval(a, s, mesh, manual if check_vma else None)
                   for a, s in zip(in_avals, in_specs)]
    debug = DebugInfo(f, "shard_map", None)
    debug.fun = None
    with extend_axis_env([AxisData(n, s, check_vma and n in manual)
                          for n, s in mesh.shape_tuple if n in manual]):
        jaxpr, consts = trace_to_jaxpr(lambda *xs: list(f(*xs)), shard_avals, debug)
    return close_jaxpr(jaxpr, consts)


def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, newly_manual_axes, check_vma):
    return [global_aval(a, s, mesh, newly_manual_axes)
            for a, s in zip(jaxpr.out_avals, out_specs)]


core.abstract_eval_rules[shard_map_p] = _abstract_eval


def _sdy(spec, ndim):
    from xjit._src.pxla import sdy_axes
    return "<@mesh, [" + ", ".join(sdy_axes(a) for a in _dim_axes(spec, ndim)) + "]>"


def _lower(ctx, avals_in, avals_out, *args, jaxpr, mesh, in_specs, out_specs,
           newly_manual_axes, check_vma):
    module_ctx = ctx.module_ctx
    if module_ctx.spmd is None:  # a program on one device: the body batched over the axes
        from xjit._src.lax.slicing import lower_fun
        return lower_fun(_emulated(jaxpr, mesh, in_specs, out_specs, newly_manual_axes),
                         multiple_results=True)(ctx, avals_in, avals_out, *args)
    if module_ctx.spmd.mesh.shape_tuple != mesh.shape_tuple:
        raise NotImplementedError(f"shard_map over {mesh} inside a program over other devices")
    ttype = lowering.ttype
    body_args = [ctx.fresh() for _ in jaxpr.in_avals]
    saved, indent = ctx.lines, ctx.indent
    outer_manual = getattr(module_ctx, "manual", None)
    ctx.lines, ctx.indent = [], indent + "  "
    module_ctx.manual = (module_ctx.spmd.mesh, newly_manual_axes)
    try:
        outs = lowering.lower_jaxpr(ctx, jaxpr.jaxpr, jaxpr.consts, body_args)
        ctx.lines.append(f'{ctx.indent}"sdy.return"({", ".join(outs)}) : '
                         f'({", ".join(ttype(a) for a in jaxpr.out_avals)}) -> ()')
        body = ctx.lines
    finally:
        ctx.lines, ctx.indent = saved, indent
        module_ctx.manual = outer_manual
    res = ctx.fresh()
    n = len(avals_out)
    ins = ", ".join(_sdy(s, len(a.shape)) for s, a in zip(in_specs, avals_in))
    outs_sh = ", ".join(_sdy(s, len(a.shape)) for s, a in zip(out_specs, avals_out))
    axes = ", ".join(f'"{a}"' for a in mesh.axis_names if a in newly_manual_axes)
    block = ", ".join(f"{v}: {ttype(a)}" for v, a in zip(body_args, jaxpr.in_avals))
    out_types = ", ".join(ttype(a) for a in avals_out)
    ctx.lines.append(
        f"{indent}{res}{f':{n}' if n > 1 else ''} = sdy.manual_computation({', '.join(args)}) "
        f"in_shardings=[{ins}] out_shardings=[{outs_sh}] manual_axes={{{axes}}} ({block}) {{")
    ctx.lines.extend(body)
    ctx.lines.append(f"{indent}}} : ({', '.join(ttype(a) for a in avals_in)}) -> "
                     f"({out_types}){ctx.loc}")
    return [res] if n == 1 else [f"{res}#{i}" for i in range(n)]


lowering.rules[shard_map_p] = _lower

_eager_jits: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _concrete(mesh):
    """The devices of ``mesh``: itself, or for an abstract mesh the one in context."""
    from xjit._src.mesh import AbstractMesh, get_concrete_mesh
    if not isinstance(mesh, AbstractMesh):
        return mesh
    context = get_concrete_mesh()
    if context is None or context.abstract_mesh != mesh:
        return None
    return context


def _impl(*args, jaxpr, mesh, in_specs, out_specs, newly_manual_axes, check_vma):
    """Applied eagerly: as a jit over the mesh's devices (the one-device
    emulation for an abstract mesh with no devices in context)."""
    from xjit._src.pjit import jit
    devices = _concrete(mesh)
    if devices is None or devices.size == 1:
        return list(_emulated(jaxpr, mesh, in_specs, out_specs, newly_manual_axes)(*args))
    params = dict(jaxpr=jaxpr, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                  newly_manual_axes=newly_manual_axes, check_vma=check_vma)
    fun = _eager_jits.get(jaxpr, {}).get(mesh)
    if fun is None:
        fun = jit(lambda *a: shard_map_p.bind(*a, **params),
                  in_shardings=tuple(NamedSharding(devices, s) for s in in_specs),
                  out_shardings=[NamedSharding(devices, s) for s in out_specs])
        _eager_jits.setdefault(jaxpr, {})[mesh] = fun
    return fun(*args)


core.impl_rules[shard_map_p] = _impl


def _emulated(jaxpr, mesh, in_specs, out_specs, manual=frozenset()):
    """The one-device form of the primitive: the body batched over the mesh
    axes (with its types' varying axes erased: each vmap over a mesh axis
    already holds one value per member)."""
    from xjit._src.shard_map import _shard_map
    jaxpr = erase_vma(jaxpr)
    body = lambda *xs: tuple(core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs))
    return _shard_map(body, mesh, tuple(in_specs), tuple(out_specs), frozenset(manual), False,
                      emulate=True)


def _jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, newly_manual_axes, **_):
    from xjit._src.ad_api import jvp
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    outs, touts = jvp(_emulated(jaxpr, mesh, in_specs, out_specs, newly_manual_axes),
                      tuple(primals),
                      tuple(tangents))
    return list(outs), list(touts)


ad.jvp_rules[shard_map_p] = _jvp


def _batch(args, dims, *, jaxpr, mesh, in_specs, out_specs, newly_manual_axes, **_):
    outs = batching.vmap(_emulated(jaxpr, mesh, in_specs, out_specs, newly_manual_axes),
                         in_axes=tuple(dims))(*args)
    return list(outs), [0] * len(outs)


batching.batch_rules[shard_map_p] = _batch


# --------------------------------------------------------------------------
# Erasing the varying axes from a body's types

_erased: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def erase_vma(closed):
    """``closed`` as a check_vma=False body: its types carry no varying axes,
    ``pvary`` is gone and ``psum_invariant`` is ``psum``. What the emulation
    runs under vmaps over the mesh axes (the types name axes those vmaps
    consume; a sub-jaxpr re-traced from them, a scan's transpose, would
    insert pvary over axes no longer bound)."""
    out = _erased.get(closed)
    if out is None:
        out = _erased[closed] = core.ClosedJaxpr(_erase_jaxpr(closed.jaxpr), closed.consts)
    return out


def erase_params(params):
    """``params`` with the jaxprs among them erased (``erase_vma``)."""
    new = None
    for k, v in params.items():
        e = _erase_param(v)
        if e is not v:
            new = dict(params) if new is None else new
            new[k] = e
    return params if new is None else new


def _erase_param(v):
    if isinstance(v, core.ClosedJaxpr):
        return erase_vma(v) if _typed(v.jaxpr) else v
    if isinstance(v, core.Jaxpr):
        return _erase_jaxpr(v) if _typed(v) else v
    if isinstance(v, tuple) and v and isinstance(v[0], (core.Jaxpr, core.ClosedJaxpr)):
        return tuple(_erase_param(j) for j in v)
    return v


def _typed(jaxpr):
    """Whether any value of ``jaxpr`` (or of a jaxpr inside it) carries varying axes."""
    from xjit._src.lax.parallel_vma import UNTYPED, pvary_p
    for v in (*jaxpr.constvars, *jaxpr.invars):
        if _varies(v.aval):
            return True
    for e in jaxpr.eqns:
        if e.primitive is pvary_p or e.primitive in UNTYPED or \
                any(_varies(v.aval) for v in e.outvars):
            return True
        if any(_erase_param(p) is not p for p in e.params.values()):
            return True
    return False


def _varies(aval):
    return bool(getattr(getattr(aval, "manual_axis_type", None), "varying", None))


def _erase_aval(aval):
    return aval.update(manual_axis_type=None) if _varies(aval) else aval


def _erase_jaxpr(jaxpr):
    from xjit._src.lax.parallel_vma import UNTYPED, pvary_p
    env = {}

    def atom(v):
        if type(v) is core.Literal:
            return core.Literal(v.val, _erase_aval(v.aval)) if _varies(v.aval) else v
        new = env.get(v)
        if new is None:
            new = env[v] = type(v)(_erase_aval(v.aval))
        return new

    constvars = [atom(v) for v in jaxpr.constvars]
    invars = [atom(v) for v in jaxpr.invars]
    eqns = []
    for e in jaxpr.eqns:
        ins = [atom(v) for v in e.invars]
        if e.primitive is pvary_p:  # a cast of the type only
            env[e.outvars[0]] = ins[0]
            continue
        prim, params = e.primitive, e.params
        untyped = UNTYPED.get(prim)
        if untyped is not None:
            prim, params = untyped(params)
        else:
            params = erase_params(params)
        eqns.append(core.JaxprEqn(ins, [atom(v) for v in e.outvars], prim, params,
                                  e.source_info))
    return core.Jaxpr(constvars, invars, [atom(v) for v in jaxpr.outvars], eqns,
                      jaxpr.debug_info)
