"""Convolution, FFT and linear algebra: values against NumPy, printed jaxprs
and error messages as JAX 0.10.2 gives them (stored literals), gradients
against finite differences, vmap against per-example loops."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax

rng = np.random.RandomState(0)

CONVOLVE_JAXPR = """\
{ lambda ; a:i32[3] b:f32[10]. let
    c:f32[12] = jit[
      name=convolve
      jaxpr={ lambda ; a:i32[3] b:f32[10]. let
          c:f32[12] = jit[
            name=_conv
            jaxpr={ lambda ; a:i32[3] b:f32[10]. let
                d:f32[3] = convert_element_type[
                  new_dtype=float32
                  weak_type=False
                ] a
                e:f32[3] = jit[
                  name=_flip
                  jaxpr={ lambda ; d:f32[3]. let
                      e:f32[3] = rev[dimensions=(0,)] d
                    in (e,) }
                ] d
                f:f32[1,1,10] = broadcast_in_dim[broadcast_dimensions=(2,)] b
                g:f32[1,1,3] = broadcast_in_dim[broadcast_dimensions=(2,)] e
                h:f32[1,1,12] = conv_general_dilated[
                  batch_group_count=1
                  dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
                  feature_group_count=1
                  lhs_dilation=(1,)
                  out_sharding=None
                  padding=((2, 2),)
                  precision=None
                  preferred_element_type=None
                  rhs_dilation=(1,)
                  window_strides=(1,)
                ] f g
                c:f32[12] = squeeze[dimensions=(0, 1)] h
              in (c,) }
          ] a b
        in (c,) }
    ] a b
  in (c,) }"""
CONV_NHWC_JAXPR = """\
{ lambda ; a:f32[1,5,5,3] b:f32[3,3,3,4]. let
    c:f32[1,5,5,4] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
      feature_group_count=1
      lhs_dilation=(1, 1)
      out_sharding=None
      padding=((1, 1), (1, 1))
      precision=None
      preferred_element_type=None
      rhs_dilation=(1, 1)
      window_strides=(1, 1)
    ] a b
  in (c,) }"""
FFT_JAXPR = """\
{ lambda ; a:f32[8]. let
    b:c64[8] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[8]. let
          c:c64[8] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:c64[8] = fft[fft_lengths=(8,) fft_type=0] c
        in (b,) }
    ] a
  in (b,) }"""
FFT_N6_JAXPR = """\
{ lambda ; a:f32[8]. let
    b:f32[6] = slice[limit_indices=(6,) start_indices=(0,) strides=None] a
    c:f32[6] = jit[
      name=_pad
      jaxpr={ lambda ; b:f32[6] d:i32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          c:f32[6] = pad[padding_config=((np.int64(0), np.int64(0), 0),)] b e
        in (c,) }
    ] b 0:i32[]
    f:c64[6] = jit[
      name=fft
      jaxpr={ lambda ; c:f32[6]. let
          g:c64[6] = convert_element_type[new_dtype=complex64 weak_type=False] c
          f:c64[6] = fft[fft_lengths=(6,) fft_type=0] g
        in (f,) }
    ] c
  in (f,) }"""
CORRELATE_SAME_JAXPR = """\
{ lambda ; a:f32[3] b:f32[5]. let
    c:f32[5] = jit[
      name=correlate
      jaxpr={ lambda ; a:f32[3] b:f32[5]. let
          c:f32[5] = jit[
            name=_conv
            jaxpr={ lambda ; a:f32[3] b:f32[5]. let
                d:f32[1,1,5] = broadcast_in_dim[broadcast_dimensions=(2,)] b
                e:f32[1,1,3] = broadcast_in_dim[broadcast_dimensions=(2,)] a
                f:f32[1,1,5] = conv_general_dilated[
                  batch_group_count=1
                  dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
                  feature_group_count=1
                  lhs_dilation=(1,)
                  out_sharding=None
                  padding=((1, 1),)
                  precision=None
                  preferred_element_type=None
                  rhs_dilation=(1,)
                  window_strides=(1,)
                ] d e
                g:f32[1,1,5] = rev[dimensions=(2,)] f
                c:f32[5] = squeeze[dimensions=(0, 1)] g
              in (c,) }
          ] a b
        in (c,) }
    ] a b
  in (c,) }"""


def _conv_ref(lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups=1):
    """NCHW/OIHW convolution by explicit loops over output positions."""
    n, c, *sp = lhs.shape
    o, i, *ks = rhs.shape
    dil = np.zeros([n, c] + [(d - 1) * l + 1 for d, l in zip(sp, lhs_dil)], lhs.dtype)
    dil[(slice(None), slice(None)) + tuple(slice(None, None, l) for l in lhs_dil)] = lhs
    pad = np.zeros([n, c] + [d + lo + hi for d, (lo, hi) in zip(dil.shape[2:], padding)], lhs.dtype)
    crop = tuple(slice(max(lo, 0), max(lo, 0) + d - max(-lo, 0) - max(-hi, 0))
                 for d, (lo, hi) in zip(dil.shape[2:], padding))
    pad[(slice(None), slice(None)) + crop] = dil[(slice(None), slice(None)) + tuple(
        slice(max(-lo, 0), d - max(-hi, 0)) for d, (lo, hi) in zip(dil.shape[2:], padding))]
    keff = [(k - 1) * r + 1 for k, r in zip(ks, rhs_dil)]
    out_sp = [(p - k) // s + 1 for p, k, s in zip(pad.shape[2:], keff, strides)]
    out = np.zeros([n, o] + out_sp, np.result_type(lhs, rhs, np.float64))
    og = o // groups
    for idx in np.ndindex(*out_sp):
        win = pad[(slice(None), slice(None)) + tuple(
            slice(p * s, p * s + k, r) for p, s, k, r in zip(idx, strides, keff, rhs_dil))]
        for g in range(groups):
            w = win[:, g * i:(g + 1) * i]
            k = list(range(1, w.ndim))
            out[(slice(None), slice(g * og, (g + 1) * og)) + idx] = np.tensordot(
                w, rhs[g * og:(g + 1) * og], axes=(k, k))
    return out


def _num_grad(f, x, eps=1e-3):
    x = x.astype(np.float64)
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        g.flat[i] = (float(f(x + e)) - float(f(x - e))) / (2 * eps)
    return g


# -- the seed examples (thinking-in-jax)

def test_seed_convolve():
    x = jnp.array([1, 2, 1])
    y = jnp.ones(10)
    assert repr(jnp.convolve(x, y)) == (
        "Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], dtype=float32)")
    assert str(xjit.make_jaxpr(jnp.convolve)(x, y)) == CONVOLVE_JAXPR


def test_seed_conv_general_dilated():
    x = jnp.array([1, 2, 1])
    y = jnp.ones(10)
    result = lax.conv_general_dilated(
        x.reshape(1, 1, 3).astype(float), y.reshape(1, 1, 10), window_strides=(1,),
        padding=[(len(y) - 1, len(y) - 1)])
    assert repr(result[0, 0]) == (
        "Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], dtype=float32)")


# -- conv_general_dilated

def test_conv_jaxpr_nhwc_same():
    f = lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "SAME",
                                              dimension_numbers=("NHWC", "HWIO", "NHWC"))
    assert str(xjit.make_jaxpr(f)(jnp.ones((1, 5, 5, 3)), jnp.ones((3, 3, 3, 4)))) == CONV_NHWC_JAXPR


@pytest.mark.parametrize("strides,padding,ld,rd,groups", [
    ((1, 1), [(0, 0), (0, 0)], (1, 1), (1, 1), 1),
    ((2, 1), [(1, 2), (0, 1)], (1, 2), (2, 1), 1),
    ((1, 2), [(2, 0), (-1, 1)], (2, 1), (1, 1), 1),
    ((1, 1), [(1, 1), (1, 1)], (1, 1), (1, 2), 2),
])
def test_conv_values(strides, padding, ld, rd, groups):
    lhs = rng.randn(2, 4, 7, 6).astype(np.float32)
    rhs = rng.randn(6, 4 // groups, 3, 2).astype(np.float32)
    out = lax.conv_general_dilated(lhs, rhs, strides, padding, ld, rd, feature_group_count=groups)
    ref = _conv_ref(lhs, rhs, strides, padding, ld, rd, groups)
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-4, atol=1e-4)


def test_conv_layouts_and_padding_strings():
    lhs = rng.randn(1, 6, 5, 3).astype(np.float32)
    rhs = rng.randn(3, 2, 3, 4).astype(np.float32)
    for pad, pads in (("SAME", [(1, 1), (0, 1)]), ("SAME_LOWER", [(1, 1), (1, 0)]),
                      ("VALID", [(0, 0), (0, 0)])):
        out = lax.conv_general_dilated(lhs, rhs, (1, 1), pad,
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"))
        ref = _conv_ref(lhs.transpose(0, 3, 1, 2), rhs.transpose(3, 2, 0, 1), (1, 1), pads,
                        (1, 1), (1, 1))
        np.testing.assert_allclose(np.asarray(out), ref.transpose(0, 2, 3, 1), rtol=1e-4,
                                   atol=1e-4)
    assert lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC")) == \
        lax.ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    # JAX returns a list (equinox compares against one) of plain-int pairs
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 2), "SAME") == [(1, 1), (0, 0)]
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 2), "SAME_LOWER") == [(1, 1), (0, 0)]
    assert lax.padtype_to_pads((5, 6), (3, 2), (1, 1), "SAME_LOWER") == [(1, 1), (1, 0)]
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 2), "valid") == [(0, 0), (0, 0)]
    pads = lax.padtype_to_pads(np.array((5, 6)), np.array((3, 2)), np.array((2, 2)), "SAME")
    assert pads == [(1, 1), (0, 0)] and type(pads[0][0]) is int
    with pytest.raises(TypeError, match="Unknown padding type: 5."):
        lax.padtype_to_pads((5,), (3,), (1,), 5)
    with pytest.raises(RuntimeError, match="Unrecognized padding type"):
        lax.padtype_to_pads((5,), (3,), (1,), "x")


def test_conv_complex_int_and_preferred():
    a = (rng.randn(1, 2, 6) + 1j * rng.randn(1, 2, 6)).astype(np.complex64)
    b = (rng.randn(3, 2, 3) + 1j * rng.randn(3, 2, 3)).astype(np.complex64)
    out = lax.conv(a, b, (1,), "VALID")
    assert out.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(out), _conv_ref(a, b, (1,), [(0, 0)], (1,), (1,)),
                               rtol=1e-4, atol=1e-4)
    i = lax.conv(np.ones((1, 1, 4), np.int32), np.ones((1, 1, 2), np.int32), (1,), "VALID")
    assert i.dtype == np.int32 and i.tolist() == [[[2, 2, 2]]]
    f = lax.conv_general_dilated(np.ones((1, 1, 4), np.int8), np.ones((1, 1, 2), np.int8), (1,),
                                 "VALID", preferred_element_type=np.float32)
    assert f.dtype == np.float32 and f.tolist() == [[[2.0, 2.0, 2.0]]]


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: lax.conv_general_dilated(jnp.ones((1, 3, 5)), jnp.ones((2, 4, 3)), (1,), "VALID"),
     ValueError, "conv_general_dilated lhs feature dimension size divided by feature_group_count "
                 "must equal the rhs input feature dimension size, but 3 // 1 != 4."),
    (lambda: lax.conv_general_dilated(jnp.ones((1, 3, 5)), jnp.ones((2, 3, 3, 3)), (1,), "VALID"),
     TypeError, "convolution requires lhs and rhs ndim to be equal, got 3 and 4."),
    (lambda: lax.conv_general_dilated(jnp.ones((1, 3, 5)), jnp.ones((2, 3, 3)), (1, 1), "VALID"),
     ValueError, "conv_general_dilated window and window_strides must have the same number of "
                 "dimensions, but got 1 and 2"),
    (lambda: lax.conv_general_dilated(jnp.ones((1, 3, 5)), jnp.ones((2, 3, 3)), (1,), "FOO"),
     RuntimeError, "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got FOO."),
    (lambda: lax.conv_general_dilated(jnp.ones((1, 3, 5)), jnp.ones((2, 3, 3)), (1,), "SAME",
                                      lhs_dilation=(2,)),
     ValueError, "String padding is not implemented for transposed convolution using this op. "
                 "Please either exactly specify the required padding or use conv_transpose."),
    (lambda: lax.conv_general_dilated(jnp.ones((1, 4, 5)), jnp.ones((3, 2, 3)), (1,), "VALID",
                                      feature_group_count=2),
     ValueError, "conv_general_dilated rhs output feature dimension size must be a multiple of "
                 "feature_group_count, but 3 is not a multiple of 2."),
    (lambda: lax.conv_general_dilated(jnp.ones((1, 3, 5)), jnp.ones((2, 3, 3), jnp.int32), (1,),
                                      "VALID"),
     TypeError, "lax.conv_general_dilated requires arguments to have the same dtypes, got "
                "float32, int32."),
    (lambda: lax.conv_general_dilated(jnp.ones((1, 3, 5)), jnp.ones((2, 3, 3)), (1,),
                                      [(1, 1), (1, 1)]),
     TypeError, "Wrong number of explicit pads for convolution: expected 1, got 2."),
    (lambda: lax.conv_general_dilated(jnp.ones((1, 3, 5)), jnp.ones((2, 3, 3)), (1,), "VALID",
                                      dimension_numbers=("NCHW", "OIH", "NCH")),
     TypeError, "convolution dimension_numbers[0] must have len equal to the ndim of lhs and rhs, "
                "got 4 for lhs and rhs shapes (1, 3, 5) and (2, 3, 3)."),
    (lambda: lax.conv_general_dilated(jnp.ones((3, 3, 5)), jnp.ones((4, 3, 3)), (1,), "VALID",
                                      batch_group_count=2),
     ValueError, "conv_general_dilated batch_group_count must divide lhs batch dimension size, "
                 "but 2 does not divide 3."),
])
def test_conv_errors(call, exc, msg):
    with pytest.raises(exc) as e:
        call()
    assert str(e.value) == msg


CONV_CASES = [
    dict(window_strides=(1, 1), padding="SAME"),
    dict(window_strides=(2, 1), padding=[(1, 2), (0, 1)], lhs_dilation=(1, 2), rhs_dilation=(2, 1)),
    dict(window_strides=(1, 2), padding="VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")),
    dict(window_strides=(1, 1), padding=[(1, 0), (2, 1)], feature_group_count=2),
]


def _conv_operands(c):
    if c.get("dimension_numbers"):
        return rng.randn(2, 6, 5, 4).astype(np.float32), rng.randn(3, 2, 4, 3).astype(np.float32)
    g = c.get("feature_group_count", 1)
    return (rng.randn(2, 4, 6, 5).astype(np.float32),
            rng.randn(3 * g, 4 // g, 3, 2).astype(np.float32))


@pytest.mark.parametrize("c", CONV_CASES)
def test_conv_grad(c):
    lhs, rhs = _conv_operands(c)
    wts = rng.randn(*lax.conv_general_dilated(lhs, rhs, **c).shape).astype(np.float32)
    f_l = lambda l: jnp.sum(lax.conv_general_dilated(l.astype(np.float32), rhs, **c) * wts)
    f_r = lambda r: jnp.sum(lax.conv_general_dilated(lhs, r.astype(np.float32), **c) * wts)
    np.testing.assert_allclose(xjit.grad(f_l)(lhs), _num_grad(f_l, lhs), rtol=3e-2, atol=3e-2)
    np.testing.assert_allclose(xjit.grad(f_r)(rhs), _num_grad(f_r, rhs), rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize("c", CONV_CASES)
def test_conv_vmap(c):
    lhs, rhs = _conv_operands(c)
    L = np.stack([lhs * k for k in (1, 2, 3)])
    R = np.stack([rhs + k for k in (0, 1, 2)])
    conv = lambda l, r: lax.conv_general_dilated(l, r, **c)
    ref = np.stack([np.asarray(conv(L[b], R[b])) for b in range(3)])
    np.testing.assert_allclose(xjit.vmap(conv)(L, R), ref, rtol=1e-4, atol=1e-3)
    ref_l = np.stack([np.asarray(conv(L[b], rhs)) for b in range(3)])
    np.testing.assert_allclose(xjit.vmap(conv, in_axes=(0, None))(L, rhs), ref_l, rtol=1e-4,
                               atol=1e-3)
    ref_r = np.stack([np.asarray(conv(lhs, R[b])) for b in range(3)])
    np.testing.assert_allclose(xjit.vmap(conv, in_axes=(None, 1), out_axes=2)(
        lhs, np.moveaxis(R, 0, 1)), np.moveaxis(ref_r, 0, 2), rtol=1e-4, atol=1e-3)


# -- fft

def test_fft_jaxprs():
    assert str(xjit.make_jaxpr(jnp.fft.fft)(jnp.ones(8))) == FFT_JAXPR
    assert str(xjit.make_jaxpr(lambda x: jnp.fft.fft(x, n=6))(jnp.ones(8))) == FFT_N6_JAXPR


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_fft_values(norm):
    x = rng.randn(4, 6).astype(np.float32)
    xc = (x + 1j * rng.randn(4, 6)).astype(np.complex64)
    x5 = rng.randn(2, 3, 2, 4, 3)
    F = jnp.fft
    cases = [
        (F.fft(x, norm=norm), np.fft.fft(x, norm=norm)),
        (F.ifft(xc, norm=norm), np.fft.ifft(xc, norm=norm)),
        (F.rfft(x, norm=norm), np.fft.rfft(x, norm=norm)),
        (F.irfft(xc, norm=norm), np.fft.irfft(xc, norm=norm)),
        (F.irfft(xc, 9, norm=norm), np.fft.irfft(xc, 9, norm=norm)),
        (F.fft(x, 4, axis=0, norm=norm), np.fft.fft(x, 4, axis=0, norm=norm)),
        (F.fft(x, 8, norm=norm), np.fft.fft(x, 8, norm=norm)),
        (F.fft2(xc, norm=norm), np.fft.fft2(xc, norm=norm)),
        (F.ifft2(xc, (3, 5), norm=norm), np.fft.ifft2(xc, (3, 5), norm=norm)),
        (F.rfft2(x, norm=norm), np.fft.rfft2(x, norm=norm)),
        (F.irfft2(xc, norm=norm), np.fft.irfft2(xc, norm=norm)),
        (F.fftn(x5, norm=norm), np.fft.fftn(x5, norm=norm)),
        (F.rfftn(x5, norm=norm), np.fft.rfftn(x5, norm=norm)),
        (F.irfftn(x5 + 0j, norm=norm), np.fft.irfftn(x5, norm=norm)),
        (F.ifftn(xc, axes=(0,), norm=norm), np.fft.ifftn(xc, axes=(0,), norm=norm)),
        (F.hfft(xc[0], norm=norm), np.fft.hfft(xc[0], norm=norm)),
        (F.ihfft(x[0], norm=norm), np.fft.ihfft(x[0], norm=norm)),
    ]
    for got, want in cases:
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-3, atol=1e-3)


def test_fft_helpers():
    assert repr(jnp.fft.fftfreq(5, 0.1)) == "Array([ 0.,  2.,  4., -4., -2.], dtype=float32)"
    assert repr(jnp.fft.rfftfreq(5)) == "Array([0. , 0.2, 0.4], dtype=float32)"
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(jnp.fft.fftshift(x), np.fft.fftshift(x))
    np.testing.assert_array_equal(jnp.fft.ifftshift(x, 1), np.fft.ifftshift(x, 1))
    np.testing.assert_array_equal(jnp.fft.ifftshift(np.arange(5)), np.fft.ifftshift(np.arange(5)))
    assert repr(jnp.fft.fft(jnp.arange(4))) == (
        "Array([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)")
    with pytest.raises(ValueError, match="Shape should be positive."):
        jnp.fft.fft(jnp.ones(3), n=0)


def test_fft_grad_and_vmap():
    x = rng.randn(6).astype(np.float32)
    fns = [lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x)) ** 2 * jnp.arange(4)),
           lambda x: jnp.sum(jnp.real(jnp.fft.fft(x)) * jnp.arange(6) + jnp.imag(jnp.fft.ifft(x)) ** 2),
           lambda x: jnp.sum(jnp.fft.irfft(jnp.fft.rfft(x) * (1 + jnp.arange(4))) * jnp.arange(6))]
    for f in fns:
        np.testing.assert_allclose(xjit.grad(f)(x), _num_grad(f, x), rtol=1e-2, atol=1e-2)
    xs = rng.randn(3, 8).astype(np.float32)
    np.testing.assert_allclose(xjit.vmap(jnp.fft.fft)(xs), np.fft.fft(xs), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(xjit.vmap(jnp.fft.rfft, in_axes=1, out_axes=1)(xs.T),
                               np.fft.rfft(xs).T, rtol=1e-4, atol=1e-4)


# -- linear algebra

A = rng.randn(4, 4).astype(np.float32)
SPD = (A @ A.T + 4 * np.eye(4)).astype(np.float32)
RECT = rng.randn(5, 3).astype(np.float32)
BATCH = rng.randn(2, 3, 3).astype(np.float32)


def _close(got, want, tol=1e-4):
    got = np.asarray(got)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_lax_linalg():
    L = lax.linalg
    _close(L.cholesky(SPD), np.linalg.cholesky(SPD))
    _close(L.triangular_solve(np.tril(SPD), A, left_side=True, lower=True),
           np.linalg.solve(np.tril(SPD), A))
    _close(L.triangular_solve(np.tril(SPD), A, lower=True, transpose_a=True),
           A @ np.linalg.inv(np.tril(SPD).T))
    lu, piv, perm = L.lu(A)
    lu = np.asarray(lu)
    _close(A[np.asarray(perm)], (np.tril(lu, -1) + np.eye(4)) @ np.triu(lu))
    assert piv.dtype == np.int32 and perm.dtype == np.int32
    for full in (True, False):
        for m in (RECT, RECT.T, A):
            q, r = L.qr(m, full_matrices=full)
            qn, rn = np.linalg.qr(m, mode="complete" if full else "reduced")
            _close(np.abs(q), np.abs(qn))
            _close(np.asarray(q) @ np.asarray(r), m)
            assert np.allclose(np.tril(np.asarray(r), -1), 0)
        u, s, vt = L.svd(RECT, full_matrices=full)
        un, sn, vtn = np.linalg.svd(RECT, full_matrices=full)
        _close(s, sn)
        _close(np.abs(u), np.abs(un))
        _close(np.abs(vt), np.abs(vtn))
    v, w = L.eigh(SPD)
    _close(w, np.linalg.eigh(SPD)[0], 1e-3)
    _close(np.asarray(v) @ np.diag(np.asarray(w)) @ np.asarray(v).T, SPD, 1e-3)


def test_lax_linalg_batched_and_complex():
    L = lax.linalg
    spd = BATCH @ BATCH.transpose(0, 2, 1) + 3 * np.eye(3, dtype=np.float32)
    _close(L.cholesky(spd), np.linalg.cholesky(spd))
    _close(L.eigh(spd)[1], np.linalg.eigh(spd)[0], 1e-3)
    _close(L.svd(BATCH)[1], np.linalg.svd(BATCH)[1])
    lu, _, perm = L.lu(BATCH)
    for i in range(2):
        m = np.asarray(lu)[i]
        _close(BATCH[i][np.asarray(perm)[i]], (np.tril(m, -1) + np.eye(3)) @ np.triu(m))
    c = (A + 1j * rng.randn(4, 4)).astype(np.complex64)
    h = c @ c.conj().T + np.eye(4)
    _close(L.eigh(h)[1], np.linalg.eigh(h)[0], 1e-3)
    _close(L.cholesky(h), np.linalg.cholesky(h), 1e-3)
    _close(L.svd(c)[1], np.linalg.svd(c)[1], 1e-3)


def test_jnp_linalg_solve_inv_det():
    LA = jnp.linalg
    b = rng.randn(4, 2).astype(np.float32)
    _close(LA.solve(A, b), np.linalg.solve(A, b), 1e-3)
    _close(LA.solve(A, b[:, 0]), np.linalg.solve(A, b[:, 0]), 1e-3)
    _close(LA.solve(BATCH, BATCH), np.linalg.solve(BATCH, BATCH), 1e-3)
    _close(LA.inv(A), np.linalg.inv(A), 1e-3)
    _close(LA.inv(BATCH), np.linalg.inv(BATCH), 1e-3)
    for m in (A, BATCH, A[:2, :2], rng.randn(5, 5)):
        _close(LA.det(m), np.linalg.det(m), 1e-3)
        sign, logdet = LA.slogdet(m)
        sn, ln = np.linalg.slogdet(m)
        _close(sign, sn)
        _close(logdet, ln, 1e-3)
    assert float(LA.det(np.ones((4, 4)))) == 0.0
    assert float(LA.slogdet(np.ones((4, 4))).logabsdet) == -np.inf
    assert repr(LA.det(np.eye(2))) == "Array(1., dtype=float32)"


def test_jnp_linalg_decompositions():
    LA = jnp.linalg
    _close(LA.cholesky(SPD), np.linalg.cholesky(SPD))
    _close(LA.cholesky(SPD, upper=True), np.linalg.cholesky(SPD).T)
    q, r = LA.qr(RECT)
    _close(np.asarray(q) @ np.asarray(r), RECT)
    _close(np.abs(LA.qr(RECT, mode="r")), np.abs(np.linalg.qr(RECT, mode="r")))
    res = LA.eigh(SPD)
    _close(res.eigenvalues, np.linalg.eigh(SPD)[0], 1e-3)
    _close(LA.eigvalsh(SPD), np.linalg.eigvalsh(SPD), 1e-3)
    u, s, vh = LA.svd(RECT, full_matrices=False)
    _close((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), RECT)
    _close(LA.svdvals(RECT), np.linalg.svd(RECT, compute_uv=False))
    _close(LA.pinv(RECT), np.linalg.pinv(RECT), 1e-3)
    assert int(LA.matrix_rank(np.ones((3, 3)))) == 1
    x, resid, rank, sv = LA.lstsq(RECT, RECT[:, 0] + 0.1)
    xn, rn, rankn, svn = np.linalg.lstsq(RECT, RECT[:, 0] + 0.1, rcond=None)
    _close(x, xn, 1e-3)
    _close(resid, rn, 1e-3)
    assert int(rank) == rankn
    for n in (0, 1, 3, -2):
        _close(LA.matrix_power(A, n), np.linalg.matrix_power(A, n), 1e-3)


@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, -np.inf, 0, 3, -1])
def test_vector_norm(ord):
    v = rng.randn(7).astype(np.float32)
    _close(jnp.linalg.norm(v, ord), np.linalg.norm(v, ord))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norm(ord):
    _close(jnp.linalg.norm(RECT, ord), np.linalg.norm(RECT, ord), 1e-3)


def test_norm_axes_and_repr():
    _close(jnp.linalg.norm(BATCH, axis=1), np.linalg.norm(BATCH, axis=1))
    _close(jnp.linalg.norm(BATCH, keepdims=True), np.linalg.norm(BATCH, keepdims=True))
    _close(jnp.linalg.norm(BATCH, 2, axis=(0, 2), keepdims=True),
           np.linalg.norm(BATCH, 2, axis=(0, 2), keepdims=True), 1e-3)
    _close(jnp.linalg.norm(np.array([3 + 4j, 1j])), np.linalg.norm(np.array([3 + 4j, 1j])))
    assert repr(jnp.linalg.norm(np.array([3.0, 4.0]))) == "Array(5., dtype=float32)"


# -- window reductions

RW_SUM_JAXPR = """\
{ lambda ; a:f32[4,6]. let
    b:f32[2,3] = reduce_window_sum[
      base_dilation=(1, 1)
      padding=((0, 0), (0, 0))
      window_dilation=(1, 1)
      window_dimensions=(2, 2)
      window_strides=(2, 2)
    ] a
  in (b,) }"""

RW_MAX_SAME_JAXPR = """\
{ lambda ; a:f32[4,6]. let
    b:f32[4,6] = reduce_window_max[
      base_dilation=(1, 1)
      padding=((0, 1), (1, 1))
      window_dilation=(1, 1)
      window_dimensions=(2, 3)
      window_strides=(1, 1)
    ] a
  in (b,) }"""

RW_GENERIC_JAXPR = """\
{ lambda ; a:f32[4,6]. let
    b:f32[2,3] = reduce_window[
      base_dilation=(1, 1)
      consts=()
      jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = mul c d in (e,) }
      padding=((0, 0), (0, 0))
      window_dilation=(1, 1)
      window_dimensions=(2, 2)
      window_strides=(2, 2)
    ] a 1.0:f32[]
  in (b,) }"""


def test_reduce_window_jaxprs():
    x = jnp.ones((4, 6))
    f = lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (2, 2), "VALID")
    assert str(xjit.make_jaxpr(f)(x)) == RW_SUM_JAXPR
    f = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 3), (1, 1), "SAME")
    assert str(xjit.make_jaxpr(f)(x)) == RW_MAX_SAME_JAXPR
    f = lambda x: lax.reduce_window(x, 1.0, lax.mul, (2, 2), (2, 2), "VALID")
    assert str(xjit.make_jaxpr(f)(x)) == RW_GENERIC_JAXPR


def test_reduce_window_values():
    x = np.arange(24.0, dtype=np.float32).reshape(4, 6)
    out = lax.reduce_window(jnp.arange(12.0).reshape(3, 4), 0.0, lax.add, (2, 2), (1, 1),
                            [(1, 0), (0, 1)], base_dilation=(2, 1), window_dilation=(1, 2))
    assert out.tolist() == [[2.0, 4.0, 2.0], [2.0, 4.0, 2.0], [10.0, 12.0, 6.0],
                            [10.0, 12.0, 6.0], [18.0, 20.0, 10.0]]  # JAX 0.10.2's output
    prod = lax.reduce_window(x, 1.0, lax.mul, (2, 2), (2, 2), "VALID")
    np.testing.assert_allclose(prod, x.reshape(2, 2, 3, 2).prod(axis=(1, 3)))
    mx = lax.reduce_window(x, -np.inf, lax.max, (2, 3), (1, 1), "SAME")
    padded = np.pad(x, ((0, 1), (1, 1)), constant_values=-np.inf)
    want = np.array([[padded[i:i + 2, j:j + 3].max() for j in range(6)] for i in range(4)])
    np.testing.assert_array_equal(mx, want)
    with pytest.raises(TypeError) as e:
        lax.reduce_window(x, 0.0, lax.add, (2,), (1, 1), "VALID")
    assert str(e.value) == ("reduce_window got the wrong number of window_dimensions for operand: "
                            "got operand shape (4, 6) with window_dimensions (2,).")


def test_reduce_generic_and_variadic():
    x = np.arange(24.0, dtype=np.float32).reshape(4, 6)
    np.testing.assert_array_equal(lax.reduce(x, 1.0, lambda a, b: a * b + 1, (0,)),
                                  [1531.0, 3725.0, 7021.0, 11677.0, 17975.0, 26221.0])
    s, m = lax.reduce((x, x), (0.0, 0.0), lambda a, b: (a[0] + b[0], lax.max(a[1], b[1])), (1,))
    np.testing.assert_array_equal(s, x.sum(1))
    np.testing.assert_array_equal(m, x.max(1))
    assert "reduce_sum" in str(xjit.make_jaxpr(lambda x: lax.reduce(x, 0.0, lax.add, (0,)))(x))


def test_reduce_window_grad_and_vmap():
    x = rng.randn(4, 6).astype(np.float32)
    kw = dict(window_dimensions=(2, 3), window_strides=(2, 1), padding=[(1, 0), (0, 2)],
              base_dilation=(1, 2), window_dilation=(2, 1))
    shape = lax.reduce_window(x, 0.0, lax.add, **kw).shape
    w = rng.randn(*shape).astype(np.float32)
    f = lambda x: jnp.sum(lax.reduce_window(x.astype(np.float32), 0.0, lax.add, **kw) * w)
    np.testing.assert_allclose(xjit.grad(f)(x), _num_grad(f, x), rtol=1e-2, atol=1e-2)
    out = xjit.vmap(lambda v: lax.reduce_window(v, -np.inf, lax.max, (2,), (2,), "VALID"),
                    in_axes=1, out_axes=1)(x)
    np.testing.assert_array_equal(out, x.reshape(2, 2, 6).max(axis=1))
