"""Record what JAX 0.10.2 returns for tests/test_indexing_strategy.py (needs the
`compare` extra):

    .venv/bin/python scripts/record_indexing_strategy.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))
import recorded  # noqa: E402
import test_indexing_strategy as cases  # noqa: E402

if __name__ == "__main__":
    out = recorded.record("indexing_strategy", cases.PRELUDE, cases.CASES)
    errors = sum("error" in r for r in out.values())
    print(f"indexing_strategy: {len(out)} cases ({errors} raise in JAX)")
