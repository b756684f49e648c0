"""jax_traceback_filtering: no xjit frame in the traceback by default (shape,
tracer and NaN errors alike), JAX's closing note, and JAX's other modes."""
import os
import traceback

import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import errors

XJIT_DIR = os.path.dirname(jax.__file__)
NOTE = ("--------------------\nFor simplicity, JAX has removed its internal frames from the "
        "traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.")


@pytest.fixture(autouse=True)
def _outside_ipython(monkeypatch):
    # "auto" means tracebackhide under IPython and quiet_remove_frames outside
    # it; earlier tests may leave an IPython shell in this process, so these
    # tests pin the plain-Python case.
    from xjit._src import traceback_util
    monkeypatch.setattr(traceback_util, "_running_under_ipython", lambda: False)


def _shape_error(x):
    return jnp.ones(3) + jnp.ones(4)


def _tracer_error(x):
    if x > 0:
        return x
    return -x


def _nan(x):
    y = jnp.log(x)
    return y


def _files(e):
    return [fr.filename for fr in traceback.extract_tb(e.__traceback__)]


@pytest.mark.parametrize("call", [
    lambda: jax.jit(_shape_error)(1.0),
    lambda: jax.grad(lambda x: _shape_error(x).sum())(1.0),
    lambda: jax.vmap(_shape_error)(jnp.ones(2)),
    lambda: jax.jit(_tracer_error)(1.0),
], ids=["jit-shape", "grad-shape", "vmap-shape", "jit-tracer"])
def test_default_shows_no_xjit_frames(call):
    with pytest.raises((TypeError, errors.TracerBoolConversionError)) as e:
        call()
    files = _files(e.value)
    assert not [f for f in files if f.startswith(XJIT_DIR)], files
    assert files[-1] == __file__
    assert e.value.__notes__[-1] == NOTE


def test_nan_error_has_no_xjit_frames():
    with jax.debug_nans(True), pytest.raises(FloatingPointError) as e:
        jax.jit(_nan)(-1.0)
    files = _files(e.value)
    assert not [f for f in files if f.startswith(XJIT_DIR)], files
    last = traceback.extract_tb(e.value.__traceback__)[-1]
    assert (last.name, last.lineno) == ("_nan", _nan.__code__.co_firstlineno + 1)


def test_off_keeps_every_frame_and_adds_no_note():
    with jax.config.override("jax_traceback_filtering", "off"), pytest.raises(TypeError) as e:
        jax.jit(_shape_error)(1.0)
    assert any(f.startswith(XJIT_DIR) for f in _files(e.value))
    assert not getattr(e.value, "__notes__", None)


def test_remove_frames_keeps_the_full_traceback_as_cause():
    with jax.config.override("jax_traceback_filtering", "remove_frames"), \
            pytest.raises(TypeError) as e:
        jax.jit(_shape_error)(1.0)
    assert not [f for f in _files(e.value) if f.startswith(XJIT_DIR)]
    cause = e.value.__cause__
    assert type(cause).__name__ == "UnfilteredStackTrace"
    assert str(cause).endswith("The stack trace below excludes JAX-internal frames.\nThe "
                               "preceding is the original exception that occurred, unmodified."
                               "\n\n--------------------")
    assert any(f.startswith(XJIT_DIR) for f in _files(cause))


def test_tracebackhide_marks_hidden_frames():
    with jax.config.override("jax_traceback_filtering", "tracebackhide"), \
            pytest.raises(TypeError) as e:
        jax.jit(_shape_error)(1.0)
    hidden = [f.f_locals.get("__tracebackhide__") for f, _ in traceback.walk_tb(e.value.__traceback__)
              if f.f_code.co_filename.startswith(XJIT_DIR)]
    assert hidden and all(hidden)


def test_invalid_mode_is_rejected():
    with pytest.raises(ValueError, match="new enum value must be in"):
        jax.config.update("jax_traceback_filtering", "sometimes")


def test_register_exclusion_hides_a_library(tmp_path):
    """A library that registers its directory is treated as xjit is: its frames
    leave tracebacks and its lines are never blamed for equations."""
    import importlib.util
    from xjit._src import traceback_util
    lib = tmp_path / "fake_lib"
    lib.mkdir()
    (lib / "mod.py").write_text("import xjit.numpy as jnp\n"
                                "def layer(x):\n"
                                "    return jnp.ones(3) + jnp.ones(4) if x is None else jnp.sin(x)\n")
    spec = importlib.util.spec_from_file_location("fake_lib_mod", lib / "mod.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    traceback_util.register_exclusion(str(lib))

    def user(x):
        return mod.layer(x)

    closed = jax.make_jaxpr(user)(1.0)
    assert closed.jaxpr.eqns[0].source_info.lineno == user.__code__.co_firstlineno + 1
    with pytest.raises(TypeError) as e:
        jax.jit(lambda x: mod.layer(None))(1.0)
    assert not [f for f in _files(e.value) if f.startswith(str(lib))]


def test_monitoring_records_jit_durations():
    from xjit import monitoring
    seen = []

    def listener(event, duration, **kw):
        seen.append((event, kw.get("fun_name")))

    monitoring.register_event_duration_secs_listener(listener)
    try:
        def fresh(x):
            return x * 5
        jax.jit(fresh)(1.0)
    finally:
        monitoring.unregister_event_duration_listener(listener)
    assert [e for e, n in seen if n == "fresh"] == [
        "/jax/core/compile/jaxpr_trace_duration", "/jax/core/compile/jaxpr_to_mlir_module_duration",
        "/jax/core/compile/backend_compile_duration"]
    events = []
    monitoring.register_event_listener(lambda ev, **kw: events.append((ev, kw)))
    monitoring.record_event("/my/event", k=1)
    monitoring.clear_event_listeners()
    monitoring.record_event("/my/event")
    assert events == [("/my/event", {"k": 1})]
