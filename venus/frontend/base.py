"""The seam between the session loop and a conversational frontend.

Above `venus.events`, `venus.timeline`, `venus.speech`, `venus.perception` and the
harness's request types; below the runtime. A frontend (rule policy, omni model, remote
server) is policy only: the runtime's duplex I/O (`venus.runtime.DuplexIO`) removes the
assistant's echo from each one-second chunk, perceives the user, runs the overlap gate
and plays the output; after every chunk the session calls ``decide(frame, view)`` with
the resulting `DuplexFrame`, and the frontend returns a `Decision`: a control token,
speech to queue, a floor action, requests for background work, and what it perceived in
the chunk (speech detected, words, overlap kind). The `SessionView` it receives is
causal: it holds nothing recorded after the chunk's end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from memory.media import VideoChunk
from venus.events import ControlToken, Event, FloorAction, SpeechDetected
from venus.harness.requests import DelegationRequest, ResultOffer, WorkItemView
from venus.perception.types import PerceptionFrame
from venus.speech.base import Heard
from venus.timeline import TimelineEntry

__all__ = [
    "ControlToken", "Decision", "DelegationRequest", "DuplexFrame", "FloorAction", "Frontend",
    "Overlap", "ResultOffer", "SessionView", "WorkItemView",
]


@dataclass(frozen=True)
class Overlap:
    """User speech over the assistant's audible output, as the runtime's gate saw it.

    Open from the ``onset`` until the frontend classifies it (an `OverlapClassified`
    in its decision, or a floor action), or until the assistant's output has nothing
    more to play: ``quiet`` when the voice was well below the calibrated user at the
    onset, ``ended_at`` once the VAD confirmed its offset, ``words`` what the word probe
    read of its beginning so far, ``stopped`` when the gate paused the output on them,
    ``named_other`` when a read named someone else ("Wait, John, ...": played on);
    ``held_until`` while the gate holds the output on the acoustic cue alone (sustained
    loud speech, no words read yet: `venus.runtime.GatePolicy`), when it plays on unless
    words that take the floor are read by then (which make it ``stopped``).
    """

    onset: float
    quiet: bool = False
    ended_at: float | None = None
    words: str = ""
    stopped: bool = False
    named_other: bool = False
    held_until: float | None = None


@dataclass(frozen=True)
class DuplexFrame:
    """One chunk as the runtime's duplex I/O hands it to the frontend.

    ``chunk`` is the input with the assistant's own voice removed from its audio (echo
    cancellation against what the output played); ``perception`` what live perception
    made of it (None in a session without perception, e.g. with fakes); ``overlap`` the
    open overlap episode, if any; ``speaking`` whether the output still has speech
    playing or queued after playing up to the chunk's end; ``heard`` what the user has
    heard so far of the utterance at the cursor (outputs with word timings only);
    ``closed`` an overlap episode the assistant's turn ended under in this chunk, before
    any verdict (the runtime closes it, as what the user says now is a turn: the
    frontend judges its words whole, as an overlap begun over the answer).
    """

    chunk: VideoChunk
    perception: PerceptionFrame | None = None
    overlap: Overlap | None = None
    speaking: bool = False
    heard: Heard | None = None
    closed: Overlap | None = None

    @property
    def index(self) -> int:
        return self.chunk.index

    @property
    def start(self) -> float:
        return self.chunk.start

    @property
    def end(self) -> float:
        return self.chunk.end


@runtime_checkable
class Frontend(Protocol):
    """A conversational frontend: policy only, one decision per chunk, never blocking on
    background work (the runtime owns the audio path; the frontend decides)."""

    name: str

    def decide(self, frame: DuplexFrame, view: SessionView) -> Decision:
        """Decide what to do after ``frame`` given the session so far."""

    def reset(self) -> None:
        """Forget the conversation so far (a new one starts)."""

    def close(self) -> None:
        """Release what the frontend holds (a model, a connection); safe to call twice."""


@dataclass(frozen=True)
class Decision:
    """What the frontend does after one chunk.

    ``topic``: when given, what the conversation is about from now on (the runtime hands
    it to perception for the topical cue of later speech).
    """

    token: ControlToken = ControlToken.LISTEN
    speech: str | None = None  # text to queue for playout
    floor: FloorAction | None = None
    delegations: tuple[DelegationRequest, ...] = ()
    perceived: tuple[Event, ...] = ()  # SpeechDetected, UserWordsTranscribed, OverlapClassified
    topic: tuple[str, ...] | None = None

    @property
    def user_speaking(self) -> bool:
        """The frontend heard the user speak in this chunk (the user holds the floor)."""
        return any(isinstance(e, SpeechDetected) for e in self.perceived)


@dataclass(frozen=True)
class SessionView:
    """Read-only, causal state of a session at one chunk boundary."""

    session_id: str
    time: float
    chunk_index: int
    speaking: bool  # the assistant's output is playing
    transcript: tuple[str, ...]  # recent user words, oldest first
    work: tuple[WorkItemView, ...]  # items not yet finished
    results: tuple[ResultOffer, ...]  # finished, waiting to be delivered
    context: tuple[ResultOffer, ...]  # delivered silently since the last step
    recent: tuple[TimelineEntry, ...]  # entries since the previous step
    memory_version: int | None = None
