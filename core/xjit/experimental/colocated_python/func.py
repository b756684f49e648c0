"""Colocated Python functions (as ``jax.experimental.colocated_python.func``).

A colocated function runs ordinary Python on the hosts of the CPU devices
its arguments live on. In one process that host is this one: the function
is pickled with its specialization, read back (so what it captures is
checked and copied as it would be on its way to another host, and devices
that are not CPU devices are refused), and the copy runs here on the
argument arrays. Its results are returned as it made them.

A callable is specialized by input specs (shapes, dtypes and shardings of
``(args, kwargs)``), an output-spec function and devices. Without input
specs each new input signature gets its own specialization; without output
specs the first run of a specialization discovers them.
"""
from __future__ import annotations

import dataclasses
import inspect
import random
import threading
from collections.abc import Callable, Sequence
from typing import Any

from xjit._src import dtypes
from xjit._src import tree_util
from xjit._src.array import Array
from xjit._src.lib import xla_client as xc
from xjit._src.stages import ShapeDtypeStruct
from xjit._src.traceback_util import api_boundary
from xjit._src.util import wraps
from xjit.experimental.colocated_python import serialization

ShapeDtypeStructTree = Any


@dataclasses.dataclass(frozen=True, slots=True)
class FunctionInfo:
    """The user's function, where it was defined and its signature."""

    fun: Callable[..., Any]
    fun_sourceinfo: str | None
    fun_signature: inspect.Signature | None


def _fixed_once(name, new, old):
    if new is None:
        return old
    if old is not None:
        raise ValueError(f"{name} already specified")
    return new


@dataclasses.dataclass(frozen=True, slots=True)
class Specialization:
    """What is fixed about a colocated callable; each part can be given once."""

    in_specs_treedef: Any = None
    in_specs_leaves: tuple | None = None
    out_specs_fn: Callable[..., Any] | None = None
    out_specs_treedef: Any = None
    out_specs_leaves: tuple | None = None
    devices: xc.DeviceList | None = None

    def update(self, *, in_specs_treedef=None, in_specs_leaves=None, out_specs_fn=None,
               out_specs_treedef=None, out_specs_leaves=None, devices=None):
        """A new specialization with the given parts added."""
        if devices is not None and self.devices is None and not isinstance(
                devices, xc.DeviceList):
            devices = xc.DeviceList(tuple(devices))
        return Specialization(
            _fixed_once("in_specs", in_specs_treedef, self.in_specs_treedef),
            _fixed_once("in_specs", in_specs_leaves, self.in_specs_leaves),
            _fixed_once("out_specs_fn", out_specs_fn, self.out_specs_fn),
            _fixed_once("out_specs", out_specs_treedef, self.out_specs_treedef),
            _fixed_once("out_specs", out_specs_leaves, self.out_specs_leaves),
            _fixed_once("devices", devices, self.devices))


def _get_spec(x) -> ShapeDtypeStruct:
    """The spec of an argument or result, which must be a jax.Array."""
    if not isinstance(x, Array):
        raise ValueError("colocated_python only supports jax.Array as input and output, but "
                         f"got {type(x)}.")
    return ShapeDtypeStruct(shape=x.shape, dtype=x.dtype, sharding=x.sharding)


def _input_key(leaves, treedef):
    """The input signature a specialization is cached under. Like JAX, a leaf
    that is not an array fails here with an AttributeError."""
    for x in leaves:
        for attr in ("dtype", "shape", "sharding"):
            if not hasattr(x, attr):
                raise AttributeError(
                    f"'{type(x).__name__}' object has no attribute '{attr}': colocated_python "
                    "only supports jax.Array as input and output")
    return (treedef, tuple((x.shape, x.dtype, x.sharding) for x in leaves))


def _infer_devices_from_args(args: Sequence[Any]) -> xc.DeviceList | None:
    """The one device list all array arguments are on (None without arrays)."""
    found = {x.sharding._internal_device_list for x in args
             if getattr(x, "sharding", None) is not None}
    if not found:
        return None
    if len(found) != 1:
        raise ValueError("All arguments must use the same device list, but got multiple "
                         f"device lists: {found}.")
    return found.pop()


