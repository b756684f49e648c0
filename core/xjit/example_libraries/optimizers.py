"""``jax.example_libraries.optimizers``: first-order optimizers written as
``(init_fun, update_fun, get_params)`` triples, as JAX 0.10.2's.

Each optimizer below is written for a single array; the ``optimizer``
decorator lifts it to any pytree of parameters. The lifted state, an
``OptimizerState``, holds every leaf's own state already flattened, next to
the parameter tree's structure and each leaf-state's structure, so an update
only unflattens leaf states, never the parameter tree. The arithmetic of
every update and schedule follows JAX's term for term, so values, dtypes and
weak types agree with JAX's for the same inputs.
"""
from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import xjit
import xjit.numpy as jnp
from xjit._src.util import safe_map, safe_zip, unzip2

# Lists of per-leaf states must line up exactly; the strict versions say so
# when they do not instead of silently truncating.
map = safe_map
zip = safe_zip

Array = Any
Params = Any  # any pytree of arrays
State = Any  # one leaf's optimizer state
Updates = Params  # gradients, shaped like the parameters
Step = int
Schedule = Callable[[Step], float]

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
# The per-leaf states are the only children; both structures travel as static
# data, so a jitted update keys its cache on them.
xjit.tree_util.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]))

InitFn = Callable[[Params], OptimizerState]
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]


class Optimizer(NamedTuple):
    """What an optimizer factory returns: the three functions, by name."""
    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


def _flatten_states(states):
    """Per-leaf states -> (their leaves, their structures)."""
    return unzip2(map(xjit.tree.flatten, states))


def optimizer(opt_maker: Callable[..., tuple[Callable, Callable, Callable]]
              ) -> Callable[..., Optimizer]:
    """Lifts a factory of single-array ``(init, update, get_params)`` to one
    whose functions take and return pytrees, keeping state as an
    ``OptimizerState``. A gradient tree, or an updated leaf state, whose
    structure differs from the one seen at init is a TypeError."""

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            leaves, tree = xjit.tree.flatten(x0_tree)
            states_flat, subtrees = _flatten_states([init(x0) for x0 in leaves])
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grads, grad_tree_def = xjit.tree.flatten(grad_tree)
            if grad_tree_def != tree:
                raise TypeError(
                    "optimizer update function was passed a gradient tree that did not match "
                    f"the parameter tree structure with which it was initialized: parameter "
                    f"tree {tree} and grad tree {grad_tree_def}.")
            states = map(xjit.tree.unflatten, subtrees, states_flat)
            new_flat, new_subtrees = _flatten_states(map(partial(update, i), grads, states))
            for before, after in zip(subtrees, new_subtrees):
                if after != before:
                    raise TypeError(
                        "optimizer update function produced an output structure that did not "
                        f"match its input structure: input {before} and output {after}.")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = map(xjit.tree.unflatten, subtrees, states_flat)
            return xjit.tree.unflatten(tree, map(get_params, states))

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


def _zero_slots(n):
    """``init`` and ``get_params`` for a state ``(x, *n zero arrays like x)``."""
    def init(x0):
        return (x0,) + tuple(jnp.zeros_like(x0) for _ in range(n))

    def get_params(state):
        return state[0]

    return init, get_params


# -- optimizers (``step_size`` is a number or a schedule of the step index)


@optimizer
def sgd(step_size):
    """Plain gradient descent; the state is the parameter itself."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0

    def update(i, g, x):
        return x - step_size(i) * g

    def get_params(x):
        return x

    return Optimizer(init, update, get_params)


@optimizer
def momentum(step_size: Schedule, mass: float):
    """Gradient descent with heavy-ball momentum ``mass``."""
    step_size = make_schedule(step_size)
    init, get_params = _zero_slots(1)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    return init, update, get_params


@optimizer
def nesterov(step_size: Schedule, mass: float):
    """Gradient descent with Nesterov momentum ``mass``."""
    step_size = make_schedule(step_size)
    init, get_params = _zero_slots(1)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    return init, update, get_params


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad (Duchi et al. 2011), with momentum on the scaled gradient."""
    step_size = make_schedule(step_size)
    init, get_params = _zero_slots(2)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        inv_root = jnp.where(g_sq > 0, 1. / jnp.sqrt(g_sq), 0.0)
        m = (1. - momentum) * (g * inv_root) + momentum * m
        return x - step_size(i) * m, g_sq, m

    return init, update, get_params


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: the step is scaled by a running RMS of the gradient (decay ``gamma``)."""
    step_size = make_schedule(step_size)
    init, get_params = _zero_slots(1)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return init, update, get_params


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp whose scaled steps accumulate with ``momentum`` (a third state array)."""
    step_size = make_schedule(step_size)
    init, get_params = _zero_slots(2)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return init, update, get_params


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam: bias-corrected first and second moment estimates."""
    step_size = make_schedule(step_size)
    init, get_params = _zero_slots(2)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        # The decay powers are taken in the state's dtype, as JAX does.
        m_hat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        v_hat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * m_hat / (jnp.sqrt(v_hat) + eps), m, v

    return init, update, get_params


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax: Adam with the second moment replaced by a decayed max of |g|."""
    step_size = make_schedule(step_size)
    init, get_params = _zero_slots(2)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        corrected = step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        return x - corrected * m / (u + eps), m, u

    return init, update, get_params


