"""The ``watch`` capability: "tell me when ..." as background work.

A registered capability like the others (above `venus.harness`; the matching itself is
`memory.watch`). A watch waits on the session's clock and, every ``poll_s`` seconds, reads
what the memory has committed up to now (never later: the horizon is the lesser of the
memory's length and the session's time, so a memory ingested ahead of playback is still
read causally). On a match it returns a `WatchAlert` quoting the evidence with its video
time; the harness offers it back and the frontend speaks it when the floor is free. A
watch fires once by default; with ``every_time`` the harness asks again after each
delivery (`watch_again`), from where the last alert was. Cancel it like any work item.

A condition about something *seen* on camera ("when a dog walks in") needs an image
model: without one the watch fails at once with one sentence naming the seam.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from memory.evidence import SEEN
from memory.watch import WatchCondition, Watcher, WatchMatch, WatchOptions
from venus.capabilities.text import clock_label
from venus.errors import CapabilityFailure
from venus.events import Citation, DeliveryPolicy, WorkResult
from venus.harness.capability import capability
from venus.harness.context import CapabilityContext

__all__ = ["WatchAlert", "WatchEvidence", "watch", "watch_again"]

NO_IMAGE_MODEL = ("I can't watch for something seen on camera yet: no image model is "
                  "plugged in (give one as MemoryModels(image_embedder=...)).")


@dataclass(frozen=True)
class WatchEvidence:
    """What matched: a sentence said or the lines of a slide shown, in video seconds."""

    start: float
    end: float
    text: str
    kind: str


@dataclass(frozen=True)
class WatchAlert:
    """One alert: ``summary`` is what is said; ``video_time`` when it was known."""

    summary: str
    request: str
    video_time: float
    evidence: WatchEvidence
    score: float
    every_time: bool
    citations: tuple[Citation, ...]


def watch_again(arguments: dict[str, Any], result: WorkResult) -> dict[str, Any] | None:
    """An every-time watch asks again after each delivery, from its last alert on."""
    if not arguments.get("every_time") or not isinstance(result.data, dict):
        return None
    return {**arguments, "since": float(result.data["video_time"])}


@capability(timeout=None, perishable=False, policy=DeliveryPolicy.WHEN_FLOOR_FREE,
            follow_up=watch_again)
async def watch(condition: Annotated[str, Field(min_length=1, max_length=300)],
                context: CapabilityContext, every_time: bool = False,
                since: Annotated[float | None, Field(ge=0)] = None,
                poll_s: Annotated[float, Field(gt=0, le=60)] = 1.0,
                min_score: Annotated[float | None, Field(gt=0, le=1)] = None) -> WatchAlert:
    """Wait until what is said or shown in the video matches a condition ("the exam
    topics", "the slide about photosynthesis") and alert with the evidence and its time."""
    memory = context.require_memory()
    parsed = WatchCondition.parse(condition)
    if parsed.empty:
        raise CapabilityFailure(f"I can't tell what to watch for in {condition!r}; "
                                f"name a word or topic, like 'tell me when he mentions the exam'")
    if not callable(getattr(memory, "evidence", None)):
        raise CapabilityFailure("this session's memory holds no sentences or screen lines to "
                                "watch; attach a video memory")
    if parsed.modality == SEEN and not _sees(memory):
        raise CapabilityFailure(NO_IMAGE_MODEL)
    options = WatchOptions() if min_score is None else WatchOptions(min_score=min_score)
    start = context.snapshot.time if since is None else since
    watcher = Watcher(parsed, since=start, options=options)
    while True:
        horizon = min(float(memory.duration), context.clock.now())
        matches = watcher.step(memory, horizon) if horizon > start else []
        if matches:
            return _alert(matches[0], condition, every_time)
        await context.clock.sleep(poll_s)


def _sees(memory: Any) -> bool:
    models = getattr(memory, "models", None)
    return getattr(models, "image_embedder", None) is not None


def _alert(match: WatchMatch, request: str, every_time: bool) -> WatchAlert:
    evidence = WatchEvidence(match.start, match.end, match.text, match.kind)
    cite = Citation(match.start, match.end, None, clock_label(match.start))
    return WatchAlert(match.sentence(), request, match.at, evidence, match.score,
                      every_time, (cite,))
