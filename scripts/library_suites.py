"""Run optax's, flax's, equinox's and chex's own test suites under xjit (the
takeover: `python -m xjit -m pytest ...`) and under the real JAX, and compare.

The suites come from the libraries' sources at the installed versions (their
tests are not in the wheels). Export them once from git checkouts:

    .venv/bin/python scripts/library_suites.py --export optax=~/src/optax \\
        --export flax=~/src/flax@<commit> --export equinox=~/src/equinox \\
        --export chex=~/src/chex

(`@REV` defaults to the version tag, `v<installed version>`; flax 0.12.8 has
no tag in its repository, so give the commit the wheel was built from: the
installed wheel's flax/ matches 18f8f311, later than the version bump 3a491108,
with the nnx.clone(arrays=...) that the tests of that commit cover). The trees go to
~/.cache/xjit-library-suites/<lib>-<version>/ (or --cache DIR). Then:

    .venv/bin/python scripts/library_suites.py                  # every library, both runs
    .venv/bin/python scripts/library_suites.py chex optax       # some libraries
    .venv/bin/python scripts/library_suites.py flax --files 'tests/nnx/*_test.py'
    .venv/bin/python scripts/library_suites.py optax --only xjit --max-files 5

Needs the `compare` extra (the real jax) for the JAX runs, and beartype for
equinox's pytest configuration (`pip install beartype`). Test files that fail
to import under the real JAX (a missing optional dependency such as
scikit-learn or tensorflow) count as errors in both columns, so compare the
"passed" columns. Prints, per library, passed/failed/error/skipped for JAX and
for xjit and the share of JAX's passing tests that pass on xjit; --report FILE
writes the tests that pass on JAX and not on xjit, with the first line of why.

The JAX column does not change while xjit is being fixed, and large suites
are run in slices, so each run's outcomes are merged into
<cache>/results/<lib>-<impl>.json (a test's latest outcome wins), and
`--reuse jax` takes the JAX column from there for the selected files instead
of running it again; slices may run at once (the merge takes a lock).
`--from-results` compares the merged outcomes of every file without running
anything. If pytest itself breaks off (INTERNALERROR), its lines are printed:

    .venv/bin/python scripts/library_suites.py optax --only jax --files 'optax/_src/*'
    .venv/bin/python scripts/library_suites.py optax --reuse jax --files 'optax/_src/*'
    .venv/bin/python scripts/library_suites.py optax --from-results --report r.txt
"""
from __future__ import annotations

import argparse
import fcntl
import fnmatch
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "xjit-library-suites")

# Where each library keeps its tests, and what the export needs besides them
# (the pytest configuration lives in pyproject.toml; conftest.py files come
# with the test directories).
LIBRARIES = {
    "optax": {"tests": ["optax/**/*_test.py"], "keep": ["optax", "pyproject.toml"]},
    "chex": {"tests": ["chex/_src/*_test.py"], "keep": ["chex", "pyproject.toml"]},
    "equinox": {"tests": ["tests/test_*.py"], "keep": ["tests", "pyproject.toml"]},
    "flax": {"tests": ["tests/linen/*_test.py", "tests/nnx/*_test.py", "tests/core/*_test.py",
                       "tests/*_test.py"],
             "keep": ["tests", "pyproject.toml"]},
}


def installed_version(lib: str) -> str:
    return importlib.metadata.version(lib)


def source_dir(cache: str, lib: str) -> str:
    return os.path.join(cache, f"{lib}-{installed_version(lib)}")


def export(cache: str, lib: str, spec: str) -> str:
    """``git archive`` the library's tests at REV into the cache."""
    gitdir, _, rev = os.path.expanduser(spec).partition("@")
    rev = rev or f"v{installed_version(lib)}"
    dest = source_dir(cache, lib)
    os.makedirs(dest, exist_ok=True)
    paths = LIBRARIES[lib]["keep"]
    archive = subprocess.run(["git", "-C", gitdir, "archive", "--format=tar", rev, *paths],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    with open(os.path.join(dest, ".xjit-export.json"), "w") as f:
        json.dump({"git": gitdir, "rev": rev}, f)
    return dest


def test_files(src: str, patterns: list[str], max_files: int | None) -> list[str]:
    found = []
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for fn in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, fn), src)
            if any(fnmatch.fnmatch(rel, p) for p in patterns) and rel not in found:
                found.append(rel)
    return found[:max_files] if max_files else found


