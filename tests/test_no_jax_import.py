"""xjit is an engine of its own: nothing under core/, kernel_ext/ or widgets/ may
import ``jax`` (``jaxlib`` is fine). Checked statically (ast scan) and at run time
(importing xjit must not pull jax into sys.modules)."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED_DIRS = ("core", "kernel_ext", "widgets")
SKIP_DIR_NAMES = {"__pycache__", "node_modules", ".ipynb_checkpoints", "build", "dist"}


def _is_jax(name: str | None) -> bool:
    return bool(name) and (name == "jax" or name.startswith("jax."))


def _dynamic_import_target(node: ast.Call) -> str | None:
    """'jax...' from ``importlib.import_module("jax...")`` / ``__import__("jax...")``."""
    func = node.func
    is_dyn = (isinstance(func, ast.Name) and func.id in ("__import__", "import_module")) or (
        isinstance(func, ast.Attribute) and func.attr == "import_module"
    )
    if is_dyn and node.args and isinstance(node.args[0], ast.Constant):
        val = node.args[0].value
        if isinstance(val, str):
            return val
    return None


def find_jax_imports(path: Path) -> list[tuple[int, str]]:
    """(line, text) for every import of jax in one Python file."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_jax(alias.name):
                    hits.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and _is_jax(node.module):
                hits.append((node.lineno, f"from {node.module} import ..."))
        elif isinstance(node, ast.Call):
            target = _dynamic_import_target(node)
            if _is_jax(target):
                hits.append((node.lineno, f"dynamic import of {target!r}"))
    return sorted(hits)


def scan(root: Path, dirs=SCANNED_DIRS) -> list[str]:
    """'path:line: what' for every jax import under root/<dirs> (those that exist)."""
    problems = []
    for d in dirs:
        base = root / d
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(n for n in dirnames if n not in SKIP_DIR_NAMES)
            for fn in sorted(filenames):
                if not fn.endswith(".py"):
                    continue
                p = Path(dirpath) / fn
                rel = p.relative_to(root)
                try:
                    hits = find_jax_imports(p)
                except SyntaxError as e:
                    problems.append(f"{rel}:{e.lineno}: cannot parse ({e.msg})")
                    continue
                problems.extend(f"{rel}:{line}: {what}" for line, what in hits)
    return problems


def test_no_jax_import_in_sources():
    problems = scan(ROOT)
    assert not problems, "jax must not be imported by xjit sources:\n" + "\n".join(problems)


def test_scanner_catches_planted_jax_import(tmp_path):
    pkg = tmp_path / "core" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "ok.py").write_text(
        textwrap.dedent(
            """
            import jaxlib
            from jaxlib import xla_client
            import numpy as np
            from . import jax  # relative import of a sibling named jax: not the jax package
            s = "import jax"
            """
        )
    )
    (pkg / "bad.py").write_text("import os\nimport jax.numpy as jnp\n")
    (pkg / "bad2.py").write_text("def f():\n    from jax import lax\n    return lax\n")
    (pkg / "bad3.py").write_text("import importlib\nm = importlib.import_module('jax')\n")
    (tmp_path / "widgets").mkdir()
    (tmp_path / "widgets" / "w.py").write_text("import jax\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "t.py").write_text("import jax\n")  # tests/ is not scanned

    problems = scan(tmp_path)
    assert problems == [
        os.path.join("core", "pkg", "bad.py") + ":2: import jax.numpy",
        os.path.join("core", "pkg", "bad2.py") + ":2: from jax import ...",
        os.path.join("core", "pkg", "bad3.py") + ":2: dynamic import of 'jax'",
        os.path.join("widgets", "w.py") + ":1: import jax",
    ]


def test_importing_xjit_does_not_import_jax():
    if not (ROOT / "core" / "xjit" / "__init__.py").exists():
        pytest.skip("core/xjit/__init__.py does not exist yet")
    # Importing is not enough: jaxlib's own host-copy methods import the jax
    # package when one is installed, so read arrays of every dtype back too.
    code = textwrap.dedent("""
        import sys, numpy as np, xjit, xjit.numpy as jnp
        for dt in ("bool", "int8", "uint32", "float16", "bfloat16", "float32", "complex64",
                   "float8_e4m3fn", "int4"):
            x = jnp.ones(3, dt)
            x.copy_to_host_async()
            assert np.asarray(x).tolist() == np.ones(3, x.dtype).tolist(), dt
        big = jnp.ones((1100, 1000))  # over 4 MiB: read in place by jaxlib
        assert np.asarray(big).sum() == 1100000
        y = xjit.jit(lambda a: a * 2)(jnp.arange(4.0))
        assert np.asarray(y).tolist() == [0.0, 2.0, 4.0, 6.0]
        assert xjit.device_get({"y": y})["y"].tolist() == [0.0, 2.0, 4.0, 6.0]
        assert float(jnp.sum(y)) == 12.0 and str(y) == "[0. 2. 4. 6.]"
        bad = sorted(m for m in sys.modules if m == "jax" or m.startswith("jax."))
        assert not bad, bad
        """)
    env = dict(os.environ)
    # Works with or without the editable install.
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "core"), env.get("PYTHONPATH")) if p
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, (
        f"importing xjit failed or pulled in jax:\n{proc.stdout}\n{proc.stderr}"
    )


def test_splitting_sharded_arrays_does_not_import_jax():
    """jaxlib's C++ imports ``jax.core`` and ``jax._src.sharding_impls`` when it
    splits an array into one-device shards. Without the takeover that must not
    bring in the real jax; under it the imports must land on xjit's modules
    (a failed import per shard searched the whole path each time)."""
    code = textwrap.dedent("""
        import os, sys, builtins
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
        import numpy as np, xjit
        from xjit.sharding import NamedSharding, PartitionSpec as P
        mesh = xjit.make_mesh((8,), ("d",))
        x = xjit.device_put(np.arange(64.0).reshape(8, 8), NamedSharding(mesh, P("d")))
        assert [s.data.shape for s in x.addressable_shards] == [(1, 8)] * 8
        assert np.asarray(x + 1).sum() == 2080.0
        f = xjit.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("d"), out_specs=P("d"))
        assert np.asarray(f(x)).sum() == 4032.0
        bad = sorted(m for m in sys.modules if m == "jax" or m.startswith("jax."))
        assert not bad, bad

        xjit.install_as_jax()
        import jax
        failed = []
        real_import = builtins.__import__
        def spy(name, *a, **k):
            try:
                return real_import(name, *a, **k)
            except ImportError:
                failed.append(name)
                raise
        builtins.__import__ = spy
        try:
            [s.data for s in x.addressable_shards]
            np.asarray(x * 3)
        finally:
            builtins.__import__ = real_import
        assert not failed, failed
        assert sys.modules["jax._src.sharding_impls"].__name__ == "xjit._src.sharding_impls"
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
