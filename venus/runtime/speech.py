"""The speech-output seam: a playout queue with stop/flush and playback reports.

Data types and a Protocol, below the session. The session queues `Utterance`s, stops them
on barge-in and polls for `PlaybackReport`s; a report that an utterance finished is the
playback acknowledgement that lets the harness mark a delivered result DELIVERED.
`venus.testing.FakeSpeechOutput` plays text at a fixed speaking rate in session time;
real outputs (TTS into a browser or sound card) implement the same Protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable

__all__ = ["PlaybackReport", "PlaybackStatus", "SpeechOutput", "Utterance"]


@dataclass(frozen=True)
class Utterance:
    """Text to be spoken; ``item_id`` is set when it delivers a work item's result."""

    utterance_id: str
    text: str
    item_id: str | None = None


class PlaybackStatus(str, Enum):
    STARTED = "started"
    FINISHED = "finished"  # heard in full: the playback acknowledgement
    STOPPED = "stopped"  # cut off or flushed before the end


@dataclass(frozen=True)
class PlaybackReport:
    utterance_id: str
    status: PlaybackStatus
    time: float  # session time at which it happened
    heard_fraction: float = 1.0


@runtime_checkable
class SpeechOutput(Protocol):
    """Where the assistant's speech goes. ``now`` is the session time of the call."""

    @property
    def busy(self) -> bool:
        """Something is playing or queued."""

    def queue(self, utterance: Utterance, now: float) -> None:
        """Append to the playout queue."""

    def stop(self, now: float) -> list[PlaybackReport]:
        """Stop what is playing and flush the queue; report what was cut."""

    def poll(self, now: float) -> list[PlaybackReport]:
        """Reports of what started or finished since the last poll, in order."""
