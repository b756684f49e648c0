"""The state primitives and their rules: ``new_ref``, ``get``, ``swap``,
``addupdate``, ``freeze``, ``empty_ref`` and ``free_ref``.

An index is a tuple with one entry per dimension of the ref (the ``indexer``
param; ``()`` means the whole ref), each an ``int``, a ``Slice``, or a
``Dynamic`` standing for a traced scalar integer passed as an operand.
Eagerly the rules read and replace a ``Ref``'s array; under a trace they stage
equations printed as JAX prints them (``c:f32[3] <- b[...]``, ``b[0,:] <- x``,
``b[1:] += x``); ``discharge`` removes them before lowering. JVP mirrors a
differentiated ref with a tangent ref; reverse mode discharges the tangent
refs of the linear jaxpr before transposing it. Batching rules give each
vmapped example its own slice of a ref made from a batched value.
"""
from __future__ import annotations

import operator
from typing import NamedTuple

from xjit._src import core, dispatch, errors
from xjit._src.array import ArrayImpl
from xjit._src.interpreters import ad, batching
from xjit._src.lax import lax
from xjit._src.pretty import concat, text, pp_vars
from xjit._src.state import types
from xjit._src.state.types import AbstractRef, Ref


class Dynamic(NamedTuple):
    """An integer index traced at run time: the ``operand``-th index operand
    of the equation (after the ref and the value)."""
    operand: int


class Slice(NamedTuple):
    """``start, start + stride, ...``: ``size`` elements of one dimension."""
    start: int
    size: int
    stride: int


# --------------------------------------------------------------------------
# Indexing


def _normalize_indexer(idx, shape):
    """``ref[idx]``'s ``idx`` as ``(indexer, dynamic index operands)``."""
    if idx is None or idx is Ellipsis or (isinstance(idx, tuple) and not idx):
        return (), ()
    if not isinstance(idx, tuple):
        idx = (idx,)
    if sum(i is Ellipsis for i in idx) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in idx:
        at = idx.index(Ellipsis)
        idx = idx[:at] + (slice(None),) * (len(shape) - len(idx) + 1) + idx[at + 1:]
    if len(idx) > len(shape):
        raise IndexError(f"Too many indices for a Ref of shape {shape}: got {len(idx)} indices.")
    idx = idx + (slice(None),) * (len(shape) - len(idx))
    out, operands = [], []
    for i, dim in zip(idx, shape):
        if isinstance(i, slice):
            start, stop, step = i.indices(dim)
            if step < 0:
                raise NotImplementedError(
                    "xjit does not support negative slice steps in Ref indexing yet.")
            out.append(Slice(start, len(range(start, stop, step)), step))
            continue
        if isinstance(i, core.Tracer):
            if i.aval.shape or i.aval.dtype.kind not in "iu":
                raise NotImplementedError(
                    "xjit supports only scalar integer traced indices into a Ref, got "
                    f"{i.aval.str_short(False)}.")
            out.append(Dynamic(len(operands)))
            operands.append(i)
            continue
        try:
            i = operator.index(i)
        except TypeError:
            raise NotImplementedError(
                f"xjit supports only int, slice and ... indices into a Ref, got {i!r}.") from None
        if not -dim <= i < dim:
            raise IndexError(f"index {i} is out of bounds for axis with size {dim}")
        out.append(i % dim)
    return tuple(out), tuple(operands)


def _indexed_shape(shape, indexer):
    if not indexer:
        return shape
    return tuple(i.size for i in indexer if type(i) is Slice)


def _as_index(indexer, operands):
    """The indexer as NumPy-style index (to read or update an array)."""
    return tuple(slice(i.start, i.start + (i.size - 1) * i.stride + 1 if i.size else i.start,
                       i.stride) if type(i) is Slice else
                 operands[i.operand] if type(i) is Dynamic else i for i in indexer)


def read(value, indexer, operands=()):
    """The indexed part of an array."""
    return value[_as_index(indexer, operands)] if indexer else value


