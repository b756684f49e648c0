"""Pytree behaviour, checked against strings captured from JAX 0.10.2."""
from __future__ import annotations

import dataclasses
import functools
import pickle
from collections import OrderedDict, defaultdict, namedtuple

import pytest

import xjit.tree as jt
import xjit.tree_util as tu

Point = namedtuple("Point", "x y")

# (tree, leaves, repr of treedef, num_leaves, num_nodes), captured from JAX.
STRUCTURES = [
    (1, [1], "PyTreeDef(*)", 1, 1),
    (None, [], "PyTreeDef(None)", 0, 1),
    ((), [], "PyTreeDef(())", 0, 1),
    ([], [], "PyTreeDef([])", 0, 1),
    ({}, [], "PyTreeDef({})", 0, 1),
    ((1,), [1], "PyTreeDef((*,))", 1, 2),
    ([1, 2], [1, 2], "PyTreeDef([*, *])", 2, 3),
    ((1, (2, 3)), [1, 2, 3], "PyTreeDef((*, (*, *)))", 3, 5),
    ({"b": 1, "a": 2}, [2, 1], "PyTreeDef({'a': *, 'b': *})", 2, 3),
    ({"a": [1, (2, None)], "b": {}}, [1, 2], "PyTreeDef({'a': [*, (*, None)], 'b': {}})", 2, 7),
    (Point(1, (2, 3)), [1, 2, 3], "PyTreeDef(CustomNode(namedtuple[Point], [*, (*, *)]))", 3, 5),
    (OrderedDict(b=1, a=2), [1, 2], "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))", 2, 3),
    (defaultdict(list, b=1, a=2), [2, 1],
     "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))", 2, 3),
    ([None, [None]], [], "PyTreeDef([None, [None]])", 0, 4),
    ({1: "x", 2: ("y", "z")}, ["x", "y", "z"], "PyTreeDef({1: *, 2: (*, *)})", 3, 5),
    (((((1,),),),), [1], "PyTreeDef(((((*,),),),))", 1, 5),
    ([Point(1, 2), {"k": [3, None]}], [1, 2, 3],
     "PyTreeDef([CustomNode(namedtuple[Point], [*, *]), {'k': [*, None]}])", 3, 8),
]


@pytest.mark.parametrize("tree,leaves,text,num_leaves,num_nodes", STRUCTURES)
def test_flatten_round_trip(tree, leaves, text, num_leaves, num_nodes):
    got_leaves, treedef = tu.tree_flatten(tree)
    assert got_leaves == leaves
    assert repr(treedef) == str(treedef) == text
    assert (treedef.num_leaves, treedef.num_nodes) == (num_leaves, num_nodes)
    rebuilt = tu.tree_unflatten(treedef, leaves)
    assert rebuilt == tree and type(rebuilt) is type(tree)
    assert tu.tree_leaves(tree) == leaves
    assert tu.tree_structure(tree) == treedef
    assert pickle.loads(pickle.dumps(treedef)) == treedef
    assert jt.flatten(tree) == (leaves, treedef)


def test_container_subtleties():
    rebuilt = tu.tree_unflatten(tu.tree_structure(defaultdict(list, b=1, a=2)), [5, 6])
    assert type(rebuilt) is defaultdict and rebuilt.default_factory is list
    assert rebuilt == {"a": 5, "b": 6}
    assert list(tu.tree_unflatten(tu.tree_structure(OrderedDict(b=1, a=2)), [5, 6]).items()) == [
        ("b", 5), ("a", 6)]
    assert tu.tree_unflatten(tu.tree_structure({"b": 1, "a": 2}), [10, 20]) == {"a": 10, "b": 20}
    assert tu.tree_unflatten(tu.tree_structure((1, 2)), iter([1, 2])) == (1, 2)
    with pytest.raises(ValueError, match="Comparator raised exception while sorting"):
        tu.tree_flatten({1: "a", "b": 2})
    treedef = tu.tree_structure((1, 2))
    with pytest.raises(ValueError, match=r"^Too few leaves for PyTreeDef; expected 2, got 1$"):
        tu.tree_unflatten(treedef, [1])
    with pytest.raises(ValueError, match=r"^Too many leaves for PyTreeDef; expected 2\.$"):
        jt.unflatten(treedef, [1, 2, 3])


