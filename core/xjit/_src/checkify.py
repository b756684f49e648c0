"""``checkify``: turn runtime checks (NaNs, integer division by zero,
out-of-bounds indices, user ``check``s) into values a jitted function returns.

``checkify(f)`` traces ``f`` to a jaxpr and re-evaluates it with an
interpreter that, after each equation, computes a boolean "this check failed"
for every enabled check. The ``Error`` it returns is a pytree of those
booleans (and of the values user messages format), so it crosses ``jit``;
``err.get()`` reports the first failure in program order, as JAX does.
"""
from __future__ import annotations

import typing
import weakref

import numpy as np

from . import checkify_custom, checkify_index, core, dtypes, tree_util
from .array import ArrayImpl
from .callback import debug_effect_rules
from .interpreters import batching


class JaxRuntimeError(ValueError):
    """A failed check, raised by ``Error.throw``/``check_error`` (and by a
    ``check`` that runs outside ``checkify``)."""


class JaxException(Exception):
    """Base of the check categories: ``errors=`` of ``checkify`` is a set of
    these classes (an ``ErrorCategory`` is one of them)."""


class FailedCheckError(JaxException):
    """A user ``check`` whose predicate was False."""


class NaNError(JaxException):
    """A primitive produced a NaN."""


class DivisionByZeroError(JaxException):
    """Integer division by zero."""


class OOBError(JaxException):
    """An out-of-bounds index."""


ErrorCategory = type[JaxException]
Out = typing.TypeVar("Out")  # what a checkified function returns besides its Error

