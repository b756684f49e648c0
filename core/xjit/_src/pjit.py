"""``jit``: trace once per signature, lower to StableHLO, compile, cache, run.

A call's signature is the pytree structure of its dynamic arguments, each
leaf's abstract value (shape, dtype, weak type), the static arguments and the
config flags that affect tracing. Under an enclosing trace (``jit`` inside
``jit``, ``grad``, ``vmap``) a jitted function binds the ``jit`` primitive,
whose parameter is the traced jaxpr, so it composes with every transformation.
"""
from __future__ import annotations

import functools
import inspect
import sys
import time
import weakref

import numpy as np

from xjit._src import (api_util, core, dispatch, dtypes, monitoring, placement, pxla,
                       traceback_util, tree_util, xla_bridge as backend)
from xjit._src.interpreters import batching, hijax_lowering as _hi, mlir as lowering
from xjit._src.array import ArrayImpl
from xjit._src.lib import _fastpath
from xjit._src.sharded_array import ShardedArrayImpl
from xjit._src.float0_plan import Float0Plan
from xjit._src.trace_entry import TraceEntry
from xjit._src.util import fun_name, fun_qual_name
from xjit._src.config import config
from xjit._src.mesh import EMPTY_ABSTRACT_MESH as _EMPTY_MESH, _context as _mesh_context
from xjit._src.state import utils as state_utils
from xjit._src.state.types import AbstractRef
from xjit._src.monitoring import observing as _observing
from xjit._src.interpreters.partial_eval import (
    DebugInfo,
    HiTrace,
    arg_names_of,
    close_jaxpr,
    trace_to_jaxpr,
)


def _context_key():
    """The config part of a cache key, plus the named vmap axes being traced
    (a trace may read their sizes, e.g. ``lax.axis_size``)."""
    axes = batching._axis_env.axes  # (an import statement here cost a microsecond a call)
    mesh = _mesh_context.abstract  # a trace types values by the axes in context
    if mesh is _EMPTY_MESH or mesh.empty:
        mesh = None
    if not axes:
        return config.trace_key if mesh is None else (config.trace_key, mesh)
    return config.trace_key, tuple((a.name, a.size) for a in axes), mesh


jit_p = core.Primitive("jit")
jit_p.multiple_results = True


def _jit_abstract_eval(*avals, jaxpr, **_):
    return jaxpr.out_avals


core.abstract_eval_rules[jit_p] = _jit_abstract_eval
core.pp_param_rules[jit_p] = lambda p: {"name": p["name"], **mesh_param(p), "jaxpr": p["jaxpr"]}


def mesh_param(params):
    """A jit equation's ``ctx_mesh`` parameter, if it has one, for the
    equations derived from it (JVP, partial evaluation, transposition)."""
    return {"ctx_mesh": params["ctx_mesh"]} if "ctx_mesh" in params else {}


def ctx_mesh():
    """The mesh a jit equation records as traced under (JAX's ``ctx_mesh``):
    the concrete mesh in context, else an abstract one with Explicit axes;
    none (no parameter) otherwise."""
    mesh = _mesh_context.concrete
    if mesh is not None and not mesh.empty:
        return {"ctx_mesh": mesh}
    abstract = _mesh_context.abstract
    if abstract is not _EMPTY_MESH and not abstract.empty and abstract._any_axis_explicit:
        return {"ctx_mesh": abstract}
    return {}


def _jit_batcher(axis_data, args, dims, *, jaxpr, name, donated_invars=(), **params):
    """Batch the body into a new jit equation."""
    batched, out_dims = batching.batch_jaxpr2(jaxpr, axis_data, dims,
                                              [core.aval_of(a) for a in args])
    outs = jit_p.bind(*args, jaxpr=batched, name=name, donated_invars=donated_invars, **params)
    return outs, out_dims


batching.axis_batch_rules[jit_p] = _jit_batcher

_jaxpr_exe_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_flags = config._values  # read directly: attribute access on ``config`` is slower

# ``jax_debug_key_reuse``'s check of a call, ``(closed_jaxpr, args) -> None``:
# key_reuse knows the PRNG primitives (a layer up) and installs it when xjit
# is imported.
check_key_reuse = None
# Running a jit equation that takes refs, ``(impl, args, jaxpr, name) -> outs``:
# state.discharge (a layer up, on lax) installs it on import.
run_with_refs = None


