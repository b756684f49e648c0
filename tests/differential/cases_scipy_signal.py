"""Differential cases for ``jax.scipy.signal``, ``ndimage``, ``integrate``,
``interpolate`` and ``cluster.vq``: values and dtypes (integer, complex and
``x64-*`` double inputs) for every mode, boundary and method JAX supports;
results under jit, vmap and grad; the errors for unsupported modes and bad
shapes. Tuple results are recorded one element per case."""

_A = "jnp.array([[0.3, -1.2, 2.5, 0.7, -0.4, 1.0], [1.1, 0.0, -2.2, 3.3, 0.9, -0.5], " \
     "[-0.6, 1.8, 0.2, -1.5, 2.4, 0.8], [0.5, 0.25, -0.75, 1.25, -1.0, 2.0], " \
     "[1.5, -0.3, 0.6, 0.9, -2.1, 0.4]], dtype=jnp.float32)"
_B = "jnp.array([[1.0, -0.5], [0.25, 2.0], [-1.5, 0.75]], dtype=jnp.float32)"
_C = "jnp.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0.75j, 2 + 0j], dtype=jnp.complex64)"
_V = "jnp.array([1.5, -0.25, 3.0, 0.75, -2.0, 1.25, 0.5], dtype=jnp.float32)"
_K = "jnp.array([0.5, 2.0, -1.0], dtype=jnp.float32)"
_I = "jnp.arange(12).reshape(3, 4)"
# a 64-sample signal and a 2x48 batch of them (signal along axis 1)
_X = "(jnp.sin(0.37 * jnp.arange(64, dtype=jnp.float32)) + 0.1 * jnp.arange(64, dtype=jnp.float32) % 3)"
_Y = "(jnp.cos(0.21 * jnp.arange(64, dtype=jnp.float32)) * (1 + 0.01 * jnp.arange(64, dtype=jnp.float32)))"
_X2 = "jnp.sin(jnp.arange(96, dtype=jnp.float32) * 0.5).reshape(2, 48)"

CASES = []
S = "jax.scipy.signal"
N = "jax.scipy.ndimage.map_coordinates"
R = "jax.scipy.interpolate.RegularGridInterpolator"
VQ = "jax.scipy.cluster.vq.vq"
TR = "jax.scipy.integrate.trapezoid"


def val(name, code):
    CASES.append((f"val-{name}", f"result = {code}"))


def x64(name, code):
    CASES.append((f"x64-{name}", ("jax.config.update('jax_enable_x64', True)\ntry:\n"
                                  f"    result = {code}\nfinally:\n"
                                  "    jax.config.update('jax_enable_x64', False)\n")))


def err(name, code):
    CASES.append((f"err-{name}", f"result = {code}"))


def jaxpr(name, fn, *args):
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({fn})({', '.join(args)})"))


