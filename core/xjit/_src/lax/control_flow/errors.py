"""JAX's error messages for control flow: branches that disagree, loop
carries that change type or structure, malformed predicates."""
from __future__ import annotations

import inspect

from xjit._src import core, tree_util


class _NoOperand:
    def __repr__(self):
        return "<no operand>"


NO_OPERAND = _NoOperand()


class _Leaf:
    """Stands for an array in a pytree whose structure is being compared."""


class _Text:
    """Prints as its text (a type inside a reported pytree)."""

    def __init__(self, s):
        self.s = s

    def __repr__(self):
        return self.s


def _type_str(aval):
    return aval.str_short(False)


# -- comparing two pytrees


def _describe(t, leaf_desc):
    node = tree_util.default_registry.flatten_one_level_with_keys(t)
    if node is None:
        return leaf_desc
    if type(t) in (tuple, list):
        return f"{type(t).__name__} of length {len(t)}"
    return str(type(t))


def _structure_diffs(t1, t2, leaf_desc, path=()):
    """Yield ``(path, thing1, thing2, explanation)`` where the trees differ."""
    n1 = tree_util.default_registry.flatten_one_level_with_keys(t1)
    n2 = tree_util.default_registry.flatten_one_level_with_keys(t2)
    if n1 is None and n2 is None:
        return
    if type(t1) is not type(t2):
        d1 = leaf_desc if n1 is None else str(type(t1))
        d2 = leaf_desc if n2 is None else str(type(t2))
        yield path, d1, d2, "their Python types differ"
        return
    k1, m1 = list(n1[0]), n1[1]
    k2, m2 = list(n2[0]), n2[1]
    if len(k1) != len(k2):
        if type(t1) in (tuple, list):
            yield (path, _describe(t1, leaf_desc), _describe(t2, leaf_desc),
                   "the lengths do not match")
        else:
            def kids(n):
                return f"{n} child" if n == 1 else f"{n} children"
            keys1 = {tree_util._key_value(k) for k, _ in k1}
            keys2 = {tree_util._key_value(k) for k, _ in k2}
            yield (path, f"{type(t1)} with {kids(len(k1))}", f"{type(t2)} with {kids(len(k2))}",
                   "the numbers of children do not match, with the symmetric difference of "
                   f"key sets: {keys1 ^ keys2}")
        return
    if m1 != m2:
        yield (path, f"{type(t1)} with pytree metadata {m1}",
               f"{type(t2)} with pytree metadata {m2}", "the pytree node metadata does not match")
        return
    for (key, c1), (_, c2) in zip(k1, k2):
        yield from _structure_diffs(c1, c2, leaf_desc, (*path, key))


def _type_diffs(tree, avals1, avals2):
    """Yield ``(path, aval1, aval2, explanation)`` for leaves whose shape or
    dtype differ (weak types are allowed to differ)."""
    paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(tree, [_Leaf()] * tree.num_leaves))[0]]
    for p, a, b in zip(paths, avals1, avals2):
        why = []
        if a.dtype != b.dtype:
            why.append("the dtypes do not match")
        if a.shape != b.shape:
            why.append("the shapes do not match")
        if _mat(a) != _mat(b):
            why.append("the manual axis types do not match")
        if why:
            yield p, a, b, ", so " + (why[0] if len(why) == 1 else
                                      ", ".join(why[:-1]) + ", and " + why[-1])
        elif _layout(a) != _layout(b):  # JAX's types differ, with nothing to add
            yield p, a, b, ""


def _layout(aval):
    """The explicit mesh axes of each dimension (None for an untyped value)."""
    spec = getattr(aval, "spec", None)
    return None if spec is None else core.spec_parts(aval)


def _mat(aval):
    return getattr(aval, "manual_axis_type", None)


def _vma(aval):
    return getattr(_mat(aval), "varying", frozenset())


def _pcast_hint(fixes, blank):
    """JAX's suggestion for values typed invariant where the other side
    varies (inside shard_map with check_vma); scan's list has blank lines
    between its bullets, cond's none."""
    if not fixes:
        return ""
    if len(fixes) == 1:
        msg = f"This might be fixed by {fixes[0]}.\n"
    elif blank:
        msg = ("This might be fixed by:\n" + "\n".join(f"  * {d};\n" for d in fixes[:-1])
               + f"  * {fixes[-1]}.\n")
    else:
        msg = ("This might be fixed by:\n" + "\n".join(f"  * {d};" for d in fixes[:-1])
               + f"\n  * {fixes[-1]}.\n")
    return msg + ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for "
                  "more information.\n\n")


def _added_vma(a, b):
    """The axes ``b`` varies over and ``a`` does not (JAX lists them unordered)."""
    va = getattr(_mat(a), "varying", frozenset())
    vb = getattr(_mat(b), "varying", frozenset())
    return tuple(vb - va) if va != vb and vb - va else None


def _join(items):
    if len(items) == 1:
        s = items[0]
        return ("T" + s[1:] if s.startswith("the ") else s) + "."
    return "\n".join(f"  * {s}{';' if i < len(items) - 1 else '.'}" for i, s in enumerate(items))


# -- cond / switch


