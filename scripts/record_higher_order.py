"""Record what JAX 0.10.2 returns for the composition tests of custom rules
and higher-order primitives (needs the `compare` extra):

    .venv/bin/python scripts/record_higher_order.py
"""
import importlib
import os
import sys

TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
sys.path.insert(0, TESTS)
import recorded  # noqa: E402

MODULES = {"custom_rules_compositions": "test_custom_rules_compositions",
           "higher_order_audit": "test_higher_order_audit"}

if __name__ == "__main__":
    for name in sys.argv[1:] or MODULES:
        mod = importlib.import_module(MODULES[name])
        out = recorded.record(name, mod.PRELUDE, mod.CASES)
        errors = sum("error" in r for r in out.values())
        print(f"{name}: {len(out)} cases ({errors} raise in JAX)")
