"""Sharding rules of the lax primitives whose outputs' layout takes more
than copying an input's (JAX 0.10.2's ``*_sharding_rule``s): each returns
the output's PartitionSpec from its inputs' types (or the NamedSharding an
``out_sharding``-like parameter names), or raises JAX's
ShardingTypeError where the layout would be ambiguous or need data moved
that the types do not say. The modules defining the primitives register
them (``sharding_in_types.sharding_rules``)."""
from __future__ import annotations

import math

from xjit._src.sharding import PartitionSpec as P
from xjit._src.sharding_in_types import ShardingTypeError, entry_axes, parts


def _mesh_of(*avals):
    for a in avals:
        s = getattr(a, "_sharding", None)
        if s is not None:
            return s.mesh
    return None


def convert_element_type(x, *, sharding=None, **_):
    return sharding if sharding is not None else P(*parts(x))


def broadcast_in_dim(x, *, shape, broadcast_dimensions, sharding=None):
    if sharding is not None:
        return sharding
    spec = dict(zip(broadcast_dimensions, parts(x)))
    return P(*(spec.get(d) for d in range(len(shape))))


def transpose(x, *, permutation):
    ps = parts(x)
    return P(*(ps[i] for i in permutation))


def squeeze(x, *, dimensions):
    drop = set(dimensions)
    return P(*(p for i, p in enumerate(parts(x)) if i not in drop))


def expand_dims_spec(spec_parts, dims, ndim):
    """The entries of a value with unsplit size-1 dimensions inserted at ``dims``."""
    it = iter(spec_parts)
    return tuple(None if d in dims else next(it) for d in range(ndim))


def varying_out_shape(x, out_shape, what):
    """Slicing and padding: the operand's layout, where each split
    dimension's new size still divides over its mesh axes."""
    mesh = _mesh_of(x)
    for d, (n_in, n_out, p) in enumerate(zip(x.shape, out_shape, parts(x))):
        if p is None or n_in == n_out:
            continue
        k = math.prod(mesh.shape[a] for a in entry_axes(p))
        if n_out % k:
            raise ShardingTypeError(
                f"{what} on sharded dims where out dim ({n_out}) is not divisible by mesh "
                f"axes ({k}) with spec ({p}) is not implemented. Got input "
                f"type={x.str_short(True)} and output shape={tuple(out_shape)}")
    return P(*parts(x))


def same_layout(*avals, what):
    """Operands that must agree (concatenate): their one layout; operands
    untyped in a mesh context count as unsplit."""
    specs = [parts(a) for a in avals]
    if any(s != specs[0] for s in specs[1:]):
        shown = ", ".join(str(a.sharding) for a in avals)
        raise ShardingTypeError(f"All operands should have the same sharding. Got shardings "
                                f"{shown}")
    return P(*specs[0])


def stack(*xs, axis):
    spec = same_layout(*xs, what="stack")
    return P(*expand_dims_spec(tuple(spec.partitions) + (None,) * (xs[0].ndim - len(spec)),
                               {axis}, xs[0].ndim + 1))


def select_n(which, *cases):
    specs = [parts(c) for c in cases]
    if any(s != specs[0] for s in specs[1:]):
        raise ShardingTypeError("select cases must have the same shardings, got [{}].".format(
            ", ".join(str(c.sharding) for c in cases)))
    if which.shape and parts(which) != specs[0]:
        raise ShardingTypeError(
            "select `which` must be scalar or have the same sharding as cases, got "
            f"`which` sharding {which.sharding} but case sharding {cases[0].sharding}.")
    return P(*specs[0])


def dynamic_slice(x, *_, slice_sizes):
    return varying_out_shape(x, slice_sizes, "dynamic_slice")


def dynamic_update_slice(x, update, *_):
    if parts(x) != parts(update):
        raise ShardingTypeError(
            "dynamic_update_slice operand sharding must be equal to update sharding, got "
            f"operand sharding {x.str_short()} and update sharding {update.str_short()}.")
    return P(*parts(x))


# -- dot_general ---------------------------------------------------------------

