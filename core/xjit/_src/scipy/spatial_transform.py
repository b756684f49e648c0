"""``jax.scipy.spatial.transform``: 3-D ``Rotation`` and ``Slerp``.

Both are NamedTuples, hence pytrees (a ``Rotation`` flattens to its scalar-last
unit quaternion(s) ``quat``), so they pass through jit, vmap and grad. Each
conversion is written for one quaternion and broadcast over leading axes
with ``jnp.vectorize``; the formulas follow JAX's (and SciPy's) so values
agree to rounding. As in JAX, ``Rotation.random`` is not implemented and
``identity`` makes a single rotation only.
"""
from __future__ import annotations

import itertools
import re
import typing
from functools import partial

import numpy as np

from xjit import numpy as jnp
from xjit._src import config
from xjit._src.numpy import linalg as jnp_linalg


def _check_seq(seq: str):
    """Whether the Euler axis sequence is intrinsic (upper case); JAX's
    errors for anything else."""
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                         f"['X', 'Y', 'Z'], got {seq}")
    if any(a == b for a, b in itertools.pairwise(seq)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic


def _axis_indices(seq: str):
    return jnp.array([_basis_index(c) for c in seq.lower()])


class Rotation(typing.NamedTuple):
    """Rotation(s) in 3-D held as scalar-last unit quaternions (``quat`` of
    shape ``(4,)`` or ``(N, 4)``), like ``scipy.spatial.transform.Rotation``."""
    quat: typing.Any

    @classmethod
    def concatenate(cls, rotations: typing.Sequence):
        """One stack of the rotations in ``rotations``."""
        return cls(jnp.concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles, degrees: bool = False):
        """From 1-3 Euler angles: ``seq`` upper case for intrinsic axes, lower
        case for extrinsic."""
        if not 1 <= len(seq) <= 3:
            raise ValueError("Expected axis specification to be a non-empty string of upto 3 "
                             f"characters, got {seq}")
        intrinsic = _check_seq(seq)
        return cls(_euler_to_quat(jnp.atleast_1d(angles), _axis_indices(seq), intrinsic,
                                  degrees))

    @classmethod
    def from_matrix(cls, matrix):
        return cls(_matrix_to_quat(matrix))

    @classmethod
    def from_mrp(cls, mrp):
        """From Modified Rodrigues Parameters."""
        return cls(_mrp_to_quat(mrp))

    @classmethod
    def from_quat(cls, quat):
        """From scalar-last quaternions, normalised."""
        return cls(_normalize(quat))

    @classmethod
    def from_rotvec(cls, rotvec, degrees: bool = False):
        """From axis * angle vectors."""
        return cls(_rotvec_to_quat(rotvec, degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype=float):
        """The identity; JAX only has the single one (``num`` must be None)."""
        assert num is None
        return cls(jnp.array([0., 0., 0., 1.], dtype=dtype))

    @classmethod
    def random(cls, random_key, num: int | None = None):
        """Not implemented in JAX either."""
        raise NotImplementedError()

    def __getitem__(self, indexer):
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    def __mul__(self, other) -> Rotation:
        """``self * other``: apply ``other`` first, then ``self``."""
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors, inverse: bool = False):
        """Rotate ``vectors`` (or rotate back, with ``inverse``)."""
        return _apply(self.as_matrix(), vectors, inverse)

    def as_euler(self, seq: str, degrees: bool = False):
        """Three Euler angles about the axes of ``seq`` (as in ``from_euler``)."""
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
        extrinsic = not _check_seq(seq)
        with config.numpy_rank_promotion("allow"):
            return _quat_to_euler(self.quat, _axis_indices(seq), extrinsic, degrees)

    def as_matrix(self):
        return _quat_to_matrix(self.quat)

    def as_mrp(self):
        """Modified Rodrigues Parameters."""
        return _quat_to_mrp(self.quat)

    def as_rotvec(self, degrees: bool = False):
        return _quat_to_rotvec(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False):
        """The quaternions; ``canonical`` picks the sign with w >= 0 (ties
        broken by x, y, z), ``scalar_first`` puts w first."""
        quat = _canonical(self.quat) if canonical else self.quat
        return jnp.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self):
        return Rotation(_conjugate(self.quat))

    def magnitude(self):
        """Rotation angle(s) in radians, in [0, pi]."""
        return _angle(self.quat)

    def mean(self, weights=None):
        """The (weighted) chordal L2 mean: the top eigenvector of the weighted
        quaternion scatter matrix."""
        dtype = self.quat.dtype
        w = (jnp.ones(self.quat.shape[0], dtype=dtype) if weights is None
             else jnp.asarray(weights, dtype=dtype))
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError("Expected `weights` to have number of values equal to number of "
                             f"rotations, got {w.shape[0]} values and {len(self)} rotations.")
        scatter = jnp.dot(w[None, :] * self.quat.T, self.quat)
        return Rotation(jnp_linalg.eigh(scatter)[1][:, -1])

    @property
    def single(self) -> bool:
        """True when this holds one rotation rather than a stack."""
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation between key rotations at key times;
    build with ``Slerp.init(times, rotations)``, call with times."""
    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations: Rotation):
        """Store each interval's start rotation and the rotation vector
        carrying it to the next key."""
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError("Expected times to be specified in a 1 dimensional array, got "
                             f"{times.ndim} dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError("Expected number of rotations to be equal to number of timestamps "
                             f"given, got {len(rotations)} rotations and {times.shape[0]} "
                             "timestamps.")
        starts = Rotation(rotations.as_quat()[:-1])
        ends = Rotation(rotations.as_quat()[1:])
        return cls(times=times, timedelta=jnp.diff(times), rotations=starts,
                   rotvecs=(starts.inv() * ends).as_rotvec())

    def __call__(self, times):
        """The interpolated rotation(s) at ``times`` (a scalar or 1-D)."""
        t = jnp.asarray(times, dtype=self.times.dtype)
        if t.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        scalar = t.ndim == 0
        t = jnp.atleast_1d(t)
        ind = jnp.maximum(jnp.searchsorted(self.times, t) - 1, 0)
        frac = (t - self.times[ind]) / self.timedelta[ind]
        out = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * frac[:, None])
        return out[0] if scalar else out


@partial(jnp.vectorize, signature="(m,m),(m),()->(m)")
def _apply(matrix, vector, inverse):
    return jnp.where(inverse, matrix.T, matrix) @ vector


@partial(jnp.vectorize, signature="(m)->(n,n)")
def _quat_to_matrix(quat):
    x, y, z, w = quat[0], quat[1], quat[2], quat[3]
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    return jnp.array([[+ x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
                      [2 * (xy + zw), - x2 + y2 - z2 + w2, 2 * (yz - xw)],
                      [2 * (xz - yw), 2 * (yz + xw), - x2 - y2 + z2 + w2]])


@partial(jnp.vectorize, signature="(m)->(n)")
def _quat_to_mrp(quat):
    sign = jnp.where(quat[3] < 0, -1., 1.)
    return sign * quat[:3] / (1. + sign * quat[3])


@partial(jnp.vectorize, signature="(m),()->(n)")
def _quat_to_rotvec(quat, degrees):
    quat = jnp.where(quat[3] < 0, -quat, quat)  # w >= 0 keeps the angle in [0, pi]
    angle = 2. * jnp.arctan2(_norm(quat[:3]), quat[3])
    angle2 = angle * angle
    # angle / sin(angle / 2) by its series near zero, where the ratio is 0/0
    series = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880
    scale = jnp.where(angle <= 1e-3, series, angle / jnp.sin(angle / 2))
    scale = jnp.where(degrees, jnp.rad2deg(scale), scale)
    return scale * jnp.array(quat[:3])


@partial(jnp.vectorize, signature="(n),(n)->(n)")
def _compose(p, q):
    cross = jnp.cross(p[:3], q[:3])
    return jnp.array([p[3] * q[0] + q[3] * p[0] + cross[0],
                      p[3] * q[1] + q[3] * p[1] + cross[1],
                      p[3] * q[2] + q[3] * p[2] + cross[2],
                      p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2]])


@partial(jnp.vectorize, signature="(m),(l),(),()->(n)")
def _quat_to_euler(quat, axes, extrinsic, degrees):
    """Bernardes & Viollet's direct quaternion-to-Euler method (SciPy's),
    with the gimbal-lock cases (middle angle 0 or pi) chosen by ``where``."""
    first = jnp.where(extrinsic, 0, 2)
    third = jnp.where(extrinsic, 2, 0)
    axes = jnp.where(extrinsic, axes, axes[::-1])
    i, j, k = axes[0], axes[1], axes[2]
    symmetric = i == k
    k = jnp.where(symmetric, 3 - i - j, k)
    sign = jnp.array((i - j) * (j - k) * (k - i) // 2, dtype=quat.dtype)
    eps = 1e-7
    a = jnp.where(symmetric, quat[3], quat[3] - quat[j])
    b = jnp.where(symmetric, quat[i], quat[i] + quat[k] * sign)
    c = jnp.where(symmetric, quat[j], quat[j] + quat[3])
    d = jnp.where(symmetric, quat[k] * sign, quat[k] * sign - quat[i])

    angles = jnp.empty(3, dtype=quat.dtype)
    angles = angles.at[1].set(2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b)))
    case = jnp.where(jnp.abs(angles[1] - np.pi) <= eps, 2, 0)
    case = jnp.where(jnp.abs(angles[1]) <= eps, 1, case)
    half_sum = jnp.arctan2(b, a)
    half_diff = jnp.arctan2(d, c)
    # degenerate cases put the whole angle into the first slot
    angles = angles.at[0].set(jnp.where(case == 1, 2 * half_sum,
                                        2 * half_diff * jnp.where(extrinsic, -1, 1)))
    angles = angles.at[first].set(jnp.where(case == 0, half_sum - half_diff, angles[first]))
    angles = angles.at[third].set(jnp.where(case == 0, half_sum + half_diff, angles[third]))
    angles = angles.at[third].set(jnp.where(symmetric, angles[third], angles[third] * sign))
    angles = angles.at[1].set(jnp.where(symmetric, angles[1], angles[1] - np.pi / 2))
    angles = (angles + np.pi) % (2 * np.pi) - np.pi
    return jnp.where(degrees, jnp.rad2deg(angles), angles)


def _basis_index(axis: str) -> int:
    if axis not in ("x", "y", "z"):
        raise ValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}")
    return "xyz".index(axis)


@partial(jnp.vectorize, signature="(m),(m),(),()->(n)")
def _euler_to_quat(angles, axes, intrinsic, degrees):
    """Compose the elementary rotations: on the right for intrinsic axes, on
    the left for extrinsic ones."""
    angles = jnp.where(degrees, jnp.deg2rad(angles), angles)
    out = _elementary(axes[0], angles[0])
    for n in range(1, len(axes)):
        q = _elementary(axes[n], angles[n])
        out = jnp.where(intrinsic, _compose(out, q), _compose(q, out))
    return out


@partial(jnp.vectorize, signature="(m),()->(n)")
def _rotvec_to_quat(rotvec, degrees):
    rotvec = jnp.where(degrees, jnp.deg2rad(rotvec), rotvec)
    angle = _norm(rotvec)
    angle2 = angle * angle
    # sin(angle / 2) / angle by its series near zero
    series = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
    scale = jnp.where(angle <= 1e-3, series, jnp.sin(angle / 2) / angle)
    return jnp.hstack([scale * rotvec, jnp.cos(angle / 2)])


@partial(jnp.vectorize, signature="(m,m)->(n)")
def _matrix_to_quat(matrix):
    """Shepperd's method: build from the largest of the diagonal and the
    trace, for stability."""
    trace = matrix[0, 0] + matrix[1, 1] + matrix[2, 2]
    decision = jnp.array([matrix[0, 0], matrix[1, 1], matrix[2, 2], trace], dtype=matrix.dtype)
    choice = jnp.argmax(decision)
    i = choice
    j = (i + 1) % 3
    k = (j + 1) % 3
    from_diag = jnp.empty(4, dtype=matrix.dtype)
    from_diag = from_diag.at[i].set(1 - decision[3] + 2 * matrix[i, i])
    from_diag = from_diag.at[j].set(matrix[j, i] + matrix[i, j])
    from_diag = from_diag.at[k].set(matrix[k, i] + matrix[i, k])
    from_diag = from_diag.at[3].set(matrix[k, j] - matrix[j, k])
    from_trace = jnp.empty(4, dtype=matrix.dtype)
    from_trace = from_trace.at[0].set(matrix[2, 1] - matrix[1, 2])
    from_trace = from_trace.at[1].set(matrix[0, 2] - matrix[2, 0])
    from_trace = from_trace.at[2].set(matrix[1, 0] - matrix[0, 1])
    from_trace = from_trace.at[3].set(1 + decision[3])
    return _normalize(jnp.where(choice != 3, from_diag, from_trace))


@partial(jnp.vectorize, signature="(m)->(n)")
def _mrp_to_quat(mrp):
    norm2_plus_1 = jnp.dot(mrp, mrp) + 1
    return jnp.hstack([2 * mrp[:3], (2 - norm2_plus_1)]) / norm2_plus_1


@partial(jnp.vectorize, signature="(n)->(n)")
def _conjugate(quat):
    return quat * jnp.array([-1, -1, -1, 1], dtype=quat.dtype)


@partial(jnp.vectorize, signature="(n)->()")
def _angle(quat):
    return 2. * jnp.arctan2(_norm(quat[:3]), jnp.abs(quat[3]))


@partial(jnp.vectorize, signature="(),()->(n)")
def _elementary(axis, angle):
    quat = jnp.zeros(4, dtype=angle.dtype)
    quat = quat.at[3].set(jnp.cos(angle / 2.))
    return quat.at[axis].set(jnp.sin(angle / 2.))


@partial(jnp.vectorize, signature="(n)->(n)")
def _normalize(quat):
    return quat / _norm(quat)


@partial(jnp.vectorize, signature="(n)->()")
def _norm(vector):
    return jnp.sqrt(jnp.dot(vector, vector))


@partial(jnp.vectorize, signature="(n)->(n)")
def _canonical(quat):
    neg, zero = quat < 0, quat == 0
    flip = (neg[3] | (zero[3] & neg[0]) | (zero[3] & zero[0] & neg[1])
            | (zero[3] & zero[0] & zero[1] & neg[2]))
    return jnp.where(flip, -quat, quat)
