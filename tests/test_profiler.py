"""xjit.profiler: traces written where XProf and Perfetto read them, JAX's
errors for misuse, annotations, the profiler server and memory profiles."""
import gzip
import json
import pathlib
import socket

import pytest

import xjit as jax
import xjit.inspect as xi
import xjit.numpy as jnp
from xjit import profiler


def _f(a, b):
    return jnp.tanh(a @ b) + 1.0


def _events(data):
    """(plane, line, event name, stats) of every event of a ProfileData."""
    for plane in data.planes:
        for line in plane.lines:
            for e in line.events:
                yield plane.name, line.name, e.name, dict(s for s in e.stats if s[0] is not None)


def _only(pattern, run):
    found = list(run.glob(pattern))
    assert len(found) == 1, (pattern, list(run.iterdir()))
    return found[0]


def test_trace_writes_xplane_and_perfetto_files(tmp_path):
    f = jax.jit(_f)
    a = jnp.ones((64, 64))
    f(a, a).block_until_ready()
    with profiler.trace(tmp_path, create_perfetto_trace=True):
        f(a, a).block_until_ready()
    runs = list((tmp_path / "plugins" / "profile").iterdir())
    assert len(runs) == 1
    xplane = _only("*.xplane.pb", runs[0])
    assert xplane.name == f"{socket.gethostname()}.xplane.pb"
    kernels = {(name, s.get("hlo_module")) for _, _, name, s in
               _events(profiler.ProfileData.from_file(str(xplane))) if "hlo_op" in s}
    assert ("broadcast_add_fusion", "jit__f") in kernels
    with gzip.open(_only("perfetto_trace.json.gz", runs[0])) as fp:
        trace = json.load(fp)
    assert "metadata" not in trace  # Perfetto rejects it
    names = {e.get("name") for e in trace["traceEvents"]}
    assert "broadcast_add_fusion" in names


def test_start_stop_trace_and_jax_errors(tmp_path):
    profiler.start_trace(str(tmp_path))
    try:
        with pytest.raises(RuntimeError) as e:
            profiler.start_trace(str(tmp_path))
        assert str(e.value) == ("Profile has already been started. "
                                "Only one profile may be run at a time.")
        with pytest.raises(RuntimeError, match="Profile has already been started"):
            xi.device_profile(lambda x: x + 1, 1.0)
    finally:
        profiler.stop_trace()
    with pytest.raises(RuntimeError) as e:
        profiler.stop_trace()
    assert str(e.value) == "No profile started"
    profiler.start_trace(pathlib.Path(tmp_path) / "again")  # usable again, PathLike accepted
    profiler.stop_trace()
    assert list((tmp_path / "again" / "plugins" / "profile").glob("*/*.xplane.pb"))


def test_annotations_appear_in_the_trace(tmp_path):
    @profiler.annotate_function
    def annotated(x):
        return x * 2

    assert annotated.__name__ == "annotated"
    with profiler.trace(tmp_path):
        with profiler.TraceAnnotation("my_label", detail=1):
            assert annotated(21) == 42
        with profiler.StepTraceAnnotation("train", step_num=7):
            pass
        named = profiler.annotate_function(lambda: 3, name="custom_event")
        assert named() == 3
    xplane = next(tmp_path.glob("plugins/profile/*/*.xplane.pb"))
    names = {n for _, _, n, _ in _events(profiler.ProfileData.from_file(str(xplane)))}
    assert {"my_label", "custom_event", "train"} <= names
    assert any(n.endswith("annotated") for n in names)


def test_profiler_server_start_stop():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = profiler.start_server(port)
    try:
        assert server is not None
        with pytest.raises(ValueError, match="^Only one profiler server can be active at a time.$"):
            profiler.start_server(port)
    finally:
        profiler.stop_server()
    with pytest.raises(ValueError, match="^No active profiler server.$"):
        profiler.stop_server()


def _varints(buf):
    """Decode the top-level (field, wire type, value) of a protobuf message."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 2:
            n, i = _varint(buf, i)
            value, i = buf[i:i + n], i + n
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        yield field, wire, value


def _varint(buf, i):
    out = shift = 0
    while True:
        b = buf[i]
        i += 1
        out |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return out, i


def test_device_memory_profile_is_gzipped_pprof_with_live_buffers(tmp_path):
    big = jnp.zeros((1000, 1000), jnp.float32)  # 4,000,000 bytes
    raw = gzip.decompress(profiler.device_memory_profile())
    fields = list(_varints(raw))
    strings = [v.decode() for f, _, v in fields if f == 6]  # Profile.string_table
    assert "" == strings[0] and "space" in strings and "bytes" in strings
    sample_values = []
    for f, _, sample in fields:
        if f == 2:  # Profile.sample: its packed values (field 2)
            for sf, _, v in _varints(sample):
                if sf == 2:
                    vals, i = [], 0
                    while i < len(v):
                        x, i = _varint(v, i)
                        vals.append(x)
                    sample_values.append(vals)
    assert any(4_000_000 in vals for vals in sample_values)
    path = tmp_path / "memory.prof"
    profiler.save_device_memory_profile(str(path))
    assert gzip.decompress(path.read_bytes())[:2] == raw[:2]
    del big
    with pytest.raises(RuntimeError) as e:
        profiler.device_memory_profile("rocm")
    assert str(e.value).startswith("Unknown backend rocm. Available backends are [")  # JAX's
    assert "'cpu'" in str(e.value)


@pytest.mark.compare
def test_public_names_match_jax():
    import jax as real_jax
    import jax.profiler  # noqa: F401
    theirs = {n for n in dir(real_jax.profiler) if not n.startswith("_")}
    ours = {n for n in dir(profiler) if not n.startswith("_")}
    assert theirs <= ours, theirs - ours


def test_trace_calls_during_an_in_process_profile():
    """While device_profile's session runs, start_trace fails as during a
    trace and stop_trace finds no trace of the user's; a failing run
    releases the session."""
    from xjit._src.profiler import collect_xspace
    seen = []

    def run():
        with pytest.raises(RuntimeError, match="^Profile has already been started"):
            profiler.start_trace("/nonexistent")
        with pytest.raises(RuntimeError, match="^No profile started$"):
            profiler.stop_trace()
        seen.append(True)
        raise KeyError("boom")

    with pytest.raises(KeyError):
        collect_xspace(run)
    assert seen == [True]
    assert isinstance(collect_xspace(lambda: None), bytes)  # released


def test_perfetto_link_serves_the_trace_until_fetched(tmp_path, capsys):
    import threading
    import time
    import urllib.request
    profiler.start_trace(tmp_path, create_perfetto_link=True)
    jax.jit(_f)(jnp.ones((4, 4)), jnp.ones((4, 4))).block_until_ready()
    done = threading.Thread(target=profiler.stop_trace)
    done.start()
    body = None
    for _ in range(200):
        try:
            with urllib.request.urlopen("http://127.0.0.1:9001/perfetto_trace.json.gz",
                                        timeout=5) as r:
                assert r.headers["Access-Control-Allow-Origin"] == "*"
                body = r.read()
            break
        except OSError:
            time.sleep(0.05)
    done.join(30)
    assert not done.is_alive() and body is not None
    assert "traceEvents" in json.loads(gzip.decompress(body))
    assert ("Open URL in browser: https://ui.perfetto.dev/#!/?url=http://127.0.0.1:9001/"
            "perfetto_trace.json.gz") in capsys.readouterr().out