user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
div_checks = frozenset({DivisionByZeroError})
index_checks = frozenset({OOBError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


class Error:
    """Failure flags of every check site, in program order, with the values
    their messages need; cheap to return from jitted code. A site checked in
    a shard_map (or pmap) has one flag per device: the error is then batched,
    as JAX's."""

    def __init__(self, preds=(), payloads=(), messages=(), ranks=None):
        self._preds, self._payloads, self._messages = list(preds), list(payloads), list(messages)
        # JAX numbers checks as it meets them; of the sites failing, one per
        # error effect (the first to fail) is a candidate, and the lowest
        # number among them is reported. ``ranks`` are those numbers' order.
        self._ranks = tuple(range(len(self._preds))) if ranks is None else tuple(ranks)

    def _sites(self):
        for pred, payload, msg in zip(self._preds, self._payloads, self._messages):
            yield np.asarray(pred), payload, msg

    def _batch_shape(self):
        return next((p.shape for p, _, _ in self._sites() if p.ndim), None)

    def _effect_keys(self):
        return [(getattr(msg, "kind", None),
                 tuple((np.shape(v)[np.ndim(pred):], np.asarray(v).dtype) for v in payload))
                for pred, payload, msg in self._sites()]

    def _message_at(self, idx):
        """The message of the site failing at batch index ``idx`` (``()``:
        unbatched): the first failure of each effect, the lowest ranked."""
        chosen = {}
        for k, (key, (pred, payload, msg)) in enumerate(zip(self._effect_keys(), self._sites())):
            at = pred.ndim and idx
            if key not in chosen and bool(pred[at] if at else pred):
                chosen[key] = (self._ranks[k], msg, [v[at] for v in payload] if at else payload)
        if not chosen:
            return None
        _, msg, payload = min(chosen.values(), key=lambda c: c[0])
        return msg(*payload)

    def get(self):
        """The message of the first failed check, or None; batched, the first
        failure at each failing index, as 'at mapped index i: ...' lines."""
        shape = self._batch_shape()
        if shape is None:
            return self._message_at(())
        lines = [f"at mapped index {', '.join(map(str, idx))}: {m}"
                 for idx in np.ndindex(*shape) if (m := self._message_at(idx)) is not None]
        return "\n".join(lines) or None

    def throw(self):
        msg = self._message_at(()) if self._batch_shape() is None else self._reduced()
        if msg is not None:
            raise JaxRuntimeError(msg)

    def _reduced(self):
        """What a batched error raises, as JAX reduces it: sites of one error
        class and payload type are one effect, which keeps at each index its
        first failing site; each effect is taken at the last index where it
        failed, and of those the lowest ranked site raises."""
        effects = {}
        for k, (pred, payload, msg) in enumerate(self._sites()):
            payload = [np.asarray(v) for v in payload]
            key = (getattr(msg, "kind", None),
                   tuple((v.shape[pred.ndim:], v.dtype) for v in payload))
            # an unbatched site (checked outside the shard_map) fails at every index
            at = (lambda v, idx: v[idx]) if pred.ndim else (lambda v, idx: v)
            effects.setdefault(key, []).append(
                (k, np.broadcast_to(pred, self._batch_shape()), payload, msg, at))
        chosen = []
        for sites in effects.values():
            failed = np.logical_or.reduce([p for _, p, _, _, _ in sites])
            if failed.any():
                last = np.unravel_index(failed.size - 1 - np.argmax(failed.ravel()[::-1]),
                                        failed.shape)
                chosen.append(next((self._ranks[k], msg, [at(v, last) for v in payload])
                                   for k, p, payload, msg, at in sites if p[last]))
        if not chosen:
            return None
        _, msg, payload = min(chosen, key=lambda c: c[0])
        return msg(*payload)

    def __str__(self):
        return f"Error({self.get()})"

    def __repr__(self):
        msg = self.get()
        return f"Error({msg!r})" if msg is not None else "Error(None)"


init_error = Error()  # no check has failed: what a checkified function starts from


tree_util.register_pytree_node(
    Error,
    lambda e: ((e._preds, e._payloads), (e._messages, e._ranks)),
    lambda aux, ch: Error(ch[0], ch[1], aux[0], aux[1]))


# -- user checks


check_p = core.Primitive("check")
check_p.multiple_results = True


class _Tracing:
    """How many checkify traces are in progress: only they may stage a check."""
    depth = 0


def _check_abstract_eval(*avals, **params):
    if _Tracing.depth:
        return []
    raise ValueError("Cannot abstractly evaluate a checkify.check which was not functionalized. "
                     "This probably means you tried to stage (jit/scan/pmap/...) a `check` "
                     "without functionalizing it through `checkify.checkify`.")


def _check_impl(pred, *fmt_args, msg, fmt_tree):
    if not bool(np.asarray(pred)):
        raise JaxRuntimeError(_format_user(msg, fmt_tree, fmt_args))
    return []


core.abstract_eval_rules[check_p] = _check_abstract_eval
core.impl_rules[check_p] = _check_impl
debug_effect_rules(check_p)


def _check_batch(args, dims, *, msg, fmt_tree):
    """A batched check is one check: it fails if any example fails, with the
    payload of the last failing example, as JAX reduces a batched error
    (nested vmaps reduce the inner axis first)."""
    jnp = _jnp()
    n = next(core.aval_of(x).shape[d] for x, d in zip(args, dims) if d is not batching.not_mapped)

    def front(x, d):
        return jnp.broadcast_to(x, (n, *core.aval_of(x).shape)) if d is batching.not_mapped \
            else jnp.moveaxis(x, d, 0)
    fail = jnp.logical_not(front(args[0], dims[0]))
    last = _last_true(fail)
    fmt = [x if d is batching.not_mapped else front(x, d)[last] for x, d in zip(args[1:], dims[1:])]
    check_p.bind(jnp.logical_not(jnp.any(fail)), *fmt, msg=msg, fmt_tree=fmt_tree)
    return [], []


batching.batch_rules[check_p] = _check_batch


def _last_true(flags):
    """The index of the last True of a 1-d array of flags (0 if none is)."""
    return flags.shape[0] - 1 - _jnp().argmax(flags[::-1])


class _SiteMessage:
    """The message of a check site re-staged by ``check_error``: it formats
    itself from the site's payload."""

    __slots__ = ("render",)

    def __init__(self, render):
        self.render = render


def _format_user(msg, fmt_tree, vals):
    args, kwargs = tree_util.tree_unflatten(fmt_tree, list(vals))
    if isinstance(msg, _SiteMessage):
        return msg.render(*args)
    return msg.format(*args, **kwargs) + " (`check` failed)"


def check(pred, msg, *fmt_args, **fmt_kwargs):
    """Fail with ``msg.format(*fmt_args, **fmt_kwargs)`` when ``pred`` is False."""
    if not isinstance(msg, str):
        raise TypeError(f"check takes a string message, got {type(msg)}")
    shape = np.shape(pred) if not isinstance(pred, (core.Tracer, ArrayImpl)) else pred.shape
    if shape != ():
        raise TypeError(f"check takes a scalar pred as argument, got shape {shape}")
    flat, tree = tree_util.tree_flatten((fmt_args, fmt_kwargs))
    check_p.bind(pred, *flat, msg=msg, fmt_tree=tree)


def check_error(error: Error) -> None:
    """Raise :class:`JaxRuntimeError` if ``error`` holds a failed check. Inside
    a function being checkified, its checks join that function's instead (so
    an ``Error`` from an inner ``checkify`` flows out of the outer one)."""
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes an Error as argument, got type {type(error)} "
                        "instead.")
    if not _Tracing.depth and not any(isinstance(p, core.Tracer) for p in error._preds):
        error.throw()
        return
    jnp = _jnp()
    for pred, payload, render in zip(error._preds, error._payloads, error._messages):
        flat, tree = tree_util.tree_flatten((tuple(payload), {}))
        check_p.bind(jnp.logical_not(pred), *flat, msg=_SiteMessage(render), fmt_tree=tree)


def debug_check(pred, msg, *fmt_args, **fmt_kwargs) -> None:
    """A ``check`` that only counts inside ``checkify``; elsewhere (eagerly or
    under a plain ``jit``) it does nothing."""
    if _Tracing.depth:
        check(pred, msg, *fmt_args, **fmt_kwargs)


# -- the checking interpreter


def _jnp():
    from .. import numpy as jnp
    return jnp


def _eval_checked(jaxpr, consts, args, errors, sites):
    jnp = _jnp()
    env = {}

    def read(v):
        return v.val if type(v) is core.Literal else env[v]

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        name = eqn.primitive.name
        if name == "check":
            if FailedCheckError in errors:
                pred, *fmt = ins
                msg, tree = eqn.params["msg"], eqn.params["fmt_tree"]
                # (a site of an inner checkify re-raised by check_error keeps its class)
                kind = getattr(msg.render, "kind", FailedCheckError) \
                    if isinstance(msg, _SiteMessage) else FailedCheckError
                sites.append((jnp.logical_not(pred), fmt, _of_kind(
                    kind, lambda *v, msg=msg, tree=tree: _format_user(msg, tree, v), user=True)))
            continue
        if name in ("jit", "pjit") and "jaxpr" in eqn.params:
            outs = _checked_jit_call(eqn.params["jaxpr"], ins, errors, sites)
        elif name == "scan":
            outs = _checked_scan(eqn.params, ins, errors, sites)
        elif name == "shard_map" and _has_sites(eqn.params["jaxpr"].jaxpr, errors):
            outs = _checked_shard_map(eqn.params, ins, errors, sites)
        elif name == "cond" and any(_has_sites(b.jaxpr, errors) for b in eqn.params["branches"]):
            outs = _checked_cond(eqn.params["branches"], ins, errors, sites)
        elif name == "while" and any(_has_sites(eqn.params[k].jaxpr, errors)
                                     for k in ("cond_jaxpr", "body_jaxpr")):
            outs = _checked_while(eqn.params, ins, errors, sites)
        elif name in checkify_custom.CUSTOM_CALLS and _has_sites(eqn.params["call_jaxpr"].jaxpr,
                                                                  errors | user_checks):
            # (a disabled user check there is dropped, as in the other bodies)
            outs = checkify_custom.checked_custom_call(_eval_checked, eqn, ins, errors, sites)
        elif name == checkify_custom.REMAT and _has_sites(eqn.params["jaxpr"].jaxpr,
                                                          errors | user_checks):
            outs = checkify_custom.checked_remat(_eval_checked, eqn, ins, errors, sites,
                                                 OOBError in errors)
        elif any(_has_sites(j, {FailedCheckError}) for j in core.jaxprs_in_params(eqn.params)):
            # a user check there cannot be staged; (automatic checks are made
            # on such an equation's outputs, as before)
            raise NotImplementedError(
                f"checkify: a check inside {name} is not supported yet (jit, scan, cond, while, "
                "shard_map, custom_jvp, custom_vjp and checkpoint bodies are)")
        else:
            outs = eqn.primitive.bind(*ins, **eqn.params)
            outs = outs if eqn.primitive.multiple_results else [outs]
            _add_sites(eqn, ins, outs, errors, sites, jnp)
        for v, x in zip(eqn.outvars, outs):
            env[v] = x
    return [read(v) for v in jaxpr.outvars]


# A jitted callee stays one compiled computation once checked, as in JAX: the
# checked body is jitted too, returning its outputs plus every site's failure
# flag and payload. Keyed by the callee's jaxpr (jit caches it, so the same
# object comes back for the same signature); the messages are collected when
# the checked body is traced.
_checked_jits: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _checked_jit_call(closed, ins, errors, sites):
    from xjit._src.pjit import jit
    per_errors = _checked_jits.setdefault(closed, {})
    entry = per_errors.get(errors)
    if entry is None:
        layout = []  # (payload count, message) per site, filled at trace time

        def checked_body(*args):
            local = []
            outs = _eval_checked(closed.jaxpr, closed.consts, args, errors, local)
            layout[:] = [(len(payload), msg) for _, payload, msg in local]
            return outs, [pred for pred, _, _ in local], [v for _, p, _ in local for v in p]

        entry = per_errors[errors] = (jit(checked_body), layout)
    jitted, layout = entry
    outs, preds, payloads = jitted(*ins)
    start = 0
    for pred, (count, msg) in zip(preds, layout):
        sites.append((pred, list(payloads[start:start + count]), msg))
        start += count
    return list(outs)


def _has_sites(jaxpr, errors):
    """Whether checking ``jaxpr`` (sub-jaxprs included) would add a site."""
    for e in jaxpr.eqns:
        name = e.primitive.name
        if (e.primitive is check_p and FailedCheckError in errors) or \
                (name == "div" and DivisionByZeroError in errors) or \
                (name in checkify_index.INDEX_PRIMS and OOBError in errors) or \
                (NaNError in errors and name in _NAN_PRIMITIVES and
                 any(dtypes.is_inexact(v.aval.dtype) for v in e.outvars)):
            return True
    return any(_has_sites(j, errors) for j in core.subjaxprs(jaxpr))


def _checked_scan(params, ins, errors, sites):
    """A scan checked inside: every iteration's failure flags and payloads
    leave the loop as per-iteration outputs, and the error is the first
    failure in execution order (the iteration, then the site), as JAX's
    carried error would be."""
    from xjit._src.lax.control_flow.loops import scan
    jnp = _jnp()
    body, nc, ncar = params["jaxpr"], params["num_consts"], params["num_carry"]
    consts, init, xs = ins[:nc], ins[nc:nc + ncar], ins[nc + ncar:]
    layout = []

    def step(carry, x):
        local = []
        outs = _eval_checked(body.jaxpr, body.consts, [*consts, *carry, *x], errors, local)
        layout[:] = [msg for _, _, msg in local]
        return outs[:ncar], (outs[ncar:], [jnp.asarray(pred) for pred, _, _ in local],
                             [list(payload) for _, payload, _ in local])
    carry, (ys, preds, payloads) = scan(step, list(init), list(xs), length=params["length"],
                                        reverse=params["reverse"], unroll=params["unroll"])
    if preds:
        fails = jnp.stack(preds)  # (sites, iterations)
        per_iter = jnp.any(fails, axis=0)
        first = _last_true(per_iter) if params["reverse"] else jnp.argmax(per_iter)
        site = jnp.argmax(fails[:, first])
        failed = jnp.any(per_iter)
        for j, (msg, payload) in enumerate(zip(layout, payloads)):
            sites.append((jnp.logical_and(failed, site == j), [v[first] for v in payload], msg))
    return [*carry, *ys]


def _checked_shard_map(params, ins, errors, sites):
    """A shard_map checked inside (pmap's too): each device's failure flags
    and payloads leave the body with a leading axis laid out over the manual
    mesh axes, and stay per device in the error, as JAX's batched error."""
    from xjit._src.shard_map import shard_map
    from xjit._src.sharding import PartitionSpec
    jnp = _jnp()
    closed, manual = params["jaxpr"], params["newly_manual_axes"]
    mesh_axes = params["mesh"].axis_names
    per_device = PartitionSpec(tuple(a for a in mesh_axes if a in manual))
    layout = []

    def body(*xs):
        local = []
        outs = _eval_checked(closed.jaxpr, closed.consts, xs, errors, local)
        layout[:] = [(len(payload), msg) for _, payload, msg in local]
        return (list(outs), [jnp.expand_dims(pred, 0) for pred, _, _ in local],
                [jnp.expand_dims(v, 0) for _, payload, _ in local for v in payload])

    outs, preds, payloads = shard_map(
        body, mesh=params["mesh"], in_specs=tuple(params["in_specs"]),
        out_specs=(list(params["out_specs"]), per_device, per_device),
        axis_names=set(manual) if set(manual) != set(mesh_axes) else frozenset(),
        check_vma=params["check_vma"])(*ins)
    start = 0
    for fails, (count, msg) in zip(preds, layout):
        sites.append((fails, list(payloads[start:start + count]), msg))
        start += count
    return list(outs)


def _shapes_of(fun, *args):
    """The shapes and dtypes ``fun(*args)`` returns, traced, not run."""
    from xjit._src.pjit import make_jaxpr
    return make_jaxpr(fun, return_shape=True)(*args)[1]


def _checked_cond(branches, ins, errors, sites):
    """A cond checked inside: every branch returns the flags and payloads of
    all branches' sites (those of the branches not taken false and zero), so
    the error is the taken branch's first failure, as JAX's."""
    from xjit._src.lax.control_flow.conditionals import switch
    jnp = _jnp()
    index, *ops = ins
    layouts = []  # per branch: [(message, payload avals)] in site order

    def checked(k):
        def run(*args):
            local = []
            outs = _eval_checked(branches[k].jaxpr, branches[k].consts, args, errors, local)
            return outs, local
        return run
    for k in range(len(branches)):
        found = []

        def shapes(*args, k=k, found=found):
            outs, local = checked(k)(*args)
            found[:] = [msg for _, _, msg in local]
            return [jnp.asarray(pred) for pred, _, _ in local], [list(p) for _, p, _ in local]
        preds, payloads = _shapes_of(shapes, *ops)
        layouts.append(list(zip(found, payloads)))

    def branch(k):
        def run(*args):
            outs, local = checked(k)(*args)
            flags, values = [], []
            for j, lay in enumerate(layouts):
                for i, (_, avals) in enumerate(lay):
                    if j == k:
                        flags.append(jnp.asarray(local[i][0]))
                        values.append(list(local[i][1]))
                    else:
                        flags.append(jnp.asarray(False))
                        values.append([jnp.zeros(a.shape, a.dtype) for a in avals])
            return outs, flags, values
        return run
    outs, flags, values = switch(index, [branch(k) for k in range(len(branches))], *ops)
    messages = [msg for lay in layouts for msg, _ in lay]
    sites.extend(zip(flags, values, messages))
    return list(outs)


def _checked_while(params, ins, errors, sites):
    """A while loop checked inside: the loop carries whether a check failed,
    which site and its payload; the first failure (the predicate's checks
    before each iteration, then the body's) is kept, as JAX's carried error."""
    from xjit._src.lax.control_flow.loops import while_loop
    jnp = _jnp()
    cj, bj = params["cond_jaxpr"], params["body_jaxpr"]
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    cconsts, bconsts, init = ins[:nc], ins[nc:nc + nb], list(ins[nc + nb:])

    def pred_checked(carry):
        local = []
        (pred,) = _eval_checked(cj.jaxpr, cj.consts, [*cconsts, *carry], errors, local)
        return pred, local

    def body_checked(carry):
        local = []
        return _eval_checked(bj.jaxpr, bj.consts, [*bconsts, *carry], errors, local), local
    messages, counts = [], []  # the predicate's sites, then the body's

    def shapes(carry):
        _, before = pred_checked(carry)
        _, inside = body_checked(carry)
        messages[:], counts[:] = [msg for _, _, msg in before + inside], [len(before)]
        return [list(p) for _, p, _ in before + inside]
    layout = list(zip(messages, _shapes_of(shapes, init)))
    n_pred = counts[0]

    def record(state, local, offset):
        failed, site, payloads = state
        for i, (pred, payload, _) in enumerate(local):
            new = jnp.logical_and(jnp.logical_not(failed), jnp.asarray(pred))
            site = jnp.where(new, offset + i, site)
            payloads = [[jnp.where(new, v, old) for v, old in zip(payload, olds)]
                        if j == offset + i else olds for j, olds in enumerate(payloads)]
            failed = jnp.logical_or(failed, new)
        return failed, site, payloads

    state = (jnp.asarray(False), jnp.asarray(-1, np.int32),
             [[jnp.zeros(a.shape, a.dtype) for a in p] for _, p in layout])

    def cond_fun(c):
        return pred_checked(c[0])[0]

    def body_fun(c):
        carry, st = c
        carry, inside = body_checked(carry)
        st = record(st, inside, n_pred)
        return carry, record(st, pred_checked(carry)[1], 0)
    st0 = record(state, pred_checked(init)[1], 0)
    carry, (failed, site, payloads) = while_loop(cond_fun, body_fun, (init, st0))
    for j, ((msg, _), payload) in enumerate(zip(layout, payloads)):
        sites.append((jnp.logical_and(failed, site == j), payload, msg))
    return list(carry)


# The primitives that can make a NaN, which JAX's float checks watch: a NaN
# only passing through (a reshape, a select, a pmap's squeeze) is reported
# where it was made.
_NAN_PRIMITIVES = frozenset("""
    acos acosh add asin asinh atan atan2 atanh bessel_i0e bessel_i1e cbrt conv_general_dilated
    cos cosh cumlogsumexp cummax cummin cumprod cumsum custom_linear_solve digamma div
    dot_general erf erf_inv erfc exp expm1 fft igamma igamma_grad_a igammac integer_pow lgamma
    log log1p logistic mul pad pow psum reduce reduce_prod reduce_sum reduce_window
    reduce_window_sum regularized_incomplete_beta rem rng_uniform rsqrt sin sinh sqrt sub tan
    tanh""".split())


def _of_kind(cls, render, user=False):
    """``render`` (a site's message) marked with its error class: a batched
    error is reduced per class and payload type, as JAX's error effects;
    ``user``: a site of a check (numbered as f is traced, before the
    automatic checks)."""
    render.kind, render.user = cls, user
    return render


def _nan_sites(name, outs, sites, jnp):
    for o in outs:
        if dtypes.is_inexact(core.aval_of(o).dtype):
            sites.append((jnp.any(jnp.isnan(o)), [], _of_kind(
                NaNError, lambda name=name: f"nan generated by primitive: {name}.")))


def _add_sites(eqn, ins, outs, errors, sites, jnp):
    name = eqn.primitive.name
    if DivisionByZeroError in errors and name == "div":  # any dtype, as JAX checks div
        sites.append((jnp.any(jnp.equal(ins[1], 0)), [],
                      _of_kind(DivisionByZeroError, lambda: "division by zero")))
    if NaNError in errors and name in _NAN_PRIMITIVES:
        _nan_sites(name, outs, sites, jnp)
    if OOBError in errors and name in checkify_index.INDEX_PRIMS:
        failed, payload, shape = checkify_index.oob_site(name, eqn.params, ins)
        sites.append((failed, [payload], _of_kind(OOBError, checkify_index.oob_message(shape))))
        # JAX checks a scatter's output for NaNs only with the index checks on
        if NaNError in errors and name in checkify_index.SCATTER_PRIMS:
            _nan_sites(name, outs, sites, jnp)


def checkify(f, errors=user_checks):
    """A function returning ``(Error, f(*args))`` with the chosen checks made
    into values instead of failures."""
    errors = frozenset(errors)

    def checked(*args, **kwargs):
        from xjit._src.pjit import make_jaxpr
        flat, in_tree = tree_util.tree_flatten((args, kwargs))
        out_store = []

        def flat_fun(*leaves):
            a, k = tree_util.tree_unflatten(in_tree, list(leaves))
            out = f(*a, **k)
            out_flat, out_tree = tree_util.tree_flatten(out)
            out_store.append(out_tree)
            return out_flat

        _Tracing.depth += 1
        try:
            closed = make_jaxpr(flat_fun)(*flat)
        finally:
            _Tracing.depth -= 1
        sites = []
        outs = _eval_checked(closed.jaxpr, closed.consts, flat, errors, sites)
        # JAX numbers a user check as f is traced, before any automatic check
        # (numbered while the traced f is checked); so do the checks of an
        # inner checkify re-raised with check_error
        order = sorted(range(len(sites)), key=lambda k: not getattr(sites[k][2], "user", False))
        ranks = [0] * len(sites)
        for r, k in enumerate(order):
            ranks[k] = r
        err = Error([s[0] for s in sites], [s[1] for s in sites], [s[2] for s in sites], ranks)
        return err, tree_util.tree_unflatten(out_store[0], outs)

    return checked
