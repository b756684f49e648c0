"""Record what JAX 0.10.2 returns for tests/test_sparse_vmap.py (needs the
`compare` extra); it runs the real JAX in this process, apart from xjit:

    .venv/bin/python scripts/record_sparse_vmap.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))
import recorded  # noqa: E402
import test_sparse_vmap as cases  # noqa: E402

if __name__ == "__main__":
    out = recorded.record("sparse_vmap", cases.PRELUDE, cases.CASES)
    errors = sum("error" in r for r in out.values())
    print(f"sparse_vmap: {len(out)} cases ({errors} raise in JAX)")
