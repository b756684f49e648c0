"""Record what JAX 0.10.2 returns for tests/test_lax_qdwh.py (needs
the `compare` extra):

    .venv/bin/python scripts/record_lax_qdwh.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))
import recorded
import test_lax_qdwh as cases

if __name__ == "__main__":
    out = recorded.record(cases.NAME, cases.PRELUDE, cases.CASES)
    errors = sum("error" in r for r in out.values())
    print(f"{cases.NAME}: {len(out)} cases ({errors} raise in JAX)")
