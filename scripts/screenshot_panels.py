"""Screenshots of the %%xjit panel's tabs (Jaxpr, Lint, Timing) for docs/:
run a small cell in a real IPython shell, take the panel's own text/html
output (the same fragment a notebook shows) with each tab selected in turn,
and render it with headless Chromium, offline.

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
    from xjit_widgets import panel_html
    with tempfile.TemporaryDirectory() as tmp:
        for i, name in enumerate(panel.TABS):
            body = panel_html(panel.title(), panel.tabs(), selected=i)
            page = pathlib.Path(tmp) / f"{name.lower()}.html"
            page.write_text("<!doctype html><html><head><meta charset='utf-8'></head>"
                            f"<body style='margin:12px'>{body}</body></html>", encoding="utf-8")
            png = out / f"widget-{name.lower()}.png"
            subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={tmp}/profile",
                            "--window-size=900,620", "--virtual-time-budget=2000",
                            f"--screenshot={png.resolve()}", page.as_uri()],
                           check=True, capture_output=True, timeout=120)
            print("wrote", png)


if __name__ == "__main__":
    main(*sys.argv[1:])
