"""`BackendFailures`: what a model frontend does while its backend keeps failing.

Above `venus.events` and `venus.errors`; used by `ModelFrontend`. A failed model call is
the model's problem, not a bug: the frontend listens on, and this object decides what goes
on the timeline and what the user hears:

* one `ErrorRecorded` per kind of failure per outage (an outage runs from the first
  failure to the next success), with the backend's sentence (the URL, the server's words,
  the fix), so a dead server does not flood an hour-long timeline and a server that comes
  back and dies again is recorded again;
* after ``say_after`` consecutive failures, one spoken notice per outage ("I can't reach
  my language model right now...") so the user is not left talking to silence.

The category says what kind of failure it was, with the timeline's existing categories:
``timeout`` (no answer in time), ``malformed_output`` (an answer that was not a usable
completion), ``frontend`` (unreachable, HTTP errors: the model frontend failed).
"""

from __future__ import annotations

import logging

from venus.errors import BackendError, BackendOutputError, BackendTimeout
from venus.events import ErrorCategory, ErrorRecorded

__all__ = ["DEFAULT_NOTICE", "BackendFailures", "failure_category"]

logger = logging.getLogger(__name__)

DEFAULT_NOTICE = "I can't reach my language model right now. I'll keep listening."
"""What the assistant says once per outage, after ``say_after`` failures in a row."""


def failure_category(error: BackendError) -> ErrorCategory:
    if isinstance(error, BackendTimeout):
        return ErrorCategory.TIMEOUT
    if isinstance(error, BackendOutputError):
        return ErrorCategory.MALFORMED_OUTPUT
    return ErrorCategory.FRONTEND


class BackendFailures:
    """The failure streak of one frontend's backend (see the module docstring).

    ``say_after`` 0 never speaks a notice.
    """

    def __init__(self, source: str, *, say_after: int = 3, notice: str = DEFAULT_NOTICE) -> None:
        self.source, self.say_after, self.notice = source, say_after, notice
        self.streak = 0  # consecutive failures
        self._recorded: set[type[BackendError]] = set()
        self._noticed = False

    def reset(self) -> None:
        self.streak, self._noticed = 0, False
        self._recorded.clear()

    def succeeded(self) -> None:
        if self.streak:
            logger.info("%s: the model answers again after %d failed chunks", self.source,
                        self.streak)
        self.reset()

    def failed(self, error: BackendError) -> tuple[tuple[ErrorRecorded, ...], str | None]:
        """The events to record for this failure and the notice to speak (or None)."""
        self.streak += 1
        events: tuple[ErrorRecorded, ...] = ()
        if type(error) not in self._recorded:
            self._recorded.add(type(error))
            logger.warning("%s: %s", self.source, error)
            events = (ErrorRecorded(self.source, failure_category(error), str(error)),)
        speak = None
        if self.say_after and self.streak >= self.say_after and not self._noticed:
            self._noticed, speak = True, self.notice
        return events, speak
