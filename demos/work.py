"""The background-work panel: one row per work item, in plain words (no Gradio).

Under the page feed. `work_rows` reads every item of the session from the timeline,
newest first: what was asked ("Quiz on 0:00-3:32", in video time), its state in words,
its result, and which of Cancel / Retry apply now. `work_html` lays them out with a
Cancel and a Retry button per row, each enabled only when it can act; the panel's
script sends ``{action, item}`` to the server (see `demos.ui`). A watch ("tell me when
...") reads as its condition and waiting / fired at M:SS (video time) / cancelled; an
every-time watch shows one row per alert and a waiting row for the next.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from demos.labels import STATE_WORDS, clock, work_label
from venus.events import ResultReady, WorkItemCreated, WorkItemStateChanged, WorkState
from venus.timeline import TimelineEntry

__all__ = ["WorkRow", "work_html", "work_rows"]

_RETRYABLE = (WorkState.CANCELLED, WorkState.FAILED, WorkState.INTERRUPTED)


@dataclass
class WorkRow:
    item_id: str
    capability: str
    arguments: dict[str, Any]
    label: str
    state: WorkState
    result: str = ""
    ok: bool | None = None
    requested_at: float = 0.0
    attempt: int = 1
    fired_at: float | None = None  # a watch: the video time of the evidence it fired on

    @property
    def number(self) -> str:
        return self.item_id.rsplit("/", 1)[-1].lstrip("w")

    @property
    def can_cancel(self) -> bool:
        return not self.state.terminal

    @property
    def can_retry(self) -> bool:
        return self.state in _RETRYABLE or (self.state is WorkState.DELIVERED and self.ok is False)

    @property
    def state_words(self) -> str:
        if self.capability == "watch":
            return _watch_words(self)
        if self.state is WorkState.DELIVERED and self.ok is False:
            return "Failed"
        return STATE_WORDS.get(self.state, self.state.value.title())


def work_rows(entries: Iterable[TimelineEntry], media_end: float | None = None) -> list[WorkRow]:
    """Every work item of the session, newest first, with its latest state and result."""
    rows: dict[str, WorkRow] = {}
    for entry in entries:
        e = entry.event
        if isinstance(e, WorkItemCreated):
            rows[e.item_id] = WorkRow(e.item_id, e.capability, dict(e.arguments),
                                      _label(e.capability, e.arguments, media_end),
                                      WorkState.QUEUED, requested_at=entry.time)
        elif isinstance(e, WorkItemStateChanged) and e.item_id in rows:
            row = rows[e.item_id]
            row.state, row.attempt = WorkState(e.state), e.attempt
            if row.state is WorkState.QUEUED and e.attempt > 1:  # a retry starts afresh
                row.result, row.ok = "", None
        elif isinstance(e, ResultReady) and e.item_id in rows:
            rows[e.item_id].result = e.result.summary
            rows[e.item_id].ok = e.result.ok
            if rows[e.item_id].capability == "watch" and e.result.ok:
                rows[e.item_id].fired_at = float(e.result.data["evidence"]["start"])
    return sorted(rows.values(), key=lambda r: -r.requested_at)


def _label(capability: str, arguments: dict[str, Any], media_end: float | None) -> str:
    if capability == "watch":
        every = " (every time)" if arguments.get("every_time") else ""
        return f"Tell me when {_short(str(arguments.get('condition', '')), 60)}{every}"
    return work_label(capability, arguments, media_end)


def _watch_words(r: WorkRow) -> str:
    if r.fired_at is not None:
        return f"Fired at {clock(r.fired_at)}"
    if r.state is WorkState.CANCELLED:
        return "Cancelled"
    if r.ok is False:
        return "Failed"
    return "Waiting"


def work_html(rows: Sequence[WorkRow]) -> str:
    if not rows:
        return ("<div class='venus-empty'>Nothing running in the background. Ask for a "
                "summary, a quiz, a search of the whole video or a timer.</div>")
    body = "".join(_row(r) for r in rows)
    return ("<table class='venus-work'><thead><tr><th>#</th><th>You asked for</th>"
            "<th>State</th><th>Result</th><th></th></tr></thead>"
            f"<tbody>{body}</tbody></table>")


def _row(r: WorkRow) -> str:
    state = "failed" if r.state is WorkState.DELIVERED and r.ok is False else r.state.value
    tries = f" (try {r.attempt})" if r.attempt > 1 else ""
    return (f"<tr data-item='{_e(r.item_id)}' data-state='{r.state.value}'>"
            f"<td>{_e(r.number)}</td><td>{_e(r.label)}</td>"
            f"<td><span class='venus-state venus-{state}'>{_e(r.state_words)}{tries}</span></td>"
            f"<td class='venus-result-cell'>{_e(_short(r.result, 140))}</td>"
            f"<td class='venus-actions'>{_button('cancel', 'Cancel', r, r.can_cancel)}"
            f"{_button('retry', 'Retry', r, r.can_retry)}</td></tr>")


def _button(action: str, text: str, r: WorkRow, enabled: bool) -> str:
    disabled = "" if enabled else " disabled"
    return (f"<button class='venus-{action}' data-action='{action}' "
            f"data-item='{_e(r.item_id)}'{disabled}>{text}</button>")


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)
