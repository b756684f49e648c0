"""Configuration flags, read as attributes (``config.jax_enable_x64``) and set
with ``config.update``; each flag also has a context manager, as in JAX.

Flags that change what a trace produces (x64, debug_nans, ...) are part of the
jit cache key: ``config.trace_key`` is a tuple that changes whenever one of them
does, so caches never serve a stale executable.
"""
from __future__ import annotations

import contextlib
import enum
import functools
import os

__all__ = ["config", "Config"]


def _env_bool(name: str, default: bool) -> bool:
    val = os.environ.get(name.upper())
    if val is None:
        return default
    return val.strip().lower() in ("1", "true", "t", "yes", "y", "on")


class _Flag:
    __slots__ = ("name", "default", "in_key", "doc", "validate")

    def __init__(self, name, default, in_key, doc, validate=None):
        self.name, self.default, self.in_key, self.doc = name, default, in_key, doc
        self.validate = validate


class Config:
    """Holds every flag's value; unknown names raise AttributeError as in JAX."""

    def __init__(self):
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_listeners", [])
        object.__setattr__(self, "trace_key", ())

    def define_bool(self, name: str, default: bool, doc: str = "", in_key: bool = False):
        value = _env_bool(name, default)
        self._flags[name] = _Flag(name, default, in_key, doc, _check_bool)
        self._values[name] = value
        self._refresh_key()
        return _FlagHolder(self, name)

    def define(self, name: str, default, doc: str = "", in_key: bool = False, validate=None):
        self._flags[name] = _Flag(name, default, in_key, doc, validate)
        env = os.environ.get(name.upper())
        self._values[name] = default if env is None or validate is None else validate(name, env)
        self._refresh_key()
        return _FlagHolder(self, name)

    @property
    def values(self):
        return dict(self._values)

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"Unrecognized config option: {name}") from None

    def __setattr__(self, name, value):
        raise AttributeError("Use config.update(name, value) to change a flag.")

    def read(self, name):
        return getattr(self, name)

    def update(self, name: str, value):
        flag = self._flags.get(name)
        if flag is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        if flag.validate is not None:
            value = flag.validate(name, value)
        self._values[name] = value
        if flag.in_key:
            self._refresh_key()
        for cb in self._listeners:
            cb(name, value)

    def parse_flags_with_absl(self):
        """Take ``--jax_<flag>=<value>`` (and ``--jax_<flag>``/``--nojax_<flag>``
        for booleans) from the command line, as JAX does for tests run with
        absl flags; other arguments are left alone."""
        import sys
        for arg in sys.argv[1:]:
            if not arg.startswith(("--jax_", "--nojax_")):
                continue
            name, sep, value = arg[2:].partition("=")
            negated = name.startswith("no")
            name = name[2:] if negated else name
            flag = self._flags.get(name)
            if flag is None:
                continue
            if not sep:
                if flag.validate is not _check_bool:
                    continue
                value = not negated
            self.update(name, value)
        try:  # JAX's parse also marks absl's flags parsed (tests read FLAGS.test_tmpdir)
            import absl.flags
        except ImportError:
            return
        if not absl.flags.FLAGS.is_parsed():
            absl.flags.FLAGS([""], known_only=True)

    def add_listener(self, callback):
        """Called as ``callback(name, value)`` after every update."""
        self._listeners.append(callback)

    def _refresh_key(self):
        key = tuple(self._values[n] for n, f in self._flags.items() if f.in_key)
        object.__setattr__(self, "trace_key", key)

    @property
    def trace_key_names(self):
        """The flag names of ``trace_key``'s entries, in order (to explain a retrace)."""
        return tuple(n for n, f in self._flags.items() if f.in_key)

    @contextlib.contextmanager
    def override(self, name: str, value):
        old = getattr(self, name)
        self.update(name, value)
        try:
            yield
        finally:
            self.update(name, old)


def _check_bool(name, value):
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "t", "yes", "y", "on")
    return bool(value)


