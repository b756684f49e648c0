"""NaNs born in the backward pass stop at the forward line whose derivative
made them, in the user's frame with concrete locals (eager grad, and jit via
the de-optimised replay); forward NaNs inside jit do too."""
import traceback

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp


def _f(x):
    y = jnp.sqrt(x)
    return y * 0.0


def _loss(w, x):
    diff = x - w
    z = jnp.log(diff * diff)
    return z.sum()


def _last_frame(e):
    tb = e.__traceback__
    while tb.tb_next:
        tb = tb.tb_next
    return tb


@pytest.mark.parametrize("wrap", [lambda g: g, jax.jit], ids=["eager", "jit"])
def test_gradient_nan_stops_at_forward_line(wrap):
    with jax.debug_nans(True), pytest.raises(FloatingPointError) as e:
        wrap(jax.grad(_f))(0.0)
    msg = str(e.value)
    assert msg.startswith("invalid value (nan) in the gradient of sqrt at x = 0.0 (backward pass)")
    assert "\n  equation: b:f32[] = sqrt a\n  inputs:\n    a = 0.\n" in msg
    tb = _last_frame(e.value)
    assert tb.tb_frame.f_code is _f.__code__ and tb.tb_lineno == _f.__code__.co_firstlineno + 1
    assert traceback.extract_tb(e.value.__traceback__)[-1].name == "_f"


def test_post_mortem_locals_are_concrete_arrays():
    w = jnp.array([1.0, 2.0])
    with jax.debug_nans(True), pytest.raises(FloatingPointError) as e:
        jax.jit(jax.value_and_grad(_loss))(w, jnp.array([1.0, 3.0]))
    assert str(e.value).startswith("invalid value (nan) in the gradient of log at ")
    frame = _last_frame(e.value).tb_frame
    assert frame.f_code is _loss.__code__
    diff = frame.f_locals["diff"]
    assert type(diff).__name__ == "ArrayImpl"
    np.testing.assert_array_equal(np.asarray(diff), [0.0, 1.0])
    assert float(diff[0]) == 0.0            # what `p diff[0]` does in %debug


def test_forward_nan_inside_jit_of_grad_has_concrete_locals():
    def g(x):
        y = x - 2.0
        z = jnp.log(y)
        return z.sum()

    with jax.debug_nans(True), pytest.raises(FloatingPointError) as e:
        jax.jit(jax.value_and_grad(g))(jnp.array([1.0, 3.0]))
    assert str(e.value).startswith("invalid value (nan) encountered in log")
    frame = _last_frame(e.value).tb_frame
    assert frame.f_code is g.__code__
    np.testing.assert_array_equal(np.asarray(frame.f_locals["y"]), [-1.0, 1.0])


def test_pdb_post_mortem_prints_a_concrete_local():
    import io
    import pdb
    w = jnp.array([1.0, 2.0])
    with jax.debug_nans(True), pytest.raises(FloatingPointError) as e:
        jax.jit(jax.grad(_loss))(w, jnp.array([1.0, 3.0]))
    out = io.StringIO()
    debugger = pdb.Pdb(stdin=io.StringIO("p diff[0]\np w.shape\nq\n"), stdout=out)
    debugger.reset()
    debugger.interaction(None, e.value.__traceback__)
    text = out.getvalue()
    assert "z = jnp.log(diff * diff)" in text
    assert "Array(0., dtype=float32)" in text and "(2,)" in text


def test_no_nan_no_stop():
    with jax.debug_nans(True):
        assert float(jax.jit(jax.grad(_f))(4.0)) == 0.0


def _distance(w, x):
    diff = x - w
    sq = jnp.sum(diff ** 2)
    return jnp.sqrt(sq)


@pytest.mark.parametrize("wrap", [lambda g: g, jax.jit], ids=["eager", "jit"])
def test_nan_made_on_another_line_stops_at_the_infinite_derivative(wrap):
    """The norm at 0: sqrt's derivative is inf on one line and meets the zero
    derivative of ``diff ** 2`` on the line before, where the NaN appears."""
    p = jnp.array([1.0, 3.0])
    with jax.debug_nans(True), pytest.raises(FloatingPointError) as e:
        wrap(jax.value_and_grad(_distance))(p, p)
    assert str(e.value).startswith("invalid value (nan) in the gradient of sqrt at sq = 0.0 "
                                   "(backward pass): its derivative there is inf")
    tb = _last_frame(e.value)
    assert tb.tb_frame.f_code is _distance.__code__
    assert tb.tb_lineno == _distance.__code__.co_firstlineno + 3
    np.testing.assert_array_equal(np.asarray(tb.tb_frame.f_locals["diff"]), [0.0, 0.0])


def _root(x):
    y = jnp.sqrt(x)
    return y * 2.0


@pytest.mark.parametrize("wrap", [lambda g: g, jax.jit], ids=["eager", "jit"])
def test_gradient_inf_says_so_as_nans_do(wrap):
    """With jax_debug_infs, sqrt's infinite derivative at 0 (made while
    linearizing, in sqrt's JVP rule) is reported as a NaN would be: in the
    gradient of sqrt, at the forward line."""
    with jax.debug_infs(True), pytest.raises(FloatingPointError) as e:
        wrap(jax.grad(_root))(0.0)
    assert str(e.value).startswith("invalid value (inf) in the gradient of sqrt at x = 0.0 "
                                   "(backward pass): its derivative there is inf")
    tb = _last_frame(e.value)
    assert tb.tb_frame.f_code is _root.__code__ and tb.tb_lineno == _root.__code__.co_firstlineno + 1


def test_forward_inf_and_jvp_inf_are_not_called_gradients():
    with jax.debug_infs(True), pytest.raises(FloatingPointError) as e:
        jax.grad(lambda x: jnp.log(x) * 2.0)(0.0)
    assert str(e.value).startswith("invalid value (inf) encountered in log\n")
    with jax.debug_infs(True), pytest.raises(FloatingPointError) as e:
        jax.jvp(_root, (0.0,), (1.0,))       # forward mode: no backward pass to speak of
    assert str(e.value).startswith("invalid value (inf) encountered in div\n")