def write(value, indexer, x, operands=()):
    """``value`` with its indexed part replaced by ``x``."""
    return value.at[_as_index(indexer, operands)].set(x) if indexer else x


def accumulate(value, indexer, x, operands=()):
    return value.at[_as_index(indexer, operands)].add(x) if indexer else value + x


# --------------------------------------------------------------------------
# The user-facing functions (``jax.ref.*``)


def _check_ref(ref, what):
    aval = getattr(ref, "aval", None)
    if type(aval) is not AbstractRef:
        raise ValueError(f"Can only call `{what}` on a `Ref`: {ref}.")
    return aval


def new_ref(init_val, *, memory_space=None, kind=None):
    """A new mutable array reference holding ``init_val``."""
    if isinstance(init_val, Ref):
        raise TypeError("new_ref takes an array, not a Ref (read it with ref[...] first).")
    try:
        core.aval_of(init_val)
    except TypeError:
        raise TypeError("Error interpreting argument to new_ref as a JAX value. The problematic "
                        f"value is of type {type(init_val)} and was passed to new_ref at "
                        "position 0.\n") from None
    return new_ref_p.bind(init_val, memory_space=memory_space, kind=kind)


def ref_get(ref, idx=None):
    """``ref[idx]``: a copy of the indexed part of the ref."""
    aval = _check_ref(ref, "ref_get")
    indexer, operands = _normalize_indexer(idx, aval.shape)
    return get_p.bind(ref, *operands, indexer=indexer)


def ref_swap(ref, idx, value):
    """Write ``value`` at ``ref[idx]`` and return what was there."""
    aval = _check_ref(ref, "ref_swap")
    indexer, operands = _normalize_indexer(idx, aval.shape)
    return swap_p.bind(ref, _implicit_cast(aval.dtype, value), *operands, indexer=indexer)


def _implicit_cast(dtype, value):
    """As JAX does on writes: an integer value, or a weakly typed float, takes
    the ref's dtype (a strong type); other dtype mismatches are errors."""
    aval = core.aval_of(value)
    kinds = (dtype.kind, aval.dtype.kind)
    if ((aval.weak_type and kinds[0] == "f" and kinds[1] == "f")
            or (kinds[0] in "iu" and kinds[1] in "iu")):
        return lax.convert_element_type(value, dtype)
    return value


def ref_set(ref, idx, value):
    """``ref[idx] = value``."""
    ref_swap(ref, idx, value)


def ref_addupdate(ref, idx, value):
    """``ref[idx] += value`` as one accumulation."""
    aval = _check_ref(ref, "ref_addupdate")
    indexer, operands = _normalize_indexer(idx, aval.shape)
    addupdate_p.bind(ref, value, *operands, indexer=indexer)


def freeze(ref):
    """The ref's final value as an array."""
    _check_ref(ref, "freeze")
    return freeze_p.bind(ref)


def empty_ref(ty, memory_space=None):
    """A new ref of type ``ty`` (anything with a shape and dtype) whose
    contents are unspecified until written; only under ``jit``, as in JAX."""
    aval = core.ShapedArray(ty.shape, ty.dtype)
    return empty_ref_p.bind(ty=aval, memory_space=memory_space)


def free_ref(ref):
    """Declare that ``ref`` is no longer used."""
    _check_ref(ref, "free_ref")
    free_ref_p.bind(ref)
    return ()


# --------------------------------------------------------------------------
# Primitives, with abstract evaluation and eager implementation

new_ref_p = core.Primitive("new_ref")
get_p = core.Primitive("get")
swap_p = core.Primitive("swap")
addupdate_p = core.Primitive("addupdate")
addupdate_p.multiple_results = True
freeze_p = core.Primitive("freeze")
empty_ref_p = core.Primitive("empty_ref")
free_ref_p = core.Primitive("free_ref")
free_ref_p.multiple_results = True
STATE_PRIMITIVES = frozenset((new_ref_p, get_p, swap_p, addupdate_p, freeze_p, empty_ref_p,
                              free_ref_p))
