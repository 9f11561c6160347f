"""Work items and their lifecycle: the data at the bottom of the harness.

A `WorkItem` is one delegated request bound to its session, with the evidence snapshot
fixed at the request boundary. Its state only moves along `TRANSITIONS`; an illegal move
is a bug in our code and raises `LifecycleError`, which is how "exactly one terminal
state" and "nothing delivered after cancel" are enforced rather than hoped for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from venus.events import (
    DeliveryPolicy,
    ErrorCategory,
    EvidenceSnapshot,
    Verdict,
    WorkError,
    WorkResult,
    WorkState,
)

__all__ = ["IN_FLIGHT", "TRANSITIONS", "LifecycleError", "WorkItem", "failure"]

S = WorkState
TRANSITIONS: dict[WorkState, frozenset[WorkState]] = {
    S.QUEUED: frozenset({S.RUNNING, S.CANCELLED, S.INTERRUPTED}),
    S.RUNNING: frozenset({S.COMPLETED, S.FAILED, S.CANCELLED, S.QUEUED, S.INTERRUPTED}),
    S.COMPLETED: frozenset({S.DELIVERING, S.CANCELLED, S.QUEUED}),
    S.FAILED: frozenset({S.DELIVERING, S.CANCELLED, S.QUEUED}),
    # An interrupted delivery goes back to pending (COMPLETED/FAILED), never to DELIVERED.
    S.DELIVERING: frozenset({S.DELIVERED, S.COMPLETED, S.FAILED, S.CANCELLED}),
    S.INTERRUPTED: frozenset({S.QUEUED, S.CANCELLED}),
    S.DELIVERED: frozenset(),
    S.CANCELLED: frozenset(),
}
"""Allowed moves. QUEUED again means a retry; DELIVERED and CANCELLED are terminal."""

IN_FLIGHT = frozenset({S.QUEUED, S.RUNNING, S.COMPLETED, S.DELIVERING})
"""States in which an identical new request counts as a duplicate."""


class LifecycleError(RuntimeError):
    """A work item was asked to make a move the lifecycle forbids (a bug in venus)."""


@dataclass(eq=False)
class WorkItem:
    """One delegated request and everything the harness knows about it."""

    item_id: str
    session_id: str
    request_id: str
    capability: str
    arguments: dict[str, Any]
    idempotency_key: str
    snapshot: EvidenceSnapshot
    policy: DeliveryPolicy
    created_at: float
    supersedes: str | None = None
    request_key: str = ""  # capability + canonical arguments: what duplicates share
    state: WorkState = WorkState.QUEUED
    attempt: int = 1
    result: WorkResult | None = None
    superseded_by: str | None = None
    retained: bool = False
    cancel_reason: str | None = None  # set when cancellation of its task was requested
    turns_at_request: int = 0  # user utterances on the timeline when it was requested
    refreshed: int = 0  # times the freshness check re-ran it on newer evidence
    verdict: Verdict | None = None
    utterance_id: str | None = None  # the speech delivering it, while DELIVERING
    history: list[WorkState] = field(default_factory=lambda: [WorkState.QUEUED])

    @property
    def pending_delivery(self) -> bool:
        return self.state in (WorkState.COMPLETED, WorkState.FAILED)

    @property
    def terminal(self) -> bool:
        return self.state.terminal

    def move(self, state: WorkState) -> WorkState:
        """Change state along `TRANSITIONS`; returns the previous state."""
        if state not in TRANSITIONS[self.state]:
            raise LifecycleError(
                f"work item {self.item_id} cannot go from {self.state.value} to {state.value}"
            )
        previous, self.state = self.state, state
        self.history.append(state)
        return previous


def failure(category: ErrorCategory, message: str, *, retryable: bool = False,
            summary: str | None = None) -> WorkResult:
    """A normalized failed result."""
    return WorkResult(ok=False, summary=summary or message, data=None,
                      error=WorkError(category, message, retryable))