def _sm3_cover(v, ndim, axis):
    """The accumulator of ``axis``, broadcastable against the ndim-d parameter."""
    return v[tuple(slice(None) if k == axis else None for k in range(ndim))]


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al. 2019): one accumulator vector per parameter axis
    instead of a full second-moment array. A scalar parameter is kept as
    shape (1,) and the original shape rides along in the state."""
    step_size = make_schedule(step_size)

    def init(x0):
        shape = x0.shape
        x0 = jnp.atleast_1d(x0)
        covers = [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape]
        return x0, jnp.zeros_like(x0), covers, shape

    def update(i, g, state):
        x, m, covers, shape = state
        covers = [_sm3_cover(v, g.ndim, axis) for axis, v in enumerate(covers)]
        accum = functools.reduce(jnp.minimum, covers) + jnp.square(g)
        inv_root = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
        m = (1. - momentum) * (g * inv_root) + momentum * m
        x = x - step_size(i) * m
        covers = [accum.max(tuple(k for k in range(x.ndim) if k != axis))
                  for axis in range(x.ndim)]
        return x, m, covers, shape

    def get_params(state):
        return state[0].reshape(state[3])

    return init, update, get_params


# -- step-size schedules: functions of the step index


def constant(step_size) -> Schedule:
    """The same step size at every step."""
    return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate):
    """``step_size * decay_rate ** (i / decay_steps)``."""
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """``step_size / (1 + decay_rate * i / decay_steps)``; with ``staircase``
    the ratio is floored so the rate drops every ``decay_steps`` steps."""
    if staircase:
        return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From ``step_size`` to ``final_step_size`` along ``(1 - t) ** power``
    over ``decay_steps`` steps, then constant."""
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        fraction_left = (1 - step_num / decay_steps) ** power
        return fraction_left * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any):
    """``values[k]`` for steps past ``k`` of the ``boundaries``; there is one
    more value than boundaries."""
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if boundaries.shape[0] != values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")
    return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    """A callable is already a schedule; a scalar becomes a constant one."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# -- utilities


def l2_norm(tree):
    """The l2 norm of all of a pytree's leaves together (for weight decay)."""
    leaves = xjit.tree.leaves(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """Rescales a gradient pytree so its joint l2 norm is at most ``max_norm``."""
    norm = l2_norm(grad_tree)
    return xjit.tree.map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)),
                         grad_tree)


# -- serialization: OptimizerState <-> a plain nested pytree


class JoinPoint:
    """Stands at a parameter leaf of an unpacked state and holds that leaf's
    state pytree. It is iterable (yielding the held pytree) but not a pytree
    node, so the parameter tree flattens to exactly one JoinPoint per leaf."""

    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """The parameter tree with each leaf replaced by a ``JoinPoint`` of its
    state: an ordinary nested structure a serializer can store."""
    states_flat, tree_def, subtree_defs = opt_state
    states = map(xjit.tree.unflatten, subtree_defs, states_flat)
    return xjit.tree.unflatten(tree_def, [JoinPoint(s) for s in states])


def pack_optimizer_state(marked_pytree):
    """The inverse of ``unpack_optimizer_state``."""
    points, tree_def = xjit.tree.flatten(marked_pytree)
    assert all(isinstance(p, JoinPoint) for p in points)
    states_flat, subtree_defs = _flatten_states([p.subtree for p in points])
    return OptimizerState(states_flat, tree_def, subtree_defs)
