"""How much of JAX's public API xjit has: for each module, JAX's public names,
how many xjit has, and the first few missing. Needs the ``compare`` extra
(``XJIT_EXTRAS=test,compare bash scripts/setup.sh``).

    .venv/bin/python scripts/api_surface.py [--all]
"""
import importlib
import sys

MODULES = ["", "numpy", "numpy.linalg", "numpy.fft", "lax", "lax.linalg", "random", "nn",
           "nn.initializers", "scipy.special", "scipy.linalg", "scipy.stats", "image",
           "tree_util", "sharding", "dlpack"]


def _public(module):
    return {n for n in dir(module) if not n.startswith("_")}


def main(show_all=False):
    total_j = total_x = 0
    for name in MODULES:
        suffix = "." + name if name else ""
        jax_names = _public(importlib.import_module("jax" + suffix))
        try:
            have = jax_names & _public(importlib.import_module("xjit" + suffix))
        except ImportError:
            have = set()
        missing = sorted(jax_names - have)
        total_j, total_x = total_j + len(jax_names), total_x + len(have)
        shown = missing if show_all else missing[:10]
        print(f"{name or 'xjit (top level)':18s} {len(have):4d} / {len(jax_names):4d}   "
              f"missing: {' '.join(shown)}{' ...' if len(shown) < len(missing) else ''}")
    print(f"{'all':18s} {total_x:4d} / {total_j:4d}")


if __name__ == "__main__":
    main("--all" in sys.argv)
