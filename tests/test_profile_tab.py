"""``%%xjit --profile``: a Profile tab with device time per source line of
the user's cell and per kernel, in the static HTML (no script) and in the
plain-text twin; absent without the flag."""
import gzip
import json
import os
import re

import pytest

IPython = pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

CELL = ("@jax.jit\n"
        "def layer(w, x):\n"
        "    y = x @ w\n"
        "    return jnp.tanh(y)\n")


@pytest.fixture(scope="module")
def ip(tmp_path_factory):
    """A shell working in a fresh folder (the notebook's): profiles are
    written under its .xjit/profiles/."""
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("notebook"))
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "xjit")
    shell.run_cell("import xjit as jax, xjit.numpy as jnp\n" + CELL)
    yield shell
    os.chdir(cwd)


def _panel(ip, name):
    return ip.magics_manager.registry["XjitMagics"].panels[name]


def _run(ip, cell):
    r = ip.run_cell(cell)
    assert r.error_in_exec is None, r.error_in_exec


def test_no_profile_tab_without_the_flag(ip):
    _run(ip, "%%xjit --quiet --repeat 2\nlayer(jnp.ones((64, 64)), jnp.ones((32, 64)));")
    p = _panel(ip, "layer")
    assert p.data.profile is None and not p.data.profiled
    bundle = p._repr_mimebundle_()
    assert ">Profile</label>" not in bundle["text/html"]
    assert "-- Profile --" not in bundle["text/plain"]
    assert bundle["text/html"].count('type="radio"') == 3


def test_profile_tab_names_the_lines_of_a_matmul_and_tanh(ip):
    _run(ip, "%%xjit --quiet --profile --repeat 3\n"
             "@jax.jit\n"
             "def dense(w, x):\n"
             "    y = x @ w\n"
             "    return jnp.tanh(y)\n"
             "dense(jnp.ones((128, 128)), jnp.ones((64, 128)));")
    p = _panel(ip, "dense")
    prof = p.data.profile
    assert prof is not None, p.data.profile_note
    # lines 4 (x @ w) and 5 (tanh) of the %%xjit cell, which is where dense lives
    lines = {(r.lineno, r.source) for r in prof.lines if r.filename == p.data.filename}
    assert (4, "y = x @ w") in lines and (5, "return jnp.tanh(y)") in lines
    assert sum(r.share for r in prof.lines) == pytest.approx(1.0, abs=0.01)
    assert sum(o.share for o in prof.ops) == pytest.approx(1.0, abs=0.01)
    # profiling re-ran the executable directly: the user's statistics are untouched
    assert (p.data.timing.calls, p.data.timing.cache_misses) == (1, 1)

    bundle = p._repr_mimebundle_()
    html, text = bundle["text/html"], bundle["text/plain"]
    assert html.count('type="radio"') == 4 and ">Profile</label>" in html
    assert re.search(r'id="[^"]+-profile" checked>', html) and html.count(" checked") == 1
    assert "<script" not in html.lower()
    section = html.split('class="xjit-tab xjit-tab-profile"', 1)[1]
    # rows of the lines table carry click-to-line attributes for both lines
    for n in (4, 5):
        assert re.search(rf'<tr data-xjit-file="[^"]+" data-xjit-line="{n}"', section)
    assert "y = x @ w" in section and "return jnp.tanh(y)" in section
    shown = [float(s) for s in re.findall(r"<td class='num'>([\d.]+)%</td>",
                                          section.split("Top kernels")[0])]
    assert sum(shown) == pytest.approx(100.0, abs=1.0)
    assert "Top kernels" in section and "dot_general#" in section
    assert re.search(r'class="xjit-eqn" data-xjit-file="[^"]+" data-xjit-line="[45]"', section)
    # the plain-text twin holds the same lines
    assert "-- Profile --" in text and "y = x @ w" in text and "return jnp.tanh(y)" in text


def test_the_tab_offers_the_perfetto_trace_it_wrote(ip):
    """The profile is written where the tab says, under the notebook's
    .xjit/profiles/<function>/ as XProf lays out a run; the Perfetto file
    parses and holds the profiled kernels; the tab links to ui.perfetto.dev
    and says how to open the file."""
    _run(ip, "%%xjit --quiet --profile --repeat 2\n"
             "@jax.jit\n"
             "def traced(w, x):\n"
             "    return jnp.tanh(x @ w)\n"
             "traced(jnp.ones((32, 32)), jnp.ones((8, 32)));")
    p = _panel(ip, "traced")
    path = p.data.perfetto_trace
    assert re.fullmatch(r"\.xjit/profiles/traced/plugins/profile/[^/]+/perfetto_trace\.json\.gz", path)
    run = os.path.dirname(path)
    assert any(f.endswith(".xplane.pb") for f in os.listdir(run))
    with gzip.open(path) as fp:
        events = json.load(fp)["traceEvents"]
    names = {e.get("name") for e in events}
    assert {o.name for o in p.data.profile.ops} <= names
    section = p.html().split('class="xjit-tab xjit-tab-profile"', 1)[1]
    assert f"Perfetto trace: {path}." in section
    assert '<a href="https://ui.perfetto.dev" target="_blank"' in section
    assert "Open trace file" in section and "<script" not in section.lower()
    assert f"Perfetto trace: {path}. To see it on a timeline, open https://ui.perfetto.dev" in p.text()


