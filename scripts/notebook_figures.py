"""Draw the pipeline picture each teaching notebook opens with (docs/img/pipeline-NN.svg).

Each picture is rows of boxes joined by arrows, one row per path through the system, so
it reads left to right like the notebook does. The SVGs are committed; run this again
after changing a row (``python scripts/notebook_figures.py``), then
``python scripts/notebook_figures.py --embed`` puts each one into its notebook's first
cell as an attachment, so a notebook copied out by ``venus notebooks`` keeps its picture.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"

# colour per kind of step: what comes in, a model, what is kept, what comes out
COLOURS = {"in": "#e3f2fd", "model": "#fff3e0", "store": "#e8f5e9", "out": "#f3e5f5"}

# (row label, [(box text, kind), ...]); "\n" breaks a box's text into lines
FIGURES: dict[str, tuple[str, list[tuple[str, list[tuple[str, str]]]]]] = {
    "01": ("Notebook 01: from a lecture video to a cited answer", [
        ("what was said", [("audio,\none second\nat a time", "in"), ("VAD:\nis someone\nspeaking?", "model"),
                           ("Whisper:\nspeech\nto words", "model"), ("transcript", "store")]),
        ("what was shown", [("video frames,\none per second", "in"), ("key frames:\nthe picture\nchanged", "model"),
                            ("OCR:\nread the\nslide text", "model"), ("slide text +\nkey frame", "store")]),
        ("remember", [("transcript +\nslide text", "store"), ("embedder:\ntext to\nnumbers", "model"),
                      ("FAISS index +\nkeyword index", "store")]),
        ("ask", [("your question\n(asked at\ntime t)", "in"), ("search both\nindexes, only\nbefore t", "model"),
                 ("answer that\nquotes its\nmoments", "out")]),
    ]),
    "02": ("Notebook 02: hiding needles in a long lecture and looking for them", [
        ("build", [("long lecture\n(the haystack)", "in"), ("+ needles at\n0%..100%\nof the video", "in"),
                   ("memory\n(as in 01)", "store")]),
        ("probe", [("one question\nper needle", "in"), ("asked at the end:\nfound in top k?", "model"),
                   ("recall@k,\nMRR", "out")]),
        ("cutoff", [("same question,\nasked just before\nthe needle", "in"), ("search only\nbefore that\ntime", "model"),
                    ("leakage\n(must be 0)", "out")]),
    ]),
    "03": ("Notebook 03: an overlap arrives while the assistant is speaking", [
        ("hear", [("microphone:\nuser + overlap\n(+ echo)", "in"), ("remove the\nassistant's\nown echo", "model"),
                  ("VAD: speech\nwithin\n~0.3 s", "model"), ("duck: voice\nturned down", "out")]),
        ("decide", [("Whisper:\nthe overlap's\nwords", "model"), ("classify:\ninterruption?\nbackchannel? TV?", "model"),
                    ("floor action:\nstop or\nkeep talking", "out")]),
        ("record", [("every decision\nwith its time", "store"), ("timeline\n(JSONL)", "store"),
                    ("table, audio,\nfigure", "out")]),
    ]),
    "04": ("Notebook 04: a slow request runs in the background while the talk goes on", [
        ("ask", [("request:\n'make a quiz'", "in"), ("frontend:\ntoo slow to\nanswer now", "model"),
                 ("delegate:\nwork item\n+ evidence", "store")]),
        ("work", [("harness:\nqueued ->\nrunning", "model"), ("capability\n(your Python\nfunction)", "model"),
                  ("result:\ncompleted\nor failed", "store")]),
        ("deliver", [("freshness\ncheck: still\nrelevant?", "model"), ("spoken when\nthe floor\nis free", "out"),
                     ("delivered:\nthe user\nheard it", "out")]),
    ]),
    "05": ("Notebook 05: a language model takes the frontend's seat", [
        ("each second", [("one second:\nframe + words\nheard", "in"), ("model (local\nfolder or\nserver)", "model"),
                         ("control token:\nlisten / speak\n/ turn_eos", "out")]),
        ("around it", [("same session:\necho removal,\nVAD, Whisper", "model"), ("speech output\n(Piper or\neSpeak)", "out"),
                       ("timeline", "store")]),
    ]),
}

BOX_W, BOX_H, GAP, LABEL_W, ROW_GAP, TOP = 150, 66, 36, 128, 22, 44


def _box(x: float, y: float, text: str, kind: str) -> str:
    lines = text.split("\n")
    first = y + BOX_H / 2 - (len(lines) - 1) * 8
    spans = "".join(f'<tspan x="{x + BOX_W / 2}" y="{first + i * 16:.0f}">{html.escape(t)}</tspan>'
                    for i, t in enumerate(lines))
    return (f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="8" '
            f'fill="{COLOURS[kind]}" stroke="#555"/>'
            f'<text text-anchor="middle" dominant-baseline="middle" font-size="13">{spans}</text>')


def _arrow(x: float, y: float) -> str:
    return (f'<line x1="{x + 4}" y1="{y}" x2="{x + GAP - 6}" y2="{y}" stroke="#333" '
            f'stroke-width="2" marker-end="url(#head)"/>')


_HEAD = ('<defs><marker id="head" markerWidth="8" markerHeight="8" refX="6" refY="4" '
         'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#333"/></marker></defs>')


def draw(title: str, rows: list[tuple[str, list[tuple[str, str]]]]) -> str:
    width = LABEL_W + max(len(boxes) for _, boxes in rows) * (BOX_W + GAP) + 10
    height = TOP + len(rows) * (BOX_H + ROW_GAP) + 34
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">'),
             _HEAD,
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="10" y="26" font-size="17" font-weight="bold">{html.escape(title)}</text>']
    for r, (label, boxes) in enumerate(rows):
        y = TOP + r * (BOX_H + ROW_GAP)
        parts.append(f'<text x="10" y="{y + BOX_H / 2 + 5}" font-size="14" font-style="italic" '
                     f'fill="#444">{html.escape(label)}</text>')
        for i, (text, kind) in enumerate(boxes):
            x = LABEL_W + i * (BOX_W + GAP)
            parts.append(_box(x, y, text, kind))
            if i + 1 < len(boxes):
                parts.append(_arrow(x + BOX_W, y + BOX_H / 2))
    legend_y = height - 14
    for i, (kind, name) in enumerate([("in", "input"), ("model", "a model or a rule"),
                                      ("store", "what is kept"), ("out", "what you see or hear")]):
        x = 10 + i * 170
        parts.append(f'<rect x="{x}" y="{legend_y - 11}" width="14" height="14" fill="{COLOURS[kind]}" '
                     f'stroke="#555"/><text x="{x + 20}" y="{legend_y}" font-size="12">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_all() -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    written = []
    for number, (title, rows) in FIGURES.items():
        path = OUT / f"pipeline-{number}.svg"
        path.write_text(draw(title, rows))
        written.append(path)
    return written


def embed_all() -> None:
    """Attach each SVG to the first markdown cell of its notebook (``attachment:pipeline.svg``)."""
    for number in FIGURES:
        [notebook] = (ROOT / "notebooks").glob(f"{number}_*.ipynb")
        nb = json.loads(notebook.read_text())
        cell = next((c for c in nb["cells"] if "attachment:pipeline.svg" in "".join(c["source"])),
                    None)
        if cell is None:
            print(f"{notebook.name}: no cell shows attachment:pipeline.svg")
            continue
        data = base64.b64encode((OUT / f"pipeline-{number}.svg").read_bytes()).decode("ascii")
        cell["attachments"] = {"pipeline.svg": {"image/svg+xml": data}}
        notebook.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embed", action="store_true", help="attach the SVGs to the notebooks")
    args = parser.parse_args()
    for p in write_all():
        print(p.relative_to(ROOT))
    if args.embed:
        embed_all()
