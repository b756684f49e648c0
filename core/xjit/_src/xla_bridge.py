"""The PJRT client and devices, and host<->device transfer.

We create jaxlib's CPU client, and a CUDA client when jaxlib's CUDA PJRT
plugin (``jax_cuda12_plugin``/``jax-cuda12-pjrt``) is installed and finds a GPU;
the GPU then becomes the default backend, as in JAX.
"""
from __future__ import annotations

import functools
import logging
import os
import threading

import numpy as np
from jaxlib import _jax, _profiler
from jaxlib import xla_client as xc

from xjit._src import config as config_module
from xjit._src.config import config


class Sharding(_jax.SingleDeviceSharding):
    """jaxlib's single-device sharding, with the two methods its C++ side
    expects the framework to provide."""

    def _to_xla_hlo_sharding(self, num_dimensions):
        return xc.HloSharding.replicate()

    @property
    def memory_kind(self):
        return None

    @property
    def device_set(self):
        return {self._device}

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind=device)"


_CUDA_PLUGINS = ("jax_plugins.xla_cuda12", "jax_plugins.xla_cuda13")


def _cuda_plugin_library():
    """The CUDA PJRT plugin's shared library, found without importing the
    plugin package (whose initialisation imports jax)."""
    import importlib.util
    for name in _CUDA_PLUGINS:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.submodule_search_locations:
            continue
        for d in spec.submodule_search_locations:
            for f in sorted(os.listdir(d)):
                if f.endswith(".so") and "pjrt" in f or f == "xla_cuda_plugin.so":
                    return os.path.join(d, f)
    return None


last_gpu_error: str | None = None
# why the CUDA plugin's kernels (Python callbacks, cuSOLVER) are missing, if they are
cuda_kernels_error: str | None = None
_CUDA_EXTENSIONS = ("jax_cuda13_plugin", "jax_cuda12_plugin")


def _register_cuda_kernels(c_api):
    """Register the CUDA plugin package's FFI handlers with the loaded PJRT
    plugin, as JAX's CUDA plugin does on initialisation: the Python callback
    handler (``xla_ffi_python_gpu_callback``) and the cuSOLVER and linear
    algebra kernels the GPU lowerings of ``lax.linalg`` call."""
    import importlib
    global cuda_kernels_error
    for pkg in _CUDA_EXTENSIONS:
        try:
            ext = importlib.import_module(f"{pkg}.cuda_plugin_extension")
        except ImportError:
            continue
        break
    else:
        cuda_kernels_error = ("no CUDA plugin package (jax-cuda12-plugin or jax-cuda13-plugin): "
                              "Python callbacks and linear algebra cannot run on the GPU")
        return
    xc.register_custom_call_handler(
        "CUDA", functools.partial(ext.register_custom_call_target, c_api))
    if hasattr(ext, "register_custom_type"):
        xc.register_custom_type_handler("CUDA", functools.partial(ext.register_custom_type, c_api))
        for name, value in ext.ffi_types().items():
            xc.register_custom_type(name, value, platform="CUDA")
    for name, value in ext.ffi_handlers().items():
        xc.register_custom_call_target(name, value, platform="CUDA", api_version=1)
    for module in ("_solver", "_linalg"):
        try:
            kernels = importlib.import_module(f"{pkg}.{module}").registrations()
        except (ImportError, AttributeError) as e:
            cuda_kernels_error = f"{pkg}.{module}: {e}"
            continue
        for name, value in kernels.items():  # typed-FFI kernels end in _ffi, or are linalg's
            api = 1 if name.endswith("_ffi") or module == "_linalg" else 0
            xc.register_custom_call_target(name, value, platform="CUDA", api_version=api)


def _gpu_client():
    """A CUDA client through jaxlib's PJRT plugin, or None (and the reason in
    ``last_gpu_error``)."""
    global last_gpu_error
    lib = _cuda_plugin_library()
    if lib is None:
        last_gpu_error = "no CUDA PJRT plugin installed"
        return None
    try:
        if not _jax.pjrt_plugin_loaded("cuda"):
            c_api = _jax.load_pjrt_plugin("cuda", lib, None)
            _profiler.register_plugin_profiler(c_api)  # its kernels in profiles (CUPTI)
            _register_cuda_kernels(c_api)
        if not _jax.pjrt_plugin_initialized("cuda"):
            _jax.initialize_pjrt_plugin("cuda")
        options = xc.generate_pjrt_gpu_plugin_options() if hasattr(
            xc, "generate_pjrt_gpu_plugin_options") else {}
        return _jax.get_c_api_client("cuda", options, None)
    except Exception as e:  # no usable GPU: stay on CPU, as JAX does
        last_gpu_error = f"{type(e).__name__}: {e}"
        return None


