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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memory.evidence import SAID, Answer, Evidence, Moment, format_time

__all__ = ["answer_html", "audio_html", "keyframes_html", "moments_html", "said_and_heard_html",
           "table_html"]

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
            f"<div><b>[{moment.span()}]</b></div>{said}{shown}{caption}</div></div>")


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


# -- plain tables, for a class: what came in beside what came out ---------------------------
def table_html(rows: Sequence[Mapping[str, Any]], *, caption: str | None = None) -> str:
    """``rows`` (dicts with the same keys) as an HTML table, keys as the header; values are
    shown as text (floats to 3 significant digits), escaped."""
    if not rows:
        return f"<p><i>{html.escape(caption or 'nothing to show')}: none.</i></p>"
    columns = list(rows[0])
    head = "".join(f"<th style='text-align:left'>{html.escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td style='text-align:left'>{html.escape(_cell(r.get(c)))}"
                                    f"</td>" for c in columns) + "</tr>" for r in rows)
    title = f"<caption style='text-align:left'><b>{html.escape(caption)}</b></caption>" \
        if caption else ""
    return f"<table>{title}<tr>{head}</tr>{body}</table>"


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def said_and_heard_html(sentences: Sequence[Mapping[str, Any]], heard: Sequence[Evidence], *,
                        limit: int | None = None) -> str:
    """Each sentence of the narration script (``start``/``end``/``text``, as a sample
    lecture's truth has them) beside what the speech model heard in that time: a class sees
    where the words came out wrong, and so why an answer quoting them is."""
    script = list(sentences)
    words: list[list[str]] = [[] for _ in script]
    for unit in (u for u in heard if u.kind == SAID):  # each heard sentence goes to one row:
        overlap = [min(unit.end, s["end"]) - max(unit.start, s["start"]) for s in script]
        best = max(range(len(script)), key=overlap.__getitem__, default=None)
        if best is not None and overlap[best] > -0.5:  # the script sentence it overlaps most
            words[best].append(unit.text)
    rows = [{"time": format_time(s["start"]), "the script said": s["text"],
             "Whisper heard": " / ".join(w) or "(nothing)"} for s, w in zip(script, words)]
    return table_html(rows[:limit])


def keyframes_html(moments: Sequence[Moment], *, image_width: int = 160) -> str:
    """The key frames the memory kept, in time order, each with its time and slide text."""
    seen: set[str] = set()
    tiles = []
    for m in moments:
        if not m.keyframe or m.keyframe in seen:
            continue
        seen.add(m.keyframe)
        text = html.escape(_clip(m.ocr_text, 90)) if m.ocr_text else "<i>(no text)</i>"
        tiles.append(f"<div style='width:{image_width}px;margin:4px'>{_image(m.keyframe, image_width)}"
                     f"<div><small><b>{format_time(m.start)}</b> {text}</small></div></div>")
    if not tiles:
        return "<p><i>No key frames kept.</i></p>"
    return f"<div style='display:flex;flex-wrap:wrap'>{''.join(tiles)}</div>"


def audio_html(label: str, samples: Any, rate: int = 16000) -> str:
    """A labelled audio player with the sound inlined (a saved notebook keeps it)."""
    import io
    import wave

    import numpy as np

    pcm = (np.clip(np.asarray(samples, dtype=np.float32), -1, 1) * 32767).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    seconds = len(pcm) / rate
    return (f"<div style='margin:4px 0'><b>{html.escape(label)}</b> <small>({seconds:.1f} s)"
            f"</small><br><audio controls src='data:audio/wav;base64,{data}'></audio></div>")