def run_pytest(impl: str, src: str, files: list[str], timeout: int) -> dict[str, tuple[str, str]]:
    """``{test id: (outcome, first line of the reason)}`` from one pytest run."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "junit.xml")
        runner = ["-m", "xjit", "-m", "pytest"] if impl == "xjit" else ["-m", "pytest"]
        cmd = [sys.executable, *runner, "-q", "-p", "no:cacheprovider", "--tb=line",
               "--continue-on-collection-errors",
               f"--timeout={timeout}", f"--junitxml={xml}", *files]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (src, os.path.join(ROOT, "core"), env.get("PYTHONPATH")) if p)
        env.setdefault("JAX_PLATFORMS", "cpu")
        out = subprocess.run(cmd, cwd=src, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace").stdout
        crash = [line for line in out.splitlines() if line.startswith("INTERNALERROR")]
        if crash:  # pytest itself broke off: say where, as junit only records that it did
            print(f"{impl}: pytest broke off:\n" + "\n".join(crash[-15:]), file=sys.stderr)
        if not os.path.exists(xml):
            return {"<pytest did not run>": ("error", "no junit report")}
        return parse_junit(xml)


def parse_junit(path: str) -> dict[str, tuple[str, str]]:
    results = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        if test_id == "::":  # what a broken-off run (INTERNALERROR) leaves
            continue
        outcome, why = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                why = (child.get("message") or child.text or "").strip().splitlines()[:1]
                why = why[0][:200] if why else ""
                break
        results[test_id] = (outcome, why)
    return results


def results_path(cache: str, lib: str, impl: str) -> str:
    return os.path.join(cache, "results", f"{lib}-{installed_version(lib)}-{impl}.json")


def load_results(cache: str, lib: str, impl: str) -> dict[str, tuple[str, str]]:
    path = results_path(cache, lib, impl)
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {t: tuple(v) for t, v in json.load(f).items()}


def save_results(cache: str, lib: str, impl: str, results: dict) -> None:
    """Merge one run's outcomes into the stored ones (the latest outcome wins),
    under a lock, so slices may run at once."""
    path = results_path(cache, lib, impl)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = load_results(cache, lib, impl)
        merged.update(results)
        merged.pop("<pytest did not run>", None)
        with open(path, "w") as f:
            json.dump(merged, f, indent=0, sort_keys=True)


def in_files(test_id: str, files: list[str]) -> bool:
    """Whether a junit test id (``pkg.mod.Class::name``) comes from one of ``files``."""
    modules = {f[:-3].replace(os.sep, ".") for f in files}
    classname = test_id.partition("::")[0]
    return any(classname == m or classname.startswith(m + ".") for m in modules)


def counts(results: dict) -> dict[str, int]:
    out = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for outcome, _ in results.values():
        out[outcome] += 1
    return out


def fmt(c: dict | None) -> str:
    if c is None:
        return "not run"
    return f"{c['passed']:5d} passed {c['failed']:4d} failed {c['error']:4d} error " \
           f"{c['skipped']:4d} skipped"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("libraries", nargs="*", default=None)
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("--export", action="append", default=[], metavar="LIB=GITDIR[@REV]")
    ap.add_argument("--files", action="append", default=None,
                    help="glob(s) of test files relative to the library's tree")
    ap.add_argument("--max-files", type=int, default=None)
    ap.add_argument("--only", choices=["jax", "xjit"], default=None)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per test")
    ap.add_argument("--report", default=None, help="write JAX-pass/xjit-fail tests here")
    ap.add_argument("--reuse", choices=["jax", "xjit"], action="append", default=[],
                    help="take this column from the stored results instead of running it")
    ap.add_argument("--from-results", action="store_true",
                    help="compare the stored results of every file; run nothing")
    args = ap.parse_args()

    for item in args.export:
        lib, _, spec = item.partition("=")
        print(f"exported {lib} to {export(args.cache, lib, spec)}")
    if args.export and not args.libraries:
        return
    args.libraries = args.libraries or list(LIBRARIES)

    impls = [args.only] if args.only else ["jax", "xjit"]
    lines, regressions = [], []
    for lib in args.libraries:
        if lib not in LIBRARIES:
            raise SystemExit(f"unknown library {lib!r}; known: {', '.join(LIBRARIES)}")
        src = source_dir(args.cache, lib)
        if not os.path.isdir(src):
            raise SystemExit(f"no sources for {lib} at {src}: run with --export {lib}=GITDIR")
        files = test_files(src, args.files or LIBRARIES[lib]["tests"], args.max_files)
        results = {}
        for impl in impls:
            start = time.time()
            if args.from_results or impl in args.reuse:
                stored = load_results(args.cache, lib, impl)
                results[impl] = {t: r for t, r in stored.items()
                                 if args.from_results or in_files(t, files)}
                how = "stored"
            else:
                results[impl] = run_pytest(impl, src, files, args.timeout)
                save_results(args.cache, lib, impl, results[impl])
                how = f"{time.time() - start:.0f}s"
            print(f"{lib:8s} {impl:5s} {fmt(counts(results[impl]))}  "
                  f"({len(files)} files, {how})", flush=True)
        if len(impls) == 2:
            # stored results may hold a file's JAX column and not yet its xjit one
            not_run = {t for t in results["jax"] if t not in results["xjit"]}
            jax_pass = {t for t, (o, _) in results["jax"].items()
                        if o == "passed" and t not in not_run}
            both = {t for t in jax_pass if results["xjit"][t][0] == "passed"}
            share = 100.0 * len(both) / len(jax_pass) if jax_pass else float("nan")
            pending = f"; {len(not_run)} not run on xjit yet" if not_run else ""
            lines.append(f"{lib:8s} xjit passes {len(both)}/{len(jax_pass)} of the tests "
                         f"that pass with JAX ({share:.1f}%{pending})")
            for t in sorted(jax_pass - both):
                outcome, why = results["xjit"].get(t, ("missing", ""))
                regressions.append(f"{lib}\t{t}\t{outcome}\t{why}")
    print()
    for line in lines:
        print(line)
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(regressions) + "\n")
        print(f"{len(regressions)} tests pass with JAX and not with xjit: {args.report}")


if __name__ == "__main__":
    main()
