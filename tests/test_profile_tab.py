"""``%%xjit --profile``: a Profile tab with device time per source line of
the user's cell and per kernel, in the static HTML (no script) and in the
plain-text twin; absent without the flag."""
import re

import pytest

IPython = pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

CELL = ("@jax.jit\n"
        "def layer(w, x):\n"
        "    y = x @ w\n"
        "    return jnp.tanh(y)\n")


@pytest.fixture(scope="module")
def ip():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "xjit")
    shell.run_cell("import xjit as jax, xjit.numpy as jnp\n" + CELL)
    return shell


def _panel(ip, name):
    return ip.magics_manager.registry["XjitMagics"].panels[name]


def _run(ip, cell):
    r = ip.run_cell(cell)
    assert r.error_in_exec is None, r.error_in_exec


def test_no_profile_tab_without_the_flag(ip):
    _run(ip, "%%xjit --quiet --repeat 2\nlayer(jnp.ones((64, 64)), jnp.ones((32, 64)))")
    p = _panel(ip, "layer")
    assert p.data.profile is None and not p.data.profiled
    bundle = p._repr_mimebundle_()
    assert ">Profile</label>" not in bundle["text/html"]
    assert "-- Profile --" not in bundle["text/plain"]
    assert bundle["text/html"].count('type="radio"') == 3


def test_profile_tab_names_the_lines_of_a_matmul_and_tanh(ip):
    _run(ip, "%%xjit --quiet --profile --repeat 3\n"
             "layer(jnp.ones((128, 128)), jnp.ones((64, 128)))")
    p = _panel(ip, "layer")
    prof = p.data.profile
    assert prof is not None, p.data.profile_note
    # the function was defined in the fixture's cell: lines 3 (x @ w) and 4 (tanh) of it
    lines = {(r.lineno, r.source) for r in prof.lines if r.filename == p.data.filename}
    assert (3, "y = x @ w") in lines and (4, "return jnp.tanh(y)") in lines
    assert sum(r.share for r in prof.lines) == pytest.approx(1.0, abs=0.01)
    assert sum(o.share for o in prof.ops) == pytest.approx(1.0, abs=0.01)

    bundle = p._repr_mimebundle_()
    html, text = bundle["text/html"], bundle["text/plain"]
    assert html.count('type="radio"') == 4 and ">Profile</label>" in html
    assert "<script" not in html.lower()
    section = html.split('class="xjit-tab xjit-tab-profile"', 1)[1]
    # rows of the lines table carry click-to-line attributes for both lines
    for n in (3, 4):
        assert re.search(rf'<tr data-xjit-file="[^"]+" data-xjit-line="{n}"', section)
    assert "y = x @ w" in section and "return jnp.tanh(y)" in section
    shown = [float(s) for s in re.findall(r"<td class='num'>([\d.]+)%</td>",
                                          section.split("Top kernels")[0])]
    assert sum(shown) == pytest.approx(100.0, abs=1.0)
    assert "Top kernels" in section and "dot_general#" in section
    assert re.search(r'class="xjit-eqn" data-xjit-file="[^"]+" data-xjit-line="[34]"', section)
    # the plain-text twin holds the same lines
    assert "-- Profile --" in text and "y = x @ w" in text and "return jnp.tanh(y)" in text


def test_the_tab_goes_away_with_a_cell_without_the_flag(ip):
    _run(ip, "%%xjit --quiet --profile --repeat 2\nlayer(jnp.ones((16, 16)), jnp.ones((8, 16)))")
    p = _panel(ip, "layer")
    assert p.data.profile is not None
    _run(ip, "%%xjit --quiet --repeat 2\nlayer(jnp.ones((16, 16)), jnp.ones((8, 16)))")
    assert _panel(ip, "layer") is p and not p.data.profiled
    assert ">Profile</label>" not in p.html()
