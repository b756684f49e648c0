"""The notebook layer in a real IPython shell: %%xjit panels (their data,
the static text/html and text/plain outputs, caching across cells), cell
labels, %xjit_time, escaping, and %debug landing in the user's frame."""
import os
import subprocess
import sys

import pytest

IPython = pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402


@pytest.fixture(scope="module")
def ip():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "xjit")
    shell.run_cell("import xjit as jax, xjit.numpy as jnp\n"
                   "G = 2.0\n"
                   "scale = 3.0\n"
                   "@jax.jit\n"
                   "def unrolled(x):\n"
                   "    for i in range(30):\n"
                   "        x = x * scale + i\n"
                   "    return x\n"
                   "@jax.jit\n"
                   "def clean(x):\n"
                   "    return jax.numpy.sin(x) * G\n")
    return shell


def _panels(ip):
    return ip.magics_manager.registry["XjitMagics"].panels


def test_cell_runs_as_usual_and_collects_panels(ip, capsys):
    r = ip.run_cell("%%xjit --repeat 2\nprint('hello')\ny = unrolled(jnp.ones(3))\nclean(y)")
    assert r.error_in_exec is None
    out = capsys.readouterr().out
    assert "hello" in out
    panels = _panels(ip)
    assert {"unrolled", "clean"} <= set(panels)
    p = panels["unrolled"]
    kinds = {f.kind for f in p.data.findings}
    assert kinds == {"unrolled-loop", "global-read"}
    assert p.data.timing.cache_misses >= 1
    assert p.data.timing.first["compile"] > 0 and p.data.timing.first["trace"] > 0
    assert p.data.timing.steady_s > 0
    assert p.data.listing.eqns[0].text == "b:f32[3] = mul a 3.0:f32[]"
    assert p.data.listing.eqns[0].lineno == 7


def test_no_false_positives_on_a_clean_function(ip):
    ip.run_cell("%%xjit --quiet\nclean(jnp.arange(4.0))")
    assert _panels(ip)["clean"].data.findings == []


def test_panel_output_is_static_html_with_three_tabs(ip):
    ip.run_cell("%%xjit --quiet\nunrolled(jnp.ones(2))")
    p = _panels(ip)["unrolled"]
    bundle = p._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}  # no widget model to restore
    html = bundle["text/html"]
    assert html.count('type="radio"') == 3 and html.count(" checked") == 1
    for name in ("Jaxpr", "Lint", "Timing"):
        assert f">{name}</label>" in html
    assert "unrolled-loop" in html and "<svg" in html and "<script" not in html


def test_an_already_compiled_cell_reuses_its_panel(ip):
    ip.run_cell("%%xjit --quiet\nclean(jnp.ones(7))")
    p1 = _panels(ip)["clean"]
    listing, findings, calls = p1.data.listing, p1.data.findings, p1.data.timing.calls
    ip.run_cell("%%xjit --quiet\nclean(jnp.ones(7))\nclean(jnp.ones(7))")
    p2 = _panels(ip)["clean"]
    assert p2 is p1 and p2.data.listing is listing and p2.data.findings is findings
    assert p2.data.timing.calls == calls + 2
    ip.run_cell("%%xjit --quiet\nclean(jnp.ones(8))")  # a new signature: a new panel
    p3 = _panels(ip)["clean"]
    assert p3 is not p1 and "f32[8]" in p3.data.listing.header


def test_code_in_an_xjit_cell_is_labelled_with_that_cell(ip):
    r = ip.run_cell("%%xjit --quiet --no-lint\n@jax.jit\ndef here(x):\n    return x * 2.0\n"
                    "here(1.0)")
    p = _panels(ip)["here"]
    assert p.data.cell_label(p.data.filename) == f"In [{r.execution_count}]"
    assert p.data.lineno == 2 and p.data.listing.eqns[0].lineno == 4
    assert f"here (In [{r.execution_count}], line 2)" == p.title()


