"""Pytrees: flattening nested containers to leaves and back.

All the work is done by jaxlib's C++ pytree registry; this module wraps it with
JAX's public API and registers the Python-level node types (OrderedDict,
defaultdict, Partial). xjit keeps its own registry rather than jaxlib's
process-wide default, so xjit and a real JAX can live in one process without
their registrations colliding.
"""
from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import operator
from typing import Any, Callable, TypeVar

from jaxlib import _jax

_pytree = _jax.pytree

PyTreeDef = _pytree.PyTreeDef
SequenceKey = _pytree.SequenceKey
DictKey = _pytree.DictKey
GetAttrKey = _pytree.GetAttrKey
FlattenedIndexKey = _pytree.FlattenedIndexKey

KeyEntry = TypeVar("KeyEntry")
KeyPath = tuple[KeyEntry, ...]

default_registry = _pytree.PyTreeRegistry()
# Treedefs pickle their registry by reference; pickle finds it under this name.
default_registry.__module__ = __name__
default_registry.__name__ = "default_registry"

# The hot path for jit dispatch: ``flatten(tree) -> (leaves, treedef)`` is the
# bound C++ method itself, with no Python frame in between.
flatten = default_registry.flatten


class _Unspecified:
    """Marks an omitted ``initializer``/``identity`` (None is a valid value)."""

    def __repr__(self):
        return "<unspecified>"


_UNSPECIFIED = _Unspecified()


# --------------------------------------------------------------------------
# Flatten / unflatten and friends.

def tree_flatten(tree, is_leaf: Callable[[Any], bool] | None = None):
    """Returns ``(leaves, treedef)``; ``is_leaf`` stops descent at chosen nodes."""
    return default_registry.flatten(tree, is_leaf)


def tree_unflatten(treedef, leaves):
    """Rebuilds the pytree described by ``treedef`` from an iterable of leaves."""
    return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf: Callable[[Any], bool] | None = None) -> list:
    return default_registry.flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf: Callable[[Any], bool] | None = None):
    return default_registry.flatten(tree, is_leaf)[1]


def treedef_tuple(treedefs):
    """The treedef of a tuple whose children have the given treedefs."""
    return _pytree.treedef_tuple(default_registry, list(treedefs))


def treedef_children(treedef) -> list:
    return treedef.children()


def treedef_is_leaf(treedef) -> bool:
    """True for a single leaf and for childless nodes such as None or ()."""
    return treedef.num_nodes == 1