def test_treedef_api():
    treedef = tu.tree_structure((1, [2, 3], {"a": 4}))
    assert [str(c) for c in tu.treedef_children(treedef)] == [
        "PyTreeDef(*)", "PyTreeDef([*, *])", "PyTreeDef({'a': *})"]
    assert tu.treedef_children(tu.tree_structure(1)) == []
    assert [tu.treedef_is_leaf(tu.tree_structure(t)) for t in (1, None, (), (1,))] == [
        True, True, True, False]
    pair = tu.treedef_tuple(iter([tu.tree_structure(1), tu.tree_structure([1, 2])]))
    assert str(pair) == "PyTreeDef((*, [*, *]))"
    composed = tu.tree_structure((1, 2)).compose(tu.tree_structure([1]))
    assert str(composed) == "PyTreeDef(([*], [*]))"
    assert tu.tree_structure((1, 2)) == tu.tree_structure((3, 4))
    assert hash(tu.tree_structure((1, 2))) == hash(tu.tree_structure((3, 4)))
    assert tu.tree_structure((1, 2)) != tu.tree_structure([3, 4])
    # As in JAX, a treedef compares neither equal nor unequal to a non-treedef.
    assert not (tu.tree_structure((1, 2)) == 5) and not (tu.tree_structure((1, 2)) != 5)
    assert isinstance(treedef, tu.PyTreeDef)
    # Treedefs pickle their registry by name.
    assert pickle.loads(pickle.dumps(tu.default_registry)) is tu.default_registry
    treedef = tu.tree_structure([tu.Partial(len, 1), OrderedDict(a=1), defaultdict(int, b=2)])
    assert pickle.loads(pickle.dumps(treedef)) == treedef


def test_is_leaf():
    tree = {"a": [1, (2, None)], "b": 3}
    assert tu.tree_leaves(tree, is_leaf=lambda x: isinstance(x, tuple)) == [1, (2, None), 3]
    assert tu.tree_leaves([1, None], is_leaf=lambda x: x is None) == [1, None]
    assert tu.tree_flatten([1, 2], is_leaf=lambda x: True) == ([[1, 2]], tu.tree_structure(0))
    assert tu.all_leaves([1, 2]) and not tu.all_leaves([(1,), 2])
    assert not tu.all_leaves([None])
    assert tu.all_leaves([(1,), 2], is_leaf=lambda x: isinstance(x, tuple))
    assert not tu.all_leaves([(1,), None], is_leaf=lambda x: isinstance(x, tuple))
    # The elements are checked, not the container: a tuple of leaves passes.
    assert tu.all_leaves(((1,), 2), is_leaf=lambda x: isinstance(x, tuple))
    assert not tu.all_leaves([1, 2], is_leaf=lambda x: isinstance(x, list))
    assert tu.all_leaves(iter([None]), is_leaf=lambda x: x is None)


def test_tree_map():
    assert tu.tree_map(lambda x: x * 2, {"a": [1, (2, None)], "b": 3}) == {
        "a": [2, (4, None)], "b": 6}
    assert tu.tree_map(lambda a, b: (a, b), {"a": 1, "b": (2, 3)}, {"a": 5, "b": (6, 7)}) == {
        "a": (1, 5), "b": ((2, 6), (3, 7))}
    # The first tree only needs to be a prefix of the others.
    assert tu.tree_map(lambda a, b: b, (1, 2), ((1, 2), (3, 4))) == ((1, 2), (3, 4))
    assert tu.tree_map(lambda a, b: a, (1, 2), (1, None)) == (1, 2)
    assert tu.tree_map(lambda x: x if isinstance(x, tuple) else -x, {"a": 1, "b": (2, 3)},
                       is_leaf=lambda x: isinstance(x, tuple)) == {"a": -1, "b": (2, 3)}
    assert tu.tree_map(lambda x: x, (None, 1), is_leaf=lambda x: x is None) == (None, 1)
    assert tu.tree_map(lambda x: 0, [None, 1, {}]) == [None, 0, {}]
    assert jt.map(lambda x, y: x + y, [1, 2], [10, 20]) == [11, 22]


