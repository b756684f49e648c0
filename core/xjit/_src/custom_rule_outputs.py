"""What users' custom rules return, checked and read as JAX reads it: a
``custom_jvp`` rule's (primals, tangents) pair, a ``custom_vjp`` fwd's
(outputs, residuals) pair and bwd's cotangent tuple, with JAX's messages for
each mistake; and ``SymbolicZero``, the zero a rule may take or give."""
from __future__ import annotations

from xjit._src import core, dtypes, tree_util
from xjit._src.interpreters import ad
from xjit._src.interpreters.ad import Zero


class SymbolicZero:
    """A zero tangent or cotangent handed to (or returned by) a rule defined
    with ``symbolic_zeros=True``; attributes such as ``shape`` and ``dtype``
    are read from its ``aval``."""

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return "SymbolicZero"

    def __getattr__(self, name):
        if name == "aval":
            raise AttributeError(name)
        return getattr(self.aval, name)

    @staticmethod
    def from_primal_value(val):
        return SymbolicZero(ad.tangent_aval(core.aval_of(val)))


def _type_tree(tree, leaves):
    return str(tree_util.tree_unflatten(tree, [core.aval_of(x).str_short(False) for x in leaves])
               ).replace("'", "")


def check_jvp_output(pair, name, jvp_name, store):
    """The rule's flat (primal, tangent) outputs, checked as JAX checks them."""
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(f"Custom JVP rule {jvp_name} for function {name} must produce a pair "
                        "(list or tuple of length two) representing primal and tangent outputs, "
                        f"but got {pair}.")
    outs, tree = tree_util.tree_flatten(pair[0])
    touts, tree2 = tree_util.tree_flatten(pair[1])
    if tree != tree2:
        raise TypeError(f"Custom JVP rule {jvp_name} for function {name} must produce primal and "
                        "tangent outputs with equal container (pytree) structures, but got "
                        f"{tree} and {tree2} respectively.")
    if store:
        tree_, outs_ = store[0]
        if tree_ != tree:
            raise TypeError(
                f"Custom JVP rule {jvp_name} for function {name} must produce a pair (list or "
                "tuple of length two) where the first element represents the primal output "
                f"(equal in value to the output of the custom_jvp-decorated function {name}, "
                "and in particular of the same container/pytree structure), but instead the JVP "
                "rule output's first element had container/pytree structure:\n"
                f"    {_type_tree(tree, outs)}\nwhile the custom_jvp-decorated function {name} "
                f"had output container/pytree structure:\n    {_type_tree(tree_, outs_)}.")
    else:
        store.append((tree, outs))
    touts = [Zero(t.aval) if type(t) is SymbolicZero else t for t in touts]
    touts = [Zero(core.aval_of(t)) if getattr(t, "dtype", None) == dtypes.float0 else t
             for t in touts]  # an integer output's float0 tangent: nothing to lower
    bad = []
    for o, t in zip(outs, touts):
        pa = core.aval_of(o).strip_weak_type()
        want = ad.tangent_aval(pa)
        got = (t.aval if type(t) is Zero else core.aval_of(t)).strip_weak_type()
        if want.shape != got.shape or want.dtype != got.dtype:
            bad.append((pa, want, got))
    if len(bad) == 1 and len(outs) == 1:
        pa, want, got = bad[0]
        raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                        f"corresponding shapes and dtypes. Expected {want.str_short(False)} (tangent "
                        f"type of {pa.str_short(False)}) but got {got.str_short(False)}.")
    if bad:
        raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                        "corresponding shapes and dtypes, but got:\n" + "\n".join(
                            f"  primal {pa.str_short(False)} with tangent {got.str_short(False)}, "
                            f"expecting tangent {want}" for pa, want, got in bad))
    return outs, touts


def check_fwd_output(pair, name, fwd_name, store):
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(
            f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair (list or "
            "tuple of length two) where the first element represents the primal output (equal "
            f"to those of the custom_vjp-decorated function {name}) and the second element "
            "represents residuals (i.e. values stored from the forward pass for use on the "
            f"backward pass), but instead of a pair the fwd rule {fwd_name} produced {pair}.")
    outs, tree = tree_util.tree_flatten(pair[0])
    res, res_tree = tree_util.tree_flatten(pair[1])
    if store:
        tree_, outs_ = store[0]
        if tree_ != tree:
            raise TypeError(
                f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair (list "
                "or tuple of length two) where the first element represents the primal output "
                f"(equal to the output of the custom_vjp-decorated function {name}) and the "
                "second element represents residuals (i.e. values stored from the forward pass "
                "for use on the backward pass), but instead the fwd rule output's first element "
                f"had container/pytree structure:\n    {_type_tree(tree, outs)}\nwhile the "
                f"custom_vjp-decorated function {name} had output container/pytree structure:\n"
                f"    {_type_tree(tree_, outs_)}.")
    else:
        store.append((tree, outs))
    return outs, res, res_tree


def flatten_bwd_output(out, in_tree, in_avals):
    """One cotangent per input leaf (``Zero`` for None and SymbolicZero), as
    JAX reads a bwd rule's output."""
    children = tree_util.treedef_children(in_tree)
    if isinstance(out, list) and len(out) == len(children):
        out = tuple(out)
    zero = object()
    dummy = tree_util.tree_unflatten(in_tree, [object()] * in_tree.num_leaves)
    flat = []

    def append(x, d):
        n = len(tree_util.tree_leaves(d))
        flat.extend([zero] * n if x is None else [x] * n)
        return x
    try:
        if not isinstance(out, tuple):
            raise ValueError
        tree_util.tree_map(append, out, dummy, is_leaf=lambda x: x is None)
    except ValueError:
        raise TypeError(
            "Custom VJP bwd rule must produce an output with the same container (pytree) "
            "structure as the args tuple of the primal function, and in particular must "
            "produce a tuple of length equal to the number of arguments to the primal function, "
            f"but got bwd output structure {tree_util.tree_structure(out)} for primal input "
            f"structure {in_tree}.") from None
    paths = [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(dummy)[0]]
    results = []
    for path, a, ct in zip(paths, in_avals, flat):
        want = ad.tangent_aval(a)
        if ct is zero or want.dtype == dtypes.float0:
            results.append(Zero(want))
        elif type(ct) is SymbolicZero:
            results.append(Zero(ct.aval))
        else:
            got = core.aval_of(ct)
            if got.shape != want.shape or got.dtype != want.dtype:
                why = [w for w, bad in (("the dtypes do not match", got.dtype != want.dtype),
                                        ("the shapes do not match", got.shape != want.shape)) if bad]
                raise ValueError(
                    "Custom VJP bwd rule must produce an output with the same type as the args "
                    f"tuple of the primal function, but at output{path} the bwd rule produced an "
                    f"output of type {got.str_short(False)} corresponding to an input of type "
                    f"{a.str_short(False)}, so {' and '.join(why)}")
            results.append(ct)
    return results
