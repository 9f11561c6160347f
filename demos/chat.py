"""The conversation as chat bubbles, computed from timeline entries (no Gradio).

Under the page feed. A reply's whole text shows as soon as it is queued (the voice may
lag behind it); every time it mentions, and every moment it cites, is a chip: a link
``#venus-t=<seconds>`` that the page script (`demos.views.SEEK_JS`) turns into a seek
of the video player. A finished work item delivered in the conversation is laid out
whole (every quiz question with its answer behind "Show answer", every summary
sentence with its time). A reply the user talked over shows what was heard, and the
rest struck through. `chat_view` also returns what the newest reply cites, for the
key-frame panel beside the chat.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from demos.labels import TIME_PATTERN, clock, parse_clock
from demos.results import Cited, ResultView, answer_citations, result_view
from venus.events import (
    ResultReady,
    SpeechQueued,
    SpeechStopped,
    UserWordsTranscribed,
    WorkItemCreated,
)
from venus.timeline import TimelineEntry

__all__ = ["ChatView", "chat_view", "chip", "chip_html", "reply_markdown"]

_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


@dataclass(frozen=True)
class ChatView:
    messages: list[dict[str, str]]
    cited: tuple[Cited, ...]  # what the newest reply cites, best first
    question: str = ""        # the question that reply answered, if any


def chip(start: float, label: str | None = None) -> str:
    """A markdown link that seeks the player to ``start``."""
    return f'[{label or clock(start)}](#venus-t={start:.2f} "Play from {clock(start)}")'


def chip_html(start: float, label: str | None = None) -> str:
    return (f"<a href='#venus-t={start:.2f}' title='Play from {clock(start)}'>"
            f"{html.escape(label or clock(start))}</a>")


def reply_markdown(text: str, extra: Iterable[Cited] = ()) -> str:
    """``text`` with its times as chips; cited moments it does not mention are appended."""
    parts, last, said = [], 0, set()
    for m in TIME_PATTERN.finditer(text):
        parts.append(_md(text[last:m.start()]))
        start = parse_clock(m.group(1))
        said.add(int(start))
        parts.append(chip(start, m.group(0)))
        last = m.end()
    parts.append(_md(text[last:]))
    more = [c for c in extra if int(c.start) not in said]
    if more:
        parts.append("\n\nSeen at " + " ".join(chip(c.start) for c in more))
    return "".join(parts)


def chat_view(entries: Iterable[TimelineEntry], answers: Mapping[str, Any] | None = None,
              media_end: float | None = None) -> ChatView:
    """User turns and replies in order; ``answers`` maps a reply's text to the
    `memory.Answer` it came from (its citations become chips and frames)."""
    answers = answers or {}
    items: dict[str, WorkItemCreated] = {}
    results: dict[str, Any] = {}
    messages: list[dict[str, str]] = []
    replies: dict[str, dict] = {}
    latest: tuple[tuple[Cited, ...], str] = ((), "")
    question = ""
    for entry in entries:
        e = entry.event
        if isinstance(e, UserWordsTranscribed):
            messages.append({"role": "user", "content": _md(e.text)})
            question = e.text
        elif isinstance(e, WorkItemCreated):
            items[e.item_id] = e
        elif isinstance(e, ResultReady):
            results[e.item_id] = e.result
        elif isinstance(e, SpeechQueued):
            reply = _reply(e, answers, items, results, media_end)
            replies[e.utterance_id] = reply
            messages.append({"role": "assistant", "content": reply["content"]})
            reply["index"] = len(messages) - 1
            if reply["cited"]:
                latest = (reply["cited"], question if reply["answer"] else "")
        elif isinstance(e, SpeechStopped) and e.utterance_id in replies:
            reply = replies[e.utterance_id]
            if reply["view"] is None:  # a plain reply: show how far it was heard
                messages[reply["index"]]["content"] = _cut(reply["text"], e.heard_fraction,
                                                           reply["cited"])
    return ChatView([m for m in messages if m["content"]], *latest)


def _reply(e: SpeechQueued, answers: Mapping[str, Any], items: Mapping[str, WorkItemCreated],
           results: Mapping[str, Any], media_end: float | None) -> dict:
    answer = answers.get(e.text)
    created = items.get(e.item_id) if e.item_id else None
    result = results.get(e.item_id) if e.item_id else None
    if created is not None and result is not None:
        view = result_view(created.capability, created.arguments, result, media_end)
        if view.items:
            return {"text": e.text, "content": _result_html(view), "cited": view.cited,
                    "view": view, "answer": False}
        cited = view.cited
    else:
        cited = answer_citations(answer) if answer is not None else _mentioned(e.text)
    return {"text": e.text, "content": reply_markdown(e.text, cited), "cited": cited,
            "view": None, "answer": answer is not None}


def _mentioned(text: str) -> tuple[Cited, ...]:
    return tuple(Cited(parse_clock(m.group(1)),
                       parse_clock(m.group(2)) if m.group(2) else parse_clock(m.group(1)) + 1)
                 for m in TIME_PATTERN.finditer(text))


def _cut(text: str, heard: float, cited) -> str:
    words = text.split()
    n = round(len(words) * heard)
    said = reply_markdown(" ".join(words[:n])) if n else ""
    rest = " ".join(words[n:])
    unheard = f" ~~{_md(rest)}~~" if rest else ""
    return f"{said}{unheard} *(interrupted)*".strip()


def _result_html(view: ResultView) -> str:
    """A whole quiz, summary or search result; quiz answers open on demand."""
    rows = []
    for item in view.items:
        mentioned = TIME_PATTERN.search(item.text)
        when = f" {chip_html(item.start)}" if item.start is not None and not mentioned else ""
        text = _chips_html(item.text)
        if item.answer:
            options = (f"<div class='venus-options'>{html.escape(' · '.join(item.options))}"
                       "</div>") if item.options else ""
            rows.append(f"<li>{text}{when}{options}<details><summary>Show answer</summary>"
                        f"<b>{html.escape(item.answer)}</b></details></li>")
        else:
            rows.append(f"<li>{text}{when}</li>")
    tag = "ol" if any(i.answer for i in view.items) else "ul"
    return (f"<div class='venus-result'><b>{html.escape(view.title)}</b>"
            f"<{tag}>{''.join(rows)}</{tag}></div>")


def _chips_html(text: str) -> str:
    out, last = [], 0
    for m in TIME_PATTERN.finditer(text):
        out.append(html.escape(text[last:m.start()]))
        out.append(chip_html(parse_clock(m.group(1)), m.group(0)))
        last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def _md(text: str) -> str:
    """Plain text shown as itself by the chat's markdown renderer."""
    return _MARKDOWN.sub(r"\\\1", text)
