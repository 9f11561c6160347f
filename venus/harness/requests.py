"""What a session and the harness exchange: requests for background work, and what comes back.

Data types at the bottom of the harness (next to ``workitem`` and ``context``), so the
harness never imports the frontends that produce the requests. A frontend returns
`DelegationRequest`s in its `venus.frontend.Decision`; the session hands them to its
`venus.harness.SessionLink`; the link offers finished results back as `ResultOffer`s and
shows open items as `WorkItemView`s in the frontend's `venus.frontend.SessionView`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from venus.events import DelegationAction, DeliveryPolicy, Verdict, WorkResult, WorkState

__all__ = ["DelegationRequest", "ResultOffer", "WorkItemView"]


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
