"""Record what JAX 0.10.2 returns for ``tests/test_example_libraries.py``'s
cases (optimizers and stax) into ``tests/example_libraries.json``; needs the
``compare`` extra:

    .venv/bin/python scripts/record_example_libraries.py
"""
import os
import sys

TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
sys.path.insert(0, TESTS)
import recorded
import test_example_libraries as cases

if __name__ == "__main__":
    out = recorded.record("example_libraries", cases.PRELUDE, cases.CASES)
    errors = sorted(name for name, r in out.items() if "error" in r)
    print(f"example_libraries: {len(out)} cases; raise in JAX: {' '.join(errors)}")