def _enum(choices, allow_none=False):
    """A validator accepting exactly ``choices`` (and None), with JAX's message."""
    def validate(name, value):
        if value in choices or (allow_none and value is None):
            return value
        raise ValueError(f"new enum value must be {'None or ' if allow_none else ''}in "
                         f"{list(choices)}, got {value} of type {type(value)}.")
    return validate


class _FlagHolder:
    """What ``define_*`` returns: ``.value`` reads the flag; calling it with a
    value gives a context manager (``with debug_nans(True): ...``)."""

    __slots__ = ("_config", "name")

    def __init__(self, config, name):
        self._config, self.name = config, name

    @property
    def value(self):
        return self._config._values[self.name]

    def __call__(self, new_value=True):
        return self._config.override(self.name, new_value)


config = Config()

enable_x64 = config.define_bool(
    "jax_enable_x64", False, "Enable 64-bit types.", in_key=True)
debug_nans = config.define_bool(
    "jax_debug_nans", False, "Raise FloatingPointError when an op produces a NaN.", in_key=True)
debug_infs = config.define_bool(
    "jax_debug_infs", False, "Raise FloatingPointError when an op produces an inf.", in_key=True)
class _DisableJit(_FlagHolder):
    """``jax.disable_jit(disable=True)``: JAX names its argument ``disable``."""

    __slots__ = ()

    def __call__(self, disable=True):
        return self._config.override(self.name, disable)


disable_jit = _DisableJit(config, config.define_bool(
    "jax_disable_jit", False, "Run jitted functions op by op.", in_key=True).name)
explain_cache_misses = config.define_bool(
    "jax_explain_cache_misses", False, "Log why a jitted function was retraced.")
log_compiles = config.define_bool(
    "jax_log_compiles", False, "Log every compilation.")
numpy_rank_promotion = config.define(
    "jax_numpy_rank_promotion", "allow", "allow, warn or raise on implicit rank promotion.",
    in_key=True, validate=_enum(("allow", "warn", "raise")))
default_matmul_precision = config.define(
    "jax_default_matmul_precision", None, "Default matmul precision.", in_key=True,
    validate=_enum(("default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
                    "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
                    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32",
                    "BF16_BF16_BF16", "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6",
                    "BF16_BF16_F32_X9", "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32",
                    "F64_F64_F64"), allow_none=True))
platforms = config.define("jax_platforms", None, "Comma-separated platform names.")
compilation_cache_dir = config.define(
    "jax_compilation_cache_dir", None, "Directory of the persistent compilation cache.",
    validate=lambda name, value: None if value is None else os.fspath(value))
enable_compilation_cache = config.define_bool(
    "jax_enable_compilation_cache", True, "Use the persistent cache when a directory is set.")
persistent_cache_min_compile_time_secs = config.define(
    "jax_persistent_cache_min_compile_time_secs", 1.0,
    "Programs that compile faster than this are not written to the persistent cache.",
    validate=lambda name, value: float(value))
persistent_cache_min_entry_size_bytes = config.define(
    "jax_persistent_cache_min_entry_size_bytes", 0,
    "Executables smaller than this are not written to the persistent cache.",
    validate=lambda name, value: int(value))
platform_name = config.define(  # JAX deprecates it, but notebooks still set it
    "jax_platform_name", "", "The default backend's platform (older than jax_platforms).",
    in_key=True, validate=lambda name, value: str(value or "").lower())


class NumpyDtypePromotion(enum.StrEnum):
    """Values of ``jax_numpy_dtype_promotion`` (the enum doubles as validator)."""
    STANDARD = "standard"
    STRICT = "strict"


numpy_dtype_promotion = config.define(
    "jax_numpy_dtype_promotion", NumpyDtypePromotion.STANDARD,
    "'standard' promotes across kinds and widths; 'strict' allows only weak scalars.",
    in_key=True, validate=lambda name, value: NumpyDtypePromotion(value))

_PLATFORM_NAMES = ("cpu", "gpu", "cuda", "rocm", "tpu")


