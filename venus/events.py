"""The whole vocabulary of the shared causal timeline, in one module.

Bottom layer of ``venus``: every event the foreground loop, the frontend or the harness
puts on the `venus.timeline.Timeline` is one of the small frozen dataclasses below, and so
are the payloads they carry (`EvidenceSnapshot`, `WorkResult`, ...). The enums are the
shared words: control tokens, floor actions, delegation decisions, work-item states.
A `Timeline` wraps each event in an entry carrying the session id, a monotonically
increasing sequence number and the session time, and persists it as one JSON line.

Enum values are strings, so an event read back from JSON compares equal to the enum.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = [
    "EVENT_TYPES", "ChunkReceived", "Citation", "ControlToken", "ControlTokenEmitted",
    "DelegationAction", "DelegationRejected", "DelegationRequested", "DeliveryPolicy",
    "ErrorCategory", "ErrorRecorded", "Event", "EvidenceSnapshot", "FloorAction",
    "FloorActionTaken", "MemoryUpdated", "OverlapClassified", "OverlapKind",
    "PlaybackAcknowledged", "ReintegrationDecided", "ResultDelivered", "ResultReady",
    "SessionEnded", "SessionStarted", "SpeechDetected", "SpeechPlayed", "SpeechQueued",
    "SpeechStopped", "UserWordsTranscribed", "Verdict", "WorkError", "WorkItemCreated",
    "WorkItemStateChanged", "WorkResult", "WorkState",
]


# --- shared words -------------------------------------------------------------------


class ControlToken(str, Enum):
    """What the frontend emits after each one-second chunk."""

    LISTEN = "<|listen|>"  # stay silent
    SPEAK = "<|speak|>"  # speak now / keep speaking
    TURN_EOS = "<|turn_eos|>"  # end of the assistant's turn


class FloorAction(str, Enum):
    """How the frontend handles the floor, especially when speech overlaps its own."""

    CONTINUE_SPEAKING = "continue_speaking"
    AWAIT_INPUT = "await_input"
    YIELD_FLOOR = "yield_floor"
    STOP_OUTPUT = "stop_output"
    REVISE_RESPONSE = "revise_response"

    @property
    def stops_output(self) -> bool:
        """Whether the action silences what is playing (yield, stop, revise)."""
        return self in (FloorAction.YIELD_FLOOR, FloorAction.STOP_OUTPUT,
                        FloorAction.REVISE_RESPONSE)


class OverlapKind(str, Enum):
    """The four kinds of speech that overlap the assistant's own."""

    BACKCHANNEL = "backchannel"
    OTHER_DIRECTED = "other_directed"
    BACKGROUND = "background"
    INTERRUPTION = "interruption"


class DelegationAction(str, Enum):
    """What a frontend asks of the harness: a new request or a decision on an old one."""

    REQUEST = "request"
    RETAIN = "retain"  # keep the item even though the conversation moved on
    CANCEL = "cancel"
    REVISE = "revise"  # new arguments, same intent: the old item is superseded
    RETRY = "retry"  # run a failed/interrupted item again
    REPLACE = "replace"  # a new request supersedes the old one


class WorkState(str, Enum):
    """Work-item lifecycle. Terminal: DELIVERED and CANCELLED."""

    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    DELIVERING = "delivering"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"  # was running when its session stopped; retry or drop

    @property
    def terminal(self) -> bool:
        return self in (WorkState.DELIVERED, WorkState.CANCELLED)


class Verdict(str, Enum):
    """The freshness check's decision for a finished item at reintegration."""

    DELIVER = "deliver"
    REVISE = "revise"  # speak it, framed as an answer to the earlier request
    RETRY = "retry"  # run again on fresher evidence
    REPLACE = "replace"  # a newer item supersedes it
    DROP = "drop"


class DeliveryPolicy(str, Enum):
    """When a result may be spoken."""

    WHEN_FLOOR_FREE = "when_floor_free"  # neither the user nor the assistant is speaking
    INTERRUPT = "interrupt"  # stop current output and speak now
    SILENT = "silent"  # add to the frontend's context without speaking


class ErrorCategory(str, Enum):
    INVALID_ARGUMENTS = "invalid_arguments"
    UNKNOWN_CAPABILITY = "unknown_capability"
    UNKNOWN_ITEM = "unknown_item"
    DUPLICATE = "duplicate"
    TIMEOUT = "timeout"
    RAISED = "raised"
    MALFORMED_OUTPUT = "malformed_output"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"
    ALREADY_ATTEMPTED = "already_attempted"  # side-effecting call with a used key
    SOURCE = "source"
    FRONTEND = "frontend"


