"""Taking over the name ``jax``: after :func:`install_as_jax`, every later
``import jax``, ``import jax.X`` and ``from jax.X import y`` -- in user code and
in installed libraries alike -- gives xjit's module of the same dotted path
(``jax.numpy`` is ``xjit.numpy``, ``jax._src.traceback_util`` is
``xjit._src.traceback_util``). ``jaxlib`` is untouched: it stays the real
jaxlib that xjit compiles and runs with.

The mechanism is an import-system finder placed first on ``sys.meta_path``.
For a name under ``jax`` it answers with a spec whose loader hands back the
already-imported (or freshly imported) xjit module, so the two names share one
module object and xjit's modules keep their own ``__name__``/``__spec__``
(their relative imports and pickled references keep naming ``xjit``). A name
xjit does not have is not found, and ``import jax.missing`` raises
``ModuleNotFoundError`` as it would with JAX. A real ``jax`` installed in the
same environment is never reached: the finder answers before the path-based
finders look at site-packages.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading

ALIAS = "jax"
TARGET = "xjit"
OPT_OUT_ENV = "XJIT_NO_JAX_TAKEOVER"

_lock = threading.Lock()


class JaxAlreadyImportedError(RuntimeError):
    """``install_as_jax`` was called after the real ``jax`` was imported: the
    two would then live side by side in one process, with arrays and tracers
    of one reaching the other."""


def _target_name(fullname: str) -> str | None:
    """``jax.a.b`` -> ``xjit.a.b``; None for names outside ``jax``."""
    if fullname == ALIAS:
        return TARGET
    if fullname.startswith(ALIAS + "."):
        return TARGET + fullname[len(ALIAS):]
    return None


class _AliasLoader(importlib.abc.Loader):
    """Loads ``jax.X`` by importing ``xjit.X`` and returning that module object."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        # importlib only fills module attributes that are missing, so xjit's
        # module keeps its own __name__, __spec__, __path__ and __file__.
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass  # already executed under its xjit name


class JaxAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``jax`` and ``jax.*`` to xjit's modules of the same path."""

    def find_spec(self, fullname, path=None, target=None):
        target_name = _target_name(fullname)
        if target_name is None:
            return None
        loaded = sys.modules.get(target_name)
        if loaded is not None:
            is_package = hasattr(loaded, "__path__")
        else:
            target_spec = importlib.util.find_spec(target_name)
            if target_spec is None:
                return None  # nothing of that name in xjit: ModuleNotFoundError, as with JAX
            is_package = target_spec.submodule_search_locations is not None
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(target_name), is_package=is_package)

    def invalidate_caches(self):
        pass

    def __repr__(self):
        return f"<{type(self).__name__}: {ALIAS} -> {TARGET}>"


_finder: JaxAliasFinder | None = None


def _foreign_jax_modules() -> list[str]:
    """Names under ``jax`` in sys.modules that are not xjit's modules."""
    own = {id(m) for name, m in sys.modules.items()
           if m is not None and (name == TARGET or name.startswith(TARGET + "."))}
    return sorted(name for name, m in list(sys.modules.items())
                  if _target_name(name) is not None and id(m) not in own)


def is_installed() -> bool:
    """Whether ``import jax`` resolves to xjit in this process."""
    return _finder is not None and _finder in sys.meta_path


def install_as_jax() -> None:
    """Make every later ``import jax`` / ``import jax.X`` / ``from jax.X import y``
    resolve to xjit's module of the same path, in this process.

    Calling it again is harmless. Raises :class:`JaxAlreadyImportedError`
    (a ``RuntimeError``) when the real ``jax`` has already been imported.
    """
    global _finder
    with _lock:
        foreign = _foreign_jax_modules()
        if foreign:
            origin = getattr(sys.modules.get(ALIAS), "__file__", None)
            where = f" (from {os.path.dirname(origin)})" if origin else ""
            raise JaxAlreadyImportedError(
                f"xjit.install_as_jax() must run before anything imports jax, but the "
                f"real jax is already imported in this process{where}: "
                f"{', '.join(foreign[:5])}{', ...' if len(foreign) > 5 else ''}. "
                f"Call it first thing (or start the program with `python -m xjit SCRIPT`), "
                f"or restart the kernel and run `%load_ext xjit` before `import jax`.")
        if _finder is None:
            _finder = JaxAliasFinder()
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)
        # Names already imported under xjit become visible under jax at once, so
        # `sys.modules["jax"]` is set even before the first `import jax`.
        for name, module in list(sys.modules.items()):
            if module is not None and (name == TARGET or name.startswith(TARGET + ".")):
                sys.modules.setdefault(ALIAS + name[len(TARGET):], module)


def takeover_disabled() -> bool:
    """True when the environment asks to keep ``jax`` as it is (notebooks)."""
    return os.environ.get(OPT_OUT_ENV, "").strip().lower() not in ("", "0", "false", "no")


_NOTEBOOK_MESSAGE = (
    "xjit: `import jax` now gives xjit in this kernel (jax.numpy is xjit.numpy, ...). "
    f"To keep the real jax, restart the kernel and run `%env {OPT_OUT_ENV}=1` "
    "before `%load_ext xjit`.")
_notebook_announced = False


def notebook_takeover(write=print) -> bool:
    """What ``%load_ext xjit`` does about ``jax``: install the takeover unless
    :data:`OPT_OUT_ENV` opts out, and say so (once per process). If the real jax
    is already imported, the magics still load and the message says why
    ``jax`` was left alone. Returns whether the takeover is in place."""
    global _notebook_announced
    if takeover_disabled():
        return False
    already = is_installed()
    try:
        install_as_jax()
    except JaxAlreadyImportedError:
        if not _notebook_announced:
            write("xjit: the real jax was imported before `%load_ext xjit`, so `import jax` "
                  "keeps giving it; restart the kernel and load xjit first to run "
                  "the notebook on xjit.")
            _notebook_announced = True
        return False
    if not already and not _notebook_announced:
        write(_NOTEBOOK_MESSAGE)
        _notebook_announced = True
    return True
