"""Run one program of programs/ and print its RESULTS as JSON on the last line.

    python -m xjit tests/ecosystem/run_program.py programs/optax_adam_mlp.py   # on xjit
    python tests/ecosystem/run_program.py programs/optax_adam_mlp.py           # on JAX

Besides RESULTS, the record says which implementation `jax` was and lists any
module under `jax` whose file is not xjit's (under the takeover there must be
none: the real jax, if installed, is never imported)."""
from __future__ import annotations

import json
import os
import runpy
import sys


def main(program: str) -> None:
    namespace = runpy.run_path(program, run_name="__main__")
    jax = sys.modules["jax"]
    xjit_dir = os.path.dirname(sys.modules["xjit"].__file__) if "xjit" in sys.modules else None
    foreign = sorted(
        name for name, m in sys.modules.items()
        if (name == "jax" or name.startswith("jax.")) and getattr(m, "__file__", None)
        and not (xjit_dir and os.path.abspath(m.__file__).startswith(xjit_dir + os.sep)))
    record = {
        "implementation": jax.__name__,
        "jax_version": jax.__version__,
        "modules_outside_xjit": foreign[:10],
        "results": namespace["RESULTS"],
    }
    print(json.dumps(record))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: run_program.py PROGRAM")
    main(sys.argv[1])