# The CPU client's part in a run of several processes (its distributed
# runtime client, process id and count, collectives): set by
# ``xjit.distributed.initialize`` before the clients are made.
distributed_cpu_options: dict = {}


class Backends:
    def __init__(self):
        num_cpu = config.jax_num_cpu_devices
        self.clients = {"cpu": xc.make_cpu_client(num_devices=num_cpu if num_cpu >= 0 else None,
                                                  **distributed_cpu_options)}
        wanted = (config.jax_platforms or "").split(",")
        if wanted == [""] or "cuda" in wanted or "gpu" in wanted:
            gpu = _gpu_client()
            if gpu is not None:
                self.clients["gpu"] = gpu
        order = [p.strip() for p in wanted if p.strip()] or ["gpu", "cpu"]
        order = ["gpu" if p == "cuda" else p for p in order]
        self.default_platform = next(p for p in order if p in self.clients)

    # JAX keeps its initialized backends as a dict platform -> client in
    # ``xla_bridge._backends``; libraries read it that way (chex asks
    # ``_backends.get('cpu')`` to see whether the CPU backend is up).
    def get(self, platform, default=None):
        return self.clients.get(platform, default)

    def __getitem__(self, platform):
        return self.clients[platform]

    def __contains__(self, platform):
        return platform in self.clients

    def __iter__(self):
        return iter(self.clients)

    def __len__(self):
        return len(self.clients)

    def keys(self):
        return self.clients.keys()

    def values(self):  # orbax's colocated transport walks every backend's devices
        return self.clients.values()

    def items(self):
        return self.clients.items()


_backends: Backends | None = None
_backends_lock = threading.Lock()


def backends() -> Backends:
    """The process's clients, created once. Two threads racing here would
    otherwise each make a CPU client, and arrays of one would then be passed
    to executables of the other ("on device cpu:0, but replica is assigned to
    device cpu:0")."""
    global _backends
    b = _backends
    if b is None:
        with _backends_lock:
            if _backends is None:
                _backends = Backends()
                config_module.backends_initialized = True
                _update_default_sharding()
            b = _backends
    return b


def get_client(platform=None):
    return backends().clients[platform or default_backend()]


def default_backend() -> str:
    """``jax_platform_name`` when set, else the first of ``jax_platforms`` (or
    of gpu, cpu) that has a client."""
    b = backends()
    name = config.jax_platform_name
    if not name:
        return b.default_platform
    name = "gpu" if name == "cuda" else name
    if name not in b.clients:
        raise RuntimeError(f"Unknown backend: '{name}' requested, but no platforms that are "
                           f"instances of {name} are present. Platforms present are: "
                           + ",".join(b.clients))
    return name


def devices(backend=None):
    if backend == "cuda":
        backend = "gpu"
    try:
        return get_client(backend).devices()
    except KeyError:
        raise RuntimeError(f"Unknown backend {backend}. Available: {list(backends().clients)}") from None


def local_devices(backend=None):
    """This process's devices (all of them unless several processes run)."""
    devices(backend)  # the same error for an unknown backend
    return get_client("gpu" if backend == "cuda" else backend).local_devices()


def device_count(backend=None):
    return len(devices(backend))


@functools.cache
def _platform_default_device(platform=None):
    return local_devices("gpu" if platform == "rocm" else platform)[0]


def default_device():
    """Where new arrays and computations go: ``jax_default_device`` (a device or
    a platform name) when set, else the default backend's first device."""
    chosen = config._values["jax_default_device"]
    if chosen is None or isinstance(chosen, str):
        return _platform_default_device(chosen or default_backend())
    return chosen


