"""NumPy breadth of xjit.numpy: creation, shape, padding, splitting,
insertion, elementwise and NaN-aware functions. Values against NumPy, and
reprs/dtypes/weak types/error messages against stored JAX 0.10.2 outputs;
printed jaxprs byte-identical to JAX's where stored."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import tree_util

TRIL_JAXPR = """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = jit[
      name=tril
      jaxpr={ lambda ; a:f32[2,3]. let
          c:i32[2,3] = iota[dimension=0 dtype=int32 shape=(2, 3) sharding=None] 
          d:i32[2,3] = add c 0:i32[]
          e:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) sharding=None] 
          f:bool[2,3] = ge d e
          g:f32[2,3] = broadcast_in_dim 0.0:f32[]
          b:f32[2,3] = select_n f g a
        in (b,) }
    ] a
  in (b,) }"""
SPLIT_JAXPR = """\
{ lambda ; a:f32[5]. let
    b:f32[1] c:f32[1] d:f32[3] = split[
      axis=0
      sizes=(np.int64(1), np.int64(1), np.int64(3))
    ] a
  in (b, c, d) }"""
TILE_JAXPR = """\
{ lambda ; a:f32[2,3]. let
    b:f32[1,2,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)] a
    c:f32[2,2,6] = tile[reps=(2, 1, 2)] b
  in (c,) }"""
ROLL_JAXPR = """\
{ lambda ; a:f32[2,3]. let
    b:f32[6] = reshape[dimensions=None new_sizes=(6,) sharding=None] a
    c:f32[6] = jit[
      name=_roll_static
      jaxpr={ lambda ; b:f32[6]. let
          d:f32[1] = slice[limit_indices=(6,) start_indices=(5,) strides=(1,)] b
          e:f32[5] = slice[limit_indices=(5,) start_indices=(0,) strides=(1,)] b
          c:f32[6] = concatenate[dimension=0] d e
        in (c,) }
    ] b
    f:f32[2,3] = reshape[dimensions=None new_sizes=(2, 3) sharding=None] c
  in (f,) }"""
REPEAT_JAXPR = """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3,2] = broadcast_in_dim[broadcast_dimensions=(0, 1)] a
    c:f32[2,6] = reshape[dimensions=None new_sizes=(2, 6) sharding=None] b
  in (c,) }"""
FLIP_JAXPR = """\
{ lambda ; a:f32[3]. let
    b:f32[3] = jit[
      name=_flip
      jaxpr={ lambda ; a:f32[3]. let b:f32[3] = rev[dimensions=(0,)] a in (b,) }
    ] a
  in (b,) }"""

def _check(got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)


X = np.arange(12.0, dtype=np.float32).reshape(3, 4)
V = np.arange(1, 6, dtype=np.float32)


@pytest.mark.parametrize("name,fn,ref", [
    ("logspace", lambda M: M.logspace(0, 2, 5), lambda: np.logspace(0, 2, 5)),
    ("geomspace", lambda M: M.geomspace(1, 1000, 4), lambda: np.geomspace(1, 1000, 4)),
    ("geomspace-", lambda M: M.geomspace(-1, -1000, 4), lambda: np.geomspace(-1, -1000, 4)),
    ("tri", lambda M: M.tri(3, 4, 1), lambda: np.tri(3, 4, 1)),
    ("tril", lambda M: M.tril(X, -1), lambda: np.tril(X, -1)),
    ("triu", lambda M: M.triu(X, 1), lambda: np.triu(X, 1)),
    ("diag1", lambda M: M.diag(V, -2), lambda: np.diag(V, -2)),
    ("diag1+", lambda M: M.diag(V, 1), lambda: np.diag(V, 1)),
    ("diag2", lambda M: M.diag(X, 1), lambda: np.diag(X, 1)),
    ("diag2-", lambda M: M.diag(X, -2), lambda: np.diag(X, -2)),
    ("diagonal", lambda M: M.diagonal(np.arange(24.0).reshape(2, 3, 4), 1, 1, 2),
     lambda: np.diagonal(np.arange(24.0).reshape(2, 3, 4), 1, 1, 2)),
    ("trace", lambda M: M.trace(X, 1), lambda: np.trace(X, 1)),
    ("tile", lambda M: M.tile(X, (2, 1, 2)), lambda: np.tile(X, (2, 1, 2))),
    ("tile1", lambda M: M.tile(V, 2), lambda: np.tile(V, 2)),
    ("repeat", lambda M: M.repeat(X, 2, axis=1), lambda: np.repeat(X, 2, axis=1)),
    ("repeat list", lambda M: M.repeat(X, [1, 0, 2], axis=0),
     lambda: np.repeat(X, [1, 0, 2], axis=0)),
    ("repeat flat", lambda M: M.repeat(X, 2), lambda: np.repeat(X, 2)),
    ("flip", lambda M: M.flip(X), lambda: np.flip(X)),
    ("flip1", lambda M: M.flip(X, 1), lambda: np.flip(X, 1)),
    ("fliplr", lambda M: M.fliplr(X), lambda: np.fliplr(X)),
    ("flipud", lambda M: M.flipud(X), lambda: np.flipud(X)),
    ("roll", lambda M: M.roll(X, 5), lambda: np.roll(X, 5)),
    ("roll2", lambda M: M.roll(X, (1, -1), (0, 1)), lambda: np.roll(X, (1, -1), (0, 1))),
    ("roll3", lambda M: M.roll(X, -7, 1), lambda: np.roll(X, -7, 1)),
    ("rot90", lambda M: M.rot90(X), lambda: np.rot90(X)),
    ("rot90-1", lambda M: M.rot90(X, -1), lambda: np.rot90(X, -1)),
    ("rot90 2", lambda M: M.rot90(X, 2), lambda: np.rot90(X, 2)),
    ("rot90 axes", lambda M: M.rot90(np.arange(24).reshape(2, 3, 4), 1, (2, 0)),
     lambda: np.rot90(np.arange(24).reshape(2, 3, 4), 1, (2, 0))),
    ("column_stack", lambda M: M.column_stack([V, V]), lambda: np.column_stack([V, V])),
    ("dstack", lambda M: M.dstack([X, X]), lambda: np.dstack([X, X])),
    ("append", lambda M: M.append(X, V), lambda: np.append(X, V)),
    ("append ax", lambda M: M.append(X, X, axis=0), lambda: np.append(X, X, axis=0)),
    ("delete", lambda M: M.delete(V, np.array([0, 2])), lambda: np.delete(V, [0, 2])),
    ("delete ax", lambda M: M.delete(X, 1, axis=1), lambda: np.delete(X, 1, axis=1)),
    ("delete slice", lambda M: M.delete(V, slice(1, 4, 2)), lambda: np.delete(V, slice(1, 4, 2))),
    ("insert", lambda M: M.insert(V, 1, 9.0), lambda: np.insert(V, 1, 9.0)),
    ("insert many", lambda M: M.insert(V, np.array([1, 1, 5]), np.array([7, 8, 9.0])),
     lambda: np.insert(V, [1, 1, 5], [7, 8, 9.0])),
    ("insert ax", lambda M: M.insert(X, 2, np.array([7, 8, 9.0]), axis=1),
     lambda: np.insert(X, 2, [7, 8, 9.0], axis=1)),
    ("copy", lambda M: M.copy(X), lambda: X),
])
def test_creation_and_shape(name, fn, ref):
    _check(fn(jnp), ref())


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("pw", [1, (2, 3), ((1, 5), (7, 2))])
def test_pad(mode, pw):
    kw = {"constant_values": 7} if mode == "constant" else {}
    _check(jnp.pad(X, pw, mode, **kw), np.pad(X, pw, mode, **kw))


def test_pad_small_and_errors():
    _check(jnp.pad(np.ones(1), 3, "reflect"), np.pad(np.ones(1), 3, "reflect"))
    _check(jnp.pad(X, ((1, 2), (0, 1)), constant_values=((1, 2), (3, 4))),
           np.pad(X, ((1, 2), (0, 1)), constant_values=((1, 2), (3, 4))))
    with pytest.raises(ValueError, match="index can't contain negative values"):
        jnp.pad(X, -1)
    with pytest.raises(NotImplementedError, match="linear_ramp"):
        jnp.pad(X, 1, "linear_ramp")


def test_meshgrid():
    for ind in ("xy", "ij"):
        for sparse in (False, True):
            got = jnp.meshgrid(V[:3], V, np.arange(2.0), indexing=ind, sparse=sparse)
            want = np.meshgrid(V[:3], V, np.arange(2.0), indexing=ind, sparse=sparse)
            for g, w in zip(got, want):
                _check(g, w)


def test_split_family():
    for got, want in zip(jnp.split(V, [1, 3]), np.split(V, [1, 3])):
        _check(got, want)
    for got, want in zip(jnp.array_split(np.arange(7), 3), np.array_split(np.arange(7), 3)):
        _check(got, want)
    for got, want in zip(jnp.hsplit(X, 2), np.hsplit(X, 2)):
        _check(got, want)
    for got, want in zip(jnp.vsplit(X, 3), np.vsplit(X, 3)):
        _check(got, want)
    with pytest.raises(ValueError) as e:
        jnp.split(jnp.ones(3), 2)
    assert str(e.value) == "array split does not result in an equal division: rest is 1"


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(mode):
    for a, b in ((np.arange(5.0), np.arange(4.0)), (np.arange(3.0), np.arange(6.0) + 1),
                 (np.array([1, 2j, 3]), np.array([1, 1j]))):
        _check(jnp.convolve(a, b, mode), np.convolve(a, b, mode))
        _check(jnp.correlate(a, b, mode), np.correlate(a, b, mode))


def test_convolve_messages_and_dtypes():
    assert repr(jnp.convolve(jnp.array([1, 2, 3]), jnp.array([0, 1]))) == \
        "Array([0., 1., 2., 3.], dtype=float32)"
    with pytest.raises(ValueError) as e:
        jnp.convolve(jnp.ones((2, 2)), jnp.ones(3))
    assert str(e.value) == "convolve() only support 1-dimensional inputs."
    with pytest.raises(ValueError) as e:
        jnp.convolve(jnp.ones(0), jnp.ones(3))
    assert str(e.value) == "convolve: inputs cannot be empty, got shapes (0,) and (3,)."
    with pytest.raises(ValueError) as e:
        jnp.convolve(jnp.ones(3), jnp.ones(3), mode="foo")
    assert str(e.value) == "mode must be one of ['full', 'same', 'valid']"


@pytest.mark.parametrize("fn,expected", [
    (lambda: xjit.make_jaxpr(lambda x: jnp.tril(x))(jnp.ones((2, 3))), TRIL_JAXPR),
    (lambda: xjit.make_jaxpr(lambda x: jnp.split(x, [1, 2]))(jnp.ones(5)), SPLIT_JAXPR),
    (lambda: xjit.make_jaxpr(lambda x: jnp.tile(x, (2, 1, 2)))(jnp.ones((2, 3))), TILE_JAXPR),
    (lambda: xjit.make_jaxpr(lambda x: jnp.roll(x, 1))(jnp.ones((2, 3))), ROLL_JAXPR),
    (lambda: xjit.make_jaxpr(lambda x: jnp.repeat(x, 2, axis=1))(jnp.ones((2, 3))), REPEAT_JAXPR),
    (lambda: xjit.make_jaxpr(lambda x: jnp.flip(x))(jnp.ones(3)), FLIP_JAXPR),
])
def test_jaxprs_match_jax(fn, expected):
    assert str(fn()) == expected


v = jnp.array([-1.5, 0., 2., jnp.nan, jnp.inf])
i = jnp.array([12, 18, -4])
j = jnp.array([8, 27, 6])


def _show(r):
    """(repr, weak_type) per leaf: the form the JAX outputs were stored in."""
    return tree_util.tree_map(lambda r: (repr(r), getattr(r, "weak_type", None)), r)


# (name, call, the JAX 0.10.2 result as (repr, weak_type) per leaf, or its error)
ORACLE = [
    ('hypot', lambda: jnp.hypot(i, j), "('Array([14.422205 , 32.449963 ,  7.2111025], dtype=float32)', False)"),
    ('hypot3', lambda: jnp.hypot(3, 4), "('Array(5., dtype=float32, weak_type=True)', True)"),
    ('gcd', lambda: jnp.gcd(i, j), "('Array([4, 9, 2], dtype=int32)', False)"),
    ('lcm', lambda: jnp.lcm(i, j), "('Array([24, 54, 12], dtype=int32)', False)"),
    ('gcdf', lambda: jnp.gcd(1.,2.), 'ERR ValueError Arguments to jax.numpy.gcd must be integers.'),
    ('ldexp', lambda: jnp.ldexp(v, 2), "('Array([-6.,  0.,  8., nan, inf], dtype=float32)', False)"),
    ('ldexpi', lambda: jnp.ldexp(i, 2), "('Array([ 48.,  72., -16.], dtype=float32)', False)"),
    ('frexp', lambda: jnp.frexp(v), "(('Array([-0.75,  0.  ,  0.5 ,   nan,   inf], dtype=float32)', False), ('Array([1, 0, 2, 0, 0], dtype=int32)', False))"),
    ('frexpi', lambda: jnp.frexp(i), "(('Array([ 0.75  ,  0.5625, -0.5   ], dtype=float32)', False), ('Array([4, 5, 3], dtype=int32)', False))"),
    ('isclose', lambda: jnp.isclose(v, v), "('Array([ True,  True,  True, False,  True], dtype=bool)', False)"),
    ('iscloseN', lambda: jnp.isclose(v, v, equal_nan=True), "('Array([ True,  True,  True,  True,  True], dtype=bool)', False)"),
    ('isclosei', lambda: jnp.isclose(i, j), "('Array([False, False, False], dtype=bool)', False)"),
    ('allclose', lambda: jnp.allclose(v, v), "('Array(False, dtype=bool)', False)"),
    ('array_equal', lambda: jnp.array_equal(v, v), "('Array(False, dtype=bool)', False)"),
    ('array_equalN', lambda: jnp.array_equal(v, v, equal_nan=True), "('Array(True, dtype=bool)', False)"),
    ('array_equalS', lambda: jnp.array_equal(v, i), "('Array(False, dtype=bool)', False)"),
    ('average', lambda: jnp.average(i), "('Array(8.666667, dtype=float32)', False)"),
    ('averagew', lambda: jnp.average(i, weights=j, returned=True), "(('Array(13.609756, dtype=float32)', False), ('Array(41., dtype=float32)', False))"),
    ('diff', lambda: jnp.diff(i), "('Array([  6, -22], dtype=int32)', False)"),
    ('diff2', lambda: jnp.diff(i, n=2, prepend=1), "('Array([ -5, -28], dtype=int32)', False)"),
    ('ediff1d', lambda: jnp.ediff1d(i, to_begin=5), "('Array([  5,   6, -22], dtype=int32)', False)"),
    ('cross', lambda: jnp.cross(jnp.array([1,2,3]), jnp.array([4.,5,6])), "('Array([-3.,  6., -3.], dtype=float32)', False)"),
    ('cross2', lambda: jnp.cross(jnp.array([1,2]), jnp.array([4,5])), "('Array(-3, dtype=int32)', False)"),
    ('kron', lambda: jnp.kron(jnp.eye(2), jnp.array([[1,2],[3,4]])), "('Array([[1., 2., 0., 0.],\\n       [3., 4., 0., 0.],\\n       [0., 0., 1., 2.],\\n       [0., 0., 3., 4.]], dtype=float32)', False)"),
    ('polyval', lambda: jnp.polyval(jnp.array([1,2,3]), jnp.array([1.,2.])), "('Array([ 6., 11.], dtype=float32)', False)"),
    ('polyvali', lambda: jnp.polyval(jnp.array([1,2,3]), 2), "('Array(11, dtype=int32)', False)"),
    ('trapezoid', lambda: jnp.trapezoid(i), "('Array(22., dtype=float32)', False)"),
    ('trapezoidx', lambda: jnp.trapezoid(j, x=i), "('Array(-258., dtype=float32)', False)"),
    ('select', lambda: jnp.select([i>0, j>10], [i, j], 7), "('Array([12, 18,  7], dtype=int32)', False)"),
    ('piecewise', lambda: jnp.piecewise(v, [v<0, v>0], [lambda x: -x, 1.0, 3.]), "('Array([1.5, 3. , 1. , 3. , 1. ], dtype=float32)', False)"),
    ('nan_to_num', lambda: jnp.nan_to_num(v), "('Array([-1.5000000e+00,  0.0000000e+00,  2.0000000e+00,  0.0000000e+00,\\n        3.4028235e+38], dtype=float32)', False)"),
    ('nan_to_numi', lambda: jnp.nan_to_num(i), "('Array([12, 18, -4], dtype=int32)', False)"),
    ('nan_to_num2', lambda: jnp.nan_to_num(v, nan=1, posinf=2), "('Array([-1.5,  0. ,  2. ,  1. ,  2. ], dtype=float32)', False)"),
    ('nansum', lambda: jnp.nansum(v), "('Array(inf, dtype=float32)', False)"),
    ('nanmean', lambda: jnp.nanmean(v), "('Array(inf, dtype=float32)', False)"),
    ('nanmeani', lambda: jnp.nanmean(i), "('Array(8.666667, dtype=float32)', False)"),
    ('nanmax', lambda: jnp.nanmax(v), "('Array(inf, dtype=float32)', False)"),
    ('nanmin', lambda: jnp.nanmin(v), "('Array(-1.5, dtype=float32)', False)"),
    ('nanprod', lambda: jnp.nanprod(v), "('Array(nan, dtype=float32)', False)"),
    ('nanvar', lambda: jnp.nanvar(v), "('Array(nan, dtype=float32)', False)"),
    ('nanstd', lambda: jnp.nanstd(v), "('Array(nan, dtype=float32)', False)"),
    ('nanargmax', lambda: jnp.nanargmax(v), "('Array(4, dtype=int32)', False)"),
    ('nanmaxall', lambda: jnp.nanmax(jnp.array([jnp.nan])), "('Array(nan, dtype=float32)', False)"),
    ('sinc', lambda: jnp.sinc(v), "('Array([-2.1220659e-01,  1.0000000e+00,  2.7827534e-08,            nan,\\n                  nan], dtype=float32)', False)"),
    ('sinci', lambda: jnp.sinc(i), "('Array([2.5305382e-09, 2.5305382e-09, 2.7827534e-08], dtype=float32)', False)"),
    ('deg2rad', lambda: jnp.deg2rad(i), "('Array([ 0.20943952,  0.31415927, -0.06981317], dtype=float32)', False)"),
    ('heaviside', lambda: jnp.heaviside(v, 0.5), "('Array([0. , 0.5, 1. , nan, 1. ], dtype=float32)', False)"),
    ('heavisidei', lambda: jnp.heaviside(i, 1), "('Array([1., 1., 0.], dtype=float32)', False)"),
    ('copysign', lambda: jnp.copysign(i, -1), "('Array([-12., -18.,  -4.], dtype=float32)', False)"),
    ('signbit', lambda: jnp.signbit(jnp.array([-0., 0., -1, jnp.nan])), "('Array([ True, False,  True, False], dtype=bool)', False)"),
    ('signbiti', lambda: jnp.signbit(i), "('Array([False, False,  True], dtype=bool)', False)"),
    ('fmin', lambda: jnp.fmin(v, jnp.nan), "('Array([-1.5,  0. ,  2. ,  nan,  inf], dtype=float32)', False)"),
    ('fmax', lambda: jnp.fmax(v, 1), "('Array([ 1.,  1.,  2.,  1., inf], dtype=float32)', False)"),
    ('logaddexpi', lambda: jnp.logaddexp(i, j), "('Array([12.01815  , 27.000124 ,  6.0000453], dtype=float32)', False)"),
    ('interp', lambda: jnp.interp(jnp.array([-1., 0.5, 1.5, 5]), jnp.array([0., 1, 2]), jnp.array([3., 5, 4])), "('Array([3. , 4. , 4.5, 4. ], dtype=float32)', False)"),
    ('interpi', lambda: jnp.interp(jnp.array([-1., 0.5, 1.5, 5]), jnp.array([0., 1, 2]), jnp.array([3., 5, 4]), left=0, right=-1), "('Array([ 0. ,  4. ,  4.5, -1. ], dtype=float32)', False)"),
    ('degrees', lambda: jnp.degrees(1), "('Array(57.29578, dtype=float32, weak_type=True)', True)"),
    ('radians', lambda: jnp.radians(180), "('Array(3.1415927, dtype=float32, weak_type=True)', True)"),
    ('array_equiv', lambda: jnp.array_equiv(jnp.ones(3), jnp.ones((2,3))), "('Array(True, dtype=bool)', False)"),
    ('vander', lambda: jnp.vander(jnp.array([1,2,3])), "('Array([[1, 1, 1],\\n       [4, 2, 1],\\n       [9, 3, 1]], dtype=int32)', False)"),
    ('ptp', lambda: jnp.ptp(i), "('Array(22, dtype=int32)', False)"),
    ('logaddexpw', lambda: jnp.logaddexp(1., 2.), "('Array(2.3132617, dtype=float32, weak_type=True)', True)"),
    ('hypotw', lambda: jnp.hypot(1., 2.), "('Array(2.236068, dtype=float32, weak_type=True)', True)"),
    ('sincw', lambda: jnp.sinc(1.), "('Array(-2.7827534e-08, dtype=float32, weak_type=True)', True)"),
    ('nanmeanw', lambda: jnp.nanmean(2.), "('Array(2., dtype=float32)', False)"),]


@pytest.mark.parametrize("name,call,expected", ORACLE, ids=[r[0] for r in ORACLE])
def test_matches_jax(name, call, expected):
    try:
        got = str(_show(call()))
    except Exception as e:  # noqa: BLE001 - the error is the expected output
        got = f"ERR {type(e).__name__} {e}"
    assert got == expected


def test_logaddexp_and_rad2deg_values():
    # JAX 0.10.2's values (logaddexp2 agrees to the last ulp)
    _check(jnp.logaddexp(v, 1.0), np.array([1.0788897, 1.3132617, 2.3132617, np.nan, np.inf],
                                           np.float32))
    np.testing.assert_allclose(jnp.logaddexp2(v, 1.0), [1.2348405, 1.5849625, 2.5849624, np.nan,
                                                        np.inf], rtol=1e-6)
    _check(jnp.rad2deg(v), np.array([-85.94367, 0.0, 114.59156, np.nan, np.inf], np.float32))


def test_gcd_lcm_wide_range():
    a = np.array([0, 7, 2 ** 30, -48, 1836311903], np.int32)
    b = np.array([5, 0, 3 * 2 ** 20, 18, 1134903170], np.int32)
    _check(jnp.gcd(a, b), np.gcd(a, b))
    _check(jnp.lcm(a[[0, 1, 3]], b[[0, 1, 3]]), np.lcm(a[[0, 1, 3]], b[[0, 1, 3]]))


def test_frexp_ldexp_roundtrip():
    x = np.array([0.0, 1.0, -3.5, 1e-30, 3e38, 0.75, np.inf, -np.inf], np.float32)
    m, e = jnp.frexp(x)
    mn, en = np.frexp(x)
    _check(m, mn)
    _check(e, en)
    _check(jnp.ldexp(m, e), x)
    _check(jnp.ldexp(np.float32(1e-30), 200), np.ldexp(np.float32(1e-30), 200))


def test_histogram_and_interp():
    data = np.array([1.0, 2, 2, 3, 7])
    counts, edges = jnp.histogram(data, bins=3)
    cn, en = np.histogram(data, bins=3)
    _check(counts, cn)
    np.testing.assert_allclose(edges, en, rtol=1e-6)
    w = np.array([1.0, 0.5, 2, 1, 1])
    _check(jnp.histogram(data, bins=4, range=(0, 8), weights=w)[0],
           np.histogram(data, bins=4, range=(0, 8), weights=w)[0])
    np.testing.assert_allclose(jnp.histogram(data, bins=3, density=True)[0],
                               np.histogram(data, bins=3, density=True)[0], rtol=1e-6)
    xs = np.linspace(-1, 4, 11)
    _check(jnp.interp(xs, np.array([0.0, 1, 1, 3]), np.array([3.0, 5, 6, 4])),
           np.interp(xs, [0.0, 1, 1, 3], [3.0, 5, 6, 4]).astype(np.float32))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's, for all-NaN slices
def test_nan_reductions_against_numpy():
    a = np.array([[1.0, np.nan, 3], [np.nan, np.nan, 2], [4, 5, 6]], np.float32)
    for name in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"):
        for axis in (None, 0, 1):
            _check(getattr(jnp, name)(a, axis=axis), getattr(np, name)(a, axis=axis))
    _check(jnp.nanargmax(a, axis=1), np.nanargmax(a, axis=1))
    _check(jnp.nanargmin(a, axis=0), np.nanargmin(a, axis=0))
    _check(jnp.nanvar(a, axis=1, ddof=1), np.nanvar(a, axis=1, ddof=1))


# -- einsum

EINSUM_MATMUL_JAXPR = """\
{ lambda ; a:f32[3,4] b:f32[4,5]. let
    c:f32[3,5] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }"""

EINSUM_SWAPPED_JAXPR = """\
{ lambda ; a:f32[3,4] b:f32[3,4]. let
    c:f32[3,3] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      preferred_element_type=float32
    ] b a
  in (c,) }"""

EINSUM_DIAG_JAXPR = """\
{ lambda ; a:f32[3,3]. let
    b:u32[3,3] = iota[dimension=0 dtype=uint32 shape=(3, 3) sharding=None] 
    c:u32[3,3] = iota[dimension=1 dtype=uint32 shape=(3, 3) sharding=None] 
    d:bool[3,3] = eq b c
    e:f32[3,3] = broadcast_in_dim 0.0:f32[]
    f:f32[3,3] = select_n d e a
    g:f32[3] = reduce_sum[axes=(0,) out_sharding=None] f
  in (g,) }"""


def test_einsum_jaxprs():
    a, b = jnp.ones((3, 4)), jnp.ones((4, 5))
    assert str(xjit.make_jaxpr(lambda a, b: jnp.einsum("ij,jk->ik", a, b))(a, b)) == EINSUM_MATMUL_JAXPR
    assert str(xjit.make_jaxpr(lambda a, b: jnp.einsum("ij,kj->ki", a, b))(a, a)) == EINSUM_SWAPPED_JAXPR
    assert str(xjit.make_jaxpr(lambda a: jnp.einsum("ii->i", a))(jnp.ones((3, 3)))) == EINSUM_DIAG_JAXPR


_R = np.random.RandomState(1)
_A, _B, _C = (_R.randn(3, 4), _R.randn(4, 5), _R.randn(5, 3))
_S, _T, _U = (_R.randn(4, 4), _R.randn(2, 3, 4), _R.randn(2, 4, 5))


@pytest.mark.parametrize("spec,ops", [
    ("ij,jk->ik", (_A, _B)), ("ij,jk", (_A, _B)), ("ij,jk,ki->", (_A, _B, _C)), ("ii->i", (_S,)),
    ("ii", (_S,)), ("ij->ji", (_A,)), ("ij->", (_A,)), ("bij,bjk->bik", (_T, _U)),
    ("...ij,...jk->...ik", (_T, _U)), ("i,i", (_A[0], _A[0])), ("i,j->ij", (_A[0], _B[0])),
    ("ij,ij->ij", (_A, _A)), ("...j,jk", (_T, _B)), ("iij->j", (np.stack([_S] * 2, -1),)),
    ("abc->cab", (_T,)), ("bij,jk,bkl->bil", (_T, _B, _R.randn(2, 5, 2))),
    ("ij,j->i", (_A, np.ones(1))), ("i...,i...->...", (_T, _T)),
])
def test_einsum_values(spec, ops):
    ops = [o.astype(np.float32) for o in ops]
    got = jnp.einsum(spec, *ops)
    want = np.einsum(spec, *ops)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


def test_einsum_dtypes():
    i = np.arange(4).reshape(2, 2)
    assert jnp.einsum("ij,jk", i, i).dtype == np.int32
    out = jnp.einsum("i,i", np.ones(3, np.int8), np.ones(3, np.int8), preferred_element_type=np.int32)
    assert out.dtype == np.int32 and int(out) == 3


# -- order statistics

def test_quantiles_match_jax():
    x = jnp.array([[3.0, 1, 2, jnp.nan], [4, 1, 2, 8]])
    assert repr(jnp.median(x)) == "Array(nan, dtype=float32)"
    assert repr(jnp.median(x, axis=1)) == "Array([nan,  3.], dtype=float32)"
    assert repr(jnp.quantile(x[1], jnp.array([0.1, 0.5, 0.9]))) == \
        "Array([1.3     , 3.      , 6.799999], dtype=float32)"
    assert repr(jnp.percentile(x[1], 30, method="lower")) == "Array(1., dtype=float32)"
    assert repr(jnp.nanmedian(x, axis=1)) == "Array([2., 3.], dtype=float32)"
    assert repr(jnp.median(jnp.array([1, 2, 3, 4]))) == "Array(2.5, dtype=float32)"
    q = jnp.array([0.1, 0.3, 0.5, 0.62, 1.0])
    expected = {"linear": [0.4, 1.2, 2.0, 2.48, 4.0], "lower": [0, 1, 2, 2, 4],
                "higher": [1, 2, 2, 3, 4], "nearest": [0, 1, 2, 2, 4],
                "midpoint": [0.5, 1.5, 2.0, 2.5, 4.0]}
    for method, want in expected.items():
        np.testing.assert_allclose(jnp.quantile(jnp.arange(5.0), q, method=method), want,
                                   rtol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_quantiles_against_numpy():
    r = np.random.RandomState(0).randn(3, 4, 5)
    for ax in (None, 0, (0, 2), -1):
        for kd in (False, True):
            for q in (0.3, np.array([0.2, 0.75])):
                _check(jnp.quantile(r, q, axis=ax, keepdims=kd),
                       np.quantile(r, q, axis=ax, keepdims=kd).astype(np.float32))
    rn = r.copy()
    rn[0, 1, 2] = np.nan
    rn[1, :, 3] = np.nan
    for ax in (None, 1):
        for got, want in ((jnp.nanpercentile(rn, np.array([10, 50]), axis=ax),
                           np.nanpercentile(rn, [10, 50], axis=ax)),
                          (jnp.median(rn, axis=ax), np.median(rn, axis=ax)),
                          (jnp.nanmedian(rn, axis=ax), np.nanmedian(rn, axis=ax))):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("name", ["sum", "max", "amax", "amin", "prod", "argmax", "any", "all",
                                  "nansum", "cumsum", "quantile", "sin", "acos", "arctan2",
                                  "atan2", "abs", "divide", "mod", "pow", "conj", "degrees",
                                  "radians", "bitwise_not", "bitwise_left_shift", "fmax"])
def test_function_names_are_jaxs(name):
    # JAX 0.10.2: every jnp function (aliases too) has its own name as both
    # __name__ and __qualname__ (equinox names its jitted wrappers by it)
    f = getattr(jnp, name)
    assert f.__name__ == f.__qualname__ == name


def test_aliases_compute_as_their_originals():
    x = jnp.array([-1.5, 0.25, 2.0])
    for alias, orig in (("amax", "max"), ("acos", "arccos"), ("divide", "true_divide"),
                        ("pow", "power"), ("radians", "deg2rad"), ("abs", "absolute")):
        args = (x, x) if alias in ("divide", "pow") else (x,)
        np.testing.assert_array_equal(np.asarray(getattr(jnp, alias)(*args)),
                                      np.asarray(getattr(jnp, orig)(*args)))
    assert str(xjit.make_jaxpr(jnp.amax)(x)) == str(xjit.make_jaxpr(jnp.max)(x))


def test_piecewise_as_jax():
    """Conditions that are tracers (under jit, grad, vmap) work; condlist is
    never wrapped, as JAX's (NumPy wraps a list of scalars); the last true
    condition wins. Values recorded from JAX 0.10.2."""
    x = jnp.linspace(-2, 2, 5)

    def f(x):
        return jnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2])
    for fn in (f, xjit.jit(f)):
        np.testing.assert_array_equal(fn(x), [2., 1., 0., 1., 4.])
    np.testing.assert_array_equal(xjit.grad(lambda x: f(x).sum())(x), [-1., -1., 0., 2., 4.])
    g = lambda x: jnp.piecewise(x, [x < -1, (x >= -1) & (x < 1)], [0., lambda v: v * 3, 7.])  # noqa: E731
    np.testing.assert_array_equal(xjit.vmap(g)(x), [0., -3., 0., 7., 7.])
    np.testing.assert_array_equal(jnp.piecewise(x, [x > 0, x < 5], [1., 2., 3.]), [2.] * 5)
    y = jnp.linspace(-2, 2, 4)
    np.testing.assert_allclose(jnp.piecewise(y, jnp.array([True, False, False, True]),
                                             [1., 2., 3., 4.]), [4.] * 4)
    np.testing.assert_allclose(jnp.piecewise(y, [y > 0], [lambda v: v * 2, 5.]),
                               [5., 5., 1.3333335, 4.], rtol=1e-6)
    with pytest.raises(ValueError, match="with 4 condition"):
        jnp.piecewise(y, [True, False, True, False], [lambda v: v * 2, 5.])
    with pytest.raises(TypeError, match="object of type 'bool' has no len"):
        jnp.piecewise(y, True, [lambda v: v * 2, 5.])
    assert float(jnp.piecewise(jnp.float32(3.), [False, True], [1., 2.])) == 2.0