def dot_general(lhs, rhs, *, dimension_numbers, out_sharding=None, **_):
    if out_sharding is not None:
        return out_sharding
    (lc, rc), (lb, rb) = dimension_numbers
    lp, rp = parts(lhs), parts(rhs)
    lc_spec, rc_spec = tuple(lp[i] for i in lc), tuple(rp[i] for i in rc)
    lb_spec, rb_spec = tuple(lp[i] for i in lb), tuple(rp[i] for i in rb)
    _check_match(lb_spec, rb_spec, "dot_general requires lhs batch dimensions and rhs batch "
                 f"dimensions to have the consistent sharding, got {lb_spec} and {rb_spec}.")
    _check_match(lc_spec, rc_spec, "dot_general requires contracting dimensions to have "
                 f"consistent sharding, got {lc_spec} and {rc_spec}.")
    for a, b in zip(lc_spec, rc_spec):
        if a is not None and b is not None:
            raise ShardingTypeError(
                "Contracting dimensions are sharded and it is ambiguous how the output should "
                "be sharded. Please specify the output sharding via the `out_sharding` "
                f"parameter. Got lhs_contracting_spec={lc_spec} and "
                f"rhs_contracting_spec={rc_spec}")
    lhs_rest = [p for i, p in enumerate(lp) if i not in set(lc) | set(lb)]
    rhs_rest = [p for i, p in enumerate(rp) if i not in set(rc) | set(rb)]
    return P(*lb_spec, *lhs_rest, *rhs_rest)


def _check_match(a, b, msg):
    for x, y in zip(a, b):
        if x is not None and y is not None and x != y:
            raise ShardingTypeError(msg)


# -- reshape -------------------------------------------------------------------

def _reshape_error(x, new_sizes):
    raise ShardingTypeError(
        "This reshape is not supported. Please specify the sharding of the output via the "
        f"`out_sharding` argument of jax.lax.reshape. Got operand type: {x}, new sizes: "
        f"{tuple(new_sizes)}")


def reshape(x, *, new_sizes, dimensions=None, sharding=None):
    if sharding is not None:
        return sharding
    ps = parts(x)
    if all(p is None for p in ps):
        return P(*[None] * len(new_sizes))
    new_sizes = tuple(new_sizes)
    if [n for n in x.shape if n != 1] == [n for n in new_sizes if n != 1]:
        kept = iter(p for n, p in zip(x.shape, ps) if n != 1)  # only size-1 dims come or go
        return P(*(None if n == 1 else next(kept) for n in new_sizes))
    split = _one_axis_groups(tuple(x.shape), new_sizes)
    if split is not None:  # one operand dimension becomes several
        out = []
        for group, p in zip(split, ps):
            if not isinstance(group, list):
                out.append(p)
            elif p is None:
                out.extend([None] * len(group))
            elif dimensions is None:
                out.extend(_split_axes(_mesh_of(x), entry_axes(p), group, x, new_sizes))
            else:
                _reshape_error(x, new_sizes)
        return P(*out)
    merge = _one_axis_groups(new_sizes, tuple(x.shape))
    if merge is not None:  # several operand dimensions become one
        out, it = [], iter(ps)
        for n, group in zip(new_sizes, merge):
            if not isinstance(group, list):
                out.append(next(it))
                continue
            merged = [next(it) for _ in group]
            if all(p is None for p in merged):
                out.append(None)
                continue
            if dimensions is not None:
                _reshape_error(x, new_sizes)
            axes = [a for p in merged for a in (entry_axes(p) if p is not None else (None,))]
            while axes and axes[-1] is None:
                axes.pop()
            if None in axes:
                _reshape_error(x, new_sizes)
            out.extend(_split_axes(_mesh_of(x), tuple(axes), [n], x, new_sizes))
        return P(*out)
    _reshape_error(x, new_sizes)


def _split_axes(mesh, axes, sizes, x, new_sizes):
    """The mesh axes (major first) each of ``sizes`` takes, in order."""
    it = iter(axes)
    out = []
    for size in sizes:
        taken = []
        while size > 1:
            a = next(it, None)
            if a is None:
                break
            size, rem = divmod(size, mesh.shape[a])
            if rem:
                _reshape_error(x, new_sizes)
            taken.append(a)
        out.append(None if not taken else taken[0] if len(taken) == 1 else tuple(taken))
    if next(it, None) is not None:
        _reshape_error(x, new_sizes)
    return out


