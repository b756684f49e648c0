"""Execute the demo notebooks headlessly with a real kernel and write an HTML
copy next to each (demos/NAME.html). Exits non-zero if a cell fails that is
not tagged ``raises-exception``.

The %%xjit panels are plain HTML outputs (CSS tabs, inline SVG), so the
export shows them as they were; no widget state is stored or loaded."""
import pathlib
import sys

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

DEMOS = pathlib.Path(__file__).resolve().parent.parent / "demos"


def execute(path: pathlib.Path, timeout: int = 600):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def export(nb) -> str:
    html, _ = HTMLExporter().from_notebook_node(nb)
    return html


def main(argv):
    paths = [pathlib.Path(p) for p in argv] or sorted(DEMOS.glob("*.ipynb"))
    for path in paths:
        nb = execute(path)
        html = export(nb)
        out = path.with_suffix(".html")
        out.write_text(html, encoding="utf-8")
        print(f"executed {path.name} -> {out.name} ({len(html.encode()) / 1024:.0f} KiB)")


if __name__ == "__main__":
    main(sys.argv[1:])