def _jit_impl(*args, jaxpr, name, donated_invars=(), ctx_mesh=None):
    """Run a jit equation eagerly: compile its jaxpr once and execute it
    (over the devices of its arguments when they span several)."""
    if any(type(a) is AbstractRef for a in jaxpr.in_avals):  # the body's writes reach the refs
        return run_with_refs(_jit_impl, args, jaxpr, name)
    for x in args:
        if type(x) is ShardedArrayImpl:  # one SPMD program (pxla), its results laid out there
            run = jit(lambda *a: jit_p.bind(*a, jaxpr=jaxpr, name=name,
                                            donated_invars=donated_invars))
            run._name, run._fid = name, 0  # (not cached: a batched body is new each call)
            return run(*args)
    cached = _jaxpr_exe_cache.get(jaxpr)
    if cached is None:
        plan = Float0Plan.of(jaxpr, donated_invars)
        program, donated = (jaxpr, donated_invars) if plan is None else (plan.closed, plan.donated)
        cached = _jaxpr_exe_cache[jaxpr] = (compile_jaxpr(name, program, donated)[0], plan)
    exe, plan = cached
    if _flags["jax_debug_key_reuse"] and check_key_reuse is not None:
        check_key_reuse(jaxpr, args)
    kept = args if plan is None else plan.kept(args)
    describe = lambda: (name, None, [core.aval_of(x) for x in kept])  # noqa: E731
    outs = placement.run(exe, [dispatch.to_buffer(x) for x in kept], describe)
    outs = outs if plan is None else plan.merge(outs)
    if _flags["jax_debug_nans"] or _flags["jax_debug_infs"]:
        from xjit._src.inspect import nans
        if nans.check_jit_outputs(name, _on_device(outs)):
            nans.replay_deoptimized(
                lambda *a: core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *a), args, {})
    return outs


core.impl_rules[jit_p] = _jit_impl


def _jit_lowering(ctx, avals_in, avals_out, *args, jaxpr, **_):
    return lowering.lower_jaxpr(ctx, jaxpr.jaxpr, jaxpr.consts, args)


lowering.rules[jit_p] = _jit_lowering


def compile_jaxpr(name, closed, donated=()):
    """Lower and compile; returns (Executable, lower_seconds, compile_seconds)."""
    t0 = time.perf_counter()
    text = lowering.lower_module(name, closed, donated)
    t1 = time.perf_counter()
    device = dispatch.backend.default_device()
    exe = dispatch.Executable(dispatch.compile_text(text, device), closed.out_avals, text, device)
    return exe, t1 - t0, time.perf_counter() - t1


def _on_device(outs):
    """The results that are device arrays (float0 ones are host zeros)."""
    return [x for x in outs if type(x) is not np.ndarray]


# --------------------------------------------------------------------------
# The user-facing wrapper


def _hashable_static(v):
    try:
        hash(v)
    except TypeError as e:
        raise ValueError(
            "Non-hashable static arguments are not supported. An error occurred while trying to "
            f"hash an object of type {type(v)}, {v}. The error was:\nTypeError: {e}\n") from None
    return v