def test_tree_map_with_path():
    tree = {"a": [1, (2, None)], "b": 3}
    out = tu.tree_map_with_path(lambda p, x, y: (tu.keystr(p), x, y), tree, tree)
    assert out == {"a": [("['a'][0]", 1, 1), (("['a'][1][0]", 2, 2), None)], "b": ("['b']", 3, 3)}
    expect = {"a": ["['a'][0]", "['a'][1]"], "b": "['b']"}
    assert tu.tree_map_with_path(lambda p, x: tu.keystr(p), tree,
                                 is_leaf=lambda x: isinstance(x, tuple)) == expect
    assert jt.map_with_path(lambda p, x: tu.keystr(p), tree, is_leaf=lambda p, x: len(p) == 2,
                            is_leaf_takes_path=True) == expect
    assert tu.tree_map_with_path(lambda p, x: x, {"a": None}) == {"a": None}


def test_paths():
    tree = {"a": [1, (2, None)], "b": 3}
    assert repr(tu.tree_flatten_with_path(tree)) == (
        "([((DictKey(key='a'), SequenceKey(idx=0)), 1), ((DictKey(key='a'), SequenceKey(idx=1), "
        "SequenceKey(idx=0)), 2), ((DictKey(key='b'),), 3)], PyTreeDef({'a': [*, (*, None)], "
        "'b': *}))")
    by_type = tu.tree_leaves_with_path(tree, is_leaf=lambda x: isinstance(x, tuple))
    by_path = jt.leaves_with_path(tree, is_leaf=lambda p, x: len(p) == 2, is_leaf_takes_path=True)
    assert by_type == by_path == [
        ((tu.DictKey("a"), tu.SequenceKey(0)), 1), ((tu.DictKey("a"), tu.SequenceKey(1)), (2, None)),
        ((tu.DictKey("b"),), 3)]
    mixed = {"o": OrderedDict(c=4), "d": defaultdict(int, e=5), "p": Point(6, 7),
             "f": tu.Partial(print, 8, k=9)}
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(mixed)] == [
        "['d']['e']", "['f'][<flat index 0>][0]", "['f'][<flat index 1>]['k']", "['o']['c']",
        "['p'].x", "['p'].y"]


def test_keys_and_keystr():
    keys = (tu.SequenceKey(0), tu.DictKey("a"), tu.DictKey(1), tu.DictKey(("x", 1)),
            tu.GetAttrKey("foo"), tu.FlattenedIndexKey(3))
    assert [repr(k) for k in keys] == [
        "SequenceKey(idx=0)", "DictKey(key='a')", "DictKey(key=1)", "DictKey(key=('x', 1))",
        "GetAttrKey(name='foo')", "FlattenedIndexKey(key=3)"]
    assert tu.keystr(keys) == "[0]['a'][1][('x', 1)].foo[<flat index 3>]"
    assert tu.keystr(keys, simple=True) == "0a1('x', 1)foo3"
    assert tu.keystr(keys, simple=True, separator="/") == "0/a/1/('x', 1)/foo/3"
    assert tu.keystr(keys, separator="/") == "[0]/['a']/[1]/[('x', 1)]/.foo/[<flat index 3>]"
    assert tu.keystr(()) == "" and tu.keystr(("a", 1)) == "a1"
    assert tu.SequenceKey(0) == tu.SequenceKey(0) and tu.SequenceKey(0) != tu.FlattenedIndexKey(0)
    assert pickle.loads(pickle.dumps(tu.DictKey("k"))) == tu.DictKey("k")