def test_text_and_html_fallbacks_carry_the_same_information(ip):
    ip.run_cell("%%xjit --quiet\nunrolled(jnp.ones(2))")
    p = _panels(ip)["unrolled"]
    bundle = p._repr_mimebundle_()
    text, html = bundle["text/plain"], bundle["text/html"] if "text/html" in bundle else p.html()
    for needle in ("unrolled", "unrolled-loop", "global-read", "compile (first call)"):
        assert needle in text
    assert "unrolled-loop" in p.html() and "compile (first call)" in p.html()
    assert text.count("= mul") == 30


def test_user_strings_are_escaped():
    from xjit_widgets import FunctionPanel, PanelData, Timing
    import xjit.inspect as xi
    evil = "<img src=x onerror=alert(1)>"
    finding = xi.Finding("print", f"printed {evil}", evil, 3, f"do not {evil}")
    panel = FunctionPanel(PanelData(evil, evil, 1, None, [finding], Timing({}, None, reasons=[evil])))
    html = panel.html()
    assert "<img" not in html
    assert html.count("&lt;img src=x onerror=alert(1)&gt;") >= 4


def test_unknown_option_is_a_clear_error(ip):
    r = ip.run_cell("%%xjit --frobnicate\n1")
    assert isinstance(r.error_in_exec, ValueError)
    assert "--frobnicate" in str(r.error_in_exec)


def test_nan_traceback_ends_in_the_user_frame(ip):
    ip.run_cell("def h(x, y):\n    z = x * 2\n    return jnp.log(z - y)\nhj = jax.jit(h)")
    r = ip.run_cell("%%xjit --nans\nhj(1.0, 5.0)")
    assert isinstance(r.error_in_exec, FloatingPointError)
    assert str(r.error_in_exec).startswith("invalid value (nan) encountered in log")
    tb = sys.last_traceback
    while tb.tb_next:
        tb = tb.tb_next
    assert tb.tb_frame.f_code.co_name == "h"
    assert tb.tb_frame.f_locals["z"] == 2.0


def test_xjit_time_and_jaxpr_magics(ip, capsys):
    import re
    ip.run_line_magic("xjit_time", "-n 3 -r 4 unrolled(jnp.ones(5))")
    out = capsys.readouterr().out
    assert re.search(r"first call: [0-9.]+ (ms|s)\n  unrolled: trace [0-9.]+ [µm]?s, lower .*, "
                     r"compile .*, transfer .*, run ", out), out
    assert re.search(r"[0-9.]+ [nµm]?s ± [0-9.]+ [nµm]?s per loop \(mean ± std. dev. of 4 runs, "
                     r"3 loops each\)", out), out
    with pytest.raises(ValueError, match="-n takes a positive integer"):
        ip.run_line_magic("xjit_time", "-n 0 unrolled(jnp.ones(5))")
    ip.run_line_magic("xjit_jaxpr", "clean(jnp.ones(2))")
    with pytest.raises(KeyError, match="known"):
        ip.run_line_magic("xjit_show", "nosuchfunction")


def test_debug_magic_opens_the_users_frame_in_a_real_ipython():
    script = "\n".join([
        "%load_ext xjit",
        "import xjit as jax, xjit.numpy as jnp",
        'exec("def f(x, y):\\n    z = x * 2\\n    return jnp.log(z - y)\\n")',
        "g = jax.jit(f)",
        "get_ipython().run_cell_magic('xjit', '--nans', 'out = g(1.0, 5.0)')",
        "%debug",
        "p ('LOCALS', x, y, z)",
        "q",
        "print('done')",
    ]) + "\n"
    ipython = os.path.join(os.path.dirname(sys.executable), "ipython")
    proc = subprocess.run([ipython, "--simple-prompt", "--colors=NoColor"], input=script,
                          capture_output=True, text=True, timeout=300)
    assert "invalid value (nan) encountered in log" in proc.stdout
    assert "('LOCALS', 1.0, 5.0, 2.0)" in proc.stdout
    assert "done" in proc.stdout


