"""Compiling modules and running executables; eager primitive application.

An eager primitive runs through a one-equation executable, compiled once per
(primitive, abstract values, params) and cached. Arguments become device
buffers (Python scalars and NumPy values are transferred), the executable runs
asynchronously, and results come back as ``ArrayImpl`` via jaxlib's result
handlers without any host synchronisation.
"""
from __future__ import annotations

import functools
import math
import os
import time

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as xc

from xjit._src import xla_bridge as backend, compiler, core, dtypes, errors, placement
from xjit._src.interpreters import mlir as lowering
from .array import ArrayImpl
from .sharded_array import ShardedArrayImpl
from .mesh import _context as _mesh_context
from .config import config


class CompileStats:
    """Counters read by tests and the inspect layer."""
    compiles = 0
    compile_time = 0.0


def compile_text(text: str, device=None, compiler_options=None):
    """Compile on ``device``; ``compiler_options`` are XLA's (``{"xla_...": value}``),
    as ``Lowered.compile`` takes them: a bad one is XLA's JaxRuntimeError."""
    device = device or backend.default_device()
    options = xc.CompileOptions()
    if device.id != 0:  # the replica runs there (XLA's default assignment is device 0)
        options.device_assignment = xc.DeviceAssignment.create(
            np.array([[device.id]], dtype=np.int64))
    if compiler_options:
        options.env_option_overrides = list(compiler_options.items())
    client = device.client
    t0 = time.perf_counter()
    callbacks = getattr(text, "host_callbacks", ())
    try:
        if callbacks:  # PJRT takes host callbacks only with a parsed module
            text = compiler.parse_module(text)
        exe = compiler.tracked(compiler.backend_compile_and_load(
            client, text, backend.device_list(device), options, callbacks), callbacks)
    except _jax.JaxRuntimeError as e:
        raise errors.JaxRuntimeError(f"XLA compilation failed: {e}") from None
    CompileStats.compiles += 1
    CompileStats.compile_time += time.perf_counter() - t0
    return exe


_avals: dict = {}  # aval -> the one equal aval that executables' outputs carry


def intern_aval(aval):
    """The canonical object equal to ``aval``. Cache keys made of interned
    avals match by identity, without running ``ShapedArray.__eq__`` per leaf."""
    try:
        return _avals.setdefault(aval, aval)
    except TypeError:  # an unhashable abstract value
        return aval


class Executable:
    """A loaded executable with one result handler per output: ``handlers``
    make uncommitted arrays, ``committed_handlers`` committed ones (the
    results of a call with a committed argument)."""

    __slots__ = ("exe", "handlers", "committed_handlers", "out_avals", "text", "device",
                 "home", "options", "_elsewhere")

    def __init__(self, exe, out_avals, text, device, options=None):
        check_allocations(out_avals, device)
        out_avals = [intern_aval(a) for a in out_avals]
        self.exe, self.out_avals, self.text, self.device = exe, out_avals, text, device
        self.home = backend.uncommitted_sharding(device)  # its uncommitted arguments' sharding
        self.options = options  # XLA's compiler options it was compiled with
        self.handlers = [backend.result_handler(a, device) for a in out_avals]
        self.committed_handlers = [backend.result_handler(a, device, True) for a in out_avals]
        self._elsewhere = None  # device -> this program compiled there

    def run(self, bufs, committed=False):
        outs = self.exe.execute_sharded(bufs).consume_with_handlers(
            self.committed_handlers if committed else self.handlers)
        return [ArrayImpl(b, a) for b, a in zip(outs, self.out_avals)]

    def on(self, device):
        """The same program compiled for ``device`` (once)."""
        if device == self.device:
            return self
        if self._elsewhere is None:
            self._elsewhere = {}
        exe = self._elsewhere.get(device)
        if exe is None:
            exe = self._elsewhere[device] = Executable(
                compile_text(self.text, device, self.options), self.out_avals, self.text,
                device, self.options)
        return exe


