"""Where a memory writes to disk, the OS's and SQLite's refusals become `StoreWriteError`s.

Behaviour layer of ``memory.store`` (beside ``db`` and ``lock``, below ``memory``).
`writing` wraps each place our code writes a memory or library directory (a batch's key
frames and its SQLite transaction, an index checkpoint, a new directory's files, the
writer lock): a full disk (``ENOSPC``, ``EDQUOT``, ``SQLITE_FULL``) becomes
`StoreFullError`, a refused write (``EACCES``, ``EPERM``, ``EROFS``, ``SQLITE_READONLY``)
`StoreNotWritableError`. Anything else passes unchanged: a damaged file or our own bug
is not a fault the user fixes by freeing space. SQLite sometimes reports a full disk as
an I/O error (its shared-memory file cannot grow); that one counts as full when the
directory's file system has less than `NEARLY_FULL` bytes left.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory.errors import StoreFullError, StoreNotWritableError, StoreWriteError

__all__ = ["NEARLY_FULL", "as_store_fault", "discard", "writing"]

NEARLY_FULL = 1 << 20  # bytes free under which an SQLite I/O error means "disk full"
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
_REFUSED = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
            errno.EROFS: "read-only file system"}


def as_store_fault(exc: BaseException, directory: str | os.PathLike,
                   place: str = "memory directory") -> StoreWriteError | None:
    """The `StoreWriteError` that ``exc`` means for ``directory``, or None (not a fault of
    the disk: let it through)."""
    if isinstance(exc, OSError):
        if exc.errno in _FULL:
            return StoreFullError(directory, place=place)
        if exc.errno in _REFUSED:
            return StoreNotWritableError(directory, _REFUSED[exc.errno], place=place)
        return None
    if isinstance(exc, sqlite3.Error):
        return _sqlite_fault(exc, Path(directory), place)
    return None


def _sqlite_fault(exc: sqlite3.Error, directory: Path,
                  place: str) -> StoreWriteError | None:
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name == "SQLITE_FULL" or (name.startswith("SQLITE_IOERR") and _nearly_full(directory)):
        return StoreFullError(directory, place=place)
    if name.startswith("SQLITE_READONLY") or (name.startswith("SQLITE_CANTOPEN")
                                              and directory.is_dir()):
        return StoreNotWritableError(directory, _why_refused(directory), place=place)
    return None


def _nearly_full(directory: Path) -> bool:
    try:
        return shutil.disk_usage(directory).free < NEARLY_FULL
    except OSError:
        return False


def _why_refused(directory: Path) -> str:
    try:
        read_only = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except OSError:
        return ""
    return "read-only file system" if read_only else "permission denied"


@contextmanager
def writing(directory: str | os.PathLike, place: str = "memory directory") -> Iterator[None]:
    """Translate a write's disk fault inside the block into a `StoreWriteError`."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        fault = as_store_fault(exc, directory, place)
        if fault is None:
            raise
        raise fault from exc


def discard(path: str | os.PathLike) -> None:
    """Remove a half-written temporary file (a failed atomic write leaves none behind)."""
    try:
        os.unlink(path)
    except OSError:
        pass