def test_ten_thousand_equation_jaxpr_renders_fast_and_folded():
    import time
    import xjit as jax
    import xjit.inspect as xi
    from xjit_widgets import render

    def big(x):
        for i in range(5000):
            x = x * 1.0001 + 0.5
        return x

    closed = jax.make_jaxpr(big)(1.0)
    cpu = time.process_time()
    listing = xi.listing(closed)
    cpu = time.process_time() - cpu
    assert len(listing.eqns) == 10000
    assert cpu < 0.5, f"{cpu / 10:.3f} ms per equation"  # the sidebar lists every equation
    t0 = time.perf_counter()
    html = render.jaxpr_html(listing)
    assert time.perf_counter() - t0 < 1.0
    assert html.count("<summary>") == 1 and "10000 equations from" in html
    # the notebook output stays small: the fold shows its first equations
    assert html.count('class="eq ') == render.FOLD_SHOW and len(html) < 100_000
    assert f"… {10000 - render.FOLD_SHOW} more equations from this line" in html


def test_listing_prints_each_equation_as_the_whole_jaxpr_does():
    """One-line equations skip the document printer: their text, names and
    types are what printing the equation in its jaxpr gives, for literals,
    params, results nobody reads, equations that wrap past 80 columns and
    equations holding sub-jaxprs (an inlined jit names its results after
    its body's)."""
    import xjit as jax
    import xjit.inspect as xi
    import xjit.numpy as jnp
    from xjit import lax
    from xjit._src.pretty import Context, pp_eqn, render

    def f(x, w):
        a, _, c = jnp.split(x, 3)
        y = jnp.where(a > 0, a, 0.5) + c.astype(jnp.int32)
        z = lax.conv_general_dilated(w, w, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))
        loop = lax.fori_loop(0, 3, lambda i, v: v * 1.5 + i, y)
        return jax.grad(lambda v: jnp.sum(jnp.sin(v) ** 2))(loop), z, jnp.argsort(x)

    closed = jax.make_jaxpr(f)(jnp.arange(6.0), jnp.ones((1, 1, 3, 3)))
    lst = xi.listing(closed)
    ctx = Context()
    for v in closed.jaxpr.invars:
        ctx.name(v)
    expected = [render(pp_eqn(e, ctx)) for e in closed.jaxpr.eqns]
    assert [e.text for e in lst.eqns] == expected
    assert any("\n" in t for t in expected) and any(e.nested for e in lst.eqns)
    assert any(":f32[] " in t or t.endswith(":f32[]") for t in expected)  # a literal operand
    first = lst.eqns[0]
    assert first.outvars == [(name, "f32[2]") for name in first.text.split(" = ")[0].replace(
        ":f32[2]", "").split()] and first.invars == [("a", "f32[6]")]
    assert lst.text == str(closed)
    # a listing kept by a panel does not keep the jaxpr (and its constants) alive
    import gc
    import weakref
    lst = xi.listing(closed)
    ref = weakref.ref(closed)
    del closed
    gc.collect()
    assert ref() is None
    assert lst.text.startswith(lst.header + "\n    ") and lst.text.endswith("\n  " + lst.footer)


def test_timing_tab_shows_compile_history_and_the_recompile_budget(ip):
    import warnings
    ip.run_cell("@jax.jit\ndef reshaped(x):\n    return x.sum()")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _budget(2):
            r = ip.run_cell("%%xjit --quiet --no-lint\nfor n in range(1, 5):\n"
                            "    reshaped(jnp.ones(n))")
    assert r.error_in_exec is None
    t = _panels(ip)["reshaped"].data.timing
    assert [(n, sig) for n, sig, _ in t.history] == [(n, f"x: f32[{n}]") for n in range(1, 5)]
    assert t.history[0][2] == "first compile" and "f32[2]" in t.history[1][2]
    assert "recompiled" in t.budget_warning and "x (shape)" in t.budget_warning
    html = _panels(ip)["reshaped"].timing_html()
    assert "<caption>compiles</caption>" in html and html.count("<tr><td>") >= 4
    assert "class=warn><td>recompile budget</td>" in html
    text = _panels(ip)["reshaped"].text()
    assert "recompile budget" in text and "f32[4]" in text


