"""Statistics of samples in ``xjit.scipy.stats``: ``mode``, ``rankdata``,
``sem`` and the Gaussian kernel density estimate ``gaussian_kde``.

All shapes are static, so each is one jittable graph: ``mode`` counts
through a fixed-size ``unique``, ``rankdata`` ranks through one sort, and a
nan in the data is found at run time (nan ranks everywhere) rather than by a
Python check."""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import dtypes
from xjit._src import random
from xjit._src.interpreters.batching import vmap
from xjit._src.nn.functions import logsumexp
from xjit._src.numpy.util import canonicalize_axis, check_arraylike, promote_dtypes_inexact
from xjit._src.pjit import jit, jit_named
from xjit._src.random_continuous import multivariate_normal
from xjit._src.scipy import linalg
from xjit._src.scipy.special import promote_args_inexact
from xjit._src.scipy.special_ndtr import ndtr
from xjit._src.tree_util import register_pytree_node_class


def _nan_policy(value, fun):
    """JAX's: 'propagate' only; a nan check would need concrete values."""
    if value not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {value!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if value == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {value} is not implemented")
    if value == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{fun}`, we cannot know whether `x` contains nans. "
            f"Please check if nans exist in `x` outside of the `{fun}` function.")


class ModeResult(NamedTuple):
    mode: Any
    count: Any


def _mode_of_column(col):
    """The most frequent value (the smallest of ties) and its count."""
    if col.size == 0:
        nan_dtype = dtypes.default_float_dtype()
        return jnp.array(np.nan, dtype=nan_dtype), jnp.array(0, dtype=nan_dtype)
    values, counts = jnp.unique(col, return_counts=True, size=col.size)
    return values[jnp.argmax(counts)], counts.max()


@jit_named("mode", static_argnames=("axis", "nan_policy", "keepdims"))
def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    _nan_policy(nan_policy, "mode")
    if axis is None:
        out_shape = (1,) * x.ndim if keepdims else ()
        x, axis = x.ravel(), 0
    else:
        axis = canonicalize_axis(axis, x.ndim)
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(x.shape)
                          if keepdims or i != axis)
    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    values, counts = vmap(_mode_of_column, in_axes=1)(x)
    return ModeResult(values.reshape(out_shape), counts.reshape(out_shape))


_RANK_METHODS = ("average", "min", "max", "dense", "ordinal")


def _ranks(a, method):
    """Ranks of a 1-D array from one sort: ordinal positions, then the run
    boundaries of equal values for the tie rules."""
    out_dtype = dtypes.default_float_dtype()
    ordered, order = lax.sort_key_val(a, jnp.arange(a.size))
    position = jnp.empty_like(order).at[order].set(jnp.arange(order.size, dtype=order.dtype))
    if method == "ordinal":
        return (position + 1).astype(out_dtype)
    starts = jnp.concatenate([jnp.array([True]), ordered[1:] != ordered[:-1]])
    dense = starts.cumsum()[position]
    if method == "dense":
        return dense.astype(out_dtype)
    # run_end[j]: how many values precede run j + 1 (the last rank inside run j)
    run_end = jnp.nonzero(starts, size=ordered.size + 1,
                          fill_value=starts.size)[0].astype(out_dtype)
    if method == "max":
        return run_end[dense]
    if method == "min":
        return run_end[dense - 1] + 1
    return 0.5 * (run_end[dense] + run_end[dense - 1] + 1)


@jit_named("rankdata", static_argnames=("method", "axis", "nan_policy"))
def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    check_arraylike("rankdata", a)
    _nan_policy(nan_policy, "rankdata")
    if method not in _RANK_METHODS:
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(rankdata, axis, a, method)
    flat = jnp.ravel(a)
    all_nan = lambda v: jnp.full_like(v, jnp.nan, dtypes.default_float_dtype())
    return lax.cond(jnp.any(jnp.isnan(flat)), all_nan, partial(_ranks, method=method), flat)


@jit_named("sem", static_argnames=("axis", "nan_policy", "keepdims"))
def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """Standard deviation over the square root of the sample count; 'omit'
    counts only the non-nan entries."""
    b, = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        n = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(n).astype(b.dtype)
    if nan_policy == "omit":
        n = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(n).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")


_KDE_FIELDS = ("neff", "dataset", "weights", "covariance", "inv_cov")


@register_pytree_node_class
@dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
    """Gaussian KDE of a (d, n) data set; a pytree of its arrays, so it can
    cross jit and vmap. The bandwidth is fixed when it is built."""
    neff: Any
    dataset: Any
    weights: Any
    covariance: Any
    inv_cov: Any

    def __init__(self, dataset, bw_method=None, weights=None):
        check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if dtypes.issubdtype(lax.dtype(dataset), np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is None:
            dataset, = promote_dtypes_inexact(dataset)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        else:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes_inexact(dataset, weights)
            weights = jnp.atleast_1d(weights)
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        self._set("dataset", dataset)
        self._set("weights", weights)
        neff = self._set("neff", 1 / jnp.sum(weights ** 2))
        if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
            factor = jnp.power(neff, -1. / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = jnp.power(neff * (d + 2) / 4.0, -1. / (d + 4))
        elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError(
                "`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
        data_cov = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
        self._set("covariance", data_cov * factor ** 2)
        self._set("inv_cov", jnp.linalg.inv(data_cov) / factor ** 2)

    def _set(self, name, value):
        object.__setattr__(self, name, value)  # frozen: only the builder writes
        return value

    def tree_flatten(self):
        return tuple(getattr(self, f) for f in _KDE_FIELDS), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        kde = cls.__new__(cls)
        for name, value in zip(_KDE_FIELDS, children):
            kde._set(name, value)
        return kde

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def evaluate(self, points):
        check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _kernel_sum(False, self.dataset.T, self.weights[:, None], points.T,
                           self.inv_cov)[:, 0]

    def __call__(self, points):
        return self.evaluate(points)

    def pdf(self, x):
        return self.evaluate(x)

    def logpdf(self, x):
        check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _kernel_sum(True, self.dataset.T, self.weights[:, None], x.T, self.inv_cov)[:, 0]

    def _convolution(self, other_cov):
        """The Cholesky factor of the summed covariances and the Gaussian
        normaliser it gives."""
        chol = linalg.cho_factor(self.covariance + other_cov)
        norm = jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0]))
        return chol, 1.0 / norm

    def integrate_gaussian(self, mean, cov):
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol, norm = self._convolution(cov)
        return _gaussian_overlap(chol, norm, self.dataset, self.weights, mean)

    @jit
    def integrate_box_1d(self, low, high):
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        lo = jnp.squeeze((low - self.dataset) / sigma)
        hi = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (ndtr(hi) - ndtr(lo)))

    def integrate_kde(self, other):
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol, norm = self._convolution(other.covariance)
        small, large = (self, other) if self.n < other.n else (other, self)
        per_point = vmap(partial(_gaussian_overlap, chol, norm, large.dataset, large.weights),
                         in_axes=1)(small.dataset)
        return jnp.sum(per_point * small.weights)

    @partial(jit, static_argnames=("shape",))
    def resample(self, key, shape=()):
        """Pick data points by weight, then add kernel noise."""
        pick_key, noise_key = random.split(key)
        picked = random.choice(pick_key, self.n, shape=shape, p=self.weights)
        noise = multivariate_normal(noise_key, jnp.zeros(self.d, self.covariance.dtype),
                                    self.covariance, shape=shape, dtype=self.dataset.dtype).T
        return self.dataset[:, picked] + noise

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError(
            "only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points):
        """(d, m) points; a flat vector of d coordinates is one point."""
        if dtypes.issubdtype(lax.dtype(points), np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return jnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _gaussian_overlap(chol, norm, target, weights, mean):
    diff = target - mean[:, None]
    quad = 0.5 * jnp.sum(diff * linalg.cho_solve(chol, diff), axis=0)
    return norm * jnp.sum(jnp.exp(-quad) * weights)


@partial(jit, static_argnums=0)
def _kernel_sum(in_log, points, values, xi, precision):
    """Sum over data points of value * kernel at each query point (a
    logsumexp under ``in_log``), in coordinates whitened by the precision's
    Cholesky factor."""
    points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whiten = linalg.cholesky(precision, lower=True)
    points, xi = jnp.dot(points, whiten), jnp.dot(xi, whiten)
    log_norm = jnp.sum(jnp.log(jnp.diag(whiten))) - 0.5 * d * jnp.log(2 * np.pi)

    def term(x_query, x_data, y_data):
        log_k = log_norm - 0.5 * jnp.sum(jnp.square(x_data - x_query))
        return jnp.log(y_data) + log_k if in_log else y_data * jnp.exp(log_k)

    reduce = logsumexp if in_log else jnp.sum
    per_query = lambda x: reduce(vmap(term, in_axes=(None, 0, 0))(x, points, values), axis=0)
    return vmap(per_query)(xi)
