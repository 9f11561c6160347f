"""The Harness: asynchronous delegation for the dual-loop runtime.

Layers inside this package (each imports only those above it in this list):
``workitem`` and ``context`` (data) -> ``capability``, ``tasks``, ``channel``,
``reintegration`` -> ``dispatch``, ``recovery`` -> ``harness`` (composition).
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
from venus.harness.context import CapabilityContext, MemoryMoment, MemoryView
from venus.harness.harness import Harness, HarnessOptions
from venus.harness.reintegration import FreshnessPolicy
from venus.harness.tasks import TaskOwner
from venus.harness.workitem import TRANSITIONS, LifecycleError, WorkItem

__all__ = [
    "TRANSITIONS", "ArgumentsInvalid", "BackgroundChannel", "Capability", "CapabilityContext",
    "CapabilityRegistry", "Citation", "DeliveryPolicy", "EvidenceSnapshot", "FreshnessPolicy",
    "Harness", "HarnessOptions", "LifecycleError", "MalformedOutput", "MemoryMoment",
    "MemoryView", "RetryPolicy", "TaskOwner", "Verdict", "WorkError", "WorkItem", "WorkResult",
    "WorkState", "capability",
]