class PjitFunction:
    """What ``jit(fun)`` returns (JAX's type name: libraries such as chex tell
    jitted functions by it)."""

    _shardings = None  # (in_shardings, out_shardings) when given: the call runs in pxla

    def __init__(self, fun, static_argnums=(), static_argnames=(), donate_argnums=(),
                 donate_argnames=(), inline=False, keep_unused=False):
        if not callable(fun):
            raise TypeError(f"Expected a callable value, got {fun}")
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._sig = api_util.fun_signature(fun)
        static_argnums = api_util.index_tuple(static_argnums)
        donate_argnums = api_util.index_tuple(donate_argnums)
        api_util.check_argnums(self._sig, static_argnums, "static_argnums")
        api_util.check_argnums(self._sig, donate_argnums, "donate_argnums")
        self._static_argnums, self._static_argnames = api_util.resolve_argnums(
            self._sig, static_argnums, api_util.str_tuple(static_argnames))
        self._donate_argnums, self._donate_argnames = api_util.resolve_argnums(
            self._sig, donate_argnums, api_util.str_tuple(donate_argnames))
        both = set(self._static_argnames) & set(self._donate_argnames)
        if both:
            raise ValueError(f"static_argnames and donate_argnames cannot intersect. Argument "
                             f"names {both} appear in both static_argnames and donate_argnames")
        # Calls with only positional arguments whose leaves are arrays (or
        # Python scalars) skip the full key: ``_fast`` maps (token, *avals)
        # for flat arrays to a TraceEntry, else (token, args' treedef[,
        # static arguments]) to (avals, TraceEntry) pairs (see
        # ``_fast_tree``); the token names config.trace_key. It is filled only
        # while no flag that checks each call (disable_jit, debug_nans, ...;
        # all in trace_key) is on. The caches are shared by every jit of the
        # same function and options.
        self._cache, self._fast = _shared_caches(
            fun, (self._static_argnums, self._static_argnames, self._donate_argnums,
                  self._donate_argnames))
        self._name = fun_name(fun)  # a partial names its function, as in JAX
        self._inline = inline
        observer = monitoring.jit_observer
        # (id, call counter) while inspected; the counter is a one-item list
        # the inspection layer reads, so counting a call costs one increment
        self._fid, self._ncalls = (0, None) if observer is None else observer.register(
            self, self._name, getattr(inspect.unwrap(fun), "__code__", None))

    def __repr__(self):
        return f"<PjitFunction of {self._fun!r}>"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    @property
    def __signature__(self):
        """The function's signature, also for ``inspect.signature(...,
        follow_wrapped=False)`` (chex's fake pmap asks so), as JAX's."""
        return inspect.signature(self._fun)

    # -- argument handling
    def _split(self, args, kwargs):
        """(dynamic args, dynamic kwargs, static key, donated positions)."""
        sa, sn = self._static_argnums, self._static_argnames
        if not sa and not sn and not kwargs:
            return args, {}, ()
        if sa:
            n = len(args)
            for i in sa:
                if i >= n and (self._sig is None or self._param_name(i) not in kwargs) \
                        and not self._has_default(i):
                    raise ValueError(
                        f"jitted function has static_argnums={sa}, but only accepts "
                        f"{n} positional arguments.") if self._sig is None else TypeError(
                        f"{self._name}() missing required positional argument")
        statics = tuple(_hashable_static(args[i]) for i in sa if i < len(args))
        dyn = tuple(a for i, a in enumerate(args) if i not in sa)
        skw = tuple(sorted((k, _hashable_static(v)) for k, v in kwargs.items() if k in sn))
        dkw = {k: v for k, v in kwargs.items() if k not in sn}
        return dyn, dkw, (statics, skw)

    def _has_default(self, i):
        """A static parameter left out of a call keeps its default, as in JAX."""
        if self._sig is None:
            return False
        params = list(self._sig.parameters.values())
        return i < len(params) and params[i].default is not inspect.Parameter.empty

    def _param_name(self, i):
        params = list(self._sig.parameters)
        return params[i] if i < len(params) else None

    def _merge(self, dyn, dkw, static_key):
        if not static_key:
            return dyn, dkw
        statics, skw = static_key
        args, it_d, it_s = [], iter(dyn), iter(statics)
        total = len(dyn) + len(statics)
        for i in range(total):
            args.append(next(it_s) if i in self._static_argnums else next(it_d))
        return tuple(args), {**dkw, **dict(skw)}

    def abstract_call(self, key):
        """(args, kwargs) of a call with the signature ``key`` (as the monitoring
        hook reports it): arrays as ShapeDtypeStruct, static arguments as given."""
        from xjit._src.stages import ShapeDtypeStruct
        treedef, static_key, _, *avals = key
        leaves = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in avals]
        dyn, dkw = tree_util.tree_unflatten(treedef, leaves)
        return self._merge(dyn, dkw, static_key)

    def _donated_leaves(self, dyn, dkw):
        if not self._donate_argnums and not self._donate_argnames:
            return None
        flags = []
        pos = [i for i in range(len(dyn) + len(self._static_argnums)) if i not in self._static_argnums]
        for i, a in zip(pos, dyn):
            n = len(tree_util.tree_leaves(a))
            flags.extend([i in self._donate_argnums] * n)
        for k in sorted(dkw):
            n = len(tree_util.tree_leaves(dkw[k]))
            flags.extend([k in self._donate_argnames] * n)
        return tuple(flags)

    # -- tracing
    def _trace(self, dyn, dkw, static_key, leaves, treedef, avals, traced_for="jit"):
        fun = self._fun

        def flat_fun(*tracers):
            a, k = tree_util.tree_unflatten(treedef, list(tracers))
            a, k = self._merge(a, k, static_key)
            out = fun(*a, **k)
            out_leaves, out_tree = tree_util.tree_flatten(out)
            store.append(out_tree)
            return out_leaves

        store = []
        full_args, full_kwargs = self._merge(dyn, dkw, static_key)
        names = arg_names_of(fun, full_args, full_kwargs)
        if names is not None and static_key:
            names = arg_names_of(_DynOnly(self), dyn, dkw)
        debug = DebugInfo(fun, traced_for, names)
        debug.fun = None  # cached jaxprs must not keep the (weakly cached) function alive
        t0 = time.perf_counter()
        jaxpr, consts = trace_to_jaxpr(flat_fun, avals, debug, check_leaks=True, hi_writes=[])
        if debug.hi:  # hijax values from outside: their state goes in and out (hijax_lowering)
            raise HiTrace
        state_utils.check_traced(jaxpr, leaves, debug)
        dt = time.perf_counter() - t0
        if monitoring.has_duration_listeners():
            monitoring.record_event_duration_secs(monitoring.TRACE_DURATION, dt,
                                                  fun_name=self._name)
        return jaxpr, consts, store[0], dt

    def _entry(self, key, dyn, dkw, static_key, leaves, treedef, avals):
        entry = self._cache.get(key)
        if entry is None:
            observer = monitoring.jit_observer if self._fid else None
            if observer is None:
                jaxpr, consts, out_tree, dt = self._trace(dyn, dkw, static_key, leaves,
                                                          treedef, avals)
            else:
                observer.cache_miss(self._fid, key, self._dyn_arg_names(dyn, dkw),
                                    self._static_names())
                with observer.tracing(self._fid, self._fun) as recorder:
                    jaxpr, consts, out_tree, dt = self._trace(dyn, dkw, static_key, leaves,
                                                              treedef, avals)
            jaxpr, consts, ref_consts = state_utils.hoist_ref_consts(jaxpr, consts, leaves,
                                                                     jaxpr.debug_info)
            closed, tracer_consts = close_jaxpr(jaxpr, consts)
            donated = self._donated_leaves(dyn, dkw) or (False,) * len(avals)
            entry = TraceEntry(closed, out_tree, (False,) * len(tracer_consts) + donated
                               + (False,) * len(ref_consts), dt,
                               [v.aval for v in closed.jaxpr.invars], self._name)
            entry.fid = self._fid
            entry.ref_consts = tuple(ref_consts)
            if not tracer_consts:
                self._cache[key] = entry
            if observer is not None:
                observer.traced(self._fid, key, entry, recorder, cached=not tracer_consts)
            if tracer_consts:
                return entry, tracer_consts, entry.ref_consts
        return entry, (), entry.ref_consts

    def _static_names(self):
        return tuple(self._param_name(i) if self._sig is not None else f"static_argnums[{i}]"
                     for i in self._static_argnums)

    def _dyn_arg_names(self, dyn, dkw):
        """One name per dynamic leaf (``x``, ``params['w']``), or None."""
        return arg_names_of(_DynOnly(self), dyn, dkw) if self._sig is not None else None

    def _invalid_argument(self, dyn, dkw, leaves):
        names = self._dyn_arg_names(dyn, dkw)
        for i, x in enumerate(leaves):
            try:
                core.aval_of(x)
            except TypeError:
                path = names[i] if names and i < len(names) else f"args[{i}]"
                return TypeError(f"Error interpreting argument to {self._fun!r} as an abstract "
                                 f"array. The problematic value is of type {type(x)} and was "
                                 f"passed to the function at path {path}.")
        return TypeError(f"Invalid arguments to {self._fun!r}")

    def __call__(self, *args, **kwargs):
        try:  # free until something raises (Python 3.11's zero-cost try)
            if not kwargs and core.trace_ctx.trace is core.eval_trace:
                leaves = args
                # placed: an argument is committed or not on the default device
                if len(args) == 1 and type(x := args[0]) is ArrayImpl:  # the commonest call
                    entry = self._fast.get((dispatch.trace_token, x.aval))
                    b = x._buf
                    bufs = [b]
                    placed = b._sharding is not backend.default_sharding
                else:
                    key = [dispatch.trace_token]
                    bufs = []
                    here = backend.default_sharding
                    placed = False
                    for x in args:  # a loop beats flattening and mapping for a few arrays
                        if type(x) is not ArrayImpl:
                            entry, leaves, bufs, placed = self._fast_tree(args)
                            break
                        key.append(x.aval)
                        b = x._buf
                        if b._sharding is not here:
                            placed = True
                        bufs.append(b)
                    else:
                        entry = self._fast.get(tuple(key))
                if entry is not None:
                    if placed:
                        return self._execute(entry, leaves, bufs, args, kwargs)
                    if _observing.per_call and self._fid:  # inspected: count the call
                        if _observing.timed:
                            return self._execute_observed(entry, leaves, bufs, args, kwargs)
                        self._ncalls[0] += 1
                    try:
                        outs = entry.execute(bufs).consume_with_handlers(entry.handlers)
                    except dispatch._jax.JaxRuntimeError as e:
                        raise dispatch._runtime_error(e, leaves) from None
                    if entry.single_out:
                        return entry.array_type(outs[0], entry.out_avals[0])
                    return entry.out_tree.unflatten(_wrap(entry.array_type, outs,
                                                          entry.out_avals))
            return self._call(args, kwargs)
        except Exception as e:  # the API boundary: hand the user a traceback without xjit
            traceback_util.filter_exception(e, sys._getframe())
            raise

    def _fast_tree(self, args):
        """The fast path's (entry, leaves, buffers) for positional arguments
        that are pytrees of arrays and Python scalars; entry is None otherwise.

        Here ``_fast`` maps (token, treedef[, static arguments]) to the
        signatures seen with that structure, as (avals, entry) pairs: a list
        comparison of the avals (identical objects, as an executable's outputs
        carry, compare by address) costs a fraction of hashing each."""
        sa = self._static_argnums
        if sa:  # static positional arguments join the key by value, as ``_split`` makes it
            if len(args) <= sa[-1]:  # one left to its default: the full path
                return None, args, None, False
            leaves, treedef = _flatten(tuple([a for i, a in enumerate(args) if i not in sa]))
            key = (dispatch.trace_token, treedef, (tuple([args[i] for i in sa]), ()))
        else:
            leaves, treedef = _flatten(args)
            key = (dispatch.trace_token, treedef)
        here = backend.default_sharding
        scanned = _scan(leaves, here)
        if scanned is not None:  # arrays only: their avals and buffers, read in C
            avals, bufs, placed = scanned
            scalars = False
        else:
            avals, bufs, scalars, placed = self._scan_mixed(leaves, here)
            if avals is None:
                return None, leaves, None, False
        try:
            seen = self._fast.get(key)
        except TypeError:  # an unhashable static argument: the full path raises JAX's error
            return None, leaves, None, False
        if seen is not None:
            for sig, entry in seen:
                if sig == avals:
                    if placed and type(entry) is not TraceEntry:  # over many devices: pxla's
                        return None, leaves, None, False
                    return (entry, leaves, _buffers(leaves, avals, entry) if scalars else bufs,
                            placed)
        return None, leaves, None, False

    @staticmethod
    def _scan_mixed(leaves, here):
        """``_fast_tree``'s (avals, buffers, scalars?, placed?) for leaves that
        mix arrays with Python scalars or sharded arrays; avals None if some
        leaf is neither."""
        avals = []
        bufs = []
        scalars = placed = False
        for x in leaves:
            t = type(x)
            if t is ArrayImpl:
                avals.append(x.aval)
                b = x._buf
                if b._sharding is not here:
                    placed = True
                bufs.append(b)
            elif t is ShardedArrayImpl:  # its layout joins the signature (see remember_tree)
                avals.append(x.aval)
                avals.append(x._buf._sharding)
                bufs.append(x._buf)
            elif t in _PY_SCALARS:
                avals.append(core.aval_of(x))
                scalars = True
            else:
                return None, None, False, False
        return avals, bufs, scalars, placed

    def _remember_fast(self, args, dyn, static_key, leaves, avals, entry):
        """Serve later calls like this one from ``_fast``, under the key that
        ``__call__`` (flat arrays) or ``_fast_tree`` (anything else) builds."""
        avals = [dispatch.intern_aval(a) for a in avals]
        if not static_key and len(leaves) == len(args) and all(
                type(x) is ArrayImpl for x in args):
            if len(self._fast) >= _FAST_CACHE_SIZE:
                self._fast.clear()
            self._fast[(dispatch.trace_token, *avals)] = entry
            return
        self.remember_tree(dyn if static_key else args, static_key, avals, entry)

    def remember_tree(self, dyn, static_key, sig, entry):
        """Serve later calls with the argument structure of ``dyn`` and the
        signature ``sig`` from ``_fast``, as ``_fast_tree`` reads them: ``sig``
        lists each leaf's aval (a sharded array's followed by its sharding);
        ``entry`` is a TraceEntry or pxla's ``SpmdEntry``."""
        if len(self._fast) >= _FAST_CACHE_SIZE:
            self._fast.clear()
        key = (dispatch.trace_token, _flatten(dyn)[1], *((static_key,) if static_key else ()))
        seen = [s for s in self._fast.get(key, ()) if s[0] != sig]
        self._fast[key] = (*seen[-_SIGNATURES_PER_TREE + 1:], (sig, entry))

    def _call(self, args, kwargs):
        if _flags["jax_disable_jit"]:
            return self._fun(*args, **kwargs)
        dyn, dkw, static_key = self._split(args, kwargs)
        leaves, treedef = tree_util.tree_flatten((dyn, dkw))
        try:
            avals = [x.aval if type(x) is ArrayImpl else _leaf_aval(x) for x in leaves]
        except TypeError:
            raise self._invalid_argument(dyn, dkw, leaves) from None
        except HiTrace:
            return _hi.jit_call(self, jit_p, args, kwargs)
        key = (treedef, static_key, _context_key(), *avals)
        trace = core.trace_ctx.trace
        if trace is core.eval_trace and pxla.needs_spmd(self, leaves):  # many devices
            out = pxla.call(self, key, dyn, dkw, static_key, leaves, treedef, avals)
            if out is not None:
                return out
        try:
            entry, tracer_consts, ref_consts = self._entry(key, dyn, dkw, static_key, leaves,
                                                           treedef, avals)
        except HiTrace:
            return _hi.jit_call(self, jit_p, args, kwargs)
        if trace is not core.eval_trace and self._inline:  # the body joins the enclosing trace
            outs = core.eval_jaxpr(entry.closed.jaxpr, entry.closed.consts, *tracer_consts,
                                   *leaves, *ref_consts)
            return tree_util.tree_unflatten(entry.out_tree, outs)
        if (trace is not core.eval_trace or tracer_consts or ref_consts
                or any(type(a) is AbstractRef for a in avals)):  # refs: jit_p writes them back
            outs = jit_p.bind(*tracer_consts, *leaves, *ref_consts, **ctx_mesh(),
                              jaxpr=entry.closed,
                              name=self._name, donated_invars=entry.donated)
            return tree_util.tree_unflatten(entry.out_tree, outs)
        if entry.executable is None:
            mesh = pxla.jaxpr_mesh(entry.closed)  # shard_map over many devices inside
            if mesh is not None:
                return pxla.call(self, key, dyn, dkw, static_key, leaves, treedef, avals, mesh)
            entry.compile()
        if _flags["jax_debug_key_reuse"] and check_key_reuse is not None:  # never on the fast path
            check_key_reuse(entry.closed, leaves)
        elif entry.float0 is None and not kwargs \
                and not any(_flags[f] for f in dispatch.CHECKED_FLAGS) \
                and all(type(x) is ArrayImpl or type(x) in _PY_SCALARS for x in leaves):
            self._remember_fast(args, dyn, static_key, leaves, avals, entry)
        if entry.float0 is not None:  # float0 values: never the fast path (see Float0Plan)
            plan = entry.float0
            bufs = _buffers(plan.kept(leaves), plan.kept(avals), entry)
            return self._execute_observed(entry, leaves, bufs, args, kwargs)
        bufs = _buffers(leaves, avals, entry)
        return self._execute(entry, leaves, bufs, args, kwargs)

    def _execute(self, entry, leaves, bufs, args, kwargs):
        """Run a compiled entry on device buffers, where the committed ones
        live, and rebuild the output tree."""
        if _observing.per_call or _flags["jax_debug_nans"] or _flags["jax_debug_infs"]:
            return self._execute_observed(entry, leaves, bufs, args, kwargs)
        execute, handlers = entry.execute, entry.handlers
        here = backend.default_sharding
        if any(b._sharding is not here for b in bufs):
            exe, bufs, committed = placement.place(entry.executable, bufs,
                                                   lambda: self._describe(entry, args, kwargs))
            execute = exe.exe.execute_sharded
            handlers = exe.committed_handlers if committed else exe.handlers
        try:  # the common case, with Executable.run inlined
            outs = execute(bufs).consume_with_handlers(handlers)
        except dispatch._jax.JaxRuntimeError as e:
            raise dispatch._runtime_error(e, leaves) from None
        if entry.single_out:
            return ArrayImpl(outs[0], entry.out_avals[0])
        return entry.out_tree.unflatten(_wrap(ArrayImpl, outs, entry.out_avals))

    def _execute_observed(self, entry, leaves, bufs, args, kwargs):
        """``_execute`` while inspect listens or NaN/Inf checks are on, or for
        a program with float0 values."""
        inspected = _observing.per_call and self._fid
        observer = monitoring.jit_observer if inspected and _observing.timed else None
        if observer is not None:
            t0 = time.perf_counter()
        try:
            outs = entry.run(bufs, lambda: self._describe(entry, args, kwargs))
        except dispatch._jax.JaxRuntimeError as e:
            raise dispatch._runtime_error(e, leaves) from None
        if observer is not None:
            observer.executed(self._fid, self._name, time.perf_counter() - t0, args, kwargs)
        elif inspected:
            self._ncalls[0] += 1
        if _flags["jax_debug_nans"] or _flags["jax_debug_infs"]:
            from xjit._src.inspect import nans
            if nans.check_jit_outputs(self._name, _on_device(outs)):
                nans.replay_deoptimized(self._fun, args, kwargs)
                raise FloatingPointError(
                    f"invalid value encountered in the output of jit({self._name}). The "
                    "de-optimized function (i.e., the function as if the `jit` decorator were "
                    "removed) did not produce invalid values during its execution.")
        if entry.single_out:
            return outs[0]
        return tree_util.tree_unflatten(entry.out_tree, outs)

    def _describe(self, entry, args, kwargs):
        """(name, argument names, avals) of the arguments the executable takes,
        for JAX's error on arguments committed to different devices."""
        dyn, dkw, _ = self._split(args, kwargs)
        names = self._dyn_arg_names(dyn, dkw)
        avals = [core.aval_of(x) for x in tree_util.tree_leaves((dyn, dkw))]
        if entry.float0 is not None:
            names, avals = names and entry.float0.kept(names), entry.float0.kept(avals)
        renamed = self._name != getattr(self._fun, "__name__", None)  # by jit_named
        return self._name if renamed else fun_qual_name(self._fun), names, avals

    # -- stages
    @traceback_util.api_boundary
    def trace(self, *args, **kwargs):
        from xjit._src.stages import Traced
        dyn, dkw, static_key = self._split(args, kwargs)
        leaves, treedef = tree_util.tree_flatten((dyn, dkw))
        try:
            avals = [_leaf_aval(x) for x in leaves]
            key = (treedef, static_key, _context_key(), *avals)
            entry, _, _ = self._entry(key, dyn, dkw, static_key, leaves, treedef, avals)
        except HiTrace:
            raise NotImplementedError("xjit does not support jit(...).trace/lower of a function "
                                      "using hijax values; call it or use eval_shape") from None
        return Traced(self, entry, treedef)

    @traceback_util.api_boundary
    def lower(self, *args, **kwargs):
        lowered = pxla.lower(self, args, kwargs)  # None unless over many devices
        return self.trace(*args, **kwargs).lower() if lowered is None else lowered

    def eval_shape(self, *args, **kwargs):
        from xjit._src.stages import ShapeDtypeStruct

        def spec(x):  # anything with a shape and dtype stands for an array (flax passes avals)
            if core.valid_jaxtype(x) or not (hasattr(x, "shape") and hasattr(x, "dtype")):
                return x
            return ShapeDtypeStruct(x.shape, x.dtype, weak_type=getattr(x, "weak_type", False),
                                    sharding=getattr(x, "sharding", None))
        args, kwargs = tree_util.tree_map(spec, (args, kwargs))
        try:
            if any(map(_hi.is_hi, tree_util.tree_leaves((args, kwargs)))):
                raise HiTrace
            return self.trace(*args, **kwargs).out_info
        except (HiTrace, NotImplementedError) as e:
            if isinstance(e, NotImplementedError) and not isinstance(e.__context__, HiTrace):
                raise
            return _hi.jit_call(self, jit_p, args, kwargs, eval_shape=lambda a: ShapeDtypeStruct(
                a.shape, a.dtype, weak_type=a.weak_type))

    def clear_cache(self):
        self._cache.clear()
        self._fast.clear()

    def _cache_size(self):
        return len(self._cache)


