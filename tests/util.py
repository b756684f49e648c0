"""Helpers shared by the test files (``import util``: pytest puts ``tests/`` on
``sys.path``, as it does for every test directory without ``__init__.py``)."""
from __future__ import annotations

import importlib
import importlib.util
import os
import warnings

import numpy as np

from differential.harness import differential_tests  # noqa: F401 (re-exported)


def differential_cases(name):
    """The recorded JAX cases of ``tests/differential/cases_<name>.py``."""
    return importlib.import_module(f"differential.cases_{name}").CASES


def load_script(name):
    """``scripts/<name>.py`` as a module (the scripts are not a package)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts",
                        f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_close(got, want, tol=1e-4):
    """Same shape, and values within ``tol`` (relative and absolute)."""
    got = np.asarray(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def close(a, b, rtol=2e-5, atol=1e-6):
    """Values within tolerance, compared in float64 (shapes may broadcast)."""
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=rtol,
                               atol=atol)


def eval_expr(code, **env):
    """What an expression gives with xjit as ``jax``, as JAX's recorded text:
    ``str`` of a jaxpr, ``repr`` of anything else, ``Class: first line`` of an
    error."""
    import xjit as jax
    import xjit.numpy as jnp
    from xjit import lax
    scope = dict(jax=jax, jnp=jnp, lax=lax, np=np, **env)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = eval(code, scope)
        return str(v) if type(v).__name__ in ("ClosedJaxpr", "Jaxpr") else repr(v)
    except Exception as e:  # the class and first line of the message are compared
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
