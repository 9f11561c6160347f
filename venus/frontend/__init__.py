"""Conversational frontends: the `Frontend` Protocol and the types it trades in.

Real frontends (rule policy, omni models, OpenAI-compatible servers) live in their own
modules of this package; `venus.testing.FakeFrontend` is the scriptable one for tests.
"""

from venus.frontend.base import (
    ControlToken,
    Decision,
    DelegationRequest,
    FloorAction,
    Frontend,
    ResultOffer,
    SessionView,
    WorkItemView,
)

__all__ = [
    "ControlToken", "Decision", "DelegationRequest", "FloorAction", "Frontend",
    "ResultOffer", "SessionView", "WorkItemView",
]
