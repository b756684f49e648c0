"""Shared pytest set-up.

* Makes ``import xjit`` and ``import xjit_kernel_ext`` work without an install
  (adds ``core/``, ``kernel_ext/`` to sys.path only when the package is not
  importable already, e.g. the editable install is missing): the one place
  tests touch sys.path.
* The ``compare`` marker: tests that need the real JAX (``pip install -e
  '.[compare]'``) are skipped when jax is not importable.
"""
from __future__ import annotations

import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

for _package, _folder in (("xjit", "core"), ("xjit_kernel_ext", "kernel_ext")):
    if importlib.util.find_spec(_package) is None:
        sys.path.insert(0, os.path.join(ROOT, _folder))


def _have_jax() -> bool:
    try:
        return importlib.util.find_spec("jax") is not None
    except (ImportError, ValueError):
        return False


HAVE_JAX = _have_jax()


def pytest_configure(config):
    # Also declared in pyproject.toml; registering here keeps `--strict-markers`
    # happy when pytest is run without that config file.
    config.addinivalue_line(
        "markers", "compare: needs jax installed (pip install -e '.[compare]'); skipped otherwise"
    )


def pytest_collection_modifyitems(config, items):
    if HAVE_JAX:
        return
    skip = pytest.mark.skip(reason="needs jax installed (pip install -e '.[compare]')")
    for item in items:
        if "compare" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="module")
def _undo_jax_takeover():
    """An in-process `%load_ext xjit` makes `import jax` give xjit for the rest
    of the process. Under xdist several files share a worker, so a later file's
    `import jax` would get xjit instead of the real JAX it compares against, and
    its oracle checks would compare xjit with itself. Undo the takeover after
    each module that installed it."""
    yield
    takeover = sys.modules.get("xjit._src.jax_takeover")
    if takeover is None or not takeover.is_installed():
        return
    sys.meta_path.remove(takeover._finder)
    for name, module in list(sys.modules.items()):
        if (name == "jax" or name.startswith("jax.")) and \
                getattr(module, "__name__", "").split(".")[0] == "xjit":
            del sys.modules[name]
