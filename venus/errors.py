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
    │   ├── BackendUnavailable  the server cannot be reached or dropped the connection
    │   ├── BackendTimeout      the server did not answer in time
    │   └── BackendOutputError  the server answered, but not with a completion (an empty
    │                           or broken stream, an error event, malformed JSON)
    └── CapabilityFailure  raised by a capability: the tool failed (recorded, not raised)
"""

from __future__ import annotations

__all__ = [
    "BackendError", "BackendOutputError", "BackendTimeout", "BackendUnavailable",
    "CapabilityDefinitionError", "CapabilityFailure", "ConfigError", "TimelineFormatError",
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


class BackendUnavailable(BackendError):
    """The model server cannot be reached (refused, reset, closed mid-answer)."""


class BackendTimeout(BackendError):
    """The model server did not answer within the backend's timeout."""


class BackendOutputError(BackendError):
    """The server answered without a usable completion: an empty or broken stream, an
    error event inside the stream, or a body that is not a chat completion."""