def all_leaves(iterable, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Whether every element of ``iterable`` is a leaf."""
    if is_leaf is None:
        return _pytree.all_leaves(default_registry, iterable)
    items = list(iterable)
    return items == tree_leaves(items, is_leaf)


def is_tree_node(typ) -> bool:
    return default_registry.is_node(typ)


def flatten_one_level(tree):
    """``(children, node_data)`` of the top node; ValueError on a leaf."""
    out = default_registry.flatten_one_level(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def flatten_one_level_with_keys(tree):
    """``([(key, child), ...], node_data)`` of the top node; ValueError on a leaf."""
    out = default_registry.flatten_one_level_with_keys(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


# --------------------------------------------------------------------------
# Mapping and reducing.

def _flatten_rest(treedef, tree, rest, label):
    """Leaves of each tree in ``rest`` cut at ``treedef``'s leaves.

    A mismatch is reported as JAX does: the first structural difference
    between ``tree`` and the offending tree, located by key path and named
    ``label`` in the message.
    """
    out = []
    for other in rest:
        try:
            out.append(treedef.flatten_up_to(other))
        except ValueError:
            make_error = next(_prefix_errors(tree, other, ()), None)
            if make_error is None:
                raise
            raise make_error(label) from None
    return out


def tree_map(f: Callable[..., Any], tree, *rest, is_leaf=None):
    """Applies ``f`` leaf-wise; ``rest`` must have ``tree``'s structure as a prefix."""
    leaves, treedef = default_registry.flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten(map(f, leaves))
    others = _flatten_rest(treedef, tree, rest, "tree_map tree")
    return treedef.unflatten(map(f, leaves, *others))


def tree_reduce(function, tree, initializer=_UNSPECIFIED, is_leaf=None):
    """``functools.reduce`` over the leaves."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _UNSPECIFIED:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def _reduce_halves(operation, xs):
    if len(xs) == 1:
        return xs[0]
    mid = len(xs) // 2
    return operation(_reduce_halves(operation, xs[:mid]), _reduce_halves(operation, xs[mid:]))


def tree_reduce_associative(operation, tree, *, identity=_UNSPECIFIED, is_leaf=None):
    """Reduces the leaves as a balanced tree, so depth is logarithmic."""
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _UNSPECIFIED:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    return _reduce_halves(operation, leaves)


def tree_all(tree, *, is_leaf=None) -> bool:
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """Turns an outer-of-inner pytree into an inner-of-outer one.

    With ``inner_treedef`` None it is read off the first outer subtree.
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    inner_size, outer_size = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
    return inner_treedef.unflatten(outer_treedef.unflatten(col) for col in zip(*rows))


def broadcast_prefix(prefix_tree, full_tree, is_leaf=None) -> list:
    """One entry per leaf of ``full_tree``: the ``prefix_tree`` leaf above it.

    ``is_leaf`` applies to ``prefix_tree`` only.
    """
    leaves, treedef = default_registry.flatten(prefix_tree, is_leaf)
    subtrees = _flatten_rest(treedef, prefix_tree, (full_tree,), "broadcast_prefix prefix_tree")[0]
    out = []
    for leaf, sub in zip(leaves, subtrees):
        out.extend([leaf] * default_registry.flatten(sub)[1].num_leaves)
    return out


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """``prefix_tree`` with each leaf repeated over its subtree in ``full_tree``."""
    leaves = broadcast_prefix(prefix_tree, full_tree, is_leaf)
    return tree_structure(full_tree).unflatten(leaves)


# --------------------------------------------------------------------------
# Key paths.

def _path_predicate(is_leaf, is_leaf_takes_path):
    """The C++ walker calls its predicate with ``(path, node)``."""
    if is_leaf is None or is_leaf_takes_path:
        return is_leaf
    return lambda _, x: is_leaf(x)


def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """Like ``tree_flatten`` but each leaf comes as ``(key_path, leaf)``."""
    return default_registry.flatten_with_path(tree, _path_predicate(is_leaf, is_leaf_takes_path))


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False) -> list:
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    """Like ``tree_map`` but ``f`` receives each leaf's key path first."""
    path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    paths = [p for p, _ in path_leaves]
    leaves = [x for _, x in path_leaves]
    others = _flatten_rest(treedef, tree, rest, "tree_map_with_path tree")
    return treedef.unflatten(map(f, paths, leaves, *others))


def _key_value(key):
    """The bare index, dict key or attribute name inside a key entry."""
    if isinstance(key, SequenceKey):
        return key.idx
    if isinstance(key, (DictKey, FlattenedIndexKey)):
        return key.key
    if isinstance(key, GetAttrKey):
        return key.name
    return key


def keystr(keys, *, simple: bool = False, separator: str = "") -> str:
    """Renders a key path: ``[0]['a'].b`` or, with ``simple``, ``0ab``."""
    if simple:
        return separator.join(str(_key_value(k)) for k in keys)
    return separator.join(map(str, keys))


# --------------------------------------------------------------------------
# Explaining structure mismatches.

def prefix_errors(prefix_tree, full_tree) -> list:
    """Every place where ``prefix_tree`` is not a pytree prefix of ``full_tree``.

    Each entry maps a label naming ``prefix_tree`` (e.g. ``"vmap in_axes"``) to
    the ValueError to raise, so callers word the message for their own API.
    """
    return list(_prefix_errors(prefix_tree, full_tree, ()))