def is_prng_key_dtype(dtype) -> bool:
    """Whether ``dtype`` is a PRNG key dtype (``key<fry>``)."""
    return dtype is not None and dtypes.issubdtype(dtype, dtypes.prng_key)


def _get_prng_key_info(specs) -> dict[int, str]:
    """Leaf position -> PRNG implementation name, for the key-typed specs."""
    return {i: s.dtype._impl.name for i, s in enumerate(specs) if is_prng_key_dtype(s.dtype)}


def _unwrap_prng_keys(leaves, prng_info) -> list:
    from xjit._src import random as _random
    out = list(leaves)
    for i in prng_info:
        if is_prng_key_dtype(out[i].dtype):
            out[i] = _random.key_data(out[i])
    return out


def _wrap_prng_keys(leaves, prng_info) -> list:
    from xjit._src import random as _random
    out = list(leaves)
    for i, impl in prng_info.items():
        if not is_prng_key_dtype(out[i].dtype):
            out[i] = _random.wrap_key_data(out[i], impl=impl)
    return out


def _make_prng_wrapped_fun(fun, prng_in_info, prng_out_info):
    """The executor's side of key handling: keys cross the boundary as their
    uint32 data, so the user's function gets key arrays back before it runs
    and hands key results back as data."""

    @wraps(fun)
    def wrapped_fun(*args, **kwargs):
        leaves, treedef = tree_util.tree_flatten((args, kwargs))
        args, kwargs = tree_util.tree_unflatten(treedef, _wrap_prng_keys(leaves, prng_in_info))
        out_leaves, out_treedef = tree_util.tree_flatten(fun(*args, **kwargs))
        return tree_util.tree_unflatten(out_treedef,
                                        _unwrap_prng_keys(out_leaves, prng_out_info))

    return wrapped_fun


class _Specialized:
    """One fully specialized function: a copy of the user's function that has
    been through pickling, run here. Output specs come from the
    specialization, from ``out_specs_fn`` on the first call, or from the first
    run's results."""

    def __init__(self, info: FunctionInfo, specialization: Specialization):
        self.info = info
        self.specialization = specialization
        self._lock = threading.Lock()
        self._copy = None

    def _executor_copy(self):
        if self._copy is None:
            s = self.specialization
            shipped = serialization._serialize(
                (self.info.fun, s.in_specs_treedef, s.in_specs_leaves, s.out_specs_treedef,
                 s.out_specs_leaves, s.devices))
            self._copy = serialization._deserialize(shipped)[0]
        return self._copy

    def _run(self, args, kwargs, out_leaves_specs):
        fun = self._executor_copy()
        in_info = _get_prng_key_info(self.specialization.in_specs_leaves)
        out_info = _get_prng_key_info(out_leaves_specs or ())
        if not (in_info or out_info):
            return fun(*args, **kwargs)
        fun = _make_prng_wrapped_fun(fun, in_info, out_info)
        leaves, treedef = tree_util.tree_flatten((args, kwargs))
        args, kwargs = tree_util.tree_unflatten(treedef, _unwrap_prng_keys(leaves, in_info))
        out_leaves, out_treedef = tree_util.tree_flatten(fun(*args, **kwargs))
        return tree_util.tree_unflatten(out_treedef, _wrap_prng_keys(out_leaves, out_info))

    def __call__(self, *args, **kwargs):
        with self._lock:
            s = self.specialization
            if s.out_specs_treedef is None:
                if s.out_specs_fn is None:
                    # The first run is synchronous: it tells the output specs.
                    result = self._run(args, kwargs, None)
                    out_leaves, out_treedef = tree_util.tree_flatten(result)
                    out_specs = tuple(_get_spec(x) for x in out_leaves)
                    self.specialization = s.update(out_specs_treedef=out_treedef,
                                                   out_specs_leaves=out_specs)
                    return result
                arg_specs, kwarg_specs = tree_util.tree_map(_get_spec, (args, kwargs))
                out_leaves, out_treedef = tree_util.tree_flatten(
                    s.out_specs_fn(*arg_specs, **kwarg_specs))
                s = self.specialization = s.update(out_specs_treedef=out_treedef,
                                                   out_specs_leaves=tuple(out_leaves))
            self._executor_copy()
        # Later runs take no lock, so calls from several threads run at once.
        return self._run(args, kwargs, s.out_specs_leaves)


