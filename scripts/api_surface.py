"""How much of JAX's public API xjit has: for each module, JAX's public names,
how many xjit has, and the first few missing. Needs the ``compare`` extra
(``XJIT_EXTRAS=test,compare bash scripts/setup.sh``).

    .venv/bin/python scripts/api_surface.py [--all]
"""
import importlib
import sys

MODULES = ["", "numpy", "numpy.linalg", "numpy.fft", "lax", "lax.linalg", "random", "nn",
           "nn.initializers", "scipy.special", "scipy.linalg", "scipy.stats", "image",
           "tree_util", "sharding", "dlpack", "scipy.fft", "example_libraries.optimizers",
           "example_libraries.stax", "experimental.compilation_cache.compilation_cache",
           "scipy.signal", "scipy.ndimage", "scipy.integrate", "scipy.interpolate",
           "scipy.cluster.vq", "scipy.optimize", "scipy.sparse.linalg",
           "scipy.spatial.transform", "ops", "experimental.ode", "experimental.sparse"]

# JAX's public-internal modules (what libraries import below the top level);
# ``checkpoint_policies`` is a namespace object, counted by its attributes.
INTERNAL_MODULES = ["core", "extend", "extend.core", "extend.core.primitives",
                    "extend.linear_util", "extend.source_info_util", "extend.backend",
                    "extend.mlir", "extend.random", "interpreters.ad", "interpreters.batching",
                    "interpreters.partial_eval", "interpreters.mlir", "interpreters.xla",
                    "interpreters.pxla", "api_util", "flatten_util", "stages", "test_util",
                    "ad_checkpoint", "checkpoint_policies", "custom_derivatives",
                    "custom_batching"]


def _public(module):
    return {n for n in dir(module) if not n.startswith("_")}


def _load(name):
    """A module, or an attribute path below the top-level package."""
    try:
        return importlib.import_module(name)
    except ImportError:
        head, _, attr = name.rpartition(".")
        return getattr(importlib.import_module(head), attr)


def _count(modules, show_all):
    total_j = total_x = 0
    for name in modules:
        suffix = "." + name if name else ""
        jax_names = _public(_load("jax" + suffix))
        try:
            have = jax_names & _public(_load("xjit" + suffix))
        except (ImportError, AttributeError):
            have = set()
        missing = sorted(jax_names - have)
        total_j, total_x = total_j + len(jax_names), total_x + len(have)
        shown = missing if show_all else missing[:10]
        print(f"{name or 'xjit (top level)':26s} {len(have):4d} / {len(jax_names):4d}   "
              f"missing: {' '.join(shown)}{' ...' if len(shown) < len(missing) else ''}")
    print(f"{'all':26s} {total_x:4d} / {total_j:4d}")


def main(show_all=False):
    _count(MODULES, show_all)
    print("\npublic-internal modules")
    _count(INTERNAL_MODULES, show_all)


if __name__ == "__main__":
    main("--all" in sys.argv)