def _prefix_errors(prefix, full, path):
    node = default_registry.flatten_one_level_with_keys(prefix)
    if node is None:
        return  # a leaf is a prefix of anything
    if type(prefix) is not type(full):
        yield functools.partial(_type_error, path, type(prefix), type(full))
        return
    p_kids, p_meta = node
    f_kids, f_meta = default_registry.flatten_one_level_with_keys(full)
    p_kids, f_kids = list(p_kids), list(f_kids)
    if len(p_kids) != len(f_kids):
        if isinstance(prefix, (list, tuple)):
            yield functools.partial(_length_error, path, type(prefix).__name__,
                                    len(p_kids), len(f_kids))
        else:
            yield functools.partial(_children_error, path, type(prefix),
                                    [_key_value(k) for k, _ in p_kids],
                                    [_key_value(k) for k, _ in f_kids])
        return
    if p_meta != f_meta:
        yield functools.partial(_metadata_error, path, type(prefix), p_meta, f_meta)
        return
    for (key, p_child), (_, f_child) in zip(p_kids, f_kids):
        yield from _prefix_errors(p_child, f_child, (*path, key))


def _intro(what, name, path):
    return (f"pytree structure error: {what} at key path\n    {name}{keystr(path)}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type")


def _type_error(path, p_type, f_type, name):
    return ValueError(
        f"{_intro('different types', name, path)}\n    {p_type}\n"
        f"but at the same key path the full pytree has a subtree of different type\n"
        f"    {f_type}.")


def _length_error(path, type_name, p_len, f_len, name):
    return ValueError(
        f"{_intro(f'different lengths of {type_name}', name, path)} {type_name} of length "
        f"{p_len}, but the full pytree has a subtree of the same type but of length {f_len}.")


def _children_error(path, p_type, p_keys, f_keys, name):
    diff = set(p_keys) ^ set(f_keys)
    return ValueError(
        f"{_intro('different numbers of pytree children', name, path)}\n    {p_type}\n"
        f"with {len(p_keys)} child keys\n    {' '.join(map(str, p_keys))}\n"
        f"but at the same key path the full pytree has a subtree of the same type but "
        f"with {len(f_keys)} child keys\n    {' '.join(map(str, f_keys))}\n"
        f"so the symmetric difference on key sets is\n    {' '.join(map(str, diff))}")


def _metadata_error(path, p_type, p_meta, f_meta, name):
    diff = difflib.ndiff(str(p_meta).splitlines(), str(f_meta).splitlines())
    return ValueError(
        f"{_intro('different pytree metadata', name, path)}\n    {p_type}\n"
        f"with metadata\n    {p_meta}\n"
        f"but at the same key path the full pytree has a subtree of the same type but "
        f"with metadata\n    {f_meta}\n"
        f"so the diff in the metadata at these pytree nodes is\n"
        + "\n".join(f"    {line}" for line in diff))


# --------------------------------------------------------------------------
# Registering node types.

class _RegistryEntry(collections.namedtuple("_RegistryEntry", ["to_iter", "from_iter"])):
    """How one node type flattens (``to_iter``) and unflattens (``from_iter``)."""


# Every node type and its Python-level flatten/unflatten pair, as JAX keeps
# them in ``jax._src.tree_util._registry``: libraries ask ``type(x) in
# _registry`` to tell pytree nodes from leaves (flax's nnx graph code does).
_registry: dict[type, _RegistryEntry] = {
    tuple: _RegistryEntry(lambda xs: (xs, None), lambda _, xs: tuple(xs)),
    list: _RegistryEntry(lambda xs: (xs, None), lambda _, xs: list(xs)),
    dict: _RegistryEntry(lambda d: (tuple(d[k] for k in sorted(d)), tuple(sorted(d))),
                         lambda keys, xs: dict(zip(keys, xs))),
    type(None): _RegistryEntry(lambda _: ((), None), lambda _, __: None),
}


def register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None):
    """Makes ``nodetype`` a pytree node.

    ``flatten_func(x) -> (children, aux_data)`` and
    ``unflatten_func(aux_data, children) -> x``; without
    ``flatten_with_keys_func`` children get ``FlattenedIndexKey`` paths.
    """
    default_registry.register_node(nodetype, flatten_func, unflatten_func,
                                   flatten_with_keys_func)
    _registry[nodetype] = _RegistryEntry(flatten_func, unflatten_func)


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Like ``register_pytree_node`` but flattening yields ``(key, child)`` pairs."""
    if flatten_func is None:
        def flatten_func(x):
            key_children, aux = flatten_with_keys(x)
            return [child for _, child in key_children], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls):
    """Class decorator using ``x.tree_flatten()`` and ``cls.tree_unflatten``."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls):
    """Class decorator using ``x.tree_flatten_with_keys()`` and ``cls.tree_unflatten``."""
    flatten_func = (operator.methodcaller("tree_flatten")
                    if hasattr(cls, "tree_flatten") else None)
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten_func)
    return cls


