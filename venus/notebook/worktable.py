"""`WorkItemTable`: the Harness's work items as a table that follows the timeline live.

Behaviour layer of `venus.notebook`. Subscribe it to a session's timeline
(``timeline.subscribe(table.on_entry)``); each work-item event updates its row (state,
the path through the lifecycle with session times, the freshness verdict, what was
spoken) and, when shown in a notebook, the HTML widget re-renders at once, so the table
moves while the session runs. Without ipywidgets it still records rows (``rows``,
`to_html`), which is what the tests use.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from venus.clock import hold_display
from venus.events import (
    ReintegrationDecided,
    ResultDelivered,
    ResultReady,
    SpeechQueued,
    WorkItemCreated,
    WorkItemStateChanged,
)

__all__ = ["WorkItemRow", "WorkItemTable"]

_STATE_COLOURS = {"queued": "#eeeeee", "running": "#fff59d", "completed": "#c8e6c9",
                  "failed": "#ffcdd2", "delivering": "#bbdefb", "delivered": "#a5d6a7",
                  "cancelled": "#e0e0e0", "interrupted": "#ffe0b2"}


@dataclass
class WorkItemRow:
    """One work item as the table shows it."""

    item_id: str
    capability: str
    arguments: dict[str, Any]
    requested_at: float
    state: str = "queued"
    path: list[tuple[str, float]] = field(default_factory=list)
    result: str = ""
    verdict: str = ""
    spoken: str = ""

    @property
    def states(self) -> list[str]:
        """The lifecycle states in the order the item went through them."""
        return [s for s, _ in self.path]


class WorkItemTable:
    """A live table of work items (see the module docstring)."""

    def __init__(self, title: str = "work items", *, pace_s: float = 0.0) -> None:
        self.title = title
        self.pace_s = pace_s  # wall seconds to hold each change on screen (0: none)
        self.rows: dict[str, WorkItemRow] = {}
        self._widget = None

    @property
    def widget(self):
        """The ipywidgets HTML view (made on first use; needs the notebooks extra)."""
        if self._widget is None:
            from venus.notebook._extras import require

            self._widget = require("ipywidgets").HTML(self.to_html())
        return self._widget

    def on_entry(self, entry) -> None:
        """Timeline listener: fold one entry into the rows and refresh the view."""
        if self._apply(entry.event, entry.time) and self._widget is not None:
            self._widget.value = self.to_html()
            if self.pace_s > 0:
                # A simulated session runs in milliseconds; holding each change lets a
                # person watch the lifecycle move (only for the on-screen table).
                hold_display(self.pace_s)

    def _apply(self, event, time: float) -> bool:
        if isinstance(event, WorkItemCreated):
            self.rows[event.item_id] = WorkItemRow(event.item_id, event.capability,
                                                   dict(event.arguments), time,
                                                   path=[("queued", time)])
            return True
        row = self.rows.get(getattr(event, "item_id", None) or "")
        if row is None:
            return False
        if isinstance(event, WorkItemStateChanged):
            row.state = event.state.value
            if not row.path or row.path[-1][0] != row.state:
                row.path.append((row.state, time))
        elif isinstance(event, ResultReady):
            row.result = event.result.summary
        elif isinstance(event, ReintegrationDecided):
            row.verdict = f"{event.verdict.value}: {event.reason}"
        elif isinstance(event, SpeechQueued):
            row.spoken = event.text
        elif isinstance(event, ResultDelivered):
            pass  # the Delivered state change that follows carries it
        else:
            return False
        return True

    def to_html(self) -> str:
        head = ("<tr><th>item</th><th>capability</th><th>arguments</th><th>state</th>"
                "<th>lifecycle (session time)</th><th>freshness</th><th>spoken</th></tr>")
        body = "".join(self._row_html(r) for r in self.rows.values()) or \
            '<tr><td colspan="7"><i>no work delegated yet</i></td></tr>'
        return (f"<b>{html.escape(self.title)}</b><table style='border-collapse:collapse'>"
                f"{head}{body}</table>")

    @staticmethod
    def _row_html(row: WorkItemRow) -> str:
        path = " → ".join(f"{s} <small>{t:.0f}s</small>" for s, t in row.path)
        args = ", ".join(f"{k}={v!r}" for k, v in row.arguments.items())
        cells = [row.item_id, row.capability, args]
        colour = _STATE_COLOURS.get(row.state, "#ffffff")
        return ("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells)
                + f"<td style='background:{colour}'><b>{html.escape(row.state)}</b></td>"
                + f"<td>{path}</td><td>{html.escape(row.verdict)}</td>"
                + f"<td>{html.escape(row.spoken)}</td></tr>")