def test_flatten_one_level():
    assert tu.flatten_one_level((1, (2, 3))) == ((1, (2, 3)), None)
    assert tu.flatten_one_level({"b": 1, "a": 2}) == ((2, 1), ("a", "b"))
    assert tu.flatten_one_level(None) == ((), None)
    assert tu.flatten_one_level(OrderedDict(b=1, a=2)) == ([1, 2], ("b", "a"))
    assert repr(tu.flatten_one_level_with_keys(defaultdict(int, b=1, a=2))) == (
        "([(DictKey(key='a'), 2), (DictKey(key='b'), 1)], (<class 'int'>, ('a', 'b')))")
    assert repr(tu.flatten_one_level_with_keys([1, 2])) == (
        "(((SequenceKey(idx=0), 1), (SequenceKey(idx=1), 2)), None)")
    for f in (tu.flatten_one_level, tu.flatten_one_level_with_keys):
        with pytest.raises(ValueError, match=r"^can't tree-flatten type: <class 'int'>$"):
            f(1)
    assert tu.is_tree_node(tuple) and tu.is_tree_node(OrderedDict) and tu.is_tree_node(type(None))
    assert not tu.is_tree_node(int)


def test_reductions():
    assert tu.tree_reduce(lambda a, b: a + b, (1, [2, 3])) == 6
    assert jt.reduce(lambda a, b: a + b, (1, [2, 3]), 10) == 16
    assert tu.tree_reduce(lambda a, b: a + b, [(1,), (2,)], (), is_leaf=lambda x: isinstance(
        x, tuple)) == (1, 2)
    with pytest.raises(TypeError, match="reduce.. of empty iterable with no initial value"):
        tu.tree_reduce(lambda a, b: a + b, ())
    pair = lambda a, b: (a, b)  # noqa: E731
    assert tu.tree_reduce_associative(pair, (1, [2, 3, 4, 5])) == ((1, 2), (3, (4, 5)))
    assert tu.tree_reduce_associative(pair, list(range(6))) == ((0, (1, 2)), (3, (4, 5)))
    assert jt.reduce_associative(pair, list(range(7))) == ((0, (1, 2)), ((3, 4), (5, 6)))
    assert tu.tree_reduce_associative(pair, (), identity=0) == 0
    with pytest.raises(TypeError, match="^Must specify identity for parallel reduction of empty"):
        tu.tree_reduce_associative(pair, ())
    assert not tu.tree_all((1, [0])) and tu.tree_all(()) and tu.tree_all([None])
    assert jt.all([(0,), (2,)], is_leaf=lambda x: isinstance(x, tuple))