# -- convolutions: every mode, both operand orders, 1-d, 2-d, 3-d, int, complex
for mode in ("full", "same", "valid"):
    m = f"'{mode}'"
    for fn in ("convolve", "correlate", "fftconvolve", "convolve2d", "correlate2d"):
        val(f"{fn}-{mode}", f"{S}.{fn}({_A}, {_B}, {m})")
        val(f"{fn}-{mode}-swapped", f"{S}.{fn}({_B}, {_A}, {m})")
        val(f"{fn}-{mode}-equal", f"{S}.{fn}({_B}, {_B}[::-1] * 2, {m})")
    for fn in ("convolve", "correlate", "fftconvolve"):
        val(f"{fn}-{mode}-1d", f"{S}.{fn}({_V}, {_K}, {m})")
        val(f"{fn}-{mode}-1d-even", f"{S}.{fn}({_V}, {_K}[:2], {m})")
        val(f"{fn}-{mode}-complex", f"{S}.{fn}({_C}, {_C}[1:4] * 1j, {m})")
        val(f"{fn}-{mode}-int", f"{S}.{fn}(jnp.arange(7), jnp.array([1, -2, 3, 1]), {m})")
        x64(f"{fn}-{mode}", f"{S}.{fn}(jnp.arange(7.0), jnp.array([1, -2, 3, 1]), {m})")
    for fn in ("convolve2d", "correlate2d"):
        val(f"{fn}-{mode}-complex", f"{S}.{fn}(({_A} + 1j)[:3, :4], ({_B} * 1j + 0.5)[:2], {m})")
        val(f"{fn}-{mode}-complex-swapped",
            f"{S}.{fn}(({_B} * 1j + 0.5)[:2], ({_A} - 2j)[:3, :4], {m})")
        val(f"{fn}-{mode}-int", f"{S}.{fn}({_I}, jnp.array([[1, 2], [3, -1]]), {m})")
    val(f"convolve-{mode}-3d", f"{S}.convolve(jnp.cos(jnp.arange(60.)).reshape(3, 4, 5), "
                               f"jnp.ones((2, 3, 2)), {m})")
    val(f"convolve-{mode}-fft", f"{S}.convolve({_A}, {_B}, {m}, method='fft')")
    val(f"correlate-{mode}-fft", f"{S}.correlate({_A}, {_B}, {m}, method='fft')")
    val(f"convolve-{mode}-direct", f"{S}.convolve({_A}, {_B}, {m}, method='direct')")
val("fftconvolve-axes1", f"{S}.fftconvolve({_A}, {_A}[:, :3], axes=1)")
val("fftconvolve-axes0-same", f"{S}.fftconvolve({_A}, {_A}[:2], 'same', axes=[0])")
val("fftconvolve-axes-neg", f"{S}.fftconvolve(jnp.ones((2, 3, 4)), jnp.ones((2, 2, 4)), axes=-2)")
val("fftconvolve-outer", f"{S}.fftconvolve(jnp.ones((3, 1)), jnp.arange(4.).reshape(1, 4))")
val("fftconvolve-int", f"{S}.fftconvolve(jnp.arange(5), jnp.array([1, 1, 1]))")
val("convolve-precision", f"{S}.convolve({_A}, {_B}, precision='highest')")
err("convolve-mode", f"{S}.convolve({_A}, {_B}, 'circular')")
err("convolve-method", f"{S}.convolve({_A}, {_B}, method='overlap')")
err("convolve-ndim", f"{S}.convolve({_A}, {_V})")
err("convolve-empty", f"{S}.convolve({_A}, jnp.ones((0, 2)))")
err("convolve-shapes", f"{S}.convolve({_A}, jnp.ones((6, 2)))")
err("correlate-mode", f"{S}.correlate({_V}, {_K}, 'middle')")
err("fftconvolve-mode", f"{S}.fftconvolve({_V}, {_K}, 'middle')")
err("fftconvolve-ndim", f"{S}.fftconvolve({_A}, {_V})")
err("fftconvolve-valid-shapes", f"{S}.fftconvolve({_A}, jnp.ones((6, 2)), 'valid')")
err("fftconvolve-mapped", f"{S}.fftconvolve({_A}, {_B}, axes=0)")
err("fftconvolve-list", f"{S}.fftconvolve([1.0, 2.0], {_K})")
err("convolve2d-boundary", f"{S}.convolve2d({_A}, {_B}, boundary='wrap')")
err("convolve2d-fillvalue", f"{S}.convolve2d({_A}, {_B}, fillvalue=1)")
err("convolve2d-ndim", f"{S}.convolve2d({_V}, {_K})")
err("correlate2d-boundary", f"{S}.correlate2d({_A}, {_B}, boundary='symm')")
err("correlate2d-ndim", f"{S}.correlate2d(jnp.ones((2, 2, 2)), jnp.ones((1, 1, 1)))")
err("correlate2d-mode", f"{S}.correlate2d({_A}, {_B}, 'middle')")

