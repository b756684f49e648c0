"""``jnp.vectorize``: a NumPy generalized ufunc built on ``vmap``.

Each loop dimension (broadcast over the non-core axes of the arguments)
becomes one ``vmap`` layer; an argument of size 1 along it is squeezed and
left unmapped, and a dimension no argument maps is restored with
``expand_dims`` at the end, so size-1 broadcasting costs nothing. As in JAX,
keyword arguments not named in ``excluded`` are not passed to the function.
"""
from __future__ import annotations

import functools
import re

import numpy as np

from xjit._src.interpreters.batching import vmap

_NAME = r"\w+"
_CORE = rf"(?:{_NAME}(?:,{_NAME})*)?"
_ARG = rf"\({_CORE}\)"
_ARGS = rf"{_ARG}(?:,{_ARG})*"
_SIGNATURE = rf"^{_ARGS}->{_ARGS}$"


def _parse_signature(signature):
    """``'(n,m),(m)->(n)'`` -> ``([('n', 'm'), ('m',)], [('n',)])``."""
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return tuple([tuple(re.findall(_NAME, a)) for a in re.findall(_ARG, side)]
                 for side in signature.split("->"))


def _record_sizes(sizes, shape, core, context, is_input):
    if is_input and len(shape) < len(core):
        raise ValueError(f"input with shape {shape!r} does not have enough dimensions for all "
                         f"core dimensions {core!r} {context}")
    if not is_input and len(shape) != len(core):
        raise ValueError(f"output shape {shape!r} does not match core dimensions {core!r} "
                         f"{context}")
    for name, size in zip(core, shape[len(shape) - len(core):]):
        if sizes.setdefault(name, size) != size:
            raise ValueError(f"inconsistent size for core dimension {name!r}: {size!r} vs "
                             f"{sizes[name]!r} {context}")


def _bind_excluded(func, excluded, args, kwargs):
    """Fix the excluded positional/keyword arguments; return the function of
    the remaining positional ones."""
    if not excluded:
        return func, list(args)
    fixed = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
             if i < len(args)]
    fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}

    def bound(*dynamic):
        full = list(dynamic)
        for i, v in fixed:
            full.insert(i, v)
        return func(*full, **fixed_kw)
    return bound, [a for i, a in enumerate(args) if i not in excluded]


def _checked(func, sizes, out_core, context):
    def run(*args):
        out = func(*args)
        outs = out if isinstance(out, tuple) else [out]
        if len(out_core) > 1 and not isinstance(out, tuple):
            raise TypeError(f"output must be a tuple when multiple outputs are expected, got: "
                            f"{out!r}\n{context}")
        if len(outs) != len(out_core):
            raise TypeError(f"wrong number of output arguments: expected {len(out_core)!r}, "
                            f"got {len(outs)!r} {context}")
        seen = dict(sizes)
        for o, core in zip(outs, out_core):
            _record_sizes(seen, np.shape(o), core, context, is_input=False)
        return out
    return run


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """Vectorize ``pyfunc`` over leading axes with NumPy broadcasting; with a
    gufunc ``signature`` the named trailing core axes go to ``pyfunc`` whole."""
    from . import util
    from .lax_numpy import asarray
    from .shape_ops import expand_dims, squeeze

    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
        func, args = _bind_excluded(pyfunc, excluded, args, kwargs)
        if signature is not None:
            in_core, out_core = _parse_signature(signature)
        else:
            in_core, out_core = [()] * len(args), None
        nones = {i for i, a in enumerate(args) if a is None}
        if nones:
            if any(in_core[i] != () for i in nones):
                raise ValueError(f"Cannot pass None at locations {nones} with "
                                 f"signature={signature!r}")
            func, args = _bind_excluded(func, nones, args, {})
            in_core = [c for i, c in enumerate(in_core) if i not in nones]
        args = [asarray(a) for a in args]
        if len(args) != len(in_core):
            raise TypeError(f"wrong number of positional arguments: expected {len(in_core)!r}, "
                            f"got {len(args)!r} {context}")
        sizes = {}
        loop_shapes = []
        for a, core in zip(args, in_core):
            _record_sizes(sizes, a.shape, core, context, is_input=True)
            loop_shapes.append(a.shape[:a.ndim - len(core)])
        loop = util.broadcast_shapes(*loop_shapes)
        if out_core is not None:
            func = _checked(func, sizes, out_core, context)
        squeezed, rev_shapes = [], []
        for a, shape in zip(args, loop_shapes):
            rev_shapes.append(((1,) * (len(loop) - len(shape)) + shape)[::-1])
            squeezed.append(squeeze(a, axis=tuple(i for i, d in enumerate(shape) if d == 1)))
        restore = []
        for k, dims in enumerate(zip(*rev_shapes)):
            in_axes = tuple(None if d == 1 else 0 for d in dims)
            if all(ax is None for ax in in_axes):
                restore.append(len(loop) - 1 - k)
            else:
                func = vmap(func, in_axes)
        out = func(*squeezed)
        if not restore:
            return out
        if isinstance(out, tuple):
            return tuple(expand_dims(o, axis=restore) for o in out)
        return expand_dims(out, axis=restore)
    return wrapped
