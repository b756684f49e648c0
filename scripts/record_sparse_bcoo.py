"""Record what JAX 0.10.2 returns for tests/test_sparse_bcoo.py (needs the
`compare` extra):

    .venv/bin/python scripts/record_sparse_bcoo.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))
import recorded  # noqa: E402
import test_sparse_bcoo as cases  # noqa: E402

if __name__ == "__main__":
    out = recorded.record("sparse_bcoo", cases.PRELUDE, cases.CASES)
    errors = sum("error" in r for r in out.values())
    print(f"sparse_bcoo: {len(out)} cases ({errors} raise in JAX)")