# -- detrend
val("detrend-linear", f"{S}.detrend({_A})")
val("detrend-linear-axis0", f"{S}.detrend({_A}, axis=0)")
val("detrend-constant", f"{S}.detrend({_A}, type='constant')")
val("detrend-constant-axis0", f"{S}.detrend({_A}, axis=0, type='constant')")
val("detrend-bp", f"{S}.detrend({_X}, bp=[10, 40])")
val("detrend-bp-int", f"{S}.detrend({_X}, bp=25)")
val("detrend-int", f"{S}.detrend(jnp.array([1, 4, 8, 8, 9]))")
val("detrend-list", f"{S}.detrend([1.0, 4.0, 8.0, 8.0, 9.0])")
x64("detrend-linear", f"{S}.detrend(jnp.arange(10.) ** 2)")
err("detrend-type", f"{S}.detrend({_A}, type='quadratic')")
err("detrend-overwrite", f"{S}.detrend({_A}, overwrite_data=True)")
err("detrend-bp-range", f"{S}.detrend({_V}, bp=[9])")

# -- stft
for i, part in enumerate(("f", "t", "Zxx")):
    val(f"stft-{part}", f"{S}.stft({_X}, nperseg=16)[{i}]")
    val(f"stft-x2-axis0-{part}", f"{S}.stft({_X2}.T, nperseg=8, axis=0)[{i}]")
    x64(f"stft-{part}", f"{S}.stft(jnp.arange(30.) % 7, nperseg=8)[{i}]")
for b in ("even", "odd", "constant", "zeros", None):
    val(f"stft-boundary-{b}", f"{S}.stft({_X}, nperseg=10, boundary={b!r})[2]")
    val(f"stft-boundary-{b}-unpadded", f"{S}.stft({_X}, nperseg=10, boundary={b!r}, "
                                       "padded=False)[2]")
    val(f"stft-boundary-{b}-t", f"{S}.stft({_X}, nperseg=10, boundary={b!r}, padded=False)[1]")
val("stft-noverlap-nfft", f"{S}.stft({_X}, fs=8.0, nperseg=12, noverlap=9, nfft=20)[2]")
val("stft-noverlap-nfft-f", f"{S}.stft({_X}, fs=8.0, nperseg=12, noverlap=9, nfft=20)[0]")
val("stft-detrend-constant", f"{S}.stft({_X}, nperseg=16, detrend='constant')[2]")
val("stft-detrend-linear", f"{S}.stft({_X2}, nperseg=16, detrend='linear')[2]")
val("stft-detrend-callable", f"{S}.stft({_X2}, nperseg=16, detrend=lambda d: d - d[..., :1])[2]")
val("stft-twosided", f"{S}.stft({_X}, nperseg=16, return_onesided=False)[2]")
val("stft-twosided-f", f"{S}.stft({_X}, nperseg=15, return_onesided=False)[0]")
val("stft-window-array", f"{S}.stft({_X}, window=jnp.linspace(0.1, 1.0, 12), nperseg=12)[2]")
val("stft-nperseg1", f"{S}.stft({_V}, nperseg=1, noverlap=0)[2]")
val("stft-long-nperseg", f"{S}.stft({_V}, nperseg=32)[2]")
val("stft-int", f"{S}.stft(jnp.arange(20) % 5, nperseg=8)[2]")
val("stft-complex", f"{S}.stft(jnp.exp(0.3j * jnp.arange(24.)), nperseg=8)[2]")
val("stft-empty", f"{S}.stft(jnp.zeros((2, 0)), nperseg=4)[2]")
err("stft-boundary", f"{S}.stft({_X}, nperseg=16, boundary='wrap')")
err("stft-noverlap", f"{S}.stft({_X}, nperseg=16, noverlap=16)")
err("stft-nfft", f"{S}.stft({_X}, nperseg=16, nfft=8)")
err("stft-nperseg", f"{S}.stft({_X}, nperseg=0)")
err("stft-window-2d", f"{S}.stft({_X}, window=jnp.ones((2, 4)))")
err("stft-window-long", f"{S}.stft({_V}, window=jnp.ones(9))")
err("stft-window-nperseg", f"{S}.stft({_X}, window=jnp.ones(8), nperseg=16)")
err("stft-detrend", f"{S}.stft({_X}, nperseg=16, detrend=3)")
err("stft-detrend-type", f"{S}.stft({_X}, nperseg=16, detrend='cubic')")
err("stft-odd-too-long", f"{S}.stft({_V}[:3], nperseg=8, boundary='odd')")
err("stft-list", f"{S}.stft([1.0, 2.0, 3.0], nperseg=2)")

