"""Executed previews of the teaching notebooks, readable offline: docs/notebooks/*.ipynb + .html.

Each notebook runs headless as the tests run it (nbclient on this interpreter's kernel,
the tests' small sizes injected after its parameters cell, so the whole set takes a few
minutes; 03 with its own, all four overlaps), with the widgets' state stored in the notebook. Media are already inline (01
embeds its video, 03 and 04 their audio, figures are PNG). The HTML uses nbconvert's lab
template with the widget renderer taken from ``docs/notebooks/_static/embed.js`` (the
standalone bundle of ``@jupyter-widgets/html-manager`` 1.0.15, BSD-3-Clause, from the npm
registry: ``npm pack @jupyter-widgets/html-manager@1.0.15``) instead of a CDN, so the
widgets draw with no network. Run from the checkout, with the dev and notebooks extras:

    python scripts/notebook_previews.py            # all five
    python scripts/notebook_previews.py 01 04      # some

``venus notebooks PATH --executed`` copies the executed notebooks out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "notebooks"
RENDERER = "_static/embed.js"  # relative to the HTML files
FULL = {"03_full_duplex_interruptions": {}}  # its defaults: all four overlaps, half a minute


def execute(source: Path, work: Path):
    """``source`` run as the tests run it, its widget state stored; returns the notebook."""
    import nbformat

    sys.path.insert(0, str(ROOT / "tests"))
    import test_notebooks as tn  # the tests' sizes, client and hang report

    nb = nbformat.read(source, as_version=4)
    tn._inject(nb, {**tn.SMALL, **FULL}[source.stem], work / "data")
    spec = work / "jupyter" / "kernels" / "venus-preview"
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "venus preview", "language": "python"}))
    os.environ["JUPYTER_PATH"] = str(work / "jupyter")
    client = tn._client(nb, timeout=tn.CELL_TIMEOUT_S, kernel_name="venus-preview",
                        store_widget_state=True, resources={"metadata": {"path": str(work)}})
    tn._execute(client, source.name)
    _drop_injected(nb)
    return nb


def _drop_injected(nb) -> None:
    """Keep the notebook's own cells: the size cell the tests add is said in a note."""
    at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    injected = nb.cells.pop(at + 1)
    sizes = "; ".join(line for line in injected.source.splitlines() if not line.startswith("WORKDIR"))
    import nbformat

    note = f"with small sizes so that it runs in minutes: `{sizes}`" if sizes else \
        "with the parameters above"
    nb.cells.insert(at + 1, nbformat.v4.new_markdown_cell(f"*This preview was run {note}.*"))


def take_text(source, executed, name: str) -> None:
    """Markdown cells of ``source`` into ``executed`` (the same cells, the preview's size
    note aside); exits naming the cell when any code cell differs."""
    cells = [c for c in executed.cells if not c.source.startswith("*This preview was run")]
    if [c.cell_type for c in cells] != [c.cell_type for c in source.cells]:
        sys.exit(f"{name}: cells were added or removed: run the preview again")
    for mine, theirs in zip(cells, source.cells):
        if mine.cell_type == "code" and mine.source != theirs.source:
            sys.exit(f"{name}: code changed ({theirs.source.splitlines()[0]!r}): run it again")
        if mine.cell_type == "markdown":
            mine.source = theirs.source
            if "attachments" in theirs:
                mine.attachments = theirs.attachments


def to_html(nb, title: str) -> str:
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab", widget_renderer_url=RENDERER)
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
    return offline(body)


def offline(page: str) -> str:
    """``page`` without the scripts the template loads from a CDN: require.js (the
    standalone renderer needs none), MathJax and mermaid (no notebook has maths or
    diagrams in text)."""
    script = re.compile(r"<script\b[^>]*>.*?</script>\s*", re.DOTALL)
    return script.sub(lambda m: "" if "https://" in m[0] and "data:" not in m[0][:200] else m[0],
                      page)


def main() -> int:
    import nbformat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("numbers", nargs="*", help="notebook numbers (default: all)")
    parser.add_argument("--html-only", action="store_true",
                        help="render the HTML again from the executed notebooks already there")
    parser.add_argument("--text-only", action="store_true",
                        help="take the notebooks' changed text (markdown cells) into the "
                             "executed previews without running them again; refused where "
                             "a code cell changed")
    args = parser.parse_args()
    if not (OUT / RENDERER).is_file():
        sys.exit(f"{OUT / RENDERER} is missing: npm pack @jupyter-widgets/html-manager@1.0.15 "
                 f"and copy its dist/embed.js there")
    sources = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if args.numbers:
        sources = [s for s in sources if s.name[:2] in args.numbers]
    for source in sources:
        started = time.monotonic()
        if args.html_only or args.text_only:
            nb = nbformat.read(OUT / source.name, as_version=4)
            if args.text_only:
                take_text(nbformat.read(source, as_version=4), nb, source.name)
                nbformat.write(nb, OUT / source.name)
        else:
            with tempfile.TemporaryDirectory(prefix="venus-preview-") as tmp:
                nb = execute(source, Path(tmp))
            nbformat.write(nb, OUT / source.name)
        (OUT / source.with_suffix(".html").name).write_text(to_html(nb, source.stem))
        print(f"{source.name}: {time.monotonic() - started:.0f} s -> docs/notebooks/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