def _check_device(name, value):
    if value is None or value in _PLATFORM_NAMES or hasattr(value, "client"):
        return value
    raise ValueError("jax.default_device must be passed either a Device object (e.g. "
                     "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu'"
                     f", got: {value!r}")


default_device = config.define(
    "jax_default_device", None, "Device (or platform name) for new arrays and computations.",
    in_key=True, validate=_check_device)

_GUARD_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
transfer_guard_host_to_device = config.define(
    "jax_transfer_guard_host_to_device", None, "Guard level for host-to-device transfers.",
    validate=_enum(_GUARD_LEVELS, allow_none=True))
transfer_guard_device_to_host = config.define(
    "jax_transfer_guard_device_to_host", None, "Guard level for device-to-host transfers.",
    validate=_enum(_GUARD_LEVELS, allow_none=True))
transfer_guard_device_to_device = config.define(
    "jax_transfer_guard_device_to_device", None, "Guard level for device-to-device transfers.",
    validate=_enum(_GUARD_LEVELS, allow_none=True))
_transfer_guard_all = config.define(
    "jax_transfer_guard", None, "Guard level for every kind of transfer (a direction's own "
    "flag takes precedence).", validate=_enum(_GUARD_LEVELS, allow_none=True))


@contextlib.contextmanager
def transfer_guard(new_value):
    """Set every direction's transfer guard at once, for the duration of a block."""
    with contextlib.ExitStack() as stack:
        for flag in (transfer_guard_host_to_device, transfer_guard_device_to_host,
                     transfer_guard_device_to_device, _transfer_guard_all):
            stack.enter_context(flag(new_value))
        yield


check_tracer_leaks = config.define_bool(
    "jax_check_tracer_leaks", False, "Raise when a tracer outlives the trace that made it.",
    in_key=True)
checking_leaks = functools.partial(check_tracer_leaks, True)
debug_key_reuse = config.define_bool(
    "jax_debug_key_reuse", False, "Raise KeyReuseError when a PRNG key is consumed twice.",
    in_key=True)
high_dynamic_range_gumbel = config.define_bool(
    "jax_high_dynamic_range_gumbel", False,
    "Sample gumbel (and categorical) in mode='high' by default.", in_key=True)


def _check_int(name, value):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer, got {value!r}") from None


traceback_filtering = config.define(
    "jax_traceback_filtering", "auto",
    "How xjit's internal frames are filtered out of tracebacks: off, tracebackhide, "
    "remove_frames, quiet_remove_frames, or auto (tracebackhide under IPython, else "
    "quiet_remove_frames).",
    validate=_enum(("off", "tracebackhide", "remove_frames", "quiet_remove_frames", "auto")))
def _check_budget(name, value):
    return None if value is None else _check_int(name, value)


recompile_budget = config.define(
    "xjit_recompile_budget", None,
    "After this many recompiles of one jitted function, warn (naming the argument that keeps "
    "changing); 0 disables the check. Unset (None), it is off, as JAX has no such warning, "
    "until `%load_ext xjit` sets it to 8.", validate=_check_budget)
recompile_budget_error = config.define_bool(
    "xjit_recompile_budget_error", False,
    "Raise instead of warning when a function exceeds xjit_recompile_budget.")


backends_initialized = False  # set by xla_bridge once the PJRT clients exist


def _check_before_backends(name, value):
    """Device-count flags shape the clients, so they are fixed once those exist."""
    if isinstance(value, str) and value.lstrip("-").isdigit():  # from the environment
        value = int(value)
    if not isinstance(value, int):
        raise ValueError("new int config value must be None or of type int, got "
                         f"{value} of type {type(value)}")
    if backends_initialized and value != config._values[name]:
        raise RuntimeError(f"{name} config should be updated before backends are initialized "
                           "i.e. before any JAX operation is executed. You should initialize "
                           "this config immediately after `import jax`.")
    return value


num_cpu_devices = config.define(
    "jax_num_cpu_devices", -1, "Number of CPU devices (-1: one, or what "
    "--xla_force_host_platform_device_count says). Set before any operation runs.",
    validate=_check_before_backends)