for _p in STATE_PRIMITIVES:
    _p.is_effectful = True


def _new_ref_abstract_eval(aval, *, memory_space, kind):
    return AbstractRef(aval, memory_space, kind)


def _get_abstract_eval(ref_aval, *_operands, indexer):
    inner = ref_aval.inner_aval
    return inner.update(shape=_indexed_shape(inner.shape, indexer))


def _check_value(what, ref_aval, val_aval, indexer):
    expected = _indexed_shape(ref_aval.shape, indexer)
    if val_aval.dtype != ref_aval.dtype:
        raise ValueError(f"Invalid dtype for `{what}`. Ref dtype: {ref_aval.dtype}. "
                         f"Value dtype: {val_aval.dtype}. ")
    if tuple(val_aval.shape) != expected:
        where = (f"Indexer: {_index_str(indexer, ref_aval.shape)}." if indexer
                 else "Transforms: (). ")
        raise ValueError(f"Invalid shape for `{what}`. Ref shape: {ref_aval.shape}. Expected "
                         f"shape: {expected}. Value shape: {tuple(val_aval.shape)}. {where}")


def _swap_abstract_eval(ref_aval, val_aval, *_operands, indexer):
    _check_value("swap", ref_aval, val_aval, indexer)
    return _get_abstract_eval(ref_aval, indexer=indexer)


def _addupdate_abstract_eval(ref_aval, val_aval, *_operands, indexer):
    _check_value("addupdate", ref_aval, val_aval, indexer)
    return []


def _array(x):
    return x if isinstance(x, ArrayImpl) else ArrayImpl(dispatch.to_buffer(x), core.aval_of(x))


def _new_ref_impl(init_val, *, memory_space, kind):
    if memory_space is not None:
        raise NotImplementedError("array ref with memory space only works inside of a `jit`.")
    value = _array(init_val)
    return Ref(AbstractRef(value.aval, None, kind), value)


def _live(ref):
    if isinstance(ref, core.Tracer):  # a ref of a finished trace
        raise errors.UnexpectedTracerError(core._leak_message(ref))
    return ref


def _get_impl(ref, *operands, indexer):
    ref = _live(ref)
    out = read(ref._value, indexer, operands)
    if out.aval.weak_type != ref.aval.weak_type:  # a read has the ref's type, as under jit
        out = ArrayImpl(out._buf, out.aval.update(weak_type=ref.aval.weak_type))
    return out


def _swap_impl(ref, value, *operands, indexer):
    ref = _live(ref)
    _check_value("swap", ref.aval, core.aval_of(value), indexer)
    old = read(ref._value, indexer, operands)
    ref._value = write(ref._value, indexer, _array(value), operands)
    return old


def _addupdate_impl(ref, value, *operands, indexer):
    ref = _live(ref)
    _check_value("addupdate", ref.aval, core.aval_of(value), indexer)
    ref._value = accumulate(ref._value, indexer, value, operands)
    return []


for _p, _ae, _impl in ((new_ref_p, _new_ref_abstract_eval, _new_ref_impl),
                       (get_p, _get_abstract_eval, _get_impl),
                       (swap_p, _swap_abstract_eval, _swap_impl),
                       (addupdate_p, _addupdate_abstract_eval, _addupdate_impl),
                       (freeze_p, lambda ref_aval: ref_aval.inner_aval,
                        lambda ref: _live(ref)._value)):
    _p.def_abstract_eval(_ae)
    _p.def_impl(_impl)


def _empty_ref_impl(*, ty, memory_space):
    raise NotImplementedError("Evaluation rule for 'empty_ref' not implemented")


empty_ref_p.def_abstract_eval(lambda *, ty, memory_space: AbstractRef(ty, memory_space))
empty_ref_p.def_impl(_empty_ref_impl)
free_ref_p.def_abstract_eval(lambda ref_aval: [])
free_ref_p.def_impl(lambda ref: [])


