"""Errors raised by the ``venus`` runtime.

User-facing problems (bad arguments, bad scenario files, a missing model) are
`VenusError`s with one sentence naming the fix; problems of the memory layer stay
`memory.errors.MemoryToolkitError`s. Bugs in our own code are ordinary exceptions.

::

    VenusError
    └── ConfigError        an option, file or argument the user passed is invalid
"""

from __future__ import annotations

__all__ = ["ConfigError", "VenusError"]


class VenusError(Exception):
    """Base class of every error the venus runtime raises on purpose."""


class ConfigError(VenusError, ValueError):
    """An option, file or argument passed by the user is invalid."""
