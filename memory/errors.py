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
    └── NotesError                 notes given to a NotesMemory are malformed
"""

from __future__ import annotations

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


class NotesError(MemoryToolkitError, ValueError):
    """Notes for a `memory.NotesMemory` are malformed (the message names the note)."""