# --------------------------------------------------------------------------
# Printing: `c:f32[3] <- b[0,:]`, `b[...] <- x`, `c:f32[], b[0] <- b[0], x`, `b[1:] += x`


def _index_str(indexer, shape, operand_names=()):
    if not indexer:
        return "[...]"
    parts = []
    for i, dim in zip(indexer, shape):
        if type(i) is Dynamic:
            parts.append(operand_names[i.operand] if operand_names else "?")
        elif type(i) is Slice:
            end = i.start + i.size
            parts.append(f"{i.start or ''}:{'' if end == dim else end}")
        else:
            parts.append(str(i))
    return "[" + ",".join(parts) + "]"


def _ref_str(eqn, ctx):
    from xjit._src.pretty import pp_atom
    ref = eqn.invars[0]
    first = 1 if eqn.primitive is get_p else 2
    names = [pp_atom(v, ctx) for v in eqn.invars[first:]]
    return ctx.name(ref) + _index_str(eqn.params["indexer"], ref.aval.shape, names)


def _pp_get(eqn, ctx):
    return concat(pp_vars(eqn.outvars, ctx, True), text(" <- " + _ref_str(eqn, ctx)))


def _pp_swap(eqn, ctx):
    from xjit._src.pretty import pp_atom
    target, val = _ref_str(eqn, ctx), pp_atom(eqn.invars[1], ctx)
    out = eqn.outvars[0]
    if type(out) is core.DropVar or ctx.names.get(out) == "_":  # a set: the old value unused
        return text(f"{target} <- {val}")
    return concat(pp_vars([out], ctx, True), text(f", {target} <- {target}, {val}"))


def _pp_addupdate(eqn, ctx):
    from xjit._src.pretty import pp_atom
    return text(f"{_ref_str(eqn, ctx)} += {pp_atom(eqn.invars[1], ctx)}")


core.pp_eqn_rules[get_p] = _pp_get
core.pp_eqn_rules[swap_p] = _pp_swap
core.pp_eqn_rules[addupdate_p] = _pp_addupdate


# --------------------------------------------------------------------------
# JVP: a ref made from a differentiated value has a tangent ref that every
# read and write mirrors. Under reverse mode (grad, vjp, linearize, and jit
# under grad) the tangent ref's operations are staged into the linear jaxpr,
# which is discharged before it is transposed (``discharge``). Writing a
# differentiated value into a ref that is not differentiated is JAX's error.


def _new_ref_jvp(trace, primals, tangents, **params):
    ref = new_ref_p.bind(primals[0], **params)
    t = ad.instantiate_zeros(tangents[0])
    tt = trace.tangent_trace
    if isinstance(tt, ad.PETrace) and not tt.is_unknown(t):  # the linear side makes it
        return ref, tt.record(new_ref_p, [t], params)
    return ref, new_ref_p.bind(t, **params)


def _get_jvp(trace, primals, tangents, *, indexer):
    ref, *idx = primals
    return get_p.bind(ref, *idx, indexer=indexer), get_p.bind(tangents[0], *idx, indexer=indexer)


def _write_jvp(prim, what):
    def rule(trace, primals, tangents, *, indexer):
        ref, val, *idx = primals
        if type(tangents[0]) is ad.Zero:
            raise Exception(
                f"performing a {what} operation with a differentiated value on a "
                f"non-differentiated array reference of type {core.aval_of(ref)}. Move the "
                "array reference to be an argument of the differentiated function?")
        out = prim.bind(ref, val, *idx, indexer=indexer)
        tval = tangents[1]
        if prim is addupdate_p and type(tval) is ad.Zero:
            return out, []
        tout = prim.bind(tangents[0], ad.instantiate_zeros(tval), *idx, indexer=indexer)
        return out, tout
    return rule


