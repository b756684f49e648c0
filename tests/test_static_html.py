"""The %%xjit panel as a self-contained text/html output: CSS tabs (no
script), the timing chart as inline SVG with a legend, readable units, and
nothing fetched from anywhere. Checked as markup, and rendered in headless
Chromium (tab switching, hover highlighting, no network requests, and the
unstyled fallback where a viewer strips <style>)."""
from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

IPython = pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

from xjit_widgets import FunctionPanel, PanelData, Timing, panel_html  # noqa: E402
from xjit_widgets.chart import PHASES, timing_svg  # noqa: E402
from xjit_widgets.units import mean_std, nbytes, seconds  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def panels():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "xjit")
    ip.run_cell("import xjit as jax, xjit.numpy as jnp\n"
                "@jax.jit\n"
                "def looped(x):\n"
                "    for i in range(25):\n"
                "        x = jnp.sin(x) + i\n"
                "    return jnp.cos(x)\n"
                "@jax.jit\n"
                "def small(x):\n"
                "    return x * 2.0\n")
    ip.run_cell("%%xjit --quiet --repeat 3\nlooped(jnp.ones(4)); small(jnp.ones(1024))")
    book = ip.magics_manager.registry["XjitMagics"].panels
    return book["looped"], book["small"]


def test_fragment_is_self_contained(panels):
    for p in panels:
        html = p._repr_mimebundle_()["text/html"]
        assert "<script" not in html.lower()
        assert not re.search(r"\s(src|href|on[a-z]+)\s*=", html, re.I), "no loads, no handlers"
        assert "url(" not in html and "@import" not in html and "<link" not in html
        # only the SVG namespace names a URL, and it is never fetched
        assert set(re.findall(r"https?://[^\"' ]+", html)) <= {"http://www.w3.org/2000/svg"}


def test_each_panel_scopes_its_tabs_and_styles(panels):
    a, b = (p.html() for p in panels)
    uid_a = re.search(r'<div class="xjit-panel" id="([^"]+)"', a).group(1)
    uid_b = re.search(r'<div class="xjit-panel" id="([^"]+)"', b).group(1)
    assert uid_a != uid_b
    assert re.findall(r'name="([^"]+)"', a) == [uid_a] * 3
    for tab in ("jaxpr", "lint", "timing"):
        assert f"#{uid_a}-{tab}:checked~section.xjit-tab-{tab}" in a
        assert f'<section class="xjit-tab xjit-tab-{tab}"><h4 class="xjit-heading">' in a
    assert uid_b not in a


def test_jaxpr_tab_folds_the_loop_and_tags_each_source_line(panels):
    looped = panels[0]
    html = looped.jaxpr_html()
    m = re.search(r'… (\d+) equations from <span class="xjit-loc">In \[\d+\], line 5</span></summary>', html)
    assert m and int(m.group(1)) == 50  # sin + add per iteration
    # one CSS class per source line; hovering one lights up its siblings
    uid = f"{looped.uid}-j"
    assert f"#{uid}:has(.s0:hover) .s0" in html


def test_source_lines_carry_click_to_line_attributes(panels):
    """Every equation row, finding and the function's definition carry
    their source line as data attributes (the lab extension's click-to-line
    reads them); the fold's summary links only from its location label."""
    looped, _ = panels
    html = looped.html()
    rows = re.findall(r'<div class="eq [^"]*"([^>]*)>', html)
    assert len(rows) == 51  # 25 sin + 25 add (folded), and the cos
    cells = set(re.findall(r'data-xjit-cell="(\d+)"', html))
    assert len(cells) == 1, cells  # all in the defining cell, In [N]
    count = cells.pop()
    lines = [re.search(r'data-xjit-line="(\d+)"', r).group(1) for r in rows]
    assert lines.count("5") == 50 and set(lines) <= {"5", "6"}, lines
    assert all(f'data-xjit-cell="{count}"' in r for r in rows)
    fold = re.search(r'<details class="fold"([^>]*)><summary>(.*?)</summary>', html)
    assert 'data-xjit-line="5"' in fold.group(1)
    assert f'<span class="xjit-loc">In [{count}], line 5</span>' in fold.group(2)
    finding = re.search(r"<table class='xjit-lint'><tr([^>]*)>", html)
    assert finding and 'data-xjit-line="5"' in finding.group(1)
    title = re.search(r'<div class="xjit-title"([^>]*)>', html).group(1)
    assert 'data-xjit-line="2"' in title and f'data-xjit-cell="{count}"' in title
    assert re.search(r'<div class="xjit-defined"[^>]*data-xjit-line="2"', html)


