"""Run JAX's own tutorials under JAX and under xjit, and compare them cell by cell.

Code no one here wrote is the test input: the MyST code cells of JAX 0.10.2's
documentation (Apache-2.0). Three steps:

  extract  read docs from a JAX checkout (the `fetch` mirror's git directory,
           tag jax-v0.10.2) and write each doc's cells to tests/tutorials/<doc>.py
  compare  run each doc's cells in order in one namespace, once under real JAX
           and once under xjit (`xjit.install_as_jax()`, so `import jax` is
           xjit), each in its own subprocess; compare every cell's printed
           output and final expression value (numbers with a tolerance, other
           text exactly) and print, per doc, how many cells agree / differ /
           raise only in xjit / raise in both
  record   run the docs under JAX and write tests/tutorials/expected.json:
           the outputs of the cells that agree under xjit
  check    run docs under xjit only and compare the recorded cells with
           expected.json (what tests/test_jax_tutorials.py runs; no JAX needed)

  .venv/bin/python scripts/jax_tutorials.py extract --repo /work/.mirror/jax-ml+jax/repo
  .venv/bin/python scripts/jax_tutorials.py compare [DOC ...] [--show]
  .venv/bin/python scripts/jax_tutorials.py record DOC ...
  .venv/bin/python scripts/jax_tutorials.py check DOC ...

`compare` and `record` need the `compare` extra (real jax). A cell is run as
IPython would: line magics are dropped except `%timeit STMT`, which runs STMT
once; an exception is recorded (class and first line) and the next cell runs.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import traceback
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CELLS_DIR = os.path.join(ROOT, "tests", "tutorials")
EXPECTED = os.path.join(CELLS_DIR, "expected.json")
TAG = "jax-v0.10.2"
CELL_MARK = "# %% cell "

# Docs by path in JAX's repo (pallas, export, FFI, multi-process and
# data-loading docs are left out). MyST notebooks give their code cells; pages
# written as doctests give one cell per ``>>>`` statement. The docs in
# MULTI_DEVICE run on 8 CPU devices (XLA_FLAGS in their own subprocess).
DOCS = {
    "key_concepts": "docs/key-concepts.md",
    "jit_compilation": "docs/jit-compilation.md",
    "automatic_differentiation": "docs/automatic-differentiation.md",
    "automatic_vectorization": "docs/automatic-vectorization.md",
    "pytrees": "docs/pytrees.md",
    "custom_pytrees": "docs/custom_pytrees.md",
    "random_numbers": "docs/random-numbers.md",
    "control_flow": "docs/control-flow.md",
    "stateful_computations": "docs/stateful-computations.md",
    "debugging": "docs/debugging.md",
    "gradient_checkpointing": "docs/gradient-checkpointing.md",
    "jaxpr": "docs/jaxpr.md",
    "jax_primitives": "docs/jax-primitives.md",
    "higher_order": "docs/higher-order.md",
    "jacobian_vector_products": "docs/jacobian-vector-products.md",
    "complex_differentiation": "docs/complex-differentiation.md",
    "external_callbacks": "docs/external-callbacks.md",
    "tracing": "docs/tracing.md",
    "aot": "docs/aot.md",
    "faq": "docs/faq.rst",
    "type_promotion": "docs/type_promotion.rst",
    "async_dispatch": "docs/async_dispatch.rst",
    "transfer_guard": "docs/transfer_guard.rst",
    "common_gotchas": "docs/notebooks/Common_Gotchas_in_JAX.md",
    "custom_derivative_rules": "docs/notebooks/Custom_derivative_rules_for_Python_code.md",
    "custom_interpreters": "docs/notebooks/Writing_custom_interpreters_in_Jax.md",
    "autodiff_cookbook": "docs/notebooks/autodiff_cookbook.md",
    "autodiff_remat": "docs/notebooks/autodiff_remat.md",
    "thinking_in_jax": "docs/notebooks/thinking_in_jax.md",
    "vmapped_log_probs": "docs/notebooks/vmapped_log_probs.md",
    "convolutions": "docs/notebooks/convolutions.md",
    "parallel": "docs/parallel.md",
    "shard_map": "docs/notebooks/shard_map.md",
}
MULTI_DEVICE = {"parallel", "shard_map"}

HEADER = '''\
# Code cells of JAX's documentation page {src}
# (github.com/jax-ml/jax, tag {tag}), extracted unchanged by
# scripts/jax_tutorials.py as test input for xjit.
# Copyright The JAX Authors. Licensed under the Apache License, Version 2.0:
# http://www.apache.org/licenses/LICENSE-2.0
# Not imported by the test suite; each cell is run as a notebook cell.
'''


# ---------------------------------------------------------------- extraction

def cells_of_myst(text: str) -> list[str]:
    """The code cells of a MyST markdown notebook, cell options stripped."""
    cells, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if re.match(r"^```\{code-cell\}", lines[i]):
            body, i = [], i + 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            if body and body[0].strip() == "---":  # YAML option block
                end = body.index("---", 1) if "---" in body[1:] else 0
                body = body[end + 1:]
            while body and (body[0].startswith(":") or not body[0].strip()):
                body = body[1:]
            cells.append("\n".join(body).rstrip() + "\n")
        i += 1
    return cells


def cells_of_doctest(text: str) -> list[str]:
    """The ``>>>`` statements of a page written as doctests (reST, or MyST
    without code cells), one cell each with its ``...`` continuation lines."""
    cells: list[list[str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped == ">>>" or stripped.startswith(">>> "):
            cells.append([stripped[4:]])
        elif cells and (stripped == "..." or stripped.startswith("... ")):
            cells[-1].append(line.lstrip()[4:])
    if not cells:
        return []
    # the names JAX's conftest.py puts in every doctest's namespace
    setup = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"
    return [setup] + ["\n".join(c).rstrip() + "\n" for c in cells
                      if any(x.strip() and not x.strip().startswith("#") for x in c)]


def extract(repo: str) -> None:
    os.makedirs(CELLS_DIR, exist_ok=True)
    for name, src in DOCS.items():
        text = subprocess.run(["git", "--git-dir", repo, "show", f"{TAG}:{src}"],
                              check=True, capture_output=True, text=True).stdout
        cells = cells_of_myst(text) or cells_of_doctest(text)
        with open(os.path.join(CELLS_DIR, name + ".py"), "w") as f:
            f.write(HEADER.format(src=src, tag=TAG))
            for k, cell in enumerate(cells):
                f.write(f"\n{CELL_MARK}{k}\n{cell}")
        print(f"{name}: {len(cells)} cells")


def read_cells(name: str) -> list[str]:
    text = open(os.path.join(CELLS_DIR, name + ".py")).read()
    parts = re.split(r"^" + re.escape(CELL_MARK) + r"\d+\n", text, flags=re.M)
    return parts[1:]


# ---------------------------------------------------------------- running

def _unmagic(cell: str) -> str:
    """Cell source IPython would run, minus magics we cannot run (see module doc)."""
    out = []
    lines = cell.splitlines()
    if lines and lines[0].startswith("%%timeit"):
        lines = lines[1:]
    for line in lines:
        stripped = line.lstrip()
        indent = line[:len(line) - len(stripped)]
        m = re.match(r"%timeit\s+(?:-\S+\s+(?:\d+\s+)?)*(.*)", stripped)
        if m:
            out.append(f"{indent}{m.group(1)}")
        elif stripped.startswith(("%", "!")):
            out.append(f"{indent}pass")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _fake_matplotlib() -> None:
    """Plots are not compared: a matplotlib whose every call does nothing."""
    from unittest import mock
    mpl = types.ModuleType("matplotlib")
    mpl.pyplot = mock.MagicMock(name="pyplot")
    mpl.use = lambda *a, **k: None
    sys.modules.setdefault("matplotlib", mpl)
    sys.modules.setdefault("matplotlib.pyplot", mpl.pyplot)


def run_cells(cells: list[str]) -> list[dict]:
    """Run cells in order in one namespace, IPython-style; one record per cell."""
    ns: dict = {"__name__": "__main__"}
    results = []
    for k, cell in enumerate(cells):
        src = _unmagic(cell)
        buf = io.StringIO()
        rec: dict = {"cell": k}
        try:
            tree = ast.parse(src)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            with contextlib.redirect_stdout(buf):
                exec(compile(tree, f"<cell {k}>", "exec"), ns)
                if last is not None:
                    value = eval(compile(last, f"<cell {k}>", "eval"), ns)
                    if value is not None:
                        rec["value"] = repr(value)
        except BaseException as e:  # noqa: BLE001 -- a cell may raise anything
            if isinstance(e, KeyboardInterrupt):
                raise
            msg = str(e).strip().splitlines()
            rec["error"] = f"{type(e).__name__}: {msg[0] if msg else ''}"
            rec["traceback"] = "".join(traceback.format_exception(e)[-6:])
        rec["stdout"] = buf.getvalue()
        results.append(rec)
    return results


def child_main(engine: str, name: str) -> None:
    if engine == "xjit":
        import xjit
        xjit.install_as_jax()
    import jax  # noqa: F401 -- before seeding: importing JAX draws from NumPy's global stream
    _fake_matplotlib()
    import random
    import numpy as np
    random.seed(0)
    np.random.seed(0)  # tutorials draw inputs from NumPy's global stream
    os.chdir(os.environ.get("TMPDIR", "/tmp"))
    results = run_cells(read_cells(name))
    sys.__stdout__.write("\n@@RESULTS@@" + json.dumps(results))


def run_doc(engine: str, name: str, timeout: int = 600) -> list[dict] | str:
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONHASHSEED="0")
    if name in MULTI_DEVICE:
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "")
                            + " --xla_force_host_platform_device_count=8").strip()
    env.pop("XJIT_NO_JAX_TAKEOVER", None)
    try:
        p = subprocess.run([sys.executable, __file__, "_child", engine, name],
                           capture_output=True, text=True, timeout=timeout, env=env,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"timeout after {timeout}s"
    if "@@RESULTS@@" not in p.stdout:
        return f"crashed (rc {p.returncode}): {p.stderr[-2000:]}"
    return json.loads(p.stdout.split("@@RESULTS@@", 1)[1])


# ---------------------------------------------------------------- comparison

_NUM = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|-?inf|nan")
_ADDR = re.compile(r" at 0x[0-9a-f]+|(?<= id=')\d+")
_TIMING = re.compile(r"\d+(?:\.\d+)? ?(?:ns|µs|us|ms|s) ± .*|\d+ loops?.*")


def normalize(text: str) -> str:
    return _TIMING.sub("<timing>", _ADDR.sub(" at 0x?", text))


def texts_agree(a: str, b: str, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Same text once numbers are compared with a tolerance."""
    a, b = normalize(a), normalize(b)
    if a == b:
        return True
    # NumPy pads columns to the widest number, so the spacing follows the digits
    if re.sub(r"\s+", "", _NUM.sub("#", a)) != re.sub(r"\s+", "", _NUM.sub("#", b)):
        return False
    for x, y in zip(_NUM.findall(a), _NUM.findall(b)):
        if x == y:
            continue
        fx, fy = float(x), float(y)
        if not abs(fx - fy) <= atol + rtol * abs(fy):
            return False
    return True