traceback_util.register_boundary(PjitFunction.__call__.__code__)
_fun_caches: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _shared_caches(fun, options):
    """Traces are cached per (function, jit options), not per ``jit`` object:
    ``jit(f)(x)`` twice traces ``f`` once, as in JAX."""
    try:
        per_fun = _fun_caches.setdefault(fun, {})
    except TypeError:  # not weak-referenceable or unhashable
        return {}, {}
    return per_fun.setdefault(options, ({}, {}))


_PY_SCALARS = frozenset((int, float, bool, complex))


def _leaf_aval(x):
    """A leaf's aval; a hijax value (it would pass for its array) takes the hijax path."""
    if type(x) in _hi.registered_hitypes:
        raise HiTrace
    return core.aval_of(x)
_flatten = tree_util.flatten
_scan = _fastpath.scan
_wrap = _fastpath.wrap
_FAST_CACHE_SIZE = 256  # signatures per function; past it the fast cache starts over
_SIGNATURES_PER_TREE = 16  # fast-cache signatures per argument structure (the newest kept)


def _buffers(leaves, avals, entry):
    """Device buffers for the arguments; Python scalars use the shared cached
    copies unless the executable may donate (and so delete) an input."""
    shared = not any(entry.donated)
    return [x._buf if type(x) is ArrayImpl else
            dispatch.scalar_buffer(x, a) if shared and type(x) in _PY_SCALARS else
            dispatch.to_buffer(x, a) for x, a in zip(leaves, avals)]