def test_transpose():
    outer, inner = tu.tree_structure([0, 0]), tu.tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert jt.transpose(outer, None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    nested = {"a": [1, {"c": 2}], "b": [3, {"c": 4}]}
    assert tu.tree_transpose(tu.tree_structure({"a": 0, "b": 0}), tu.tree_structure(
        [0, {"c": 0}]), nested) == [{"a": 1, "b": 3}, {"c": {"a": 2, "b": 4}}]
    msg = "Mismatch\nPyTreeDef([(*, *), (*, *, *)])\n != \nPyTreeDef([(*, *), (*, *)])"
    for given_inner in (inner, None):
        with pytest.raises(TypeError) as e:
            tu.tree_transpose(outer, given_inner, [(1, 2), (3, 4, 5)])
        assert str(e.value) == msg


def test_broadcast():
    assert tu.tree_broadcast((1, {"a": 2}), ([0, 0], {"a": (3, 4)})) == ([1, 1], {"a": (2, 2)})
    tuples = lambda x: isinstance(x, tuple) and len(x) == 2  # noqa: E731
    assert jt.broadcast([1, (5, 6)], [(2, 3), (7, [8, 9])], is_leaf=tuples) == [
        (1, 1), ((5, 6), [(5, 6), (5, 6)])]
    assert tu.tree_broadcast([1, 2], [(2, 3), None]) == [(1, 1), None]
    assert tu.tree_broadcast(1, None) is None
    got = _map_error((1, 2), ([0, 0], {"a": (3, 4)}, 5), fn=lambda f, *t: tu.tree_broadcast(*t))
    assert got == _intro("different lengths of tuple", name="broadcast_prefix prefix_tree") + (
        " tuple of length 2, but the full pytree has a subtree of the same type but of length 3.")


# --------------------------------------------------------------------------
# Structure mismatch errors (texts captured from JAX).

def _map_error(*trees, fn=tu.tree_map):
    with pytest.raises(ValueError) as e:
        fn(lambda *xs: xs[0], *trees)
    assert e.value.__suppress_context__
    return str(e.value)


def _intro(what, path="", name="tree_map tree"):
    return (f"pytree structure error: {what} at key path\n    {name}{path}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type")


def test_map_error_different_types():
    tail = ("\nbut at the same key path the full pytree has a subtree of different type\n"
            "    <class 'list'>.")
    assert _map_error((1, 2), [1, 2]) == _intro("different types") + "\n    <class 'tuple'>" + tail
    # Every extra tree is checked; the third one is the culprit here.
    assert _map_error((1, 2), (1, 2), [1]) == _intro("different types") + (
        "\n    <class 'tuple'>" + tail)
    assert _map_error((1, None), (1, 2)) == _intro("different types", "[1]") + (
        "\n    <class 'NoneType'>\nbut at the same key path the full pytree has a subtree of "
        "different type\n    <class 'int'>.")
    assert _map_error(Point(1, 2), (1, 2)).endswith(
        "    <class 'test_tree_util.Point'>\nbut at the same key path the full pytree has a "
        "subtree of different type\n    <class 'tuple'>.")


def test_map_error_lengths_and_paths():
    tail = (" tuple of length 2, but the full pytree has a subtree of the same type but of "
            "length 3.")
    assert _map_error((1, 2), (1, 2, 3)) == _intro("different lengths of tuple") + tail
    # The first difference in traversal order is reported, with its key path.
    got = _map_error({"a": [1, (2, 3)], "b": {"c": [4]}}, {"a": [1, (2, 3, 4)], "b": {"c": [4, 5]}})
    assert got == _intro("different lengths of tuple", "['a'][1]") + tail
    assert _map_error({"x": [1, 2]}, {"x": [1, 2, 3]}) == (
        _intro("different lengths of list", "['x']") + tail.replace("tuple", "list"))
    got = _map_error([1, (2, 3)], [1, (2, 3, 4)], fn=tu.tree_map_with_path)
    assert got == _intro("different lengths of tuple", "[1]", "tree_map_with_path tree") + tail
    got = _map_error(tu.Partial(print, (1, 2)), tu.Partial(print, (1, 2, 3)))
    assert got == _intro("different lengths of tuple", "[<flat index 0>][0]") + tail


def test_map_error_children():
    assert _map_error({"a": 1}, {"a": 1, "b": 2}) == _intro(
        "different numbers of pytree children") + (
        "\n    <class 'dict'>\nwith 1 child keys\n    a\nbut at the same key path the full pytree "
        "has a subtree of the same type but with 2 child keys\n    a b\nso the symmetric "
        "difference on key sets is\n    b")
    assert _map_error({}, {"a": 1}).endswith(
        "with 0 child keys\n    \nbut at the same key path the full pytree has a subtree of the "
        "same type but with 1 child keys\n    a\nso the symmetric difference on key sets is\n    a")
    assert _map_error(Vec(1, meta="a\nb"), Vec(1, 2, meta="a\nc")).endswith(
        "with 1 child keys\n    0\nbut at the same key path the full pytree has a subtree of the "
        "same type but with 2 child keys\n    0 1\nso the symmetric difference on key sets is\n    1")


def test_map_error_metadata():
    assert _map_error({"a": 1}, {"b": 1}) == _intro("different pytree metadata") + (
        "\n    <class 'dict'>\nwith metadata\n    ('a',)\nbut at the same key path the full pytree "
        "has a subtree of the same type but with metadata\n    ('b',)\nso the diff in the metadata "
        "at these pytree nodes is\n    - ('a',)\n    ?   ^\n\n    + ('b',)\n    ?   ^\n")
    assert _map_error(OrderedDict(a=1, b=2), OrderedDict(b=2, a=1)).endswith(
        "is\n    - ('a', 'b')\n    + ('b', 'a')")
    assert _map_error(Vec(1, meta="a\nb"), Vec(1, meta="a\nc")).endswith(
        "with metadata\n    a\nb\nbut at the same key path the full pytree has a subtree of the "
        "same type but with metadata\n    a\nc\nso the diff in the metadata at these pytree nodes "
        "is\n      a\n    - b\n    + c")


# --------------------------------------------------------------------------
# Registering node types.

class Vec:
    def __init__(self, *xs, meta=None):
        self.xs, self.meta = xs, meta

    def __eq__(self, other):
        return type(other) is Vec and (self.xs, self.meta) == (other.xs, other.meta)


tu.register_pytree_node(Vec, lambda v: (v.xs, v.meta), lambda m, xs: Vec(*xs, meta=m))


class Attrs:
    def __init__(self, **fields):
        self.fields = fields


tu.register_pytree_with_keys(
    Attrs, lambda a: ([(tu.GetAttrKey(k), v) for k, v in a.fields.items()], tuple(a.fields)),
    lambda names, values: Attrs(**dict(zip(names, values))))


@tu.register_pytree_node_class
class Box:
    def __init__(self, value, label):
        self.value, self.label = value, label

    def tree_flatten(self):
        return (self.value,), self.label

    @classmethod
    def tree_unflatten(cls, label, children):
        return cls(*children, label)


@tu.register_pytree_with_keys_class
class KeyedBox(Box):
    def tree_flatten_with_keys(self):
        return ((tu.GetAttrKey("value"), self.value),), self.label


@tu.register_static
class Tag(str):
    pass


def test_register_pytree_node():
    leaves, treedef = tu.tree_flatten(Vec(1, (2, 3)))
    assert leaves == [1, 2, 3] and str(treedef) == "PyTreeDef(CustomNode(Vec[None], [*, (*, *)]))"
    assert treedef.unflatten([4, 5, 6]) == Vec(4, (5, 6))
    assert tu.tree_map(lambda x: x + 1, Vec(1, meta="m")) == Vec(2, meta="m")
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Vec(1, (2, 3)))] == [
        "[<flat index 0>]", "[<flat index 1>][0]", "[<flat index 1>][1]"]
    with pytest.raises(ValueError, match=r"^Duplicate custom PyTreeDef type registration for "
                                         r"<class 'test_tree_util.Vec'>\.$"):
        tu.register_pytree_node(Vec, lambda v: (v.xs, None), lambda m, xs: Vec(*xs))