def register_static(cls):
    """Makes instances leafless nodes: they travel in the treedef, so jit treats
    them as static (they must be hashable)."""
    register_pytree_node(cls, lambda x: ([], x), lambda x, _: x)
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Registers a dataclass-like type, flattened field by field in C++.

    ``data_fields`` become children and ``meta_fields`` node data. For a
    dataclass both may be omitted: fields are data unless declared with
    ``field(metadata=dict(static=True))``.
    """
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required "
                            f"when nodetype is not a dataclass. Got nodetype={nodetype!r}.")
        data_fields, meta_fields = [], []
        for f in dataclasses.fields(nodetype):
            (meta_fields if f.metadata.get("static", False) else data_fields).append(f.name)
    elif data_fields is None or meta_fields is None:
        raise TypeError("register_dataclass: data_fields and meta_fields must both be "
                        f"specified when either is specified. Got data_fields={data_fields!r} "
                        f"meta_fields={meta_fields!r}.")
    data_fields, meta_fields = list(data_fields), list(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        _check_dataclass_fields(nodetype, data_fields, meta_fields, drop_fields)
    overlap = set(data_fields) & set(meta_fields)
    if overlap:
        raise ValueError("data_fields and meta_fields must not overlap. "
                         f"Overlapping fields: {overlap}.")
    default_registry.register_dataclass_node(nodetype, data_fields, meta_fields)
    _registry[nodetype] = _RegistryEntry(
        lambda x: (tuple(getattr(x, f) for f in data_fields),
                   tuple(getattr(x, f) for f in meta_fields)),
        lambda meta, data: nodetype(**dict(zip(data_fields, data)),
                                    **dict(zip(meta_fields, meta))))
    return nodetype


def _check_dataclass_fields(nodetype, data_fields, meta_fields, drop_fields):
    """Unflattening calls the constructor, so exactly the init fields must be named."""
    init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
    given = set(data_fields) | set(meta_fields)
    missing, unexpected = init_fields - given, given - init_fields
    if not (missing or unexpected):
        return
    msg = ("data_fields and meta_fields must include all dataclass fields with "
           "``init=True`` and only them.")
    if missing:
        msg += f" Missing fields: {missing}. Add them to drop_fields to suppress this error."
    if unexpected:
        msg += f" Unexpected fields: {unexpected}."
    raise ValueError(msg)


def static(**kwargs):
    """A ``dataclasses.field`` marked static for ``register_dataclass``."""
    metadata = {"static": True, **kwargs.pop("metadata", {})}
    return dataclasses.field(metadata=metadata, **kwargs)


# --------------------------------------------------------------------------
# Built-in Python-level node types.

register_pytree_with_keys(
    collections.OrderedDict,
    lambda x: ([(DictKey(k), v) for k, v in x.items()], tuple(x)),
    lambda keys, values: collections.OrderedDict(zip(keys, values)),
    lambda x: (list(x.values()), tuple(x)))


def _defaultdict_flatten_with_keys(x):
    keys = tuple(sorted(x))
    return [(DictKey(k), x[k]) for k in keys], (x.default_factory, keys)


register_pytree_with_keys(
    collections.defaultdict,
    _defaultdict_flatten_with_keys,
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values)))


class _HashableCallableShim:
    """Wraps a functools.partial passed to Partial, which would otherwise merge
    its bound arguments (and their leaves) into the new Partial."""

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        if isinstance(other, _HashableCallableShim):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self):
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A functools.partial that is a pytree: bound arguments are its leaves and
    the function is node data, so it can be passed through jit."""

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):
            func = _HashableCallableShim(func)
        return super().__new__(cls, func, *args, **kwargs)


Partial.__module__ = "xjit.tree_util"

register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]))