def test_source_attrs_escape_and_need_a_line():
    from xjit_widgets.render import source_attrs

    class Labels:
        def __call__(self, filename):
            return "In [7]"

        def locate(self, filename):
            return 7, 'id"<x>'

    attrs = source_attrs(Labels(), '/tmp/a"<b>&.py', 3)
    assert attrs == (' data-xjit-file="/tmp/a&quot;&lt;b&gt;&amp;.py" data-xjit-line="3"'
                     ' data-xjit-cell="7" data-xjit-cell-id="id&quot;&lt;x&gt;"')
    assert source_attrs(Labels(), "/tmp/a.py", None) == ""
    assert source_attrs(Labels(), None, 3) == ""
    # a plain labeller (no locate): file and line only, no cell to jump to
    assert source_attrs(lambda f: f, "lib.py", 9) == ' data-xjit-file="lib.py" data-xjit-line="9"'


def test_timing_chart_is_svg_with_a_legend(panels):
    svg = re.search(r"<svg.*?</svg>", panels[1].timing_html(), re.S).group(0)
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    texts = [t.text for t in root.iterfind(".//s:text", ns)]
    first = panels[1].data.timing.first
    for phase in PHASES:
        assert f"{phase} {seconds(first[phase])}" in texts  # legend: colour, name, time
    bars = [r for r in root.iterfind("s:rect", ns) if r.find("s:title", ns) is not None]
    assert [r.find("s:title", ns).text.split(":")[0] for r in bars] == \
        ["first call"] * len(PHASES) + ["later call"]


def test_bytes_and_times_are_human_readable(panels):
    text = panels[1].text()
    assert re.search(r"argument bytes\s+4 KiB", text)  # 1024 float32s
    assert re.search(r"run \(later calls\)\s+[0-9.]+ [nµm]?s median, [0-9.]+ [nµm]?s min of 3 runs",
                     text), text
    assert nbytes(12) == "12 B" and nbytes(1536) == "1.5 KiB" and nbytes(3 << 20) == "3 MiB"
    assert nbytes(5 * (1 << 30)) == "5 GiB"
    assert seconds(0.00123) == "1.23 ms" and seconds(2.5e-6) == "2.5 µs" and seconds(None) == "–"
    assert seconds(1.5) == "1.5 s" and seconds(3e-8) == "30 ns"
    assert mean_std([1e-3, 3e-3], 10) == \
        "2 ms ± 1 ms per loop (mean ± std. dev. of 2 runs, 10 loops each)"


def test_user_strings_are_escaped_everywhere():
    import xjit.inspect as xi
    evil = "<img src=x onerror=alert(1)>"
    finding = xi.Finding("print", f"printed {evil}", evil, 3, f"do not {evil}")
    timing = Timing({"trace": 0.001}, None, cache_misses=2, reasons=[evil])
    html = FunctionPanel(PanelData(evil, evil, 1, None, [finding], timing)).html()
    assert "<img" not in html
    assert html.count("&lt;img src=x onerror=alert(1)&gt;") >= 5
    assert "<img" not in timing_svg({"run": 1e-3}, None, title=evil)


