"""Record what JAX 0.10.2 returns for tests/test_checkify_custom_rules.py (needs the
`compare` extra):

    .venv/bin/python scripts/record_checkify_custom_rules.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))
import recorded  # noqa: E402
import test_checkify_custom_rules as cases  # noqa: E402

if __name__ == "__main__":
    out = recorded.record("checkify_custom_rules", cases.PRELUDE, cases.CASES)
    errors = sum("error" in r for r in out.values())
    print(f"checkify_custom_rules: {len(out)} cases ({errors} raise in JAX)")
