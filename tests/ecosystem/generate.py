"""Record what each program of programs/ gives on the real JAX 0.10.2.

    .venv/bin/python tests/ecosystem/generate.py            # every program
    .venv/bin/python tests/ecosystem/generate.py optax_adam_mlp

Needs the `compare` extra (the real jax). Each program runs twice in fresh
interpreters; `deterministic` records whether JAX's two CPU runs agreed
bit for bit (the tests then ask xjit for bit-equal results too). Writes
expected/<program>.json."""
from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
EXPECTED = os.path.join(HERE, "expected")


def run_on_jax(program: str) -> dict:
    proc = subprocess.run([sys.executable, os.path.join(HERE, "run_program.py"), program],
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"{program} failed on JAX:\n{proc.stderr}")
    record = json.loads(proc.stdout.strip().splitlines()[-1])
    if record["implementation"] != "jax":
        raise SystemExit(f"{program} did not run on the real jax: {record['implementation']}")
    return record


def main(names: list[str]) -> None:
    os.makedirs(EXPECTED, exist_ok=True)
    available = sorted(f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py"))
    for name in names or available:
        if name not in available:
            raise SystemExit(f"no program {name!r}; have {available}")
        program = os.path.join(PROGRAMS, name + ".py")
        first, second = run_on_jax(program), run_on_jax(program)
        out = {
            "program": f"programs/{name}.py",
            "jax_version": first["jax_version"],
            "deterministic": first["results"] == second["results"],
            "results": first["results"],
        }
        with open(os.path.join(EXPECTED, name + ".json"), "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{name}: deterministic={out['deterministic']}")


if __name__ == "__main__":
    main(sys.argv[1:])
