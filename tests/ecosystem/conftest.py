"""Shared by the ecosystem tests: run a program of programs/ under the takeover
(`python -m xjit run_program.py PROGRAM`, a fresh interpreter each) and compare
its RESULTS with what JAX 0.10.2 gave (expected/, written by generate.py)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RTOL = 1e-5


def run_under_takeover(name: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.path.join(ROOT, "core"), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "-m", "xjit", os.path.join(HERE, "run_program.py"),
         os.path.join(HERE, "programs", name + ".py")],
        env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{name} failed under xjit:\n{proc.stderr[-6000:]}"
    record = json.loads(proc.stdout.strip().splitlines()[-1])
    assert record["implementation"] == "xjit", record["implementation"]
    assert not record["modules_outside_xjit"], (
        f"modules under `jax` not from xjit: {record['modules_outside_xjit']}")
    return record


def _have_real_jax() -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec("jax") is not None
    except (ImportError, ValueError):
        return False


def run_on_real_jax(name: str) -> dict:
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, "run_program.py"),
         os.path.join(HERE, "programs", name + ".py")],
        capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{name} failed on JAX:\n{proc.stderr[-6000:]}"
    record = json.loads(proc.stdout.strip().splitlines()[-1])
    assert record["implementation"] == "jax", record["implementation"]
    return record


def expected(name: str) -> dict:
    with open(os.path.join(HERE, "expected", name + ".json")) as f:
        return json.load(f)


def differences(got, want, path="results", exact=False) -> list[str]:
    """Where ``got`` departs from ``want``: numbers within RTOL (or bit-equal
    when ``exact``), everything else equal."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or sorted(got) != sorted(want):
            return [f"{path}: keys {sorted(got) if isinstance(got, dict) else got!r} "
                    f"!= {sorted(want)}"]
        return [d for k in want for d in differences(got[k], want[k], f"{path}.{k}", exact)]
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: {got!r} != {want!r}"]
        return [d for i, (g, w) in enumerate(zip(got, want))
                for d in differences(g, w, f"{path}[{i}]", exact)]
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if exact:
            same = got == want or (math.isnan(got) and math.isnan(want))
        else:
            same = math.isclose(got, want, rel_tol=RTOL, abs_tol=0.0) or got == want
        return [] if same else [f"{path}: {got!r} vs JAX {want!r} "
                                f"(rel {abs(got - want) / max(abs(want), 1e-30):.2e})"]
    return [] if got == want and type(got) is type(want) else [f"{path}: {got!r} != {want!r}"]


class ProgramRun:
    """One program's run under the takeover, shared by the tests that ask for it."""

    def __init__(self, name):
        self.name = name
        self.want = expected(name)
        self._got = None
        self._live = None

    @property
    def got(self) -> dict:
        if self._got is None:
            self._got = run_under_takeover(self.name)
        return self._got

    def reference(self, exact: bool) -> dict:
        """JAX's results on this CPU. The records come from one machine, and
        XLA's CPU code rounds differently on another, for JAX as for xjit (a
        batch-normalized MLP's 200 steps drift apart at 1e-3 there). Where the
        real JAX is installed (the test extra brings it) and xjit departs from
        the record, the program also runs on the real JAX here, and that run
        is the reference."""
        want = self.want["results"]
        if differences(self.got["results"], want, exact=exact) and _have_real_jax():
            if self._live is None:
                self._live = run_on_real_jax(self.name)["results"]
            want = self._live
        return want

    def assert_matches_jax(self):
        diffs = differences(self.got["results"], self.reference(exact=False))
        assert not diffs, f"{self.name} vs JAX 0.10.2 (rtol {RTOL}):\n" + "\n".join(diffs)

    def assert_bit_equal_where_jax_is_deterministic(self):
        if not self.want["deterministic"]:
            pytest.skip("JAX's own CPU runs of this program differ from run to run")
        diffs = differences(self.got["results"], self.reference(exact=True), exact=True)
        assert not diffs, f"{self.name} not bit-equal to JAX 0.10.2:\n" + "\n".join(diffs)


_RUNS: dict[str, ProgramRun] = {}


@pytest.fixture
def program_run():
    """``program_run(name)``: that program's run (made once per session)."""
    def get(name: str) -> ProgramRun:
        if name not in _RUNS:
            _RUNS[name] = ProgramRun(name)
        return _RUNS[name]
    return get
