"""Plain-language words for what the page shows: times, work items and their states.

Bottom of ``demos`` (no Gradio, no timeline): `clock` writes a time as the player shows
it, `Status` is what the banner at the top says, `work_label` turns a capability call into what a person asked for ("Quiz on
0:00-3:32", not ``start=0.0, end=435.0, questions=3``), and `STATE_WORDS` names each
work-item state. In file mode every time is video time: ranges are clamped to the part
of the video watched (``media_end``), never the conversation's own clock.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from venus.events import WorkState

__all__ = ["STATE_WORDS", "Status", "clock", "parse_clock", "span", "work_label"]

DEFAULT_RANGE_S = 300.0  # a summary or quiz without a start covers the last five minutes

STATE_WORDS = {
    WorkState.QUEUED: "Waiting", WorkState.RUNNING: "Working", WorkState.COMPLETED: "Ready",
    WorkState.FAILED: "Failed", WorkState.DELIVERING: "Telling you",
    WorkState.DELIVERED: "Done", WorkState.CANCELLED: "Cancelled",
    WorkState.INTERRUPTED: "Stopped",
}


@dataclass(frozen=True)
class Status:
    """What the banner says. ``kind``: idle, queued, loading, ready, camera, behind, error
    or full; ``fraction``: progress of a load (None when there is none)."""

    kind: str
    text: str
    fraction: float | None = None


def clock(seconds: float) -> str:
    """``83.4 -> "1:23"``, ``3725 -> "1:02:05"`` (as a video player writes times)."""
    s = max(0, int(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def parse_clock(text: str) -> float:
    """``"1:23" -> 83.0``, ``"1:02:05" -> 3725.0``."""
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return float(total)


def span(start: float, end: float) -> str:
    return f"{clock(start)}-{clock(end)}"


def work_label(capability: str, arguments: Mapping[str, Any],
               media_end: float | None = None) -> str:
    """What the user asked for, in their words, with times in video time."""
    a = dict(arguments)
    if capability in ("summarize_range", "make_quiz"):
        what = "Summary of" if capability == "summarize_range" else "Quiz on"
        return f"{what} {span(*_range(a.get('start'), a.get('end'), media_end))}"
    if capability == "search_memory":
        return f"Search for “{_short(a.get('query', ''), 50)}”"
    if capability == "set_timer":
        seconds = float(a.get("seconds", 0))
        message = str(a.get("message") or "")
        note = f": {_short(message, 40)}" if message and message != "Time's up!" else ""
        return f"Timer for {_duration(seconds)}{note}"
    if capability == "calculate":
        return f"Work out {_short(a.get('expression', ''), 40)}"
    name = capability.replace("_", " ").strip().capitalize() or "Task"
    values = ", ".join(_short(v, 20) for v in a.values() if v not in (None, ""))
    return f"{name}: {values}" if values else name


def _range(start: Any, end: Any, media_end: float | None) -> tuple[float, float]:
    hi = float(end) if end is not None else (media_end or 0.0)
    if media_end is not None:
        hi = min(hi, media_end)
    lo = max(0.0, hi - DEFAULT_RANGE_S) if start is None else max(0.0, float(start))
    return min(lo, hi), hi


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        n = int(seconds // 60)
        return f"{n} minute{'s' if n != 1 else ''}"
    if seconds >= 60:
        return clock(seconds)
    return f"{seconds:g} seconds"


def _short(value: object, limit: int) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


TIME_PATTERN = re.compile(
    r"(?<![\d:.])(\d{1,2}(?::\d{2}){1,2})(?:\s*(?:-|–|to)\s*(\d{1,2}(?::\d{2}){1,2}))?(?![\d:])")
"""A time as replies write it ("0:42", "1:02:05"), optionally a range ("0:00-0:22")."""
