"""Helpers the API front uses to prepare a user function for tracing, with
JAX's ``jax.api_util`` names: flattening a ``WrappedFun`` over pytrees,
splitting static from dynamic arguments, and donation vectors."""
from __future__ import annotations

import inspect
import operator

from xjit._src import core, tree_util
from xjit._src import linear_util as lu
from xjit._src.interpreters.batching import flatten_axes as _flatten_axes_prefix
from xjit._src.interpreters.partial_eval import DebugInfo, arg_names_of
from xjit._src.util import safe_map  # noqa: F401


@lu.transformation_with_aux2
def flatten_fun(f, store, in_tree, *args_flat):
    """``f(*args, **kwargs)`` as a function of the leaves of ``(args, kwargs)``
    (``in_tree``); the output treedef goes to the store."""
    args, kwargs = tree_util.tree_unflatten(in_tree, list(args_flat))
    out_flat, out_tree = tree_util.tree_flatten(f(*args, **kwargs))
    store.store(out_tree)
    return out_flat


@lu.transformation_with_aux2
def flatten_fun_nokwargs(f, store, in_tree, *args_flat):
    """``flatten_fun`` for a function of positional arguments only."""
    args = tree_util.tree_unflatten(in_tree, list(args_flat))
    out_flat, out_tree = tree_util.tree_flatten(f(*args))
    store.store(out_tree)
    return out_flat


class _HashableByObjectId:
    __slots__ = ("val",)

    def __init__(self, val):
        self.val = val

    def __hash__(self):
        return id(self.val)

    def __eq__(self, other):
        return self.val is other.val


@lu.transformation2
def _argnums_partial(f, dyn_argnums, static_args, *dyn_args, **kwargs):
    args = [None if a is None else a.val for a in static_args]
    for i, x in zip(dyn_argnums, dyn_args):
        args[i] = x
    return f(*args, **kwargs)


def argnums_partial(f: lu.WrappedFun, dyn_argnums, args, require_static_args_hashable=True):
    """``f`` closed over the arguments not in ``dyn_argnums``; returns
    ``(f_of_dynamic_args, dynamic_args)``."""
    dyn_argnums = ((dyn_argnums,) if isinstance(dyn_argnums, int) else tuple(dyn_argnums))
    dyn_argnums = tuple(operator.index(i) % len(args) for i in dyn_argnums)
    static = []
    for i, a in enumerate(args):
        if i in dyn_argnums:
            static.append(None)
        elif require_static_args_hashable:
            try:
                hash(a)
            except TypeError:
                raise ValueError(f"Non-hashable static arguments are not supported. An error "
                                 f"occurred while trying to hash an object of type {type(a)}, "
                                 f"{a}.") from None
            static.append(_HashableByObjectId(a))
        else:
            static.append(_HashableByObjectId(a))
    dyn_args = tuple(args[i] for i in dyn_argnums)
    return _argnums_partial(f, dyn_argnums, tuple(static)), dyn_args


def rebase_donate_argnums(donate_argnums, static_argnums):
    """Donated argument positions counted among the non-static arguments."""
    static = sorted(set(static_argnums))
    out = []
    for i in sorted(set(donate_argnums)):
        if i in static:
            raise ValueError(f"static_argnums {static} and donate_argnums "
                             f"{tuple(donate_argnums)} cannot intersect.")
        out.append(i - sum(s < i for s in static))
    return tuple(out)


def donation_vector(donate_argnums, donate_argnames, in_tree, kws=True):
    """One bool per leaf of ``in_tree`` (of ``(args, kwargs)`` when ``kws``):
    whether that leaf is donated."""
    if kws:
        args_tree, kwargs_tree = in_tree.children()
    else:
        args_tree, kwargs_tree = in_tree, None
    out = []
    for i, arg in enumerate(args_tree.children()):
        out.extend([i in donate_argnums] * arg.num_leaves)
    if kwargs_tree is not None:
        keys = _dict_keys(kwargs_tree)
        for key, child in zip(keys, kwargs_tree.children()):
            out.extend([key in donate_argnames] * child.num_leaves)
    return tuple(out)


def _dict_keys(treedef):
    dummy = tree_util.tree_unflatten(treedef, [0] * treedef.num_leaves)
    return sorted(dummy) if isinstance(dummy, dict) else []


def flatten_axes(name, treedef, axis_tree, *, kws=False, tupled_args=False):
    """One axis spec per leaf of ``treedef``, where ``axis_tree`` is a tree
    prefix of it (None entries cover whole subtrees)."""
    full = tree_util.tree_unflatten(treedef, [object()] * treedef.num_leaves)
    if kws:
        full = full[0]
        treedef = tree_util.tree_structure(full)
    return _flatten_axes_prefix(name, full, axis_tree)


def shaped_abstractify(x):
    """The abstract value (``ShapedArray``) of an array-like value."""
    return core.aval_of(x)


def debug_info(traced_for, fun, args, kwargs, *, static_argnums=(), static_argnames=(),
               result_paths_thunk=None, sourceinfo=None, signature=None):
    """What tracing ``fun`` is for and its flat argument names: the debug
    info the engine's traces carry into error messages."""
    return DebugInfo(fun, traced_for, arg_names_of(fun, args, kwargs, static_argnums))


# --------------------------------------------------------------------------
# jit's static and donated argument numbers and names


def index_tuple(x):
    """``static_argnums``/``donate_argnums`` as a tuple of ints (JAX's TypeErrors otherwise)."""
    if x is None:
        return ()
    if hasattr(x, "__index__"):
        return (operator.index(x),)
    return tuple(operator.index(i) for i in x)


def str_tuple(x):
    if x is None:
        return ()
    return (x,) if isinstance(x, str) else tuple(x)


def check_argnums(sig, argnums, what):
    """Argument numbers past the signature's positional parameters fail at ``jit`` time."""
    if sig is None or not argnums:
        return
    params = sig.parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if any(not -n <= i < n for i in argnums):
        raise ValueError(f"Jitted function has {what}={argnums}, but only accepts {n} "
                         "positional arguments.")


def fun_signature(fun):
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def resolve_argnums(sig, argnums, argnames):
    """Fill in argnames from argnums or the other way round, as JAX does when
    one of them is left out; given both, JAX takes them as they are (flax's
    ``nn.jit`` passes both, its static names belonging to the inner function).
    (An empty argnums or argnames counts as left out here.)"""
    if sig is None:
        return tuple(sorted(argnums)), tuple(argnames)
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    nums = set(a if a >= 0 else a + len(positional) for a in argnums)
    names = set(argnames)
    if nums and names:
        return tuple(sorted(nums)), tuple(sorted(names))
    for i, p in enumerate(positional):
        if p.name in names:
            nums.add(i)
        if i in nums and p.kind is not p.POSITIONAL_ONLY:
            names.add(p.name)
    return tuple(sorted(nums)), tuple(sorted(names))