# -- welch and csd
val("welch-f", f"{S}.welch({_X}, nperseg=16)[0]")
val("welch", f"{S}.welch({_X}, nperseg=16)[1]")
val("welch-default-nperseg", f"{S}.welch({_X})[1]")
val("welch-median", f"{S}.welch({_X}, nperseg=16, average='median')[1]")
val("welch-spectrum", f"{S}.welch({_X}, fs=10.0, nperseg=16, scaling='spectrum')[1]")
val("welch-linear-twosided", f"{S}.welch({_X}, nperseg=16, detrend='linear', "
                             "return_onesided=False)[1]")
val("welch-nodetrend-nfft", f"{S}.welch({_X}, nperseg=16, detrend=False, nfft=21)[1]")
val("welch-x2-axis0", f"{S}.welch({_X2}.T, nperseg=12, axis=0)[1]")
val("welch-x2-median", f"{S}.welch({_X2}, nperseg=12, average='median')[1]")
val("welch-one-segment", f"{S}.welch({_X2}, nperseg=48, noverlap=0)[1]")
val("welch-complex", f"{S}.welch(jnp.exp(0.3j * jnp.arange(24.)), nperseg=8)[1]")
val("welch-int", f"{S}.welch(jnp.arange(40) % 7, nperseg=8)[1]")
val("welch-empty", f"{S}.welch(jnp.zeros((0,)))[1]")
x64("welch", f"{S}.welch(jnp.sin(jnp.arange(50.)), nperseg=10)[1]")
x64("welch-f", f"{S}.welch(jnp.sin(jnp.arange(50.)), nperseg=10)[0]")
val("csd", f"{S}.csd({_X}, {_Y}, nperseg=16)[1]")
val("csd-median", f"{S}.csd({_X}, {_Y}, nperseg=16, average='median')[1]")
val("csd-shorter-y", f"{S}.csd({_X}, {_Y}[:40], nperseg=16)[1]")
val("csd-shorter-x", f"{S}.csd({_X}[:40], {_Y}, nperseg=16, scaling='spectrum')[1]")
val("csd-broadcast", f"{S}.csd({_X2}, {_X2}[:1] * 2, nperseg=12)[1]")
val("csd-none", f"{S}.csd({_X}, None, nperseg=16)[1]")
val("csd-self", f"{S}.csd({_X}, {_X}, nperseg=16)[1]")
val("csd-empty", f"{S}.csd(jnp.zeros((2, 0)), jnp.zeros((2, 0)))[1]")
val("csd-empty-f", f"{S}.csd(jnp.zeros((4, 0)), jnp.zeros((4, 0)))[0]")
err("welch-average", f"{S}.welch({_X}, nperseg=16, average='mode')")
err("welch-scaling", f"{S}.welch({_X}, nperseg=16, scaling='energy')")
err("csd-rank", f"{S}.csd({_X2}, {_X})")
err("csd-broadcast", f"{S}.csd({_X2}, jnp.ones((3, 48)))")

