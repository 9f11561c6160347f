"""The seam between the session loop and a conversational frontend.

Above `venus.events` and `venus.timeline`, below the harness and the session. A frontend
(rule policy, omni model, remote server) implements `Frontend`: after every one-second
chunk the session calls ``step(chunk, view)`` and the frontend returns a `Decision`:
a control token, speech to queue, a floor action, requests for background work, and
what it perceived in the chunk (speech detected, words, overlap kind). The `SessionView`
it receives is causal: it holds nothing recorded after the chunk's end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from memory.media import VideoChunk
from venus.events import (
    ControlToken,
    DelegationAction,
    DeliveryPolicy,
    Event,
    FloorAction,
    SpeechDetected,
    Verdict,
    WorkResult,
    WorkState,
)
from venus.timeline import TimelineEntry

__all__ = [
    "ControlToken", "Decision", "DelegationRequest", "FloorAction", "Frontend",
    "ResultOffer", "SessionView", "WorkItemView",
]


@runtime_checkable
class Frontend(Protocol):
    """A conversational frontend: one decision per chunk, never blocking on background work."""

    name: str

    def step(self, chunk: VideoChunk, view: SessionView) -> Decision:
        """Decide what to do after ``chunk`` given the session so far."""


@dataclass(frozen=True)
class DelegationRequest:
    """Ask the harness for background work, or decide about an earlier item.

    Use the constructors: ``DelegationRequest.new("search_memory", {"query": ...})``,
    ``.cancel(item_id)``, ``.revise(item_id, {"query": ...})``, ``.retry(item_id)``,
    ``.retain(item_id)``, ``.replace(item_id, "other_capability", {...})``.
    """

    action: DelegationAction = DelegationAction.REQUEST
    capability: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    target: str | None = None
    policy: DeliveryPolicy | None = None  # None: the capability's default
    request_id: str | None = None  # None: the harness numbers requests per session

    @classmethod
    def new(cls, capability: str, arguments: dict[str, Any] | None = None, *,
            policy: DeliveryPolicy | None = None) -> DelegationRequest:
        return cls(DelegationAction.REQUEST, capability, dict(arguments or {}), policy=policy)

    @classmethod
    def cancel(cls, item_id: str) -> DelegationRequest:
        return cls(DelegationAction.CANCEL, target=item_id)

    @classmethod
    def retain(cls, item_id: str) -> DelegationRequest:
        return cls(DelegationAction.RETAIN, target=item_id)

    @classmethod
    def retry(cls, item_id: str) -> DelegationRequest:
        return cls(DelegationAction.RETRY, target=item_id)

    @classmethod
    def revise(cls, item_id: str, arguments: dict[str, Any]) -> DelegationRequest:
        return cls(DelegationAction.REVISE, arguments=dict(arguments), target=item_id)

    @classmethod
    def replace(cls, item_id: str, capability: str,
                arguments: dict[str, Any] | None = None) -> DelegationRequest:
        return cls(DelegationAction.REPLACE, capability, dict(arguments or {}), target=item_id)


@dataclass(frozen=True)
class Decision:
    """What the frontend does after one chunk."""

    token: ControlToken = ControlToken.LISTEN
    speech: str | None = None  # text to queue for playout
    floor: FloorAction | None = None
    delegations: tuple[DelegationRequest, ...] = ()
    perceived: tuple[Event, ...] = ()  # SpeechDetected, UserWordsTranscribed, OverlapClassified

    @property
    def user_speaking(self) -> bool:
        """The frontend heard the user speak in this chunk (the user holds the floor)."""
        return any(isinstance(e, SpeechDetected) for e in self.perceived)


@dataclass(frozen=True)
class WorkItemView:
    """A background work item as the frontend sees it."""

    item_id: str
    capability: str
    state: WorkState
    arguments: dict[str, Any]
    requested_at: float


@dataclass(frozen=True)
class ResultOffer:
    """A finished result waiting in this session's private channel."""

    item_id: str
    capability: str
    result: WorkResult
    verdict: Verdict
    policy: DeliveryPolicy
    speech: str  # what would be spoken (revised wording when the verdict is REVISE)


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
