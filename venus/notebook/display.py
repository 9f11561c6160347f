"""HTML views of what the memory returns: answers with their cited key frames and times.

Behaviour layer of `venus.notebook`. The functions build plain HTML strings (testable
without a browser or a kernel); a notebook shows them with
``IPython.display.HTML(answer_html(answer))`` or through the widgets in
`venus.notebook.widgets`. Key frames are inlined as base64 JPEG so a saved notebook
keeps its pictures even when the memory directory is gone.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from pathlib import Path

from memory.evidence import Answer, Moment, format_time

__all__ = ["answer_html", "moments_html"]

_CLIP = 220


def _clip(text: str, limit: int = _CLIP) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _image(path: str | None, width: int) -> str:
    if not path or not Path(path).is_file():
        return ""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (f'<img src="data:image/jpeg;base64,{data}" width="{width}" '
            f'style="margin-right:10px;border:1px solid #ccc" alt="key frame {html.escape(path)}">')


def _moment_row(moment: Moment, width: int) -> str:
    said = f"<div><b>said:</b> {html.escape(_clip(moment.transcript))}</div>" \
        if moment.transcript else ""
    shown = f"<div><b>on screen:</b> {html.escape(_clip(moment.ocr_text))}</div>" \
        if moment.ocr_text else ""
    caption = f"<div><b>picture:</b> {html.escape(_clip(moment.caption))}</div>" \
        if moment.caption else ""
    return ('<div style="display:flex;align-items:flex-start;margin:6px 0">'
            f"{_image(moment.keyframe, width)}<div>"
            f"<div><b>[{moment.span()}]</b> <small>{html.escape(moment.level)}, "
            f"score {moment.score:.3f}</small></div>{said}{shown}{caption}</div></div>")


def moments_html(moments: Sequence[Moment], *, cutoff: float | None = None,
                 image_width: int = 200) -> str:
    """Retrieved moments, best first, each with its times, words, slide text and key
    frame; with ``cutoff`` a header says that nothing after it could be retrieved."""
    head = ""
    if cutoff is not None:
        latest = max((m.end for m in moments), default=None)
        latest_text = "nothing yet" if latest is None else f"latest cited end {format_time(latest)}"
        head = (f"<p><b>Question asked at {format_time(cutoff)}</b>: the memory only "
                f"searches video before it ({latest_text}).</p>")
    if not moments:
        return head + "<p><i>No moments found.</i></p>"
    return head + "".join(_moment_row(m, image_width) for m in moments)


def answer_html(answer: Answer, *, image_width: int = 200, max_citations: int = 3) -> str:
    """An `memory.Answer`: the question, the reply, and its cited moments with key frames."""
    asked = "" if answer.asked_at is None else f" <small>(asked at {format_time(answer.asked_at)})</small>"
    cited = moments_html(answer.citations[:max_citations], image_width=image_width) \
        if answer.citations else "<p><i>No citations.</i></p>"
    return (f'<div style="margin:8px 0"><p><b>Q:</b> {html.escape(answer.question)}{asked}</p>'
            f"<p><b>A:</b> {html.escape(answer.text)}</p>{cited}</div>")
