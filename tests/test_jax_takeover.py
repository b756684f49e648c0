"""xjit.install_as_jax() / `python -m xjit`: `import jax` resolves to xjit.

Each case runs in a fresh interpreter, since the takeover (and the refusal
after a real `import jax`) is a property of the whole process."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "core"), env.get("PYTHONPATH")) if p)
    env.pop("XJIT_NO_JAX_TAKEOVER", None)
    return env


def run_python(*args, cwd=None):
    return subprocess.run([sys.executable, *args], env=_env(), cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def run_code(code: str):
    proc = run_python("-c", textwrap.dedent(code))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_import_jax_gives_xjit_modules():
    out = run_code("""
        import sys
        import xjit
        xjit.install_as_jax()
        import jax, jax.numpy as jnp
        import jax.lax, jax.random, jax.tree_util
        import jax._src.core
        import xjit.lax, xjit.random, xjit.tree_util, xjit._src.core
        assert jax is xjit and jnp is xjit.numpy, (jax, jnp)
        assert jax.lax is xjit.lax and jax.random is xjit.random
        assert sys.modules["jax.tree_util"] is xjit.tree_util
        assert sys.modules["jax._src.core"] is xjit._src.core
        # module attributes stay xjit's own
        assert jnp.__name__ == "xjit.numpy" and jnp.__spec__.name == "xjit.numpy"
        print(jax.jit(lambda x: jnp.sin(x) * 2)(jnp.float32(1.0)))
    """)
    assert out.strip() == "1.6829419"  # as JAX prints sin(1) * 2 in float32


def test_from_import_and_importlib():
    out = run_code("""
        import importlib
        from xjit._src.jax_takeover import install_as_jax
        install_as_jax()
        from jax.numpy import sin
        from jax import lax as L, numpy as jnp
        import xjit.numpy
        assert sin is xjit.numpy.sin and L.add is xjit.lax.add and jnp is xjit.numpy
        m = importlib.import_module("jax.scipy.special")
        import xjit.scipy.special
        assert m is xjit.scipy.special
        print(type(sin(0.5)).__module__.split(".")[0])
    """)
    assert out.strip() == "xjit"


def test_missing_module_is_not_found_as_with_jax():
    out = run_code("""
        from xjit._src.jax_takeover import install_as_jax
        install_as_jax()
        try:
            import jax.no_such_module
        except ModuleNotFoundError as e:
            print(e)
    """)
    assert out.strip() == "No module named 'jax.no_such_module'"


def test_real_jax_is_never_loaded_even_when_installed():
    out = run_code("""
        import importlib.util, sys
        from xjit._src.jax_takeover import install_as_jax
        install_as_jax()
        import jax, jax.numpy, jax.lax
        files = [getattr(m, "__file__", None) or "" for n, m in sys.modules.items()
                 if n == "jax" or n.startswith("jax.")]
        assert files and all("/xjit/" in f for f in files if f), files
        assert importlib.util.find_spec("jax").origin.endswith("xjit/__init__.py")
        import jaxlib
        assert "site-packages" in jaxlib.__file__ or "jaxlib" in jaxlib.__file__
        print("ok")
    """)
    assert out.strip() == "ok"


def test_install_twice_is_harmless():
    out = run_code("""
        import sys
        from xjit._src.jax_takeover import install_as_jax, is_installed
        install_as_jax(); install_as_jax()
        import jax
        print(is_installed(), sum(type(f).__name__ == "JaxAliasFinder" for f in sys.meta_path))
    """)
    assert out.split() == ["True", "1"]


def test_refuses_after_real_jax_was_imported():
    pytest.importorskip("jax")  # needs the real jax in this environment
    proc = run_python("-c", textwrap.dedent("""
        import jax
        from xjit._src.jax_takeover import install_as_jax
        install_as_jax()
    """))
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("xjit._src.jax_takeover.JaxAlreadyImportedError: "
                           "xjit.install_as_jax() must run before anything imports jax"), last
    assert "RuntimeError" in run_code("""
        from xjit._src.jax_takeover import JaxAlreadyImportedError
        print(JaxAlreadyImportedError.__mro__[1].__name__)
    """)


def test_python_dash_m_xjit_runs_a_script_with_its_args(tmp_path):
    (tmp_path / "helper_mod.py").write_text("VALUE = 41\n")
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import sys
        import jax
        import jax.numpy as jnp
        from helper_mod import VALUE          # the script's directory is on sys.path
        print(jax.__name__, sys.argv[1:], __name__, VALUE + 1)
        print(jax.grad(lambda x: jnp.sum(x ** 2))(jnp.arange(3.0)))
        sys.exit(3)
    """))
    proc = run_python("-m", "xjit", str(script), "--lr", "0.1", cwd=str(ROOT))
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.splitlines() == [
        "xjit ['--lr', '0.1'] __main__ 42", "[0. 2. 4.]"]


