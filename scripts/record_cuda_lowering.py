"""Record JAX 0.10.2's CUDA lowering of tests/cuda_lowering_cases.py (no GPU
needed: JAX lowers for another platform) into tests/cuda_lowering.json.

    .venv/bin/python scripts/record_cuda_lowering.py   # needs the compare extra
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "tests"))
import jax  # noqa: E402

from cuda_lowering_cases import cases, custom_calls  # noqa: E402

out = {name: custom_calls(jax.jit(f).trace(x).lower(lowering_platforms=("cuda",)).as_text())
       for name, (f, x) in cases(jax).items()}
with open(os.path.join(ROOT, "tests", "cuda_lowering.json"), "w") as fh:
    json.dump(out, fh, indent=1, sort_keys=True)
    fh.write("\n")
print(f"recorded {len(out)} programs")