@functools.cache
def _memory_limit(device) -> int:
    stats = device.memory_stats() if device.platform != "cpu" else None
    if stats and stats.get("bytes_limit"):
        return stats["bytes_limit"]
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_allocations(avals, device):
    """JAX's out-of-memory error for an output larger than the device's memory,
    raised before XLA tries: with overcommit a host allocation that cannot be
    backed gets the process killed instead of failing."""
    limit = _memory_limit(device)
    for a in avals:
        if getattr(a.dtype, "extended", False):
            a = a.dtype.physical_aval(a)
        nbytes = math.prod(a.shape) * a.dtype.itemsize
        if nbytes > limit:
            raise errors.JaxRuntimeError(
                f"RESOURCE_EXHAUSTED: Out of memory allocating {nbytes} bytes.")


def to_buffer(x, aval=None, device=None):
    """The device buffer for an argument (transferring host values, uncommitted)."""
    if type(x) is ArrayImpl:
        return x._buf
    if type(x) is ShardedArrayImpl and x.sharding.is_fully_replicated:
        # a replicated value over several devices: its copy on the executable's
        # device (key arrays included, whose data NumPy cannot hold)
        target = device or backend.default_device()
        for d, buf in zip(x.sharding._device_assignment, x._shard_buffers()):
            if d == target:
                return buf
    if aval is None:
        aval = core.aval_of(x)
    return backend.transfer_to_device(aval, host_value(x, aval.dtype), device)


def host_value(x, dtype):
    if isinstance(x, int) and not isinstance(x, bool) and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python int {x} too large to convert to {dtype.name}")
    return np.asarray(x, dtype=dtype)


_prim_cache: dict = {}
_prim_caches: dict = {None: _prim_cache}  # jax_default_device -> its primitive executables
_flags = config._values  # read directly: attribute access on ``config`` is slower

# Device copies of Python scalars used as eager operands (``x * 2.0``): the
# transfer costs more than the op, and buffers are immutable, so one copy per
# (type, value, x64) serves every use. Never used where a buffer may be donated.
_scalar_bufs: dict = {}
_SCALAR_CACHE_SIZE = 512


def scalar_buffer(x, aval):
    """The device buffer of Python/NumPy scalar ``x`` (cached), or a fresh transfer."""
    key = (type(x), x, _flags["jax_enable_x64"])
    try:
        buf = _scalar_bufs.get(key)
    except TypeError:  # an unhashable NumPy scalar (structured void)
        return to_buffer(x, aval)
    if buf is None:
        buf = to_buffer(x, aval)
        if backend._h2d_guard is not None:  # a guarded transfer must happen every time
            return buf
        # Signed zeros share a key (-0.0 == 0.0) and NaN keys never match:
        # floats that are zero or NaN, and complex values, are not cached.
        kind = aval.dtype.kind
        if kind in "iub" or (kind != "c" and x == x and x != 0):
            if len(_scalar_bufs) >= _SCALAR_CACHE_SIZE:
                _scalar_bufs.clear()
            _scalar_bufs[key] = buf
    return buf


_SCALAR_TYPES = (int, float, bool, complex, np.generic)


# Flags under which every jitted call goes through the full path (they are all
# part of ``config.trace_key``, so a fast entry made without them never matches
# with them).
CHECKED_FLAGS = ("jax_disable_jit", "jax_debug_nans", "jax_debug_infs", "jax_debug_key_reuse")

# A small int naming the current ``config.trace_key``, for the hot paths'
# cache keys: hashing the flag tuple itself costs more than the rest of a key.
_trace_tokens: dict = {}
trace_token = _trace_tokens.setdefault(config.trace_key, 0)


def _on_config_change(name, value):
    """Keep the per-flag state of the dispatch caches in step with the config:
    a new trace key gets its token; a transfer guard must see every transfer,
    so cached scalar copies go; each default device has its own primitive
    executables."""
    global _prim_cache, trace_token
    trace_token = _trace_tokens.setdefault(config.trace_key, len(_trace_tokens))
    if name.startswith("jax_transfer_guard"):
        _scalar_bufs.clear()
    elif name == "jax_default_device":
        _scalar_bufs.clear()
        _prim_cache = _prim_caches.setdefault(value, {})


config.add_listener(_on_config_change)

