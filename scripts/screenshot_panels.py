"""Screenshots of the %%xjit panel's tabs (Jaxpr, Lint, Timing) for docs/:
run a small cell in a real IPython shell, export each tab as HTML and render
it with headless Chromium.

    .venv/bin/python scripts/screenshot_panels.py [outdir]
"""
import pathlib
import subprocess
import sys
import tempfile

from IPython.core.interactiveshell import InteractiveShell

CELL = '''
import xjit as jax, xjit.numpy as jnp
scale = 1.01
@jax.jit
def step(x):
    for i in range(24):
        x = jnp.tanh(x * scale + i)
    print("tracing step")
    return jnp.where(x > 0, x, 0.0).sum()
'''

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--hide-scrollbars"]


def main(outdir="docs/screenshots"):
    out = pathlib.Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "xjit")
    ip.run_cell(CELL)
    ip.run_cell("%%xjit --quiet --repeat 5\nstep(jnp.ones(128))")
    panel = ip.magics_manager.registry["XjitMagics"].panels["step"]
    fig = panel.timing_figure()
    from xjit_widgets import render
    tabs = {
        "jaxpr": panel.jaxpr_html(),
        "lint": panel.lint_html(),
        "timing": fig.to_html(full_html=False, include_plotlyjs=True)
        + render.timing_html(panel.data.timing),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in tabs.items():
            page = pathlib.Path(tmp) / f"{name}.html"
            page.write_text(f"<html><body style='font-family:sans-serif'><h3>xjit: "
                            f"{render.esc(panel.title())} — {name.title()} tab</h3>{body}"
                            "</body></html>", encoding="utf-8")
            png = out / f"widget-{name}.png"
            subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={tmp}/profile",
                            "--window-size=1100,900", "--virtual-time-budget=4000",
                            f"--screenshot={png.resolve()}", page.as_uri()],
                           check=True, capture_output=True, timeout=120)
            print("wrote", png)


if __name__ == "__main__":
    main(*sys.argv[1:])
