"""Regenerate the stored expectations from the JAX oracle, from the repository
root (needs the `compare` extra, jax==0.10.2):

    python -m tests.differential.generate core power
"""
import importlib
import json
import os
import sys

from .harness import HERE, run_case

if __name__ == "__main__":
    for name in sys.argv[1:]:
        cases = importlib.import_module(f".cases_{name}", __package__).CASES
        out = {case: run_case(code, "jax") for case, code in cases}
        with open(os.path.join(HERE, f"expected_{name}.json"), "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
        print(f"{name}: {len(out)} cases")
