"""Media data types shared by every layer: audio, frames and one-second video chunks.

These are plain payloads (frozen dataclasses holding numpy arrays). Audio is always
16 kHz mono float32 in [-1, 1]; frames are RGB uint8 arrays of shape (H, W, 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memory.errors import AudioFormatError

__all__ = ["SAMPLE_RATE", "Cue", "Frame", "VideoChunk", "VideoInfo", "as_audio"]

SAMPLE_RATE = 16_000
"""The one audio rate used everywhere inside the toolkit (Hz)."""


def as_audio(samples: np.ndarray, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Return ``samples`` as contiguous 16 kHz mono float32, or raise `AudioFormatError`.

    Accepts float or int16 arrays, mono ``(n,)`` only: the toolkit never guesses how to
    mix channels or resample silently, because a wrong rate ruins VAD and ASR quietly.
    """
    if sample_rate != SAMPLE_RATE:
        raise AudioFormatError(
            f"audio is {sample_rate} Hz but the toolkit expects {SAMPLE_RATE} Hz mono; "
            f"resample it first (for example with memory.audio.resample)"
        )
    arr = np.asarray(samples)
    if arr.ndim != 1:
        raise AudioFormatError(
            f"audio has shape {arr.shape}; pass mono samples of shape (n,) (average the channels)"
        )
    if arr.dtype == np.int16:
        return (arr.astype(np.float32) / 32768.0).copy()
    if not np.issubdtype(arr.dtype, np.floating):
        raise AudioFormatError(f"audio dtype {arr.dtype} is not supported; use float32 or int16")
    return np.ascontiguousarray(arr, dtype=np.float32)


@dataclass(frozen=True)
class Frame:
    """One sampled video frame: its media time (seconds) and RGB pixels."""

    time: float
    image: np.ndarray = field(repr=False)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


@dataclass(frozen=True)
class Cue:
    """One subtitle: what is said from ``start`` to ``end`` (media seconds)."""

    start: float
    end: float
    text: str


@dataclass(frozen=True)
class VideoChunk:
    """One second (or the last, partial second) of a stream.

    ``audio`` always covers ``[start, end)`` at 16 kHz; when the source has no audio it
    is silence and ``has_audio`` is False, so consumers can tell silence from absence.
    ``cues`` are the subtitles that start inside the chunk (their text is used as the
    transcript of the stretch they cover, instead of speech recognition).
    """

    index: int
    start: float
    end: float
    frames: tuple[Frame, ...] = field(repr=False)
    audio: np.ndarray = field(repr=False)
    has_audio: bool = True
    cues: tuple[Cue, ...] = ()

    @property
    def duration(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class VideoInfo:
    """What a source knows about its stream before decoding it.

    ``width`` and ``height`` are the picture as displayed, after ``rotation`` (degrees
    counter-clockwise that the file asks the picture to be turned, as phones record).
    """

    path: str | None
    duration: float | None  # seconds; None for a live stream or a raw stream
    width: int
    height: int
    native_fps: float | None
    has_audio: bool
    decoder: str
    rotation: int = 0
