"""Regenerate the stored expectations from the JAX oracle:

    python tests/differential/generate.py core   # needs the `compare` extra (jax==0.10.2)
"""
import importlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import HERE, run_case  # noqa: E402

if __name__ == "__main__":
    for name in sys.argv[1:]:
        cases = importlib.import_module(f"cases_{name}").CASES
        out = {case: run_case(code, "jax") for case, code in cases}
        with open(os.path.join(HERE, f"expected_{name}.json"), "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
        print(f"{name}: {len(out)} cases")
