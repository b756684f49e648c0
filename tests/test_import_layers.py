"""Dependencies run one way: the import graph of ``xjit`` (imports inside
functions included) has no edge up the layers of ``scripts/import_graph.py``
and no import cycle longer than ``MAX_CYCLE`` modules."""
from util import load_script

MAX_CYCLE = 11  # the lax package around lax.py, whose rules call back into lax (JAX's too)

import_graph = load_script("import_graph")

GRAPH = import_graph.graph()


def _layer(name):
    return import_graph.LAYERS[import_graph.layer_of(name)][0]


def test_no_edge_up_the_layers():
    up = import_graph.upward_edges(GRAPH)
    assert not up, "imports up the layers:\n" + "\n".join(
        f"  {a}:{line} -> {b}  ({_layer(a)} -> {_layer(b)})" for a, b, line in up)


def test_largest_import_cycle():
    comps = import_graph.sccs(GRAPH)
    biggest = comps[0] if comps else []
    if len(biggest) > MAX_CYCLE:
        inside = set(biggest)
        edges = [f"  {a}:{GRAPH[a][b][0]} -> {b}" for a in biggest for b in sorted(GRAPH[a])
                 if b in inside]
        raise AssertionError(f"an import cycle of {len(biggest)} modules (at most {MAX_CYCLE}):\n"
                             + "\n".join(edges))


def test_checker_sees_imports_inside_functions(tmp_path):
    """A lazy import up the layers is still an edge up, and closes a cycle."""
    src = tmp_path / "xjit" / "_src"
    (src / "lax").mkdir(parents=True)
    for init in (tmp_path / "xjit", src, src / "lax"):
        (init / "__init__.py").write_text("")
    (src / "core.py").write_text("def f():\n    from xjit._src.lax import lax\n")
    (src / "lax" / "lax.py").write_text("from xjit._src import core\n")
    g = import_graph.graph(import_graph.modules(str(tmp_path)))
    assert import_graph.upward_edges(g) == [("xjit._src.core", "xjit._src.lax.lax", 2)]
    assert import_graph.sccs(g) == [["xjit._src.core", "xjit._src.lax.lax"]]
