"""Errors raised by the ``venus`` runtime.

User-facing problems (bad arguments, bad scenario files, a missing model) are
`VenusError`s with one sentence naming the fix; problems of the memory layer stay
`memory.errors.MemoryToolkitError`s. Bugs in our own code are ordinary exceptions.

::

    VenusError
    ├── ConfigError        an option, file or argument the user passed is invalid
    │   └── CapabilityDefinitionError  a capability cannot be registered as written
    ├── TimelineFormatError  a timeline JSONL file cannot be read back
    ├── BackendError       a model backend (local model, OpenAI-compatible server) failed
    └── CapabilityFailure  raised by a capability: the tool failed (recorded, not raised)
"""

from __future__ import annotations

__all__ = [
    "BackendError", "CapabilityDefinitionError", "CapabilityFailure", "ConfigError", "TimelineFormatError",
    "VenusError",
]


class VenusError(Exception):
    """Base class of every error the venus runtime raises on purpose."""


class ConfigError(VenusError, ValueError):
    """An option, file or argument passed by the user is invalid."""


class CapabilityDefinitionError(ConfigError):
    """A function cannot be registered as a capability (bad signature, duplicate name)."""


class TimelineFormatError(VenusError):
    """A timeline JSONL file is not a timeline this version can read."""


class CapabilityFailure(VenusError):
    """Raise from inside a capability to report a clean failure to the harness.

    ``retryable=True`` says the call did nothing and may be retried (a flaky service);
    the harness records the failure on the timeline and never lets it escape the session.
    """

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class BackendError(VenusError):
    """A model backend could not answer: server unreachable, HTTP error, bad model output.

    The message is one sentence naming the server or model and what to do.
    """
