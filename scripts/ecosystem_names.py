"""Which JAX names do installed libraries reference that xjit lacks?

Reads the libraries' sources (no import of them), collects every
``import jax.X``, ``from jax.X import y`` and attribute chain rooted at a name
bound to a jax module (``jax.a.b``, ``jnp.c``, ``lax.d`` after
``import jax.numpy as jnp`` ...), then resolves each against xjit under the
takeover (``import jax`` gives xjit). Prints the missing names with the
libraries and a file:line that use them.

    .venv/bin/python scripts/ecosystem_names.py                 # optax flax equinox chex
    .venv/bin/python scripts/ecosystem_names.py optax --tests   # include the library's tests
"""
from __future__ import annotations

import argparse
import ast
import collections
import importlib
import importlib.util
import os
import sys

DEFAULT_LIBRARIES = ("optax", "flax", "equinox", "chex")


def _package_dir(name: str) -> str:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{name} is not installed")
    return list(spec.submodule_search_locations)[0]


def _is_jax(mod: str | None) -> bool:
    return bool(mod) and (mod == "jax" or mod.startswith("jax."))


def _chain(node: ast.AST) -> list[str] | None:
    """['jnp', 'linalg', 'norm'] for ``jnp.linalg.norm``; None if not a name chain."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def references(path: str) -> list[tuple[str, int]]:
    """Dotted jax names one file refers to, with line numbers."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    bound: dict[str, str] = {}  # local name -> dotted jax path
    refs = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _is_jax(a.name):
                    refs.append((a.name, node.lineno))
                    if a.asname:
                        bound[a.asname] = a.name
                    else:
                        bound["jax"] = "jax"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _is_jax(node.module):
            for a in node.names:
                if a.name == "*":
                    continue
                full = f"{node.module}.{a.name}"
                refs.append((full, node.lineno))
                bound[a.asname or a.name] = full
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(getattr(node, "ctx", None), ast.Store):
            parts = _chain(node)
            if parts and parts[0] in bound:
                refs.append((".".join([bound[parts[0]], *parts[1:]]), node.lineno))
    return refs


def resolve(dotted: str) -> bool:
    """Whether ``dotted`` (a jax path) exists under the takeover."""
    parts = dotted.split(".")
    obj = None
    for i in range(len(parts), 0, -1):  # longest importable module prefix
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        except Exception:
            return False
        rest = parts[i:]
        break
    else:
        return False
    for attr in rest:
        try:
            obj = getattr(obj, attr)
        except Exception:
            return False
    return True


def _trim(dotted: str) -> str:
    """Cut method calls off a chain at the first missing link for reporting."""
    parts = dotted.split(".")
    for i in range(1, len(parts) + 1):
        if not resolve(".".join(parts[:i])):
            return ".".join(parts[:i])
    return dotted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("libraries", nargs="*", default=list(DEFAULT_LIBRARIES))
    ap.add_argument("--tests", action="store_true", help="also scan the libraries' test files")
    ap.add_argument("--where", type=int, default=1, help="file:line examples per name")
    args = ap.parse_args()

    from xjit._src.jax_takeover import install_as_jax
    install_as_jax()

    missing: dict[str, dict[str, list[str]]] = collections.defaultdict(
        lambda: collections.defaultdict(list))
    for lib in args.libraries:
        root = _package_dir(lib)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith(".py"):
                    continue
                is_test = fn.endswith("_test.py") or fn.startswith("test_") or "tests" in dirpath
                if is_test and not args.tests:
                    continue
                path = os.path.join(dirpath, fn)
                try:
                    refs = references(path)
                except SyntaxError:
                    continue
                for dotted, line in refs:
                    if not resolve(dotted):
                        name = _trim(dotted)
                        missing[name][lib].append(f"{os.path.relpath(path, os.path.dirname(root))}:{line}")
    for name in sorted(missing):
        libs = missing[name]
        where = "; ".join(w for lib in libs for w in libs[lib][:args.where])
        print(f"{name:55s} {','.join(sorted(libs)):24s} {where}")
    print(f"\n{len(missing)} missing names", file=sys.stderr)


if __name__ == "__main__":
    main()
