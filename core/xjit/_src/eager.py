"""Fused eager execution of ``jnp`` functions.

Eagerly, ``jnp.sin(x)`` would run its promotion logic in Python and then one
cached executable per primitive it binds. JAX runs its ``jnp`` functions as
inlined ``jit``s, so a hot eager call costs one C++ dispatch. ``fastpath``
gives ours the same shape: a call whose array arguments are concrete arrays
(or small Python scalars) looks its signature up and runs the whole function as
one compiled executable. Semantics stay those of the plain eager call:

* the first call of a signature always runs the plain eager path (its exact
  errors and warnings); the second traces and compiles the fused executable,
  so one-off shapes in a notebook never pay a second compile;
* a signature whose trace fails, closes over traced values, or computes
  nothing (the function returns an input) is marked and stays on the plain path;
* the fused path steps aside under any trace, with keyword arrays, while NaN/Inf
  checks are on (they attribute NaNs per primitive) and for Python ints whose
  conversion the plain path range-checks.
"""
from __future__ import annotations

import functools
import inspect

from xjit._src import xla_bridge as backend, core, dispatch, placement, tree_util
from xjit._src.interpreters import mlir as lowering
from .array import ArrayImpl
from .config import config
from .mesh import _context as _mesh_context
from xjit._src.interpreters.partial_eval import close_jaxpr, trace_to_jaxpr

_flags = config._values
_PLAIN = object()  # a signature that always takes the plain eager path
_SCALARS = frozenset((float, bool, complex))


class _Fused:
    __slots__ = ("exe", "handlers", "out_avals", "out_tree", "single")

    def __init__(self, exe, out_tree):
        self.exe, self.out_tree = exe, out_tree
        self.handlers, self.out_avals = exe.handlers, exe.out_avals
        self.single = tree_util.treedef_is_leaf(out_tree) and out_tree.num_leaves == 1


def _compile(fn, name, nargs, statics, kwargs, avals):
    def flat(*xs):
        out = fn(*xs, *statics, **kwargs)
        leaves, tree = tree_util.tree_flatten(out)
        store.append(tree)
        return leaves

    store = []
    jaxpr, consts = trace_to_jaxpr(flat, avals)
    closed, tracer_consts = close_jaxpr(jaxpr, consts)
    if tracer_consts or not jaxpr.eqns or any(
            not isinstance(v, core.Var) or v in jaxpr.invars for v in jaxpr.outvars):
        return _PLAIN
    text = lowering.lower_module(name, closed)
    device = dispatch.backend.default_device()
    exe = dispatch.Executable(dispatch.compile_text(text, device), closed.out_avals, text, device)
    return _Fused(exe, store[0])


def fastpath(nargs, arg_names=None):
    """Decorate a ``jnp`` function whose first ``nargs`` positional parameters
    are its array operands; the rest of the call is part of the signature.
    ``arg_names`` (default: the parameters' names) are the operands' names in
    JAX's error for operands committed to different devices."""
    def wrap(fn):
        cache: dict = {}
        name = fn.__name__
        names = arg_names or list(inspect.signature(fn).parameters)[:nargs]

        @functools.wraps(fn)
        def call(*args, **kwargs):
            if (core.trace_ctx.trace is not core.eval_trace or len(args) < nargs
                    or _flags["jax_debug_nans"] or _flags["jax_debug_infs"]
                    or _mesh_context.concrete is not None):
                return fn(*args, **kwargs)
            key = [dispatch.trace_token]
            bufs = []
            here = backend.default_sharding
            placed = False  # an operand committed or elsewhere: run where placement says
            for i in range(nargs):
                x = args[i]
                t = type(x)
                if t is ArrayImpl:
                    b = x._buf
                    if b._sharding is not here and not placed:
                        _check_devices(name, names, args[:nargs])  # (jnp's names, not lax's)
                        placed = True
                    key.append(x.aval)
                    bufs.append(b)
                elif t in _SCALARS or (t is int and 0 <= x < 128):
                    a = core.aval_of(x)
                    key.append(t)
                    key.append(a)
                    bufs.append(dispatch.scalar_buffer(x, a))
                else:
                    return fn(*args, **kwargs)
            statics = args[nargs:]
            if statics or kwargs:
                key.append(tuple((type(s), s) for s in statics))
                key.append(tuple((k, type(v), v) for k, v in kwargs.items()))
            try:
                key = tuple(key)
                fused = cache.get(key)
            except TypeError:  # an unhashable option (an array ``where=``, a list)
                return fn(*args, **kwargs)
            if fused is None:  # first call of this signature: the plain path
                cache[key] = False
                return fn(*args, **kwargs)
            if fused is False:
                try:
                    fused = _compile(fn, name, nargs, statics, kwargs, key_avals(key, nargs))
                except Exception:
                    fused = _PLAIN
                cache[key] = fused
            if fused is _PLAIN:
                return fn(*args, **kwargs)
            try:
                if placed:
                    exe, bufs, committed = placement.place(
                        fused.exe, bufs, lambda: (name, names, key_avals(key, nargs)))
                    handlers = exe.committed_handlers if committed else exe.handlers
                    outs = exe.exe.execute_sharded(bufs).consume_with_handlers(handlers)
                else:
                    outs = fused.exe.exe.execute_sharded(bufs).consume_with_handlers(
                        fused.handlers)
            except dispatch._jax.JaxRuntimeError as e:
                raise dispatch._runtime_error(e, args[:nargs]) from None
            if fused.single:
                return ArrayImpl(outs[0], fused.out_avals[0])
            return tree_util.tree_unflatten(
                fused.out_tree, [ArrayImpl(b, a) for b, a in zip(outs, fused.out_avals)])

        call.__wrapped_eager__ = fn
        return call
    return wrap


def _check_devices(name, names, operands):
    """JAX's error for operands committed to different devices, naming them
    as ``jnp.<name>``'s parameters (the primitives it binds would name theirs)."""
    device = None
    for i, x in enumerate(operands):
        if type(x) is ArrayImpl and x._buf._committed:
            d = placement.device_of(x._buf)
            if device is None:
                device, first = d, i
            elif d != device:
                devices = [placement.device_of(x._buf) if type(x) is ArrayImpl else None
                           for x in operands]
                raise placement.incompatible_devices(
                    name, names, [core.aval_of(x) for x in operands], devices, first, i)


def key_avals(key, nargs):
    """The operand avals recorded in a signature key (scalars carry their type first)."""
    avals, i = [], 1
    while len(avals) < nargs:
        k = key[i]
        if isinstance(k, type):
            k = key[i + 1]
            i += 1
        avals.append(k)
        i += 1
    return avals