class _CachedColocatedFunctionMaker:
    """Makes colocated callables and keeps their specializations.

    The default maker's callables each own their specializations. A colocated
    object's maker also holds them, so that when the object's wrapper goes
    away the executor-side copies (and the object they hold) go with it.
    """

    def __init__(self, held_by: int | None):
        self.held_by = held_by if held_by is not None else random.getrandbits(63)
        self.specialized_functions: list | None = [] if held_by is not None else None

    def __del__(self):
        if self.specialized_functions is not None:
            self.specialized_functions.clear()

    def _keep(self, fn):
        if self.specialized_functions is not None:
            self.specialized_functions.append(fn)
        return fn

    def _make_callable(self, info: FunctionInfo, specialization: Specialization):
        maker = self  # a colocated object's maker lives as long as its methods
        by_inputs: dict = {}
        single: list = []
        lock = threading.Lock()

        def specialize(in_specs: ShapeDtypeStructTree | None = None,
                       out_specs_fn: Callable[..., ShapeDtypeStructTree] | None = None,
                       devices: Sequence[Any] | None = None):
            """A callable with more fixed: ``in_specs`` (a pytree of
            ShapeDtypeStruct for ``(args, kwargs)``), ``out_specs_fn`` (input
            specs -> output specs; without it the first call runs
            synchronously to find them) and ``devices`` (needed when there
            are no inputs to infer them from)."""
            leaves = treedef = None
            if in_specs is not None:
                leaves, treedef = tree_util.tree_flatten(in_specs)
                leaves = tuple(leaves)
            return maker._make_callable(info, specialization.update(
                in_specs_treedef=treedef, in_specs_leaves=leaves, out_specs_fn=out_specs_fn,
                devices=devices))

        @api_boundary
        def __call__(*args, **kwargs):
            """Runs the function on the host of its arguments' (or the
            specialized) devices; see ``specialize``."""
            leaves, treedef = tree_util.tree_flatten((args, kwargs))
            if not leaves and specialization.devices is None:
                raise ValueError("No devices found. colocated_python function without input "
                                 "arguments must be first specialized with devices.")
            fully_specified = specialization.in_specs_treedef is not None
            if leaves and not fully_specified:
                key = _input_key(leaves, treedef)
                with lock:
                    fn = by_inputs.get(key)
                    if fn is None:
                        spec = specialization.update(
                            in_specs_treedef=treedef,
                            in_specs_leaves=tuple(_get_spec(x) for x in leaves),
                            devices=(None if specialization.devices is not None
                                     else _infer_devices_from_args(leaves)))
                        fn = by_inputs[key] = maker._keep(_Specialized(info, spec))
                return fn(*args, **kwargs)
            with lock:
                if not single:
                    if fully_specified:
                        spec = specialization if specialization.devices is not None else \
                            specialization.update(devices=_infer_devices_from_args(leaves))
                    else:
                        spec = specialization.update(in_specs_leaves=(),
                                                     in_specs_treedef=treedef)
                    single.append(maker._keep(_Specialized(info, spec)))
                fn = single[0]
            return fn(*args, **kwargs)

        __call__ = wraps(info.fun)(__call__)
        __call__.specialize = specialize
        return __call__

    def make_callable(self, fun, fun_sourceinfo, fun_signature):
        """A colocated callable for ``fun`` with nothing specialized yet."""
        return self._make_callable(FunctionInfo(fun, fun_sourceinfo, fun_signature),
                                   Specialization())


_DEFAULT_FUNCTION_MAKER = _CachedColocatedFunctionMaker(None)


def make_callable(fun, fun_sourceinfo, fun_signature):
    return _DEFAULT_FUNCTION_MAKER.make_callable(fun, fun_sourceinfo, fun_signature)