def classify(ref: dict, got: dict) -> str:
    if "error" in got and "error" in ref:
        return "raise-in-both"
    if "error" in got:
        return "raise-only-in-xjit"
    if "error" in ref:
        return "raise-only-in-jax"
    same = (texts_agree(got["stdout"], ref["stdout"])
            and ("value" in got) == ("value" in ref)
            and texts_agree(got.get("value", ""), ref.get("value", "")))
    return "agree" if same else "differ"


KINDS = ["agree", "differ", "raise-only-in-xjit", "raise-in-both", "raise-only-in-jax"]


def compare(names: list[str], show: bool) -> dict:
    table = {}
    for name in names:
        ref, got = run_doc("jax", name), run_doc("xjit", name)
        if isinstance(ref, str) or isinstance(got, str):
            print(f"{name}: jax={ref if isinstance(ref, str) else 'ok'} "
                  f"xjit={got if isinstance(got, str) else 'ok'}")
            table[name] = {"failed": True}
            continue
        counts = dict.fromkeys(KINDS, 0)
        same_class = 0
        for r, g in zip(ref, got):
            kind = classify(r, g)
            counts[kind] += 1
            if kind == "raise-in-both" and r["error"].split(":")[0] == g["error"].split(":")[0]:
                same_class += 1
            if show and kind != "agree" and not (
                    kind == "raise-in-both" and normalize(r["error"]) == normalize(g["error"])):
                print(f"--- {name} cell {r['cell']}: {kind}")
                for tag, rec in (("jax", r), ("xjit", g)):
                    print(f"  [{tag}] stdout: {rec['stdout'][:1200]!r}")
                    if "value" in rec:
                        print(f"  [{tag}] value: {rec['value'][:600]!r}")
                    if "error" in rec:
                        print(f"  [{tag}] error: {rec['error'][:600]}")
                if "error" in g and "error" not in r:
                    print(g["traceback"][-1500:])
        counts["same-error-class"] = same_class
        table[name] = counts
        print(f"{name:28s} " + " ".join(f"{k}={counts[k]}" for k in KINDS)
              + f" (same class {same_class})", flush=True)
    return table


