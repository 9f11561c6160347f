"""venus: the full-duplex runtime (timeline, frontends, harness, sessions) on top of ``memory``.

`assistant` assembles a ready session (speech output, perception, duplex I/O, frontend,
harness); the other names are the seams and data types to build your own parts.
"""

from venus.capabilities import builtin_capabilities
from venus.clock import Clock, SimulatedClock, WallClock
from venus.events import ControlToken, DelegationAction, DeliveryPolicy, FloorAction, WorkState
from venus.factory import AssistantModels, AssistantOptions, assistant
from venus.frontend import Decision, DelegationRequest, DuplexFrame, Frontend, SessionView
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
from venus.runtime import DuplexIO, Session, SessionOptions, SessionSummary, SpeechOutput
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
    "AssistantModels", "AssistantOptions", "Capability", "CapabilityContext",
    "CapabilityRegistry", "Clock", "ControlToken", "Decision", "DelegationAction",
    "DelegationRequest", "DeliveryPolicy", "DuplexFrame", "DuplexIO", "EvidenceSnapshot",
    "FloorAction", "Frontend", "Harness", "HarnessOptions", "MemoryView", "RetryPolicy",
    "Session", "SessionOptions", "SessionSummary", "SessionView", "SimulatedClock",
    "SpeechOutput", "Timeline", "TimelineEntry", "WallClock", "WorkItem", "WorkResult",
    "WorkState", "__version__", "assistant", "builtin_capabilities", "capability",
]
