"""``jax.experimental.hijax``: primitives defined by methods.

A ``HiPrimitive`` subclass writes its rules as methods -- ``abstract_eval``
(returning ``(avals, effects)``), ``to_lojax`` (its meaning in ordinary
operations, which is also how it lowers), and optionally ``impl``, ``jvp`` and
``transpose`` -- and constructing it registers them in the engine's rule
tables, so it runs eagerly and under ``jit``, ``grad`` and ``make_jaxpr``.

"High" types -- values whose abstract type is a ``HiType``/``MutableHiType``
that lowers to several ordinary arrays, such as flax's hijax Variables -- are
registered with ``register_hitype``. Eagerly a high-typed value is an ordinary
Python object: ``cur_qdd`` gives its own state and HiPrimitives bound on it run
their ``impl``. Under ``jit``, ``grad``, ``scan``, ``eval_shape`` and the other
transformations their primitives are lowered where the trace meets them
(``interpreters/hijax_lowering.py``), and ``jit``/``scan`` carry the state of
mutable ones in and out. Not supported (``NotImplementedError``): high-typed
values as tracers (``vmap`` or differentiation *over* them, returning them
from ``jit``), and writing to one from outside under ``cond``/``while_loop``.
"""
from __future__ import annotations

import collections
import dataclasses

from xjit._src import core
from xjit._src.core import AbstractValue, ShapedArray  # noqa: F401
from xjit._src.interpreters import ad
from xjit._src.interpreters import hijax_lowering
from xjit._src.interpreters import mlir
from xjit._src.interpreters.ad import Zero, instantiate_zeros, is_undefined_primal  # noqa: F401

class _EffectTypeSet:
    """The effect types allowed in control flow (``add_type``/``contains``)."""

    def __init__(self):
        self._types: set[type] = set()

    def add_type(self, effect_type: type) -> None:
        self._types.add(effect_type)

    def contains(self, effect) -> bool:
        return any(isinstance(effect, t) for t in self._types)

    def filter_not_in(self, effects):
        return [e for e in effects if not self.contains(e)]


control_flow_allowed_effects = _EffectTypeSet()


class HiPrimitive(core.Primitive):
    """A primitive whose rules are its methods (see the module docstring)."""

    def __init__(self, name: str):
        super().__init__(name)
        # The engine asks ``primitive.abstract_eval`` for the output avals alone;
        # the subclass's method answers ``(avals, effects)`` (effects are not
        # tracked here), so the instance gets the avals-only view.
        self._effectful_abstract_eval = self.abstract_eval
        self.abstract_eval = self._avals_only
        core.abstract_eval_rules[self] = self._avals_only
        own_impl = type(self).impl is not HiPrimitive.impl
        core.impl_rules[self] = self.impl if own_impl else self._impl_by_lojax
        mlir.register_lowering(self, mlir.lower_fun(self.to_lojax,
                                                    multiple_results=self.multiple_results))
        if type(self).jvp is not HiPrimitive.jvp:
            ad.jvp_rules[self] = self.jvp
        if type(self).transpose is not HiPrimitive.transpose:
            ad.transpose_rules[self] = self.transpose
        hijax_lowering.register_primitive(self)

    def _avals_only(self, *avals, **params):
        return self._effectful_abstract_eval(*avals, **params)[0]

    def _impl_by_lojax(self, *args, **params):
        return self.to_lojax(*args, **params)

    def is_high(self, *avals, **params) -> bool:
        return False

    def is_effectful(self, params) -> bool:
        return False

    def abstract_eval(self, *avals, **params):
        raise NotImplementedError(f"abstract_eval of hijax primitive {self.name}")

    def impl(self, *args, **params):
        return self._impl_by_lojax(*args, **params)

    def to_lojax(self, *args, **params):
        raise NotImplementedError(f"to_lojax of hijax primitive {self.name}")

    def jvp(self, primals, tangents, **params):
        raise NotImplementedError(f"jvp of hijax primitive {self.name}")

    def transpose(self, *args, **params):
        raise NotImplementedError(f"transpose of hijax primitive {self.name}")


class VJPHiPrimitive(HiPrimitive):
    """A HiPrimitive differentiated by a VJP rule (``vjp_fwd``/``vjp_bwd``)."""


class HiType(AbstractValue):
    """Base of immutable high types: ``lo_ty`` names the ordinary types a value
    lowers to, ``lower_val``/``raise_val`` convert between the two."""

    __slots__ = ()
    is_high = True
    has_qdd = False

    def lo_ty(self):
        raise NotImplementedError(type(self).__name__ + ".lo_ty")

    def lower_val(self, hi_val):
        raise NotImplementedError(type(self).__name__ + ".lower_val")

    def raise_val(self, *lo_vals):
        raise NotImplementedError(type(self).__name__ + ".raise_val")

    def to_tangent_aval(self):
        raise NotImplementedError(type(self).__name__ + ".to_tangent_aval")


class MutableHiType(AbstractValue):
    """Base of mutable high types, whose state type (QDD) can change as the
    program runs."""

    __slots__ = ()
    is_high = True
    has_qdd = True

    def lo_ty_qdd(self, qdd):
        raise NotImplementedError(type(self).__name__ + ".lo_ty_qdd")

    def new_from_loval(self, qdd, *lo_vals):
        raise NotImplementedError(type(self).__name__ + ".new_from_loval")

    def read_loval(self, qdd, val):
        raise NotImplementedError(type(self).__name__ + ".read_loval")

    def update_from_loval(self, qdd, val, *lo_vals):
        raise NotImplementedError(type(self).__name__ + ".update_from_loval")


@dataclasses.dataclass(frozen=True)
class AvalQDD:
    """An abstract value with its quasi-dynamic data."""
    aval: AbstractValue
    qdd: object


@dataclasses.dataclass(frozen=True)
class AvalMutableQDD:
    """An abstract value with the mutable cell holding its quasi-dynamic data."""
    aval: AbstractValue
    mutable_qdd: object


@dataclasses.dataclass(frozen=True)
class HiPspec:
    """A partition spec for a high type's components."""
    spec: object


# Placed on an abstract value's class, these forward an attribute from the
# tracers of that type to the abstract value (as JAX's named tuples do).
aval_property = collections.namedtuple("aval_property", ["fget"])
aval_method = collections.namedtuple("aval_method", ["fun"])


registered_hitypes = hijax_lowering.registered_hitypes


def register_hitype(val_cls, typeof_fn) -> None:
    """Declare ``val_cls`` a high-typed value whose type ``typeof_fn`` gives."""
    registered_hitypes[val_cls] = typeof_fn


def cur_qdd(x):
    """The current quasi-dynamic data of a mutable high-typed value: outside
    any transformation the value's own (``x.cur_qdd()``), under one that of
    the trace's stand-in for it."""
    return hijax_lowering.cur_qdd(x)
