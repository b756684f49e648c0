"""``python -m xjit SCRIPT [ARGS...]`` runs a JAX program unchanged on xjit:
``import jax`` (and ``jax.X``) inside the script and the libraries it uses
resolve to xjit. ``python -m xjit -m MODULE [ARGS...]`` does the same for a
module run as ``python -m MODULE`` would (``python -m xjit -m pytest tests/``).
"""
from __future__ import annotations

import os
import runpy
import sys

USAGE = ("usage: python -m xjit SCRIPT [ARGS...]\n"
         "       python -m xjit -m MODULE [ARGS...]\n"
         "Runs SCRIPT (or MODULE) with `import jax` resolving to xjit.")


def main(argv: list[str]) -> None:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        raise SystemExit(2 if not argv else 0)

    from xjit._src.jax_takeover import install_as_jax
    install_as_jax()

    if argv[0] == "-m":
        if len(argv) < 2:
            print("python -m xjit: -m needs a module name\n" + USAGE, file=sys.stderr)
            raise SystemExit(2)
        module, args = argv[1], argv[2:]
        # As `python -m MODULE`: argv[0] becomes the module's file, and the
        # current directory stays first on sys.path.
        sys.argv = [module, *args]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return

    script, args = argv[0], argv[1:]
    if not os.path.exists(script):
        print(f"python -m xjit: can't open file {script!r}: no such file", file=sys.stderr)
        raise SystemExit(2)
    # As `python SCRIPT`: the script's directory comes first on sys.path
    # (instead of the current directory that `-m` put there).
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
