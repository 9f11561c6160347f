"""The one-writer rule of a memory directory: an advisory lock on ``writer.lock``.

The lock is an OS file lock (``fcntl.flock``), so it goes away with its process however
that process ends (a kill -9 mid-ingest leaves nothing to clean up before a resume).
The file records the holder's pid and host so a second writer is told who holds it.
Where ``fcntl`` does not exist (Windows) the rule is not enforced; a warning says so.
"""

from __future__ import annotations

import logging
import os
import socket
import weakref
from pathlib import Path

from memory.errors import StoreError
from memory.store.faults import writing

__all__ = ["LOCK_FILE", "WriterLock"]

logger = logging.getLogger(__name__)
LOCK_FILE = "writer.lock"


class WriterLock:
    """Held by the one `VideoMemory` that may write a directory; `release` frees it."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd
        # A memory dropped without `close` still frees the lock when it is collected.
        self._finalizer = weakref.finalize(self, os.close, fd) if fd is not None else None

    @classmethod
    def acquire(cls, directory: Path, place: str = "memory directory") -> WriterLock:
        try:
            import fcntl
        except ImportError:  # Windows: no flock
            logger.warning("cannot lock %s on this system; make sure only one process "
                           "writes it", directory)
            return cls(None)
        path = Path(directory) / LOCK_FILE
        with writing(directory, place):  # a read-only directory cannot be written at all
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or \
                "another process"
            os.close(fd)
            raise StoreError(
                f"{directory} is being written by {holder}: one process writes a memory at "
                f"a time; to read it meanwhile use MemoryReader.open({str(directory)!r}), "
                f"which sees each batch as it is committed") from None
        lock = cls(fd)  # from here on, dropping it closes the descriptor
        with writing(directory, place):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"process {os.getpid()} on {socket.gethostname()}".encode(), 0)
        return lock

    def release(self) -> None:
        """Free the lock (closing the descriptor drops the flock)."""
        if self._finalizer is not None:
            self._finalizer()  # runs os.close once, and never again at collection
            self._finalizer = None
