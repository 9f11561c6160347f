"""Replay: the decisions a session made, read back from its timeline, and their comparison.

A recorded session (`venus.timeline.Timeline.load`) run again through the same
deterministic components (source, frontend, capabilities, simulated clock) must make the
same decisions; `compare_decisions` lists where two timelines disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from venus.events import (
    ChunkReceived,
    ControlTokenEmitted,
    DelegationRequested,
    FloorActionTaken,
    SpeechQueued,
)
from venus.timeline import Timeline

__all__ = ["DecisionRecord", "compare_decisions", "decisions"]


@dataclass(frozen=True)
class DecisionRecord:
    """What was decided after one chunk, as the timeline shows it."""

    chunk: int
    time: float
    token: str | None = None
    floor: str | None = None
    speech: tuple[str, ...] = ()
    delegations: tuple[tuple[Any, ...], ...] = field(default=())


def decisions(timeline: Timeline) -> list[DecisionRecord]:
    """One `DecisionRecord` per chunk, in order."""
    out: list[dict[str, Any]] = []
    for entry in timeline:
        event = entry.event
        if isinstance(event, ChunkReceived):
            out.append({"chunk": event.index, "time": entry.time, "speech": [], "delegations": []})
        elif not out:
            continue
        elif isinstance(event, ControlTokenEmitted):
            out[-1]["token"] = event.token.value
        elif isinstance(event, FloorActionTaken):
            out[-1]["floor"] = event.action.value
        elif isinstance(event, SpeechQueued):
            out[-1]["speech"].append(event.text)
        elif isinstance(event, DelegationRequested):
            out[-1]["delegations"].append((event.action.value, event.capability,
                                           tuple(sorted(event.arguments.items())), event.target))
    return [DecisionRecord(d["chunk"], d["time"], d.get("token"), d.get("floor"),
                           tuple(d["speech"]), tuple(d["delegations"])) for d in out]


def compare_decisions(recorded: Timeline, replayed: Timeline) -> list[str]:
    """Human-readable differences between two sessions' decisions; empty when identical."""
    a, b = decisions(recorded), decisions(replayed)
    problems = [f"chunk {x.chunk}: recorded {x} but replayed {y}"
                for x, y in zip(a, b) if x != y]
    if len(a) != len(b):
        problems.append(f"recorded {len(a)} chunks but replayed {len(b)}")
    return problems
