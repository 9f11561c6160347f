"""Errors raised by the ``memory`` library.

Every error a user can trigger with bad input or a missing model is one of these, with a
message that names the problem and the fix. Third-party exceptions (PyAV, FAISS,
onnxruntime, ...) are translated where they enter our code.

::

    MemoryToolkitError
    ├── MissingExtraError          an optional extra is not installed
    ├── ModelUnavailableError      a model file/package is missing (never downloaded)
    ├── AudioFormatError           wrong sample rate, channels or dtype
    ├── VideoError                 a video source cannot be read
    │   ├── VideoNotFoundError     no file at that path
    │   ├── EmptyVideoError        a zero-byte file
    │   ├── NotAVideoError         not a container/codec the decoder can read
    │   ├── NoVideoStreamError     the file has audio but no picture
    │   ├── TruncatedVideoError    the file ends early (raised after the readable part)
    │   ├── NetworkVideoError      a video URL cannot be fetched (network, HTTP status)
    │   ├── SubtitleError          a subtitle file or track cannot be read
    │   └── CameraError            a live camera cannot be opened or stopped delivering
    ├── StoreError                 a memory directory cannot be used
    │   └── StoreWriteError        a write into it failed; what was committed stays
    │       ├── StoreFullError     the disk (or quota) is full: ENOSPC, SQLITE_FULL
    │       └── StoreNotWritableError  permission denied or a read-only file system
    └── NotesError                 notes given to a NotesMemory are malformed
"""

from __future__ import annotations

import os

__all__ = [
    "AudioFormatError",
    "CameraError",
    "EmptyVideoError",
    "MemoryToolkitError",
    "MissingExtraError",
    "ModelUnavailableError",
    "NetworkVideoError",
    "NoVideoStreamError",
    "NotAVideoError",
    "NotesError",
    "StoreError",
    "StoreFullError",
    "StoreNotWritableError",
    "StoreWriteError",
    "SubtitleError",
    "TruncatedVideoError",
    "VideoError",
    "VideoNotFoundError",
]


class MemoryToolkitError(Exception):
    """Base class of every error the memory library raises on purpose."""


class MissingExtraError(MemoryToolkitError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, module: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the '{module}' package: "
            f"pip install 'realtime-venus[{extra}]'"
        )
        self.module = module
        self.extra = extra


class ModelUnavailableError(MemoryToolkitError):
    """A model could not be loaded from disk (models are never downloaded at run time)."""


class AudioFormatError(MemoryToolkitError, ValueError):
    """Audio is not 16 kHz mono float32 (or cannot be converted to it)."""


class VideoError(MemoryToolkitError):
    """A video source cannot be read."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class VideoNotFoundError(VideoError, FileNotFoundError):
    """No file exists at the given path."""


class EmptyVideoError(VideoError):
    """The file exists but has zero bytes."""


class NotAVideoError(VideoError):
    """The file is not a container or codec the decoder can read."""


class NoVideoStreamError(VideoError):
    """The file has no video stream (audio-only or data-only)."""


class TruncatedVideoError(VideoError):
    """The file ends before its header says it does.

    Raised by a source *after* it has yielded every chunk it could decode, so nothing
    readable is lost; ``seconds_decoded`` says how far decoding got.
    """

    def __init__(self, message: str, path: str | None = None, seconds_decoded: float = 0.0) -> None:
        super().__init__(message, path)
        self.seconds_decoded = seconds_decoded


class NetworkVideoError(VideoError):
    """A video URL cannot be fetched: the server is unreachable, refuses or fails."""


class SubtitleError(VideoError):
    """A subtitle file (.srt, .vtt) or a subtitle track cannot be read."""


class CameraError(VideoError):
    """A live camera cannot be opened, or stopped delivering frames."""


class StoreError(MemoryToolkitError):
    """A memory directory cannot be created, opened or written."""


class StoreWriteError(StoreError):
    """A write into a memory (or library) directory failed for a reason outside our code.

    Raised by `memory.store.faults.writing`, which translates the `OSError` (or SQLite
    error) at the place we write. The message is one sentence naming the directory and
    the fix; every batch committed before the failure is kept, and opening the directory
    again resumes after the last of them. A command line tells the fix in its own flag
    (``flag="--memory"``) and its own way to go on (``resume``) with `retold`. Pickles by
    its fields (a batch worker process raises it).
    """

    def __init__(self, directory: str | os.PathLike, reason: str = "", *,
                 flag: str | None = None, resume: str = "opening it again resumes",
                 place: str = "memory directory") -> None:
        self.directory = str(directory)
        self.reason = reason
        self.flag, self.resume, self.place = flag, resume, place
        super().__init__(self._sentence())

    def _sentence(self) -> str:  # pragma: no cover - each subclass says its problem
        raise NotImplementedError

    def _kept(self) -> str:
        return f"; what was committed is kept and {self.resume}" if self.resume else ""

    def retold(self, *, directory: str | os.PathLike | None = None, flag: str | None = None,
               resume: str | None = None, place: str | None = None) -> StoreWriteError:
        """The same fault told another way (a command's flag, a library's directory)."""
        told = type(self)(self.directory if directory is None else directory, self.reason,
                          flag=self.flag if flag is None else flag,
                          resume=self.resume if resume is None else resume,
                          place=self.place if place is None else place)
        told.__cause__ = self.__cause__
        return told

    def __reduce__(self):
        return (_rebuild, (type(self), self.directory, self.reason, self.flag, self.resume,
                           self.place))


def _rebuild(cls, directory, reason, flag, resume, place):
    return cls(directory, reason, flag=flag, resume=resume, place=place)


class StoreFullError(StoreWriteError):
    """The disk (or the user's quota) holding the directory is full."""

    def _sentence(self) -> str:
        elsewhere = f"pass {self.flag} on another disk" if self.flag else \
            "use a directory on another disk"
        return (f"The {self.place} {self.directory} is full: free space there or "
                f"{elsewhere}{self._kept()}.")


class StoreNotWritableError(StoreWriteError):
    """The directory cannot be written: permission denied, or a read-only file system."""

    def _sentence(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        elsewhere = f"pass a writable {self.flag}" if self.flag else \
            "use a writable directory"
        return (f"The {self.place} {self.directory} is not writable{why}: make it writable "
                f"or {elsewhere}{self._kept()}.")


class NotesError(MemoryToolkitError, ValueError):
    """Notes for a `memory.NotesMemory` are malformed (the message names the note)."""