def test_register_with_keys():
    leaves, treedef = tu.tree_flatten(Attrs(a=1, b=(2,)))
    assert leaves == [1, 2] and str(treedef) == "PyTreeDef(CustomNode(Attrs[('a', 'b')], [*, (*,)]))"
    assert tu.flatten_one_level(Attrs(a=1, b=(2,))) == ([1, (2,)], ("a", "b"))
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Attrs(a=1, b=(2,)))] == [".a", ".b[0]"]
    assert tu.tree_unflatten(treedef, [7, 8]).fields == {"a": 7, "b": (8,)}


def test_register_classes():
    leaves, treedef = tu.tree_flatten(Box(1, "x"))
    assert leaves == [1] and str(treedef) == "PyTreeDef(CustomNode(Box[x], [*]))"
    assert vars(treedef.unflatten([9])) == {"value": 9, "label": "x"}
    path_leaves, treedef = tu.tree_flatten_with_path(KeyedBox(1, "x"))
    assert path_leaves == [((tu.GetAttrKey("value"),), 1)]
    assert type(treedef.unflatten([2])) is KeyedBox
    with pytest.raises(AttributeError, match="tree_unflatten"):
        tu.register_pytree_node_class(type("NoMethods", (), {}))


def test_register_static():
    leaves, treedef = tu.tree_flatten((Tag("a"), 1))
    assert leaves == [1] and str(treedef) == "PyTreeDef((CustomNode(Tag[a], []), *))"
    assert type(treedef.unflatten([2])[0]) is Tag
    assert tu.tree_structure(Tag("a")) != tu.tree_structure(Tag("b"))
    assert tu.flatten_one_level(Tag("a")) == ([], "a")


