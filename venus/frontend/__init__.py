"""Conversational frontends: the `Frontend` Protocol and the types it trades in.

Frontends are policy: ``decide(frame, view) -> Decision`` after each one-second chunk,
where the `DuplexFrame` comes from the runtime's duplex I/O. Real frontends (rule policy,
omni models, OpenAI-compatible servers) live in their own modules of this package;
`venus.testing.FakeFrontend` is the scriptable one for tests.
"""

from venus.frontend.base import (
    ControlToken,
    Decision,
    DelegationRequest,
    DuplexFrame,
    FloorAction,
    Frontend,
    Overlap,
    ResultOffer,
    SessionView,
    WorkItemView,
)

__all__ = [
    "ControlToken", "Decision", "DelegationRequest", "DuplexFrame", "FloorAction", "Frontend",
    "Overlap", "ResultOffer", "SessionView", "WorkItemView",
]
