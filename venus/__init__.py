"""venus: the full-duplex runtime (timeline, frontends, harness, sessions) on top of ``memory``."""

from venus.capabilities import builtin_capabilities
from venus.clock import Clock, SimulatedClock, WallClock
from venus.events import ControlToken, DelegationAction, DeliveryPolicy, FloorAction, WorkState
from venus.frontend import Decision, DelegationRequest, Frontend, SessionView
from venus.harness import (
    Capability,
    CapabilityContext,
    CapabilityRegistry,
    EvidenceSnapshot,
    Harness,
    HarnessOptions,
    MemoryView,
    RetryPolicy,
    WorkItem,
    WorkResult,
    capability,
)
from venus.runtime import Session, SessionOptions, SessionSummary, SpeechOutput
from venus.timeline import Timeline, TimelineEntry

def _version() -> str:
    """The installed distribution's version: pyproject.toml is the one place it is written."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("realtime-venus")
    except PackageNotFoundError:  # a source tree on sys.path without an install
        return "0+unknown"


__version__ = _version()

__all__ = [
    "Capability", "CapabilityContext", "CapabilityRegistry", "Clock", "ControlToken", "Decision",
    "DelegationAction", "DelegationRequest", "DeliveryPolicy", "EvidenceSnapshot", "FloorAction",
    "Frontend", "Harness", "HarnessOptions", "MemoryView", "RetryPolicy", "Session",
    "SessionOptions", "SessionSummary", "SessionView", "SimulatedClock", "SpeechOutput",
    "Timeline", "TimelineEntry", "WallClock", "WorkItem", "WorkResult", "WorkState",
    "__version__", "builtin_capabilities", "capability",
]
