"""The lab extension's TypeScript: type-check (sources and tests) and run its
jest unit tests (labextension/test/: protocol validation against the shared
fixtures, the panel model, DOM rendering, the timeline).

scripts/setup.sh installs labextension/node_modules (scripts/build_labextension.sh).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

LAB = Path(__file__).resolve().parent.parent / "labextension"


def _node_ready():
    if shutil.which("node") is None:
        pytest.fail("node is not installed (scripts/setup.sh expects Debian's nodejs/npm)")
    if not (LAB / "node_modules" / ".bin" / "jest").exists():
        pytest.fail("labextension/node_modules is missing: run bash scripts/build_labextension.sh")


def _run(*cmd, timeout=300):
    proc = subprocess.run(cmd, cwd=LAB, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
    return proc


def test_typescript_typechecks():
    """Sources and tests together (the build type-checks the sources alone)."""
    _node_ready()
    _run("node_modules/.bin/tsc", "-p", "tsconfig.test.json", "--noEmit")


def test_jest_unit_tests():
    _node_ready()
    proc = _run("node_modules/.bin/jest", "--ci", "--colors=false")
    out = proc.stdout + proc.stderr
    assert "failed" not in out.split("Tests:")[-1].split("\n")[0], out[-3000:]