# -- istft
val("istft-roundtrip", f"{S}.istft({S}.stft({_X}, nperseg=16)[2], nperseg=16)[1]")
val("istft-roundtrip-t", f"{S}.istft({S}.stft({_X}, nperseg=16)[2], nperseg=16)[0]")
val("istft-default", f"{S}.istft({S}.stft({_X}, nperseg=16)[2])[1]")
val("istft-noverlap", f"{S}.istft({S}.stft({_X}, nperseg=16, noverlap=12)[2], noverlap=12)[1]")
val("istft-nfft", f"{S}.istft({S}.stft({_X}, nperseg=12, nfft=16)[2], nperseg=12, nfft=16)[1]")
val("istft-no-boundary", f"{S}.istft({S}.stft({_X}, nperseg=16, boundary=None)[2], "
                         "boundary=False)[1]")
val("istft-twosided", f"{S}.istft({S}.stft({_X}, nperseg=16, return_onesided=False)[2], "
                      "input_onesided=False)[1]")
val("istft-window-array", f"{S}.istft({S}.stft({_X}, window=jnp.linspace(0.5, 1.0, 12), nperseg=12)[2], "
                          "window=jnp.linspace(0.5, 1.0, 12))[1]")
val("istft-batch", f"{S}.istft({S}.stft({_X2}, nperseg=8)[2])[1]")
val("istft-batch-t", f"{S}.istft({S}.stft({_X2}, nperseg=8)[2])[0]")
val("istft-axes", f"{S}.istft(jnp.moveaxis({S}.stft({_X2}, nperseg=8)[2], 0, -1), "
                  "time_axis=1, freq_axis=0)[1]")
val("istft-int", f"{S}.istft(jnp.ones((5, 4), dtype=jnp.int32))[1]")
x64("istft", f"{S}.istft({S}.stft(jnp.sin(jnp.arange(40.)), nperseg=8)[2])[1]")
err("istft-1d", f"{S}.istft(jnp.ones(5))")
err("istft-same-axes", f"{S}.istft(jnp.ones((5, 4)), time_axis=0, freq_axis=-2)")
err("istft-noverlap", f"{S}.istft(jnp.ones((5, 4)), noverlap=8)")
err("istft-nfft", f"{S}.istft(jnp.ones((5, 4)), nfft=4)")
err("istft-window-len", f"{S}.istft(jnp.ones((5, 4)), window=jnp.ones(4))")
err("istft-window-2d", f"{S}.istft(jnp.ones((5, 4)), window=jnp.ones((8, 1)))")
err("istft-list", f"{S}.istft([[1.0, 2.0], [3.0, 4.0]])")

# -- map_coordinates
_IMG = "jnp.arange(12.0).reshape(3, 4)"
_CS = "[jnp.array([-1.2, 0.5, 2.7, 3.5, 1.0, -0.5]), jnp.array([-0.5, 1.5, 3.6, 4.2, 2.0, 7.3])]"
for mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
    for order in (0, 1):
        val(f"map-{mode}-{order}", f"{N}({_IMG}, {_CS}, {order}, mode='{mode}', cval=-1.5)")
        val(f"map-{mode}-{order}-int", f"{N}({_I}, {_CS}, {order}, mode='{mode}')")
    val(f"map-{mode}-3d", f"{N}(jnp.sin(jnp.arange(24.)).reshape(2, 3, 4), "
                          "[jnp.array([[0.2, 1.7], [-0.4, 0.5]]), jnp.array([[0.5, 2.5], [1.2, 3.1]]), "
                          f"jnp.array([[3.3, -0.7], [1.5, 4.4]])], 1, mode='{mode}')")
