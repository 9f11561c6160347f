"""What the page shows, computed from timeline entries and memory moments (no Gradio).

Pure functions under the UI builders, so each panel is tested without a browser:
`chat_messages` (the conversation, replies revealed as they are played, cut ones marked),
`work_rows` / `work_html` (the background items and their lifecycle), `timeline_html`
(a strip of the last seconds: control token, who speaks, overlap class), and
`moments_html` (cited moments as thumbnail + time; a click seeks the video player,
through the page script `SEEK_JS`). Everything derives from the timeline, which the
session loop alone writes, so reading it from a browser thread is safe.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memory import Moment
from venus.events import (
    ChunkReceived,
    ControlToken,
    ControlTokenEmitted,
    OverlapClassified,
    PlaybackAcknowledged,
    ResultReady,
    SpeechPlayed,
    SpeechQueued,
    SpeechStopped,
    UserWordsTranscribed,
    WorkItemCreated,
    WorkItemStateChanged,
    WorkState,
)
from venus.timeline import TimelineEntry

__all__ = ["SEEK_JS", "WorkRow", "chat_messages", "clock", "moments_html", "timeline_html",
           "work_html", "work_rows"]

SEEK_JS = """
<script>
document.addEventListener('click', (event) => {
  const target = event.target.closest('[data-seek]');
  if (!target) return;
  const video = document.querySelector('#venus-player video');
  if (!video) return;
  video.currentTime = parseFloat(target.dataset.seek);
  video.scrollIntoView({block: 'nearest'});
});
</script>
"""
"""Page script: any element with ``data-seek="<seconds>"`` seeks the player when clicked."""


def clock(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


# -- conversation ----------------------------------------------------------------------

def chat_messages(entries: Iterable[TimelineEntry], now: float,
                  words_per_second: float) -> list[dict[str, str]]:
    """User turns and assistant utterances in order; an utterance shows the words played so
    far, and one that was cut shows what was heard, marked as interrupted."""
    messages: list[dict[str, str]] = []
    spoken: dict[str, dict] = {}
    for entry in entries:
        e = entry.event
        if isinstance(e, UserWordsTranscribed):
            messages.append({"role": "user", "content": e.text})
        elif isinstance(e, SpeechQueued):
            spoken[e.utterance_id] = {"text": e.text, "start": None, "cut": None, "done": False}
            messages.append({"role": "assistant", "content": e.utterance_id})
        elif isinstance(e, SpeechPlayed) and e.utterance_id in spoken:
            spoken[e.utterance_id]["start"] = entry.time
        elif isinstance(e, SpeechStopped) and e.utterance_id in spoken:
            spoken[e.utterance_id]["cut"] = e.heard_fraction
        elif isinstance(e, PlaybackAcknowledged) and e.utterance_id in spoken:
            spoken[e.utterance_id]["done"] = True
    for message in messages:
        if message["role"] == "assistant":
            message["content"] = _played(spoken[message["content"]], now, words_per_second)
    return [m for m in messages if m["content"]]


def _played(u: dict, now: float, wps: float) -> str:
    words = u["text"].split()
    if u["done"]:
        return u["text"]
    if u["cut"] is not None:
        heard = words[:round(len(words) * u["cut"])]
        return (" ".join(heard) + " — (interrupted)").strip(" —") if heard else "(interrupted)"
    if u["start"] is None:
        return "…"
    shown = max(1, int((now - u["start"]) * wps) + 1)
    return " ".join(words[:shown]) + (" …" if shown < len(words) else "")


# -- background work -------------------------------------------------------------------

@dataclass
class WorkRow:
    item_id: str
    capability: str
    request: str
    state: WorkState
    result: str = ""
    ok: bool | None = None
    requested_at: float = 0.0

    @property
    def can_cancel(self) -> bool:
        return not self.state.terminal

    @property
    def can_retry(self) -> bool:
        return self.state in (WorkState.FAILED, WorkState.INTERRUPTED) or (
            self.state is WorkState.DELIVERED and self.ok is False)


def work_rows(entries: Iterable[TimelineEntry]) -> list[WorkRow]:
    """Every work item of the session, newest first, with its latest state and result."""
    rows: dict[str, WorkRow] = {}
    for entry in entries:
        e = entry.event
        if isinstance(e, WorkItemCreated):
            request = ", ".join(f"{k}={_short(v)}" for k, v in e.arguments.items())
            rows[e.item_id] = WorkRow(e.item_id, e.capability, request, WorkState.QUEUED,
                                      requested_at=entry.time)
        elif isinstance(e, WorkItemStateChanged) and e.item_id in rows:
            rows[e.item_id].state = WorkState(e.state)
        elif isinstance(e, ResultReady) and e.item_id in rows:
            rows[e.item_id].result = e.result.summary
            rows[e.item_id].ok = e.result.ok
    return sorted(rows.values(), key=lambda r: -r.requested_at)


def work_html(rows: Sequence[WorkRow]) -> str:
    if not rows:
        return "<div class='venus-empty'>No background work yet: ask for a summary, a quiz, " \
               "a search of the whole video or a timer.</div>"
    body = "".join(
        f"<tr data-item='{_e(r.item_id)}' data-state='{r.state.value}'>"
        f"<td>{_e(r.item_id.rsplit('/', 1)[-1])}</td><td>{_e(r.capability)}</td>"
        f"<td>{_e(r.request)}</td>"
        f"<td><span class='venus-state venus-{r.state.value}'>{r.state.value.title()}</span></td>"
        f"<td>{_e(r.result)}</td></tr>" for r in rows)
    return ("<table class='venus-work'><thead><tr><th>item</th><th>capability</th>"
            "<th>request</th><th>state</th><th>result</th></tr></thead>"
            f"<tbody>{body}</tbody></table>")


# -- timeline strip --------------------------------------------------------------------

_TOKEN_GLYPH = {ControlToken.LISTEN: "L", ControlToken.SPEAK: "S", ControlToken.TURN_EOS: "E"}


def timeline_html(entries: Sequence[TimelineEntry], seconds: int = 30) -> str:
    """One cell per recent second: its control token, who spoke and any overlap class."""
    cells: list[dict] = []
    speaking: set[str] = set()
    for entry in entries:
        e = entry.event
        if isinstance(e, ChunkReceived):
            # ``talking``: the assistant was already speaking when the second began, so
            # user words in it overlap its speech (a reply started after them does not).
            cells.append({"t": e.start, "token": None, "user": False, "assistant": bool(speaking),
                          "talking": bool(speaking), "overlap": ""})
        elif isinstance(e, SpeechPlayed):
            speaking.add(e.utterance_id)
        elif isinstance(e, (SpeechStopped, PlaybackAcknowledged)):
            speaking.discard(e.utterance_id)
        if not cells:
            continue
        cell = cells[-1]
        if isinstance(e, ControlTokenEmitted):
            cell["token"] = ControlToken(e.token)
        elif isinstance(e, UserWordsTranscribed):
            cell["user"] = True
        elif isinstance(e, OverlapClassified):
            cell["overlap"] = str(getattr(e.kind, "value", e.kind))
        elif isinstance(e, SpeechPlayed):
            cell["assistant"] = True
    shown = cells[-seconds:]
    if not shown:
        return "<div class='venus-empty'>The one-second schedule starts with the conversation.</div>"
    return ("<div class='venus-strip'>" + "".join(_cell(c) for c in shown) + "</div>"
            "<div class='venus-legend'>L listen · S speak · E end of turn · "
            "<span class='venus-user'>user</span> <span class='venus-assistant'>assistant</span>"
            " <span class='venus-both'>overlap</span></div>")


def _cell(c: dict) -> str:
    who = "both" if c["user"] and c["talking"] else "user" if c["user"] else \
        "assistant" if c["assistant"] else "silent"
    token = _TOKEN_GLYPH.get(c["token"], "·")
    overlap = f"<b>{_e(c['overlap'].replace('_', ' '))}</b>" if c["overlap"] else ""
    title = f"{clock(c['t'])} {c['token'].value if c['token'] else ''} {c['overlap']}"
    return (f"<div class='venus-cell venus-{who}' title='{_e(title)}'>"
            f"<span>{token}</span>{overlap}<small>{_e(clock(c['t']))}</small></div>")


# -- memory ----------------------------------------------------------------------------

def moments_html(moments: Sequence[Moment], heading: str = "") -> str:
    """Cited moments: thumbnail, time and text; clicking one seeks the video player."""
    if not moments:
        return f"<div class='venus-empty'>{_e(heading or 'Nothing found.')}</div>"
    cards = "".join(
        f"<button class='venus-moment' data-seek='{m.start:.2f}' "
        f"title='play from {clock(m.start)}'>{_thumb(m.keyframe)}"
        f"<span class='venus-time'>{clock(m.start)}–{clock(m.end)}</span>"
        f"<span class='venus-text'>{_e(_short(m.text or m.transcript or m.ocr_text, 160))}</span>"
        f"</button>" for m in moments)
    head = f"<div class='venus-answer'>{_e(heading)}</div>" if heading else ""
    return f"{head}<div class='venus-moments'>{cards}</div>"


def _thumb(path: str | None, width: int = 160) -> str:
    if not path:
        return ""
    try:
        from PIL import Image

        with Image.open(path) as image:
            image.thumbnail((width, width))
            buffer = io.BytesIO()
            image.convert("RGB").save(buffer, "JPEG", quality=70)
    except OSError:
        return ""
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"<img alt='key frame' src='data:image/jpeg;base64,{data}'/>"


def _short(value: object, limit: int = 60) -> str:
    if isinstance(value, float):
        value = f"{value:.1f}"
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)