@tu.register_dataclass
@dataclasses.dataclass
class Op:
    x: int
    y: int
    op: str = dataclasses.field(default="add", metadata=dict(static=True))
    z: int = jt.static(default=5)


def _dataclass():
    @dataclasses.dataclass
    class D:
        x: int
        y: int
        z: int = 0
    return D


def test_register_dataclass_inferred():
    leaves, treedef = tu.tree_flatten(Op(1, 2))
    assert leaves == [1, 2] and str(treedef) == "PyTreeDef(CustomNode(Op[('add', 5)], [*, *]))"
    assert treedef.unflatten([10, 20]) == Op(10, 20)
    assert repr(tu.flatten_one_level_with_keys(Op(1, 2))) == (
        "([(GetAttrKey(name='x'), 1), (GetAttrKey(name='y'), 2)], ('add', 5))")
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Op(1, (2, 3)))] == [
        ".x", ".y[0]", ".y[1]"]
    assert dict(dataclasses.fields(Op)[3].metadata) == {"static": True}
    assert dict(jt.static(default=1, metadata={"a": 1}).metadata) == {"static": True, "a": 1}


def test_register_dataclass_explicit():
    D = _dataclass()
    assert tu.register_dataclass(D, data_fields=("x",), meta_fields=iter(["y"]),
                                 drop_fields=["z"]) is D
    leaves, treedef = tu.tree_flatten(D(1, 2, 3))
    assert leaves == [1] and str(treedef) == "PyTreeDef(CustomNode(D[(2,)], [*]))"
    assert treedef.unflatten([7]) == D(7, 2, 0)
    with pytest.raises(ValueError, match="^Duplicate custom dataclass PyTreeDef type registration"):
        tu.register_dataclass(D, data_fields=["x"], meta_fields=["y"], drop_fields=["z"])

    class Plain:
        def __init__(self, x, y):
            self.x, self.y = x, y

    tu.register_dataclass(Plain, data_fields=["x"], meta_fields=["y"])
    rebuilt = tu.tree_unflatten(tu.tree_structure(Plain(1, 2)), [5])
    assert vars(rebuilt) == {"x": 5, "y": 2}


def test_register_dataclass_errors():
    prefix = ("data_fields and meta_fields must include all dataclass fields with ``init=True`` "
              "and only them.")
    with pytest.raises(ValueError) as e:
        tu.register_dataclass(_dataclass(), data_fields=["x", "y", "w"], meta_fields=["z"])
    assert str(e.value) == prefix + " Unexpected fields: {'w'}."
    with pytest.raises(ValueError) as e:
        tu.register_dataclass(_dataclass(), data_fields=["x", "y"], meta_fields=[])
    assert str(e.value) == prefix + (
        " Missing fields: {'z'}. Add them to drop_fields to suppress this error.")
    with pytest.raises(ValueError) as e:
        tu.register_dataclass(_dataclass(), data_fields=["x", "y", "z"], meta_fields=["y"])
    assert str(e.value) == "data_fields and meta_fields must not overlap. Overlapping fields: {'y'}."
    with pytest.raises(TypeError) as e:
        tu.register_dataclass(_dataclass(), data_fields=["x", "y"])
    assert str(e.value) == ("register_dataclass: data_fields and meta_fields must both be "
                            "specified when either is specified. Got data_fields=['x', 'y'] "
                            "meta_fields=None.")
    plain = type("Plain", (), {})
    with pytest.raises(TypeError) as e:
        tu.register_dataclass(plain)
    assert str(e.value) == ("register_dataclass: data_fields and meta_fields are required when "
                            f"nodetype is not a dataclass. Got nodetype={plain!r}.")

    @dataclasses.dataclass
    class NoInit:
        x: int
        y: int = dataclasses.field(default=0, init=False)

    # As in JAX, inference keeps init=False fields, which the check then rejects.
    with pytest.raises(ValueError, match=r"Unexpected fields: \{'y'\}\.$"):
        tu.register_dataclass(NoInit)


