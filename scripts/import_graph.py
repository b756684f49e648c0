"""The import graph of the ``xjit`` package, imports inside functions included.

``python scripts/import_graph.py`` prints the strongly connected components
(import cycles) with more than one module, largest first, and the edges that
point up the layers. ``tests/test_import_layers.py`` asserts on the same data.
"""
from __future__ import annotations

import ast
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core")

# Layers, lowest first. A module may import its own layer and the layers below.
# The public namespaces (``xjit.numpy``, ``xjit.lax``...) belong to the layer
# whose names they export. jit and eager dispatch sit below lax because lax
# and numpy functions are themselves jitted and bind through them; so do
# ``custom_jvp``/``custom_vjp`` and ``jvp``/``vjp`` (ad_api), which lax and jnp
# functions are built with: the few lax operations they run come through
# ``core.lax_ops``. ``custom_vmap`` is used by nothing below the api front and
# ``sequential_vmap`` is built on ``lax.map``, so custom_batching sits with the
# api front (JAX's custom_batching imports lax too).
LAYERS = [
    ("base", ["xjit._src.lib", "xjit._src.config", "xjit._src.dtypes", "xjit._src.errors", "xjit._src.tree_util",
              "xjit._src.monitoring", "xjit._src.util", "xjit._src.typing", "xjit._src.linear_util",
              "xjit.version"]),
    ("core", ["xjit._src.core", "xjit._src.ad_util", "xjit._src.abstract_arrays", "xjit._src.sharding_in_types",
              "xjit._src.pretty", "xjit._src.leak_check",
              "xjit._src.source_info_util", "xjit._src.traceback_util",
              "xjit._src.state.types", "xjit._src.state.utils"]),  # refs' avals (AbstractRef)
    ("interpreters", ["xjit._src.interpreters"]),
    ("dispatch", ["xjit._src.xla_bridge", "xjit._src.sharding", "xjit._src.mesh", "xjit._src.array",
                  "xjit._src.compiler", "xjit._src.compilation_cache", "xjit._src.dispatch", "xjit._src.eager", "xjit._src.pjit",
                  "xjit._src.ad_jit", "xjit._src.stages", "xjit._src.callback",
                  "xjit._src.debugging", "xjit._src.custom_derivatives",
                  "xjit._src.custom_rule_outputs", "xjit._src.closure_convert",
                  "xjit._src.inspect",
                  "xjit._src.api_util", "xjit._src.dlpack", "xjit._src.profiler",
                  "xjit._src.ad_api", "xjit._src.sharded_array", "xjit._src.pxla",
                  "xjit._src.sharding_visualization", "xjit._src.distributed",
                  "xjit._src.reshard", "xjit._src.layout", "xjit._src.float0_plan",
                  "xjit._src.placement", "xjit._src.trace_entry"]),
    ("lax", ["xjit._src.lax", "xjit.lax", "xjit._src.prng", "xjit._src.key_reuse",
             "xjit._src.state"]),  # ref_get/ref_set/... and their discharge (built on lax)
    ("libraries", ["xjit._src.numpy", "xjit._src.random", "xjit._src.random_continuous",
                   "xjit._src.random_discrete", "xjit._src.random_gamma", "xjit._src.nn",
                   "xjit._src.random_sharding",
                   "xjit._src.scipy", "xjit.numpy", "xjit.nn", "xjit.random", "xjit.scipy",
                   "xjit._src.image"]),
    ("api", ["xjit._src"]),  # the rest of _src: the api front (api, api_transforms, pmap...)
    ("public", ["xjit"]),
]


def modules(root=ROOT):
    out = {}
    for d, dirs, files in os.walk(os.path.join(root, "xjit")):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                ispkg = name.endswith(".__init__")
                if ispkg:
                    name = name[: -len(".__init__")]
                out[name] = (path, ispkg)
    return out


def _resolve(node, name, ispkg):
    if node.level == 0:
        return node.module
    base = name.split(".") if ispkg else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def graph(mods=None):
    """{module: {imported module: (lineno, at module level?)}} within xjit."""
    mods = mods or modules()
    g = {}
    for name, (path, ispkg) in mods.items():
        tree = ast.parse(open(path).read())
        toplevel = {id(n) for n in tree.body}
        for n in tree.body:  # imports under a module-level if/try are module level too
            if isinstance(n, (ast.If, ast.Try)):
                toplevel |= {id(m) for m in ast.walk(n)}
        edges = g.setdefault(name, {})
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(node, name, ispkg)
                if base is None:
                    continue
                for a in node.names:
                    sub = base + "." + a.name
                    targets.append(sub if sub in mods else base)
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != name and t.startswith("xjit"):
                    # importing a.b.c runs a and a.b too, but their bodies are
                    # what the package's __init__ lists; count the leaf only
                    edges.setdefault(t, (node.lineno, id(node) in toplevel))
    return g


def sccs(g):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in list(g):
        if v not in index:
            visit(v)
    return sorted((c for c in out if len(c) > 1), key=len, reverse=True)


def layer_of(name):
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def upward_edges(g):
    """Edges from a lower layer to a higher one: (importer, imported, lineno)."""
    out = []
    for a, edges in g.items():
        for b, (lineno, _) in edges.items():
            la, lb = layer_of(a), layer_of(b)
            if la is not None and lb is not None and lb > la:
                out.append((a, b, lineno))
    return sorted(out)


def main():
    g = graph()
    comps = sccs(g)
    print(f"{len(g)} modules; cycles: {[len(c) for c in comps]}")
    for c in comps[:3]:
        print(len(c), " ".join(m.replace("xjit._src.", "") for m in c))
    up = upward_edges(g)
    print(f"{len(up)} edges up the layers")
    for a, b, ln in up[: int(sys.argv[1]) if len(sys.argv) > 1 else 40]:
        print(f"  {a}:{ln} -> {b}  ({LAYERS[layer_of(a)][0]} -> {LAYERS[layer_of(b)][0]})")


if __name__ == "__main__":
    main()
