"""Execute the demo notebooks headlessly with a real kernel and write an HTML
copy next to each (demos/NAME.html). Exits non-zero if a cell fails that is
not tagged ``raises-exception``."""
import pathlib
import sys

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

DEMOS = pathlib.Path(__file__).resolve().parent.parent / "demos"


def execute(path: pathlib.Path, timeout: int = 600):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def main(argv):
    paths = [pathlib.Path(p) for p in argv] or sorted(DEMOS.glob("*.ipynb"))
    for path in paths:
        nb = execute(path)
        html, _ = HTMLExporter().from_notebook_node(nb)
        out = path.with_suffix(".html")
        out.write_text(html, encoding="utf-8")
        print(f"executed {path.name} -> {out.name}")


if __name__ == "__main__":
    main(sys.argv[1:])
