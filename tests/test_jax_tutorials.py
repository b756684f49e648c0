"""JAX's own tutorials, run under xjit, keep printing what JAX printed.

tests/tutorials/<doc>.py holds the code cells of a JAX 0.10.2 documentation page
(Apache-2.0, see each file's header); tests/tutorials/expected.json the output
JAX gave for each cell that agreed under xjit when recorded. Each doc runs in a
subprocess under `xjit.install_as_jax()` (so its `import jax` is xjit), every
cell in order, and the recorded cells are compared: printed text and the last
expression's repr, numbers within a tolerance; for cells where JAX raised, the
exception class. `scripts/jax_tutorials.py` extracts, compares and records.
"""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "jax_tutorials.py")
EXPECTED = os.path.join(ROOT, "tests", "tutorials", "expected.json")

# The cheap docs (about 1-4 s of CPU each); the rest are measured by
# `scripts/jax_tutorials.py compare`.
DOCS = sorted(json.load(open(EXPECTED)))


def test_expected_covers_the_docs():
    expected = json.load(open(EXPECTED))
    assert len(DOCS) >= 10
    for name in DOCS:
        assert os.path.exists(os.path.join(ROOT, "tests", "tutorials", name + ".py"))
        # most of each doc is checked, not a token cell or two
        assert len(expected[name]["agree"]) >= expected[name]["cells"] * 0.75, name


@pytest.mark.parametrize("doc", DOCS)
def test_tutorial_agrees_with_jax(doc):
    p = subprocess.run([sys.executable, SCRIPT, "check", doc], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    assert "recorded cells checked" in p.stdout