def test_the_tab_goes_away_with_a_cell_without_the_flag(ip):
    _run(ip, "%%xjit --quiet --profile --repeat 2\nlayer(jnp.ones((16, 16)), jnp.ones((8, 16)));")
    p = _panel(ip, "layer")
    assert p.data.profile is not None
    _run(ip, "%%xjit --quiet --repeat 2\nlayer(jnp.ones((16, 16)), jnp.ones((8, 16)));")
    assert _panel(ip, "layer") is p and not p.data.profiled
    assert ">Profile</label>" not in p.html()


def test_a_function_that_is_not_re_run_says_why_in_its_tab(ip):
    _run(ip, "%%xjit --quiet --profile --repeat 2\n"
             "@jax.jit\n"
             "def countdown(n):\n"
             "    return jax.lax.while_loop(lambda c: c > 0, lambda c: c - 1, n)\n"
             "countdown(5);")
    p = _panel(ip, "countdown")
    assert p.data.profile is None and "while loop" in p.data.profile_note
    section = p.html().split('class="xjit-tab xjit-tab-profile"', 1)[1]
    assert "while loop" in section
    assert "-- Profile --\n(not re-run: a while loop" in p.text()


def test_user_strings_in_the_profile_tab_are_escaped(tmp_path):
    import xjit.inspect as xi
    from xjit_widgets import FunctionPanel, PanelData, Timing
    src = tmp_path / "evil<b>.py"
    src.write_text("def f(x):\n    return x  # <script>alert(1)</script>\n")
    line = xi.LineTime(str(src), 2, "f", 1e-3, 1.0, ("mul#0",))
    eqn = xi.EqnTime(0, "mul", "jit(f)", str(src), 2, "f", 1e-3, 1.0, ("fusion<i>",))
    op = xi.OpTime("fusion<i>", "fusion", 1e-3, 1.0, 1, ("mul#0",))
    prof = xi.DeviceProfile("f", "m", "cpu", 1, 1e-3, 1e-3, 2e-3, [op], [eqn], [line], b"")
    data = PanelData("f", str(src), 1, None, None, Timing({}, None), profile=prof)
    html = FunctionPanel(data).html()
    assert "<script" not in html and "<b>" not in html and "<i>fusion" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "fusion&lt;i&gt;" in html
    assert 'data-xjit-file="' + str(tmp_path) + '/evil&lt;b&gt;.py" data-xjit-line="2"' in html


def test_lines_read_in_file_order_with_context_and_gaps(tmp_path):
    import xjit.inspect as xi
    from xjit_widgets.profile import profile_html, profile_text
    from xjit_widgets.render import short_file
    src = tmp_path / "model.py"
    src.write_text("".join(f"line{i}\n" for i in range(1, 11)))
    lines = [xi.LineTime(str(src), 8, "f", 6e-3, 0.6, ("dot_general#1",)),
             xi.LineTime(str(src), 2, "f", 3e-3, 0.3, ("tanh#0",)),
             xi.LineTime(None, None, None, 1e-3, 0.1, ("(unattributed)",))]
    prof = xi.DeviceProfile("f", "m", "cpu", 2, 1e-2, 1e-2, 2e-2, [], [], lines, b"")
    text = profile_text(prof, short_file).splitlines()
    body = text[2:text.index("Top kernels:")]
    assert [ln.split()[-1] for ln in body[:-1]] == ["line1", "line2", "line3", "⋮", "line7",
                                                     "line8", "line9"]
    assert body[1].split()[:3] == ["3", "ms", "30.0%"] and body[0].split()[0] == "model.py:1"
    assert body[-1].split() == ["1", "ms", "10.0%", "(no", "source", "line)"]
    html = profile_html(prof, short_file)
    assert html.count("data-xjit-line=") == 6 and html.count("⋮") == 1
    assert "width:60.0%" in html and "width:30.0%" in html


def _dense(w, x):
    import xjit.numpy as jnp
    return jnp.tanh(x @ w)


def test_profiled_runs_go_to_the_sidebar_as_device_events():
    """The runs of a profile reach the sidebar's timeline as ``device``
    events (a lane under the function's), placed in Unix time."""
    import time
    import xjit.inspect as xi
    import xjit.numpy as jnp
    from xjit_kernel_ext import XjitChannel, protocol

    class Comm:
        def __init__(self):
            self.sent = []

        def send(self, data):
            self.sent.append(protocol.validate_outgoing(data))

        on_msg = on_close = lambda self, cb: None

    t0 = time.time()
    prof = xi.device_profile(_dense, jnp.ones((64, 64)), jnp.ones((32, 64)), repeat=3)
    assert len(prof.run_spans) == 3
    assert all(t0 <= s <= e <= time.time() for s, e, _ in prof.run_spans)
    assert sum(b for *_, b in prof.run_spans) / 3 == pytest.approx(prof.device_s, rel=1e-6)
    comm = Comm()
    ch = XjitChannel(comm_manager=False)
    ch.attach(comm)
    ch.publish_device(7, "dense_fn", prof)
    assert ch.flush()
    batch = comm.sent[-1]
    device = [e for e in batch["events"] if e["kind"] == "device"]
    assert [e["time"] for e in device] == pytest.approx([e for _, e, _ in prof.run_spans])
    assert [e["duration_s"] for e in device] == pytest.approx([e - s for s, e, _ in prof.run_spans])
    assert [e["details"]["device_s"] for e in device] == [b for *_, b in prof.run_spans]
    assert {(e["fun_id"], e["fun_name"]) for e in device} == {(7, "dense_fn")}
    top = prof.lines[0]
    assert device[0]["location"]["lineno"] == top.lineno
    assert device[0]["details"]["note"].endswith(top.source)
    # a state snapshot (a panel attaching later) carries them too
    assert sum(e["kind"] == "device" for e in ch.state()["events"]) == 3