class _DynOnly:
    """A callable whose signature lists only the dynamic parameters (for naming
    arguments in error messages)."""

    def __init__(self, jf):
        params = [p for i, p in enumerate(jf._sig.parameters.values())
                  if i not in jf._static_argnums and p.name not in jf._static_argnames]
        self.__signature__ = inspect.Signature(params)

    def __call__(self, *a, **k):  # pragma: no cover - only inspected
        raise NotImplementedError


def jit(fun=None, *, static_argnums=None, static_argnames=None, donate_argnums=None,
        donate_argnames=None, inline=False, keep_unused=False, device=None, backend=None,
        in_shardings=None, out_shardings=None, compiler_options=None):
    """Compile ``fun`` with XLA; traced once per new signature."""
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 inline=inline, keep_unused=keep_unused,
                                 in_shardings=in_shardings, out_shardings=out_shardings)
    jf = PjitFunction(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                     inline, keep_unused)
    if in_shardings is not None or out_shardings is not None:  # see pxla
        jf._shardings = (in_shardings, out_shardings)
        jf._cache, jf._fast = {}, {}  # not shared with jits of fun without shardings
    return jf


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False, abstracted_axes=None):
    """A function that returns the ClosedJaxpr of ``fun`` at the given arguments;
    ``axis_env`` binds (name, size) pairs for collectives, as an enclosing vmap would."""
    jf = fun if isinstance(fun, PjitFunction) else PjitFunction(fun, static_argnums)

    @functools.wraps(fun)
    @traceback_util.api_boundary
    def make(*args, **kwargs):
        dyn, dkw, static_key = jf._split(args, kwargs)
        leaves, treedef = tree_util.tree_flatten((dyn, dkw))
        avals = [core.aval_of(x) for x in leaves]
        from xjit._src.interpreters.batching import AxisData, extend_axis_env
        with extend_axis_env([AxisData(n, s) for n, s in axis_env or ()]):
            jaxpr, consts, out_tree, _ = jf._trace(dyn, dkw, static_key, leaves, treedef, avals)
        if isinstance(fun, PjitFunction) and not fun._inline:
            jaxpr, consts, ref_consts = state_utils.hoist_ref_consts(jaxpr, consts, leaves,
                                                                     jaxpr.debug_info)
            inner, tracer_consts = close_jaxpr(jaxpr, consts)
            jaxpr = _wrap_in_jit_eqn(inner, tracer_consts, jf._name)
            jaxpr, consts = state_utils.refs_as_constvars(jaxpr, ref_consts)
        closed = core.ClosedJaxpr(jaxpr, consts)
        if return_shape:
            from xjit._src.stages import ShapeDtypeStruct
            shapes = tree_util.tree_unflatten(
                out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                           for a in jaxpr.out_avals])
            return closed, shapes
        return closed

    return make


def _wrap_in_jit_eqn(inner, tracer_consts, name):
    """``make_jaxpr(jit(f))`` shows one jit equation around f's body."""
    invars = [core.Var(a) for a in inner.in_avals]
    outvars = [core.Var(a) for a in inner.out_avals]
    eqn = core.JaxprEqn(invars, outvars, jit_p,
                        {"jaxpr": inner, "name": name, "donated_invars": (False,) * len(invars)})
    return core.Jaxpr([], invars, outvars, [eqn])


from xjit._src import ad_jit  # noqa: E402,F401  (jit_p's JVP, transpose and partial-eval rules)


def jit_named(name, **jit_kwargs):
    """Decorator: ``jit(fun, **jit_kwargs)`` whose equations print under
    ``name``. The library's own functions take JAX's names this way, so their
    jaxprs nest and read as JAX's (``pjit[name=_where ...]``)."""
    def wrap(fun):
        f = jit(fun, **jit_kwargs)
        f._name = name
        return f
    return wrap
