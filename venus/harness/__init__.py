"""The Harness: asynchronous delegation for the dual-loop runtime.

Layers inside this package (each imports only those above it in this list):
``workitem``, ``context`` and ``requests`` (data) -> ``capability``, ``tasks``, ``channel``,
``reintegration`` -> ``dispatch``, ``recovery`` -> ``link`` and ``harness`` (composition).
A session reaches the harness only through the `SessionLink` that `Harness.attach` returns.
See docs/harness.md for a guide and an example of a user-registered capability.
"""

from venus.events import (
    Citation,
    DeliveryPolicy,
    EvidenceSnapshot,
    Verdict,
    WorkError,
    WorkResult,
    WorkState,
)
from venus.harness.capability import (
    ArgumentsInvalid,
    Capability,
    CapabilityRegistry,
    MalformedOutput,
    RetryPolicy,
    capability,
)
from venus.harness.channel import BackgroundChannel
from venus.harness.context import (
    CapabilityContext,
    MemoryAnswer,
    MemoryEvidence,
    MemoryMoment,
    MemoryView,
)
from venus.harness.harness import Harness, HarnessOptions
from venus.harness.link import SessionLink, Tick
from venus.harness.reintegration import FreshnessPolicy
from venus.harness.requests import DelegationRequest, ResultOffer, WorkItemView
from venus.harness.tasks import TaskOwner
from venus.harness.workitem import TRANSITIONS, LifecycleError, WorkItem

__all__ = [
    "TRANSITIONS", "ArgumentsInvalid", "BackgroundChannel", "Capability", "CapabilityContext",
    "CapabilityRegistry", "Citation", "DelegationRequest", "DeliveryPolicy", "EvidenceSnapshot",
    "FreshnessPolicy", "Harness", "HarnessOptions", "LifecycleError", "MalformedOutput",
    "MemoryAnswer", "MemoryEvidence", "MemoryMoment", "MemoryView", "ResultOffer", "RetryPolicy", "SessionLink", "TaskOwner",
    "Tick", "Verdict", "WorkError", "WorkItem", "WorkItemView", "WorkResult", "WorkState",
    "capability",
]