def _one_axis_groups(small, big):
    """How ``big`` splits one dimension of ``small`` into several (the rest
    kept): per dimension of ``small`` its size or the list of sizes it
    becomes; None when it is not such a split. Trailing size-1 dimensions
    common to both are set aside first, as JAX does."""
    if len(big) <= len(small):
        return None
    ones = 0
    while small and big and small[-1] == 1 and big[-1] == 1:
        small, big, ones = small[:-1], big[:-1], ones + 1
    out, i, j, splits = [], 0, 0, 0
    while j < len(big):
        if i >= len(small):
            return None
        if small[i] == big[j]:
            out.append(small[i])
        else:
            splits += 1
            if splits > 1:
                return None
            group = [big[j]]
            while math.prod(group) != small[i] or (j + 1 < len(big) and big[j + 1] == 1):
                if math.prod(group) > small[i]:
                    return None
                if (math.prod(group) == small[i] and i + 1 < len(small)
                        and big[j + 1] == small[i + 1]):
                    break
                j += 1
                if j >= len(big):
                    return None
                group.append(big[j])
            out.append(group)
        i += 1
        j += 1
    if i != len(small):
        return None
    return out + [1] * ones


# -- gather / scatter ------------------------------------------------------------

def gather(operand, indices, *, dimension_numbers, slice_sizes, **_):
    dn = dimension_numbers
    op, ix = parts(operand), parts(indices)
    if all(p is None for p in op) and all(p is None for p in ix):
        return P()
    ok = (all(slice_sizes[i] == operand.shape[i] or op[i] is None for i in dn.start_index_map)
          and all(ix[i] is None for i in range(len(ix))
                  if i not in dn.start_indices_batching_dims)
          and all(ix[i] == op[o] or op[o] is None or ix[i] is None
                  for o, i in zip(dn.operand_batching_dims, dn.start_indices_batching_dims)))
    if not ok:
        raise ShardingTypeError(
            "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
            "indexing as out sharding could not be resolved unambiguously (or would require "
            f"collectives on inputs). Got operand={operand}, indices={indices}")
    ix = list(ix)
    for o, i in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        ix[i] = ix[i] if ix[i] is not None else op[o]
    batch = [p for d, p in enumerate(ix[:-1])]  # the index vector dim is last
    offset = [op[d] for d in range(len(op)) if d not in dn.collapsed_slice_dims
              and d not in dn.operand_batching_dims]
    n_out = len(dn.offset_dims) + len(batch)
    out, b, o = [], iter(batch), iter(offset)
    for d in range(n_out):
        out.append(next(o) if d in dn.offset_dims else next(b))
    return P(*out)


def scatter(operand, indices, updates, *, dimension_numbers, **_):
    """JAX's rule, the gather's in inverse: batch dimensions agree across
    the three, window dimensions are whole and agree with the operand's or
    are unsplit, the indices' query dimensions and index vector are unsplit."""
    dn = dimension_numbers
    op, ix, up = parts(operand), parts(indices), parts(updates)
    if all(p is None for p in op + ix + up):
        return P()
    ivd = indices.ndim - 1
    scatter_dims = list(range(ivd))
    for i in dn.update_window_dims:
        scatter_dims.insert(i, None)
    up_batch = [scatter_dims.index(i) for i in dn.scatter_indices_batching_dims]
    op_window = [i for i in range(operand.ndim) if i not in dn.inserted_window_dims
                 and i not in dn.operand_batching_dims]
    one = lambda *names: len({a for a in names if a is not None}) <= 1  # noqa: E731
    ok = (all(one(op[o], ix[i], up[u]) for o, i, u in
              zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims, up_batch))
          and all((updates.shape[u] == operand.shape[o] and up[u] == op[o])
                  or (up[u] is None and op[o] is None)
                  for u, o in zip(dn.update_window_dims, op_window))
          and all(op[i] is None for i in dn.inserted_window_dims)
          and all(p is None for i, p in enumerate(up)
                  if i not in up_batch and i not in dn.update_window_dims)
          and all(p is None for i, p in enumerate(ix[:ivd])
                  if i not in dn.scatter_indices_batching_dims)
          and ix[ivd] is None)
    if not ok:
        raise ShardingTypeError(
            "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for "
            "the scatter update as out sharding could not be resolved unambiguously (or would "
            "require collectives on inputs). Got "
            f"operand={operand}, indices={indices}, updates={updates}")
    out = list(op)
    for o, i, u in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims, up_batch):
        if out[o] is None:
            out[o] = ix[i] or up[u]
    for u, o in zip(dn.update_window_dims, op_window):
        if out[o] is None:
            out[o] = up[u]
    return P(*out)