val("map-int-coords", f"{N}({_IMG}, [jnp.array([0, 2, -1]), jnp.array([1, 3, 2])], 1)")
val("map-int-coords-0", f"{N}({_IMG}, [jnp.array([0, 2, 5]), jnp.array([1, 3, 2])], 0)")
val("map-half-round", f"{N}({_IMG}, [jnp.array([0.5, 1.5, -0.5]), jnp.array([2.5, 0.5, 1.5])], 0)")
val("map-f16", f"{N}({_IMG}.astype(jnp.float16), {_CS}, 1)")
val("map-complex", f"{N}({_IMG} * (1 + 1j), {_CS}, 1)")
val("map-1d-list", f"{N}([1.0, 2.0, 4.0], [[0.25, 1.75]], 1)")
x64("map", f"{N}(jnp.arange(12.0).reshape(3, 4), {_CS}, 1, mode='mirror')")
err("map-order", f"{N}({_IMG}, {_CS}, 3)")
err("map-len", f"{N}({_IMG}, {_CS}[:1], 1)")
CASES.append(("err-map-mode", (
    "try:\n"
    f"    {N}({_IMG}, {_CS}, 1, mode='grid-wrap')\nexcept NotImplementedError as e:\n"
    "    result = str(e).split('Currently')[0]  # the rest prints a set\n")))

# -- trapezoid
val("trapezoid", f"{TR}({_V})")
val("trapezoid-dx", f"{TR}({_A}, dx=0.25)")
val("trapezoid-x", f"{TR}({_V}, jnp.array([0., 0.5, 2., 2.5, 4., 7., 8.]))")
val("trapezoid-axis0", f"{TR}({_A}, jnp.arange(5.) ** 2, axis=0)")
val("trapezoid-int", f"{TR}(jnp.array([1, 2, 3, 2, 3, 2, 1]))")
val("trapezoid-int-x", f"{TR}(jnp.array([1, 2, 3]), jnp.array([0, 2, 5]))")
x64("trapezoid", f"{TR}(jnp.arange(6.) ** 2, dx=0.5)")
err("trapezoid-list", f"{TR}([1.0, 2.0])")

# -- RegularGridInterpolator
_G = "(jnp.array([0., 1., 3.]), jnp.array([1., 2., 4., 5.]))"
_Q = "jnp.array([[0.5, 1.5], [2.9, 4.9], [-1., 2.], [1., 3.], [3., 5.], [0.4, 6.]])"
val("rgi-linear", f"{R}({_G}, {_A}[:3, :4])({_Q})")
val("rgi-nearest", f"{R}({_G}, {_A}[:3, :4], method='nearest')({_Q})")
val("rgi-call-nearest", f"{R}({_G}, {_A}[:3, :4])({_Q}, method='nearest')")
val("rgi-fill-none", f"{R}({_G}, {_A}[:3, :4], fill_value=None)({_Q})")
val("rgi-fill-zero", f"{R}({_G}, {_A}[:3, :4], fill_value=0)({_Q})")
val("rgi-int-values", f"{R}({_G}, jnp.arange(12).reshape(3, 4))({_Q})")
val("rgi-int-grid", f"{R}((jnp.array([0, 1, 3]), jnp.array([1, 2, 4, 5])), {_A}[:3, :4])({_Q})")
val("rgi-trailing", f"{R}({_G}, jnp.arange(24.).reshape(3, 4, 2))({_Q})")
val("rgi-tuple-xi", f"{R}({_G}, {_A}[:3, :4])((jnp.array([0.5, 2.0]), jnp.array([[1.5], [4.5]])))")
val("rgi-1d", f"{R}((jnp.array([0., 1., 2.]),), jnp.array([1., 3., 2.]))(jnp.array([0.5, 1.25]))")
val("rgi-3d-xi", f"{R}({_G}, {_A}[:3, :4])({_Q}.reshape(2, 3, 2))")
x64("rgi-linear", f"{R}({_G}, jnp.arange(12.).reshape(3, 4))({_Q})")
err("rgi-method", f"{R}({_G}, {_A}[:3, :4], method='cubic')")
err("rgi-call-method", f"{R}({_G}, {_A}[:3, :4])({_Q}, method='spline')")
err("rgi-bounds", f"{R}({_G}, {_A}[:3, :4], bounds_error=True)")
err("rgi-points", f"{R}({_G} + (jnp.ones(3),), {_A}[:3, :4])")
err("rgi-fill-dtype", f"{R}({_G}, {_A}[:3, :4], fill_value=1j)")
err("rgi-xi-dim", f"{R}({_G}, {_A}[:3, :4])(jnp.ones((4, 3)))")
err("rgi-values-list", f"{R}({_G}, [[1.0, 2.0]])")