# -- in a browser -------------------------------------------------------------------
def _page_html(panels):
    body = "".join(p.html() for p in panels)
    return f"<!doctype html><html><head><meta charset='utf-8'></head><body>{body}</body></html>"


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed (scripts/setup.sh installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM,
                              args=["--headless", "--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _visible_tabs(page, uid):
    return page.evaluate(
        """uid => Array.from(document.querySelectorAll(`#${uid} > section.xjit-tab`))
             .filter(s => s.getBoundingClientRect().height > 0)
             .map(s => s.className.split('xjit-tab-')[1])""", uid)


def test_tabs_switch_with_css_alone_and_nothing_is_fetched(browser, panels):
    page = browser.new_page(java_script_enabled=False)  # the panel needs no script
    requests = []
    page.route("**/*", lambda route: (requests.append(route.request.url), route.abort()))
    page.set_content(_page_html(panels))
    a, b = (p.uid for p in panels)
    assert _visible_tabs(page, a) == ["jaxpr"] and _visible_tabs(page, b) == ["jaxpr"]
    page.click(f"label[for='{a}-lint']")
    assert _visible_tabs(page, a) == ["lint"] and _visible_tabs(page, b) == ["jaxpr"]
    assert "No findings." in page.inner_text(f"#{a} section.xjit-tab-lint") or \
        page.locator(f"#{a} .xjit-lint td.kind").count() > 0
    page.click(f"label[for='{b}-timing']")
    assert _visible_tabs(page, b) == ["timing"]
    assert page.locator(f"#{b} svg.xjit-chart rect").count() >= len(PHASES) + 1
    # folded loop opens on click; hovering an equation lights up its line
    page.click(f"label[for='{a}-jaxpr']")
    fold = page.locator(f"#{a} details.fold > summary")
    fold.click()
    eqns = page.locator(f"#{a} details.fold .eq")
    assert eqns.count() == 50
    eqns.nth(3).hover()
    colours = eqns.evaluate_all("els => els.map(e => getComputedStyle(e).backgroundColor)")
    assert set(colours) == {"rgb(255, 243, 176)"}
    assert requests == []
    page.close()


def test_without_styles_every_section_shows(browser, panels):
    """GitHub and sanitizing viewers drop <style>: the panel degrades to its
    three sections one under the other, each under its heading."""
    page = browser.new_page(java_script_enabled=False)
    page.set_content(re.sub(r"<style>.*?</style>", "", _page_html(panels), flags=re.S))
    uid = panels[0].uid
    assert _visible_tabs(page, uid) == ["jaxpr", "lint", "timing"]
    headings = page.locator(f"#{uid} h4.xjit-heading").all_inner_texts()
    assert headings == ["Jaxpr", "Lint", "Timing"]
    page.close()


def test_a_sanitized_panel_beside_a_styled_one_shows_every_section(browser, panels):
    """JupyterLab sanitizes an untrusted output (its <style> dropped, ids
    renamed to data-jupyter-id, radios disabled) while a trusted panel's
    style is on the same page: that style is scoped to its own panel, so the
    sanitized one still shows all three sections and the styled one its tabs."""
    styled, other = panels
    sanitized = re.sub(r"<style>.*?</style>", "", other.html(), flags=re.S)
    sanitized = re.sub(r'\bid="', 'data-jupyter-id="', sanitized)
    page = browser.new_page(java_script_enabled=False)
    page.set_content(f"<!doctype html><html><body>{styled.html()}"
                     f"<div id='plain'>{sanitized}</div></body></html>")
    shown = page.evaluate("""() => Array.from(document.querySelectorAll('#plain section.xjit-tab'))
        .filter(s => s.getBoundingClientRect().height > 0).length""")
    assert shown == 3
    assert page.locator("#plain h4.xjit-heading").first.is_visible()
    assert _visible_tabs(page, styled.uid) == ["jaxpr"]
    page.close()