# -- primitives defined outside lax whose outputs are laid out as an input --------

def _register_identities():
    from xjit._src import callback, debugging, sharding_in_types as sit
    from xjit._src.interpreters import ad
    # host callbacks: their results are typed as result_shape_dtypes say
    for p in (callback.pure_callback_p, callback.io_callback_p):
        sit.sharding_rules[p] = lambda *avals, result_avals, **_: [
            getattr(a, "_sharding", None) for a in result_avals]
    for p in (debugging.debug_print_p, debugging.debug_callback_p):  # no outputs
        sit.sharding_rules[p] = lambda *avals, **_: []
    # JAX's add_jaxvals takes the first's type; an instantiated zero may be untyped here
    sit.sharding_rules[ad.add_any_p] = sit.broadcasting_rule("add_any")
    sit.sharding_rules[ad.stop_gradient_p] = sit.unary_rule


_register_identities()


# -- sorting and cumulative ops ------------------------------------------------

def sort(*avals, dimension, **_):
    specs = [parts(a) for a in avals if a.spec is not None]
    for a in avals:
        if a.spec is None:
            continue
        if parts(a)[dimension] is not None:
            raise ShardingTypeError(
                "Arguments to sort must be unsharded over the sorting dimension. Got arg "
                f"sharding={a.sharding} and sorting dimension={dimension}")
    if any(s != specs[0] for s in specs[1:]):
        raise ShardingTypeError("Arguments to sort must have equal shardings, got: " + " ".join(
            str(a.sharding) for a in avals if a.spec is not None))
    return [P(*specs[0])] * len(avals)


def top_k(x, *, k, axis):
    if parts(x)[axis] is not None:
        raise ShardingTypeError(
            "The input should be unsharded over the axis along which to compute the top_k "
            f"values. Got input type={x} and axis={axis}")
    return [P(*parts(x))] * 2


def cumulative(x, *, axis, reverse):
    if parts(x)[axis] is not None:
        raise ShardingTypeError("Input should be unsharded over the axis being reduced. Got "
                                f"input type={x} and axis={axis}")
    return P(*parts(x))


# -- linear algebra ------------------------------------------------------------

def linalg(name, ranks, eval_rule=None):
    """JAX's ``linalg_sharding_rule``: each input's trailing ``ranks[i]``
    (matrix) dimensions unsplit, the leading batch dimensions split alike,
    and every output split as that batch."""
    def rule(*avals, **params):
        batches = []
        for i, (rank, a) in enumerate(zip(ranks, avals)):
            ps = parts(a)
            if any(p is not None for p in ps[len(ps) - rank:]):
                raise ShardingTypeError(f"Input {i} to {name} must be unsharded on non-batch "
                                        f"dimensions, but got {P(*ps)}.")
            batches.append(ps[:len(ps) - rank])
        if any(b != batches[0] for b in batches[1:]):
            raise ShardingTypeError(f"All inputs to {name} must have the same batch sharding, "
                                    f"but got {batches}.")
        spec = P(*batches[0])
        return spec if eval_rule is None else [spec] * len(eval_rule(*avals, **params))
    return rule


def triangular_solve(a, b, *, left_side, transpose_a, **_):
    """JAX's rule: batch dimensions alike, the contracting dimensions
    unsplit, the solution's others split as ``a``'s and ``b``'s are."""
    pa, pb = parts(a), parts(b)
    (batch, a2), (batch_b, b2) = (pa[:-2], pa[-2:]), (pb[:-2], pb[-2:])
    if batch != batch_b:
        raise ShardingTypeError("All inputs to triangular_solve must have the same batch "
                                f"sharding, but got {batch} and {batch_b}.")
    if a2[left_side ^ transpose_a] is not None:
        raise ShardingTypeError(
            "triangular solve input `a` must be unsharded on the contracting axis, but got "
            f"{P(*pa)} with left_side={left_side} and transpose_a={transpose_a}.")
    if b2[not left_side] is not None:
        raise ShardingTypeError(
            "triangular solve input `b` must be unsharded on the contracting axis, but got "
            f"{P(*pb)} with left_side={left_side} and transpose_a={transpose_a}.")
    out = [a2[transpose_a], b2[1]] if left_side else [b2[0], a2[not transpose_a]]
    return P(*batch, *out)
