"""Errors the app raises on purpose; each is one sentence the page shows as is.

::

    venus.errors.VenusError
    └── AppError             something a user of the app did or met
        ├── UploadError      an upload is refused (not a video, too large, unreadable);
        │                    also a `venus.errors.ConfigError`
        └── SessionLimitError  more tabs are open than the app serves at once
"""

from __future__ import annotations

from venus.errors import ConfigError, VenusError

__all__ = ["AppError", "SessionLimitError", "UploadError"]


class AppError(VenusError):
    """Base of the app's own errors."""


class UploadError(AppError, ConfigError):
    """An uploaded file is refused (wrong type, too large, or not a readable video)."""


class SessionLimitError(AppError):
    """More tabs are open than the app serves at once (``AppOptions.max_sessions``)."""