# -- vq
_OBS = "jnp.array([[1.1, 2.1, 3.1], [5.9, 4.8, 6.2], [0., 0., 0.], [2.6, 3.4, 4.6]])"
_BOOK = "jnp.array([[1., 2., 3.], [2., 3., 4.], [3., 4., 5.], [4., 5., 6.]])"
for i, part in enumerate(("code", "dist")):
    val(f"vq-{part}", f"{VQ}({_OBS}, {_BOOK})[{i}]")
    val(f"vq-1d-{part}", f"{VQ}(jnp.array([0.2, 2.6, 9.0]), jnp.array([0., 1., 3.]))[{i}]")
    val(f"vq-int-{part}", f"{VQ}(jnp.array([[1, 2], [7, 9]]), jnp.array([[0, 0], [6, 8]]))[{i}]")
    x64(f"vq-{part}", f"{VQ}({_OBS}, {_BOOK})[{i}]")
err("vq-rank", f"{VQ}({_OBS}, jnp.ones(3))")
err("vq-3d", f"{VQ}(jnp.ones((2, 2, 2)), jnp.ones((2, 2, 2)))")
err("vq-list", f"{VQ}([[1.0]], {_BOOK})")

# -- transformations
val("jit-convolve", f"jax.jit({S}.convolve, static_argnums=2)({_A}, {_B}, 'same')")
val("jit-correlate2d", f"jax.jit({S}.correlate2d)({_B}, {_A})")
val("jit-fftconvolve", f"jax.jit({S}.fftconvolve)({_V}, {_K})")
val("jit-detrend", f"jax.jit({S}.detrend)({_X})")
val("jit-stft", f"jax.jit(lambda x: {S}.stft(x, nperseg=16)[2])({_X})")
val("jit-welch", f"jax.jit(lambda x: {S}.welch(x, nperseg=16)[1])({_X})")
val("jit-istft", f"jax.jit(lambda z: {S}.istft(z)[1])({S}.stft({_X}, nperseg=16)[2])")
val("jit-map", f"jax.jit(lambda im, c: {N}(im, c, 1, mode='wrap'))({_IMG}, {_CS})")
val("jit-trapezoid", f"jax.jit({TR}, static_argnames='axis')({_A}, axis=0)")
val("jit-rgi", f"jax.jit(lambda r, q: r(q))({R}({_G}, {_A}[:3, :4]), {_Q})")
val("jit-vq", f"jax.jit({VQ})({_OBS}, {_BOOK})[1]")
val("vmap-convolve", f"jax.vmap({S}.convolve)({_A}, {_A}[:, :3])")
val("vmap-convolve2d", f"jax.vmap(lambda a: {S}.convolve2d(a, {_B}, 'same'))({_A}.reshape(5, 3, 2))")
val("vmap-fftconvolve", f"jax.vmap({S}.fftconvolve, in_axes=(0, None))({_A}, {_K})")
val("vmap-correlate", f"jax.vmap(lambda a, b: {S}.correlate(a, b, 'valid'))({_A}, {_A}[:, :2])")
val("vmap-detrend", f"jax.vmap({S}.detrend)({_A})")
val("vmap-welch", f"jax.vmap(lambda x: {S}.welch(x, nperseg=12)[1])({_X2})")
val("vmap-stft", f"jax.vmap(lambda x: {S}.stft(x, nperseg=12)[2])({_X2})")
val("vmap-istft", f"jax.vmap(lambda z: {S}.istft(z)[1])({S}.stft({_X2}, nperseg=8)[2])")
val("vmap-map", f"jax.vmap(lambda c: {N}({_IMG}, [c, c + 1], 1))(jnp.array([[0.5, 1.5], [1.2, -0.3]]))")
val("vmap-map-images", f"jax.vmap(lambda im: {N}(im, [jnp.array([0.5, 1.5])], 1, mode='nearest'))"
                       f"({_IMG})")