@functools.cache
def sharding_for(device) -> Sharding:
    """The ``jax.sharding.SingleDeviceSharding`` of arrays committed to
    ``device`` (one per device: it is asked for on every transfer)."""
    from xjit._src.sharding import SingleDeviceSharding
    return SingleDeviceSharding(device)


@functools.cache
def uncommitted_sharding(device) -> Sharding:
    """The sharding of arrays on ``device`` that are not committed to it: equal
    to ``sharding_for(device)`` but another object, so that the dispatch fast
    paths tell "uncommitted, on the default device" by one identity check."""
    from xjit._src.sharding import SingleDeviceSharding
    return SingleDeviceSharding(device)


# ``uncommitted_sharding(default_device())``, kept current for the hot paths;
# an object no buffer carries until the backends exist.
default_sharding = object()


def _update_default_sharding(name=None, value=None):
    global default_sharding
    if _backends is not None and name in (None, "jax_default_device", "jax_platform_name"):
        try:
            default_sharding = uncommitted_sharding(default_device())
        except RuntimeError:  # a platform not here: setting it is fine, using it raises
            default_sharding = object()


config.add_listener(_update_default_sharding)


@functools.cache
def device_list(device):
    return _jax.DeviceList((device,))


# The host-to-device transfer guard in force: None (allow), or the level
# named by jax_transfer_guard_host_to_device, else by jax_transfer_guard.
_h2d_guard = None


def _update_guard(name, value):
    global _h2d_guard
    if name in ("jax_transfer_guard_host_to_device", "jax_transfer_guard"):
        level = config.jax_transfer_guard_host_to_device or config.jax_transfer_guard
        _h2d_guard = None if level in (None, "allow") else level


config.add_listener(_update_guard)
_update_guard("jax_transfer_guard", None)


def _guard_transfer(aval, device, explicit):
    """Log or refuse a host-to-device transfer as the guard level says; explicit
    transfers (``device_put``) are guarded only by the ``*_explicit`` levels."""
    level = _h2d_guard
    if explicit and not level.endswith("_explicit"):
        return
    what = f"host-to-device transfer: aval={aval!r}, dst_sharding={sharding_for(device)!r}"
    if level.startswith("disallow"):
        from xjit._src.errors import JaxRuntimeError
        raise JaxRuntimeError(f"INVALID_ARGUMENT: Disallowed {what}")
    logging.getLogger("xjit").warning(what)


def transfer_to_device(aval, value: np.ndarray, device=None, explicit=False, committed=False,
                       copy=False):
    """Copy a host array to ``device``; returns jaxlib's ArrayImpl, committed
    to the device only when asked (``device_put(x, device)``). A CPU device
    may otherwise keep using ``value``'s own memory (zero-copy, as JAX's
    ``device_put``); ``copy`` gives the array memory of its own, which a later
    change to ``value`` cannot reach and a donation can reuse."""
    device = device or default_device()
    if _h2d_guard is not None:
        _guard_transfer(aval, device, explicit)
    sharding = sharding_for(device) if committed else uncommitted_sharding(device)
    return _jax.batched_device_put(aval, sharding, [value], [device], committed=committed,
                                   force_copy=copy, enable_x64=config.jax_enable_x64)


def copy_to_device(buf, device):
    """A device buffer's copy on ``device`` (uncommitted): how an uncommitted
    argument joins a computation that runs elsewhere. (jaxlib's copy of a
    deleted buffer crashes the process: JAX's error instead.)"""
    if buf.is_deleted():
        raise RuntimeError(f"Array has been deleted with shape={buf.aval.str_short(False)}.")
    return _jax.batched_copy_array_to_devices_with_sharding(
        [buf], [device_list(device)], [uncommitted_sharding(device)],
        [_jax.ArrayCopySemantics.ALWAYS_COPY])[0]


def result_handler(aval, device=None, committed=False):
    if getattr(aval.dtype, "extended", False):  # key arrays hold their physical data
        aval = aval.dtype.physical_aval(aval)
    device = device or default_device()
    sharding = sharding_for(device) if committed else uncommitted_sharding(device)
    try:
        return _jax.array_result_handler(aval, sharding, committed, _skip_checks=True)
    except TypeError:  # jaxlib versions without the _skip_checks keyword
        return _jax.array_result_handler(aval, sharding, committed)


Device = _jax.Device