class _budget:
    """Set xjit_recompile_budget for a block."""

    def __init__(self, n):
        import xjit
        self.xjit, self.n = xjit, n

    def __enter__(self):
        self.old = self.xjit.config.xjit_recompile_budget
        self.xjit.config.update("xjit_recompile_budget", self.n)

    def __exit__(self, *exc):
        self.xjit.config.update("xjit_recompile_budget", self.old)


def test_notebook_layer_uses_only_xjits_public_api():
    """kernel_ext and widgets reach the engine through ``xjit`` and
    ``xjit.inspect`` only: no import of, or attribute path through,
    ``xjit._src``."""
    import ast
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent
    files = sorted((root / "kernel_ext").rglob("*.py")) + sorted((root / "widgets").rglob("*.py"))
    assert len(files) >= 10
    offenders = []
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [a.name for a in node.names]
            elif isinstance(node, ast.Attribute):
                names = [node.attr]
            if any(n == "_src" or "._src" in n or n.startswith("_src") for n in names):
                offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not offenders, offenders


def test_measuring_the_steady_state_adds_no_compile_to_the_users_function(ip):
    """The Timing tab re-runs the compiled executable on stand-in arguments of
    the recorded types (weak types included): the user's function gains no
    cache miss, compile or call from it."""
    ip.run_cell("@jax.jit\ndef weakly(x):\n    return x * 3.0")
    ip.run_cell("%%xjit --quiet\nweakly(4.0)\nweakly(5.0)")
    p = _panels(ip)["weakly"]
    t = p.data.timing
    assert (t.calls, t.cache_misses, len(t.history)) == (2, 1, 1), (t.calls, t.cache_misses, t.history)
    assert t.steady_s is not None and t.steady_s > 0
    import xjit.inspect as xi
    info = next(i for i in xi.functions() if i.name == "weakly")
    assert (info.calls, info.cache_misses) == (2, 1)


def test_plain_import_exposes_inspect_and_profiler():
    """``import xjit`` alone gives ``xjit.inspect`` and ``xjit.profiler``."""
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent
    code = ("import xjit\n"
            "print(xjit.inspect.lint.__name__, xjit.inspect.functions.__name__,"
            " xjit.profiler.start_trace.__name__)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root / "core"),
                                                       os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["lint", "functions", "start_trace"]


def test_an_already_compiled_cell_costs_the_magic_under_10_ms(ip):
    """%%xjit on a cell whose function is compiled and whose panel was built
    adds at most 10 ms of kernel time (CPU time of this process, which other
    jobs on the machine hardly change; bench/notebook_overhead.py measures
    the wall time through a real kernel)."""
    import contextlib
    import io
    import statistics
    import time

    def cpu(code):
        with contextlib.redirect_stdout(io.StringIO()):
            t0 = time.process_time()
            r = ip.run_cell(code)
            elapsed = time.process_time() - t0
        assert r.error_in_exec is None, r.error_in_exec
        return elapsed

    ip.run_cell("@jax.jit\ndef steps50(x):\n    for i in range(50):\n        x = jnp.sin(x) * 1.01 + i\n"
                "    return x\nx50 = jnp.ones(8)")
    cpu("%%xjit\ny50 = steps50(x50)")
    added = [cpu("%%xjit\ny50 = steps50(x50)") - cpu("y50 = steps50(x50)") for _ in range(7)]
    assert statistics.median(added) < 0.010, added