def record(names: list[str]) -> None:
    """Write the JAX outputs of the cells that agree under xjit to expected.json."""
    expected = json.load(open(EXPECTED)) if os.path.exists(EXPECTED) else {}
    for name in names:
        ref, got = run_doc("jax", name), run_doc("xjit", name)
        assert not isinstance(ref, str) and not isinstance(got, str), (name, ref, got)
        cells = {}
        for r, g in zip(ref, got):
            kind = classify(r, g)
            if kind == "agree" or (kind == "raise-in-both" and r["error"].split(":")[0]
                                   == g["error"].split(":")[0]):
                cells[str(r["cell"])] = {k: r[k] for k in ("stdout", "value", "error") if k in r}
                if "error" in r:
                    cells[str(r["cell"])]["error"] = r["error"].split(":")[0]
        expected[name] = {"cells": len(ref), "agree": cells}
        print(f"{name}: {len(cells)}/{len(ref)} cells recorded")
    with open(EXPECTED, "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def check(names: list[str]) -> int:
    """Rerun docs under xjit; the number of recorded cells that no longer agree."""
    expected = json.load(open(EXPECTED))
    failures = 0
    for name in names:
        got = run_doc("xjit", name)
        if isinstance(got, str):
            print(f"{name}: {got}")
            failures += 1
            continue
        for k, want in expected[name]["agree"].items():
            g = got[int(k)]
            if "error" in want:
                ok = g.get("error", "").split(":")[0] == want["error"]
            else:
                ok = "error" not in g and classify(want, g) == "agree"
            if not ok:
                failures += 1
                print(f"{name} cell {k}: JAX gave {json.dumps(want)[:800]}\n  xjit gave "
                      f"{json.dumps({x: g[x] for x in ('stdout', 'value', 'error') if x in g})[:800]}")
                if "traceback" in g:
                    print(g["traceback"][-1500:])
        print(f"{name}: {len(expected[name]['agree'])} recorded cells checked")
    return failures


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        child_main(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("extract")
    ex.add_argument("--repo", default="/work/.mirror/jax-ml+jax/repo")
    co = sub.add_parser("compare")
    co.add_argument("docs", nargs="*")
    co.add_argument("--show", action="store_true", help="print every cell that does not agree")
    co.add_argument("--json", help="write the per-doc counts here")
    rc = sub.add_parser("record")
    rc.add_argument("docs", nargs="+")
    ck = sub.add_parser("check")
    ck.add_argument("docs", nargs="+")
    args = ap.parse_args()
    if args.cmd == "extract":
        extract(args.repo)
    elif args.cmd == "compare":
        table = compare(args.docs or list(DOCS), args.show)
        if args.json:
            json.dump(table, open(args.json, "w"), indent=1)
    elif args.cmd == "record":
        record(args.docs)
    else:
        sys.exit(1 if check(args.docs) else 0)


if __name__ == "__main__":
    main()