# The ``jax_debug_nans``/``jax_debug_infs`` check of an eager primitive's
# outputs, ``(prim, params, args, outs) -> None``: inspect.nans, which reports
# at the user's line, installs it when xjit.inspect is imported.
check_nans = None


def apply_primitive(prim, *args, **params):
    """Run one primitive eagerly."""
    if _mesh_context.concrete is not None:  # set_mesh: results laid out on it (pxla)
        return apply_sharded(prim, args, params)
    avals = []
    bufs = []
    here = backend.default_sharding
    placed = False  # an argument committed, or elsewhere than the default device
    for x in args:
        if type(x) is ArrayImpl:
            avals.append(x.aval)
            b = x._buf
            if b._sharding is not here:
                placed = True
            bufs.append(b)
        else:
            a = core.aval_of(x)
            avals.append(a)
            if isinstance(x, _SCALAR_TYPES):
                bufs.append(scalar_buffer(x, a))
            elif type(x) is ShardedArrayImpl:  # over several devices: run there (pxla)
                return apply_sharded(prim, args, params)
            else:
                bufs.append(to_buffer(x, a))
    try:
        key = (prim, *avals, *params.items()) if params else (prim, *avals)
        exe = _prim_cache.get(key)
    except TypeError:  # unhashable params (e.g. callables in lists)
        key, exe = None, None
    if exe is None:
        exe = _compile_primitive(prim, avals, params)
        if key is not None:
            _prim_cache[key] = exe
    try:
        if placed:
            exe, bufs, committed = placement.place(
                exe, bufs, lambda: (prim.name, [f"args[{i}]" for i in range(len(args))], avals))
            outs = exe.run(bufs, committed)
        else:
            outs = exe.run(bufs)
    except _jax.JaxRuntimeError as e:
        raise _runtime_error(e, args) from None
    if (_flags["jax_debug_nans"] or _flags["jax_debug_infs"]) and check_nans is not None:
        check_nans(prim, params, args, outs)
    return outs if prim.multiple_results else outs[0]


core.default_impl = apply_primitive
# Running a primitive on an argument over several devices, ``(prim, args,
# params) -> outs``: pxla installs it (a jit over the arguments' devices).
apply_sharded = None
lowering.default_platform = backend.default_backend


def _runtime_error(e, args):
    for x in args:
        if isinstance(x, ArrayImpl) and x.is_deleted():
            return RuntimeError(f"Array has been deleted with shape={x.aval.str_short(False)}.")
    return errors.JaxRuntimeError(str(e))


def _compile_primitive(prim, avals, params):
    invars = [core.Var(a) for a in avals]
    out = prim.abstract_eval(*avals, **params)
    out_avals = list(out) if prim.multiple_results else [out]
    outvars = [core.Var(a) for a in out_avals]
    jaxpr = core.Jaxpr([], invars, outvars, [core.JaxprEqn(invars, outvars, prim, params)])
    text = lowering.lower_module(prim.name, core.ClosedJaxpr(jaxpr, []))
    device = backend.default_device()
    return Executable(compile_text(text, device), out_avals, text, device)


def device_put(x, device=None):
    """Copy a value to ``device``, committing it there; with no device, host
    values go to the default device uncommitted and arrays stay as they are.
    An explicit transfer for the transfer guard."""
    if type(x) is ArrayImpl:
        if device is None:
            return x
        x._check_alive()
        buf = x._buf
        if placement.device_of(buf) != device:
            buf = backend.copy_to_device(buf, device)
        # a new array committed to the device, as JAX's (sharing the buffer where it is there)
        return ArrayImpl(_jax.ArrayImpl(buf.aval, backend.sharding_for(device), [buf],
                                        committed=True, _skip_checks=True), x.aval)
    if isinstance(x, core.Tracer):
        return x
    if getattr(x, "dtype", None) == dtypes.float0:  # no data, no device type: stays on the host
        return np.zeros(np.shape(x), dtypes.float0)
    aval = intern_aval(core.aval_of(x))
    return ArrayImpl(backend.transfer_to_device(aval, host_value(x, aval.dtype), device, True,
                                                committed=device is not None), aval)