def check_branches(kind, funs, traced):
    names = (["true_fun", "false_fun"] if kind == "cond"
             else ["branch 0"] + [f"branch{i}" for i in range(1, len(funs))])
    if kind == "cond":
        order = [(0, 1)]
    else:
        order = [(0, i) for i in range(1, len(funs))]
    for i, j in order:
        a, b = traced[i], traced[j]
        head = f"{names[i]} is {a.debug.describe()}\n{names[j]} is {b.debug.describe()}"
        if a.out_tree != b.out_tree:
            t1 = tree_util.tree_unflatten(a.out_tree, [_Leaf()] * a.out_tree.num_leaves)
            t2 = tree_util.tree_unflatten(b.out_tree, [_Leaf()] * b.out_tree.num_leaves)
            diffs = [f"{names[i]} output{_at(p)} is a {d1} but {names[j]} output{_at(p)} is a "
                     f"{d2}, so {why}"
                     for p, d1, d2, why in _structure_diffs(t1, t2, "pytree leaf")]
            raise TypeError(
                f"{kind} branch outputs must have the same pytree structure, but they differ:\n\n"
                f"{head}\n\n{_join(diffs)}\n\nRevise {names[i]} and/or {names[j]} so that they "
                "have the same pytree structure.")
        found = list(_type_diffs(a.out_tree, a.out_avals, b.out_avals))
        diffs = [f"the output of {names[i]}{_at(p)} has type {_type_str(x)} but the corresponding "
                 f"output of {names[j]} has type {_type_str(y)}{why}"
                 for p, x, y, why in found]
        # JAX's wording, including its axes for the first branch (those the
        # other branch varies over less the first's: usually none)
        fixes = [f"applying `jax.lax.pcast(..., {tuple(_vma(u) - _vma(w))}, to='varying')` to "
                 f"the output of {n}{_at(p)}"
                 for p, x, y, _ in found for n, u, w in ((names[i], y, x), (names[j], x, y))
                 if _added_vma(u, w)]
        if diffs:
            raise TypeError(
                f"{kind} branches must have equal output types but they differ.\n\n{head}\n\n"
                f"{_join(diffs)}\n\n{_pcast_hint(fixes, False)}Revise {names[i]} and/or "
                f"{names[j]} so that all output types match.")


def _at(path):
    return f" at path {tree_util.keystr(path)}" if path else ""


# -- loops


def check_cond_output(traced, out):
    avals = traced.out_avals
    if not tree_util.treedef_is_leaf(traced.out_tree) or traced.out_tree.num_leaves != 1:
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {traced.out_tree}.")
    a = avals[0]
    if a.shape != () or a.dtype != bool:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) {avals}.")


def check_scan_output(traced, out, num_carry):
    """The body must return ``(carry, y)``; returns the carry's treedef."""
    if not isinstance(out, tuple) or len(out) != 2:
        shown = tree_util.tree_map(
            lambda x: _Text(("~" if getattr(x, "weak_type", False) else "")
                            + x.aval.str_short(False)) if hasattr(x, "aval") else x, out)
        raise TypeError(f"scan body output must be a pair, got {shown}.")
    return tree_util.treedef_children(traced.out_tree)[0]


def _carry_name(fun):
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        return None
    return params[0] if params else None


def check_carry(kind, traced, in_tree, out_tree, in_avals, out_avals):
    """Carry in and carry out must agree in structure and (up to weak type) type."""
    name = _carry_name(traced.debug.fun)

    def component(path):
        if not path:
            return f"carry {name}" if name else "carry"
        return f"carry component {name or ''}{tree_util.keystr(path)}"

    if in_tree != out_tree:
        in_carry = tree_util.tree_unflatten(in_tree, in_avals)
        out_carry = tree_util.tree_unflatten(out_tree, out_avals[:out_tree.num_leaves])
        if out_carry is None:
            diff = (f"the input tree structure is:\n{in_tree}\n"
                    f"the output tree structure is:\n{out_tree}")
        else:
            diff = _join([f"the input {component(p)} is a {d1} but the corresponding component "
                          f"of the carry output is a {d2}, so {why}"
                          for p, d1, d2, why in _structure_diffs(
                              in_carry, out_carry, "<class 'jax._src.core.ShapedArray'>")])
        raise TypeError(
            f"{kind} body function carry input and carry output must have the same pytree "
            f"structure, but they differ:\n\n{diff}\n\nRevise the function so that the carry "
            "output has the same pytree structure as the carry input.")
    found = list(_type_diffs(in_tree, in_avals, out_avals))
    diffs = [f"the input {component(p)} has type {_type_str(x)} but the corresponding output "
             f"carry component has type {_type_str(y)}{why}" for p, x, y, why in found]
    fixes = [f"applying `jax.lax.pcast(..., {_added_vma(x, y)}, to='varying')`, to the initial "
             f"carry value corresponding to the input {component(p)}"
             for p, x, y, _ in found if _added_vma(x, y)]
    if diffs:
        listed = (_join(diffs) if len(diffs) == 1 else
                  "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.")
        raise TypeError(
            f"{kind} body function carry input and carry output must have equal types, but "
            f"they differ:\n\n{listed}\n\n{_pcast_hint(fixes, True)}Revise the function so "
            "that all output types match the corresponding input types.")