def test_python_dash_m_xjit_runs_a_module(tmp_path):
    (tmp_path / "tool.py").write_text(
        "import sys, jax\nprint(jax.__name__, __name__, sys.argv[1:])\n")
    proc = run_python("-m", "xjit", "-m", "tool", "x", cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "xjit __main__ ['x']"


def test_python_dash_m_xjit_usage_errors(tmp_path):
    proc = run_python("-m", "xjit")
    assert proc.returncode == 2 and "usage: python -m xjit SCRIPT" in proc.stderr
    proc = run_python("-m", "xjit", str(tmp_path / "missing.py"))
    assert proc.returncode == 2 and "can't open file" in proc.stderr


def test_notebook_takeover_announces_once_and_opt_out():
    out = run_code("""
        import os
        from xjit._src import jax_takeover as t
        said = []
        os.environ["XJIT_NO_JAX_TAKEOVER"] = "1"
        assert t.notebook_takeover(said.append) is False and not t.is_installed()
        del os.environ["XJIT_NO_JAX_TAKEOVER"]
        assert t.notebook_takeover(said.append) is True
        assert t.notebook_takeover(said.append) is True
        import jax, xjit
        assert jax is xjit
        print(len(said)); print(said[0])
    """)
    n, message = out.strip().split("\n", 1)
    assert n == "1"
    assert message.startswith("xjit: `import jax` now gives xjit") and "XJIT_NO_JAX_TAKEOVER=1" in message


def test_notebook_takeover_after_real_jax_explains_and_continues():
    pytest.importorskip("jax")
    out = run_code("""
        import jax
        from xjit._src import jax_takeover as t
        said = []
        print(t.notebook_takeover(said.append), t.is_installed())
        print(said[0])
    """)
    first, message = out.strip().split("\n", 1)
    assert first == "False False"
    assert "the real jax was imported before `%load_ext xjit`" in message


def test_load_ext_xjit_takes_over_and_says_so_once():
    pytest.importorskip("IPython")
    out = run_code("""
        from IPython.testing.globalipapp import start_ipython
        ip = start_ipython()
        ip.run_line_magic("load_ext", "xjit")
        ip.run_line_magic("reload_ext", "xjit")
        ip.run_cell("import jax, xjit; print('same', jax is xjit)")
    """)
    lines = out.strip().splitlines()
    assert sum(l.startswith("xjit: `import jax` now gives xjit") for l in lines) == 1, out
    assert lines[-1] == "same True"


def test_load_ext_xjit_opt_out():
    pytest.importorskip("IPython")
    out = run_code("""
        from IPython.testing.globalipapp import start_ipython
        ip = start_ipython()
        ip.run_line_magic("env", "XJIT_NO_JAX_TAKEOVER=1")
        ip.run_line_magic("load_ext", "xjit")
        import sys
        print("taken", "jax" in sys.modules and sys.modules["jax"].__name__ == "xjit")
    """)
    assert "now gives xjit" not in out
    assert out.strip().splitlines()[-1] == "taken False"
