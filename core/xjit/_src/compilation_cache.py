"""The persistent compilation cache: compiled executables kept on disk, so a
restarted kernel or a new process loads a program instead of compiling it
again (``jax.experimental.compilation_cache``; on once
``jax_compilation_cache_dir`` names a directory).

An entry is the serialized executable, under a hash of everything that
decides what XLA builds: the StableHLO text, the compile options, the
devices it runs on, the platform and the jaxlib and xjit versions. Programs
with host callbacks are not cached (their callbacks live in this process).
Only programs that took at least ``jax_persistent_cache_min_compile_time_secs``
to compile are written, as in JAX.
"""
from __future__ import annotations

import hashlib
import logging
import os
import tempfile

from xjit._src.config import config

_log = logging.getLogger("xjit")


def set_cache_dir(path) -> None:
    """Keep compiled programs in ``path`` (created when first written)."""
    config.update("jax_compilation_cache_dir", path)


def reset_cache() -> None:
    """Stop using the persistent cache until a directory is set again."""
    config.update("jax_compilation_cache_dir", None)


def _directory():
    path = config.jax_compilation_cache_dir
    return path if path and config.jax_enable_compilation_cache else None


def cache_key(module_text: str, executable_devices, options, client) -> str:
    import jaxlib

    from xjit.version import __version__
    h = hashlib.sha256()
    for part in (module_text.encode(), options.SerializeAsString(),
                 repr([(d.platform, d.device_kind, d.id) for d in executable_devices]).encode(),
                 f"{client.platform} {client.platform_version}".encode(),
                 f"jaxlib {jaxlib.__version__} xjit {__version__}".encode()):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def load(module_text, executable_devices, options, client):
    """(key, the cached executable or None); key is None when caching is off."""
    directory = _directory()
    if directory is None or not isinstance(module_text, str):
        return None, None
    key = cache_key(module_text, executable_devices, options, client)
    try:
        with open(os.path.join(directory, key), "rb") as f:
            data = f.read()
    except OSError:
        return key, None
    try:
        exe = client.deserialize_executable(data, executable_devices, options)
    except Exception as e:  # a damaged or foreign entry: compile instead, as JAX does
        _log.warning("persistent compilation cache: could not load %s (%s); compiling", key, e)
        return key, None
    _log.debug("persistent compilation cache hit: %s", key)
    return key, exe


def store(key, exe, compile_seconds) -> None:
    """Write ``exe`` under ``key`` if it took long enough to compile."""
    directory = _directory()
    if directory is None or compile_seconds < config.jax_persistent_cache_min_compile_time_secs:
        return
    data = exe.serialize()
    if len(data) < config.jax_persistent_cache_min_entry_size_bytes:
        return
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(directory, key))  # readers never see half an entry
    except OSError as e:  # a full or read-only disk costs a recompile later, nothing more
        _log.warning("persistent compilation cache: could not write %s (%s)", key, e)