val("vmap-trapezoid", f"jax.vmap({TR})({_A})")
val("vmap-rgi", f"jax.vmap(lambda v: {R}({_G}, v)({_Q}))(jnp.stack([{_A}[:3, :4], {_A}[2:, 2:]]))")
val("vmap-vq", f"jax.vmap(lambda o: {VQ}(o, {_BOOK})[1])({_OBS}[:, None, :])")
val("grad-convolve", f"jax.grad(lambda a: {S}.convolve(a, {_B}, 'same')[1, 2])({_A})")
val("grad-convolve-kernel", f"jax.grad(lambda b: ({S}.convolve({_A}, b) ** 2).sum())({_B})")
val("grad-correlate2d", f"jax.grad(lambda b: {S}.correlate2d({_A}, b, 'valid').sum())({_B})")
val("grad-fftconvolve", f"jax.grad(lambda a: ({S}.fftconvolve(a, {_B}, 'same') ** 2).sum())({_A})")
val("grad-detrend", f"jax.grad(lambda x: ({S}.detrend(x, bp=[20]) ** 2).sum())({_X})")
val("grad-welch", f"jax.grad(lambda x: {S}.welch(x, nperseg=16)[1].sum())({_X})")
val("grad-welch-median", f"jax.grad(lambda x: {S}.welch(x, nperseg=16, average='median')[1][3])({_X})")
val("grad-stft", f"jax.grad(lambda x: jnp.abs({S}.stft(x, nperseg=16)[2]).sum())({_X})")
val("grad-istft", f"jax.grad(lambda x: ({S}.istft({S}.stft(x, nperseg=16)[2])[1] ** 2).sum())({_X})")
val("grad-map-input", f"jax.grad(lambda im: {N}(im, {_CS}, 1, mode='reflect').sum())({_IMG})")
val("grad-map-coords", f"jax.grad(lambda c: {N}({_IMG}, [c, c * 0.5], 1, mode='mirror').sum())"
                       "(jnp.array([0.3, 1.6, 2.2, -0.4]))")
val("grad-trapezoid-x", f"jax.grad(lambda x: {TR}({_V}, x))(jnp.arange(7.) ** 1.5)")
val("grad-rgi-values", f"jax.grad(lambda v: {R}({_G}, v, fill_value=None)({_Q}).sum())({_A}[:3, :4])")
val("grad-rgi-points", f"jax.grad(lambda q: {R}({_G}, {_A}[:3, :4])(q).sum())({_Q}[:4])")
val("grad-vq", f"jax.grad(lambda o: {VQ}(o, {_BOOK})[1].sum())({_OBS})")
val("rgi-leaves", f"len(jax.tree_util.tree_leaves({R}({_G}, {_A}[:3, :4])))")
val("rgi-treedef", f"jax.tree_util.tree_structure({R}({_G}, {_A}[:3, :4], method='nearest')).num_leaves")
val("rgi-tree-map", f"jax.tree_util.tree_map(lambda l: l * 2, {R}({_G}, {_A}[:3, :4]))({_Q})")

# -- printed jaxprs where JAX jits under a name
jaxpr("trapezoid", TR, _V)
jaxpr("map", f"lambda im: {N}(im, [jnp.array([0.5, 1.5])] * 2, 1)", _IMG)
jaxpr("vq", VQ, _OBS, _BOOK)
err("csd-empty-assert", f"{S}.csd(jnp.zeros((3, 0)), jnp.zeros((3, 0)), axis=0)")