# --- payloads -----------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceSnapshot:
    """What was seen, heard and said up to the request boundary, fixed at capture."""

    session_id: str
    seq: int  # timeline position of the request
    time: float  # session time of the request
    memory_version: int | None
    transcript: tuple[str, ...] = ()  # recent user words, oldest first
    keyframes: tuple[float, ...] = ()  # media times of recent chunks' frames


@dataclass(frozen=True)
class Citation:
    """Where a result came from: a time range and optionally a key frame."""

    start: float
    end: float
    keyframe: str | None = None
    label: str = ""


@dataclass(frozen=True)
class WorkError:
    category: ErrorCategory
    message: str
    retryable: bool = False


@dataclass(frozen=True)
class WorkResult:
    """The normalized result every capability's output is turned into."""

    ok: bool
    summary: str  # short and speakable
    data: Any = None  # structured output (JSON-compatible)
    citations: tuple[Citation, ...] = ()
    error: WorkError | None = None


# --- events -------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Base of every timeline event."""


@dataclass(frozen=True)
class SessionStarted(Event):
    clock: str
    frontend: str


@dataclass(frozen=True)
class SessionEnded(Event):
    reason: str
    chunks: int


@dataclass(frozen=True)
class ChunkReceived(Event):
    index: int
    start: float
    end: float
    has_audio: bool
    frames: int


@dataclass(frozen=True)
class SpeechDetected(Event):
    start: float
    end: float


@dataclass(frozen=True)
class UserWordsTranscribed(Event):
    text: str
    start: float
    end: float


@dataclass(frozen=True)
class OverlapClassified(Event):
    kind: OverlapKind
    text: str = ""


@dataclass(frozen=True)
class ControlTokenEmitted(Event):
    token: ControlToken
    chunk: int


@dataclass(frozen=True)
class FloorActionTaken(Event):
    action: FloorAction
    chunk: int


@dataclass(frozen=True)
class SpeechQueued(Event):
    utterance_id: str
    text: str
    item_id: str | None = None  # set when the speech delivers a work item


@dataclass(frozen=True)
class SpeechPlayed(Event):
    """Playout of an utterance began."""

    utterance_id: str


@dataclass(frozen=True)
class SpeechStopped(Event):
    utterance_id: str
    heard_fraction: float
    reason: str


@dataclass(frozen=True)
class PlaybackAcknowledged(Event):
    """The user heard the whole utterance (or, ``via="context"``, the frontend took it in)."""

    utterance_id: str
    item_id: str | None = None
    via: str = "speech"


@dataclass(frozen=True)
class DelegationRequested(Event):
    request_id: str
    action: DelegationAction
    capability: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    target: str | None = None  # the item a decision applies to


@dataclass(frozen=True)
class DelegationRejected(Event):
    request_id: str
    category: ErrorCategory
    reason: str
    existing: str | None = None  # the in-flight item a duplicate matches


@dataclass(frozen=True)
class WorkItemCreated(Event):
    item_id: str
    request_id: str
    capability: str
    arguments: dict[str, Any]
    idempotency_key: str
    snapshot: EvidenceSnapshot
    policy: DeliveryPolicy = DeliveryPolicy.WHEN_FLOOR_FREE
    supersedes: str | None = None


@dataclass(frozen=True)
class WorkItemStateChanged(Event):
    item_id: str
    state: WorkState
    previous: WorkState | None
    attempt: int = 1
    reason: str = ""


@dataclass(frozen=True)
class ResultReady(Event):
    item_id: str
    result: WorkResult


@dataclass(frozen=True)
class ReintegrationDecided(Event):
    item_id: str
    verdict: Verdict
    reason: str


@dataclass(frozen=True)
class ResultDelivered(Event):
    item_id: str
    utterance_id: str | None
    via: str = "speech"


@dataclass(frozen=True)
class MemoryUpdated(Event):
    version: int


@dataclass(frozen=True)
class ErrorRecorded(Event):
    source: str
    category: ErrorCategory
    message: str
    item_id: str | None = None


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        SessionStarted, SessionEnded, ChunkReceived, SpeechDetected, UserWordsTranscribed,
        OverlapClassified, ControlTokenEmitted, FloorActionTaken, SpeechQueued, SpeechPlayed,
        SpeechStopped, PlaybackAcknowledged, DelegationRequested, DelegationRejected,
        WorkItemCreated, WorkItemStateChanged, ResultReady, ReintegrationDecided,
        ResultDelivered, MemoryUpdated, ErrorRecorded,
    )
}
"""Event class by name: the ``type`` field of a persisted timeline line."""
