"""Record what JAX 0.10.2 returns for ``tests/test_ops_segment.py``'s cases
into ``tests/ops_segment.json``; needs the ``compare`` extra:

    .venv/bin/python scripts/record_ops_segment.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))
import recorded
import test_ops_segment as cases

if __name__ == "__main__":
    out = recorded.record("ops_segment", cases.PRELUDE, cases.CASES)
    errors = sorted(name for name, r in out.items() if "error" in r)
    print(f"ops_segment: {len(out)} cases; raise in JAX: {' '.join(errors)}")
