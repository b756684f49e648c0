"""``out_sharding=`` on the samplers JAX 0.10.2 gives it: the sampler runs
with the mesh's Explicit axes made Auto (its intermediate values untyped,
so the compiler lays them out) and its result takes the type
``out_sharding`` names, as JAX's ``maybe_auto_axes`` does."""
from __future__ import annotations

import functools
import inspect

from xjit._src.sharding import auto_axes, canonicalize_sharding

# JAX 0.10.2's samplers with an ``out_sharding`` keyword
SAMPLERS = (
    "bits", "uniform", "randint", "permutation", "normal", "multivariate_normal",
    "truncated_normal", "bernoulli", "beta", "cauchy", "dirichlet", "exponential", "gamma",
    "loggamma", "poisson", "gumbel", "categorical", "laplace", "logistic", "pareto", "t",
    "chisquare", "f", "rademacher", "maxwell", "orthogonal", "generalized_normal", "ball",
    "rayleigh", "wald", "geometric", "triangular", "lognormal")


def with_out_sharding(sampler, name):
    """``sampler`` with JAX's keyword-only ``out_sharding`` (None: as before)."""
    sig = inspect.signature(sampler)
    if "out_sharding" in sig.parameters:
        return sampler
    params = list(sig.parameters.values())
    params.append(inspect.Parameter("out_sharding", inspect.Parameter.KEYWORD_ONLY, default=None))

    @functools.wraps(sampler)
    def wrapped(*args, out_sharding=None, **kwargs):
        s = canonicalize_sharding(out_sharding, name)
        if s is None:
            return sampler(*args, **kwargs)
        return auto_axes(sampler, out_sharding=s, axes=s.mesh.explicit_axes)(*args, **kwargs)

    wrapped.__signature__ = sig.replace(parameters=params)
    return wrapped


def install(namespace):
    """Wrap the samplers of a module's namespace (``xjit.random``)."""
    for name in SAMPLERS:
        if name in namespace:
            namespace[name] = with_out_sharding(namespace[name], name)