# --------------------------------------------------------------------------
# Partial.

def _args(*args, **kwargs):
    return args, kwargs


def test_partial():
    p = tu.Partial(_args, 1, k=2)
    assert isinstance(p, functools.partial) and p(3, j=4) == ((1, 3), {"k": 2, "j": 4})
    assert repr(p) == f"Partial({_args!r}, 1, k=2)"
    leaves, treedef = tu.tree_flatten(p)
    assert leaves == [1, 2]
    assert str(treedef) == f"PyTreeDef(CustomNode(Partial[{_args!r}], [(*,), {{'k': *}}]))"
    rebuilt = treedef.unflatten([5, 6])
    assert type(rebuilt) is tu.Partial and rebuilt() == ((5,), {"k": 6})
    assert tu.tree_structure(tu.Partial(_args, 1)) == tu.tree_structure(tu.Partial(_args, 2))
    assert tu.tree_map(lambda x: x * 10, p)() == ((10,), {"k": 20})
    assert pickle.loads(pickle.dumps(tu.Partial(len, [1])))() == 1
    with pytest.raises(TypeError, match="the first argument must be callable"):
        tu.Partial(3)


def test_partial_of_partial_keeps_inner_arguments_static():
    inner = tu.Partial(_args, 1)
    outer = tu.Partial(inner, 2)
    assert repr(outer.func) == f"_HashableCallableShim({inner!r})"
    assert outer.func == inner and outer.args == (2,)
    assert tu.tree_leaves(outer) == [2] and outer(3) == ((1, 2, 3), {})
    assert tu.tree_structure(outer) == tu.tree_structure(tu.Partial(inner, 5))
    assert tu.tree_leaves(tu.Partial(functools.partial(_args, 1), 2)) == [2]


# --------------------------------------------------------------------------
# Module surface.

def test_public_names_match_jax():
    public = lambda mod: " ".join(sorted(n for n in dir(mod) if not n.startswith("_")))  # noqa
    assert public(jt) == (
        "all broadcast flatten flatten_with_path leaves leaves_with_path map map_with_path reduce "
        "reduce_associative static structure transpose unflatten")
    assert public(tu) == (
        "DictKey FlattenedIndexKey GetAttrKey KeyEntry KeyPath Partial PyTreeDef SequenceKey "
        "all_leaves default_registry flatten_one_level flatten_one_level_with_keys is_tree_node "
        "keystr register_dataclass register_pytree_node register_pytree_node_class "
        "register_pytree_with_keys register_pytree_with_keys_class register_static tree_all "
        "tree_broadcast tree_flatten tree_flatten_with_path tree_leaves tree_leaves_with_path "
        "tree_map tree_map_with_path tree_reduce tree_reduce_associative tree_structure "
        "tree_transpose tree_unflatten treedef_children treedef_is_leaf treedef_tuple")


# --------------------------------------------------------------------------
# Engine-facing helpers in xjit._src.tree_util.

def test_engine_helpers():
    from xjit._src import tree_util as impl

    leaves, treedef = impl.flatten({"b": (1, None), "a": 2})
    assert leaves == [2, 1] and treedef == tu.tree_structure({"a": 0, "b": (0, None)})
    assert type(impl.flatten).__name__ == "nb_bound_method"  # straight into C++
    assert impl.default_registry is tu.default_registry
    assert impl.broadcast_prefix((0, 5), ([1, 2], (3, None, 4))) == [0, 0, 5, 5]
    errors = impl.prefix_errors({"a": (1, 2), "b": [1]}, {"a": (1, 2, 3), "b": (1,)})
    assert [str(make("vmap in_axes")).split("\n")[:2] for make in errors] == [
        ["pytree structure error: different lengths of tuple at key path", "    vmap in_axes['a']"],
        ["pytree structure error: different types at key path", "    vmap in_axes['b']"]]
    assert impl.prefix_errors((1, 2), ((1, 2), [3])) == []