def _freeze_jvp(trace, primals, tangents):
    return freeze_p.bind(primals[0]), freeze_p.bind(tangents[0])


def _free_ref_jvp(trace, primals, tangents):
    return free_ref_p.bind(primals[0]), free_ref_p.bind(tangents[0])


def _staged_with_unknown_refs(prim):
    """Splitting a JVP for reverse mode: an operation on a tangent ref goes to
    the linear side. A ref both sides would share (a known ref given to it)
    cannot be split, and is refused rather than split wrongly."""
    def rule(trace, args, params):
        if any(not trace.is_unknown(x) and type(core.aval_of(x)) is AbstractRef for x in args):
            raise NotImplementedError(
                "xjit cannot split a ref between the primal and the linear part of reverse-mode "
                "differentiation; create the ref inside the differentiated function.")
        return trace.record(prim, args, params)
    return rule


ad.trace_jvp_rules[new_ref_p] = _new_ref_jvp
ad.jvp_even_if_zero.add(new_ref_p)
ad.trace_jvp_rules[get_p] = _get_jvp
ad.trace_jvp_rules[swap_p] = _write_jvp(swap_p, "set/swap")
ad.trace_jvp_rules[addupdate_p] = _write_jvp(addupdate_p, "addupdate")
ad.trace_jvp_rules[freeze_p] = _freeze_jvp
ad.trace_jvp_rules[free_ref_p] = _free_ref_jvp
for _p in STATE_PRIMITIVES:  # a tangent ref met while splitting a JVP jaxpr for grad
    ad.partial_eval_rules[_p] = _staged_with_unknown_refs(_p)


# --------------------------------------------------------------------------
# Batching: a ref made from a batched value is batched along axis 0 of its array.

def _new_ref_batcher(axis_data, args, dims, **params):
    x, = args
    return new_ref_p.bind(batching.bdim_at_front(x, dims[0], axis_data.size), **params), 0


def _check_dims(dims, first_index):
    if dims[0] not in (0, batching.not_mapped):
        raise NotImplementedError("xjit supports vmapping a Ref only along its axis 0.")
    if any(d is not batching.not_mapped for d in dims[first_index:]):
        raise NotImplementedError("xjit does not support vmapped indices into a Ref yet.")


def _batched_indexer(indexer, size):
    return (Slice(0, size, 1), *indexer) if indexer else ()


def _get_batcher(axis_data, args, dims, *, indexer):
    ref, *idx = args
    _check_dims(dims, 1)
    return get_p.bind(ref, *idx, indexer=_batched_indexer(indexer, axis_data.size)), 0


def _write_batcher(prim, what):
    def rule(axis_data, args, dims, *, indexer):
        ref, val, *idx = args
        if dims[0] is batching.not_mapped:
            raise Exception(
                f"performing a {what} operation with vmapped value on an unbatched array "
                f"reference of type {core.aval_of(ref)}. Move the array reference to be an "
                "argument to the vmapped function?")
        _check_dims(dims, 2)
        val = batching.bdim_at_front(val, dims[1], axis_data.size)
        out = prim.bind(ref, val, *idx, indexer=_batched_indexer(indexer, axis_data.size))
        return out, ([] if prim.multiple_results else 0)
    return rule


def _freeze_batcher(axis_data, args, dims):
    return freeze_p.bind(args[0]), dims[0]


batching.axis_batch_rules[new_ref_p] = _new_ref_batcher
batching.axis_batch_rules[get_p] = _get_batcher
batching.axis_batch_rules[swap_p] = _write_batcher(swap_p, "set/swap")
batching.axis_batch_rules[addupdate_p] = _write_batcher(addupdate_p, "addupdate")
batching.axis_batch_rules[freeze_p] = _freeze_batcher
batching.axis_batch_rules[free_ref_p] = lambda axis_data, args, dims: (free_ref_p.bind(*args), [])

types.ref_ops.update(get=ref_get, set=ref_set, swap=ref_swap, addupdate=ref_addupdate)
