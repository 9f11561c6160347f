"""The speech-output seams: what a session plays, and how the runtime steers it mid-chunk.

Bottom of `venus.speech` (data types and Protocols, numpy only), below the harness, the
frontends and the runtime. The session queues `Utterance`s, stops them on barge-in and
polls for `PlaybackReport`s; a report that an utterance finished is the playback
acknowledgement that lets the harness mark a delivered result DELIVERED.

* `SpeechOutput`: every output (`venus.speech.TimedTextOutput` plays text at a speaking
  rate in session time; `venus.speech.AudioSpeechOutput` plays real TTS audio).
* `OutputControl`: an output with a sample-accurate cursor that the runtime's duplex I/O
  (`venus.runtime.DuplexIO`) can steer inside a chunk: duck/pause/resume at session
  times, follow the input, preview what it is about to play (the echo reference) and say
  what the user has heard so far. `AudioSpeechOutput` implements it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Heard", "OutputControl", "PlaybackReport", "PlaybackStatus", "SpeechOutput",
           "Utterance"]


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


@dataclass(frozen=True)
class Heard:
    """What the user heard of one utterance: its words up to the cut, and how it ended."""

    utterance_id: str
    text: str
    heard_text: str
    fraction: float
    status: PlaybackStatus

    @property
    def unheard_text(self) -> str:
        """The rest of the utterance after the last word heard."""
        words, heard = self.text.split(), len(self.heard_text.split())
        return " ".join(words[heard:])


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


@runtime_checkable
class OutputControl(SpeechOutput, Protocol):
    """A `SpeechOutput` the runtime steers at sample resolution inside a chunk.

    Actions take session times and are *scheduled*: the output applies them at their
    sample when it plays past it. ``cancel_scheduled(action)`` drops entries of one
    action ("duck", "unduck", "pause", "resume") not yet played.
    """

    @property
    def paused(self) -> bool:
        """The cursor holds (nothing plays, nothing is lost)."""

    @property
    def current(self) -> Utterance | None:
        """The utterance at the cursor (playing or paused)."""

    def advance(self, until: float) -> list[PlaybackReport]:
        """The input up to ``until`` has been seen: play up to there (and from then on
        never play past what the input has shown)."""

    def preview(self, start: float, end: float) -> np.ndarray:
        """What plays over ``[start, end)`` if nothing changes (commits nothing)."""

    def heard_so_far(self) -> Heard | None:
        """What has been heard of the current utterance up to the playback horizon."""

    def duck(self, at: float) -> None: ...

    def unduck(self, at: float) -> None: ...

    def pause(self, at: float) -> None: ...

    def resume(self, at: float) -> None: ...

    def cancel_scheduled(self, action: str) -> None: ...
