"""Options and model bundle of a `VideoMemory` (typed dataclasses; no behaviour)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from memory.answering.options import AnswerOptions
from memory.index.faiss_index import IndexOptions
from memory.models.base import (
    Answerer,
    Captioner,
    ImageEmbedder,
    Reranker,
    SpeechDetector,
    TextEmbedder,
    TextReader,
    Transcriber,
)
from memory.store.keyframes import KeyFrameOptions
from memory.store.screen import ScreenOptions
from memory.store.speech import SpeechOptions

__all__ = ["MemoryModels", "StoreOptions"]

T = TypeVar("T")


@dataclass
class StoreOptions:
    """How a memory processes and groups a stream.

    Segments: adjacent chunks of one visual scene, cut at a new key frame once at least
    ``min_segment_s`` long, at a speech pause once ``target_segment_s`` long, and always
    at ``max_segment_s``. Chapters: segments rolled up over ``chapter_s`` (cut at a scene
    change) and at most ``max_chapter_s``. ``recent_s``: the window before a question
    that is always evidence. ``caption_at_ingest``: describe every new key frame with
    the captioner while ingesting (so scenes without text can be found; costs one VLM
    call per key frame) instead of only the retrieved ones. ``keyframe_max_side``: key-frame
    JPEGs are stored at most this many pixels on their long side (OCR reads the decoded
    frame first). ``checkpoint_every``: segments between vector-index saves
    (SQLite is the commit log; the index files are checkpoints rebuilt from it).
    ``workers``: OCR, VAD and Whisper run on owned worker threads (False: every stage
    on the calling thread, one after another; the records are the same either way).
    ``answer``: how questions are answered (`memory.answering.AnswerOptions`).
    """

    min_segment_s: float = 4.0
    target_segment_s: float = 12.0
    max_segment_s: float = 30.0
    chapter_s: float = 180.0
    max_chapter_s: float = 300.0
    recent_s: float = 60.0
    min_ocr_confidence: float = 0.5
    jpeg_quality: int = 85
    keyframe_max_side: int | None = 1280
    checkpoint_every: int = 32
    candidates: int = 50
    caption_at_ingest: bool = False
    workers: bool = True
    keyframes: KeyFrameOptions = field(default_factory=KeyFrameOptions)
    screen: ScreenOptions = field(default_factory=ScreenOptions)
    speech: SpeechOptions = field(default_factory=SpeechOptions)
    index: IndexOptions = field(default_factory=IndexOptions)
    answer: AnswerOptions = field(default_factory=AnswerOptions)


class _Embedded(Generic[T]):
    """A model slot of `MemoryModels`: holds the model it was given, or loads the embedded
    default (``factory``) on first read when it was left as None."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self.factory = factory
        self.attr = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.attr = f"_{name}"

    def __get__(self, obj: Any, owner: type | None = None) -> T:
        if obj is None:
            return None  # type: ignore[return-value]  # the dataclass default: None
        value = obj.__dict__.get(self.attr)
        if value is None:
            value = self.factory()
            obj.__dict__[self.attr] = value
        return value

    def __set__(self, obj: Any, value: T | None) -> None:
        obj.__dict__[self.attr] = value


def _model(name: str) -> Callable[[], Any]:
    def load() -> Any:
        from memory import models

        return getattr(models, name)()
    return load


def _extractive() -> Answerer:
    from memory.answering.reply import ExtractiveAnswerer

    return ExtractiveAnswerer()


@dataclass(repr=False, eq=False)
class MemoryModels:
    """The models a memory uses, one per seam.

    ``embedder``, ``vad``, ``asr``, ``ocr`` and ``answerer`` left as None get the
    embedded default on first use (MiniLM, Silero, Whisper tiny.en, RapidOCR, the
    extractive answerer). ``captioner`` (optional) describes key frames so scenes without
    text can be found; ``reranker`` (optional) rescores evidence units for the answer.
    ``image_embedder`` (optional; none ships in any package) puts key frames and questions
    in one space (CLIP / SigLIP: `memory.models.TransformersImageEmbedder`), so pictures
    are found by a description or by an example image (`VideoMemory.search_image`).
    """

    embedder: TextEmbedder = _Embedded(_model("MiniLMEmbedder"))  # type: ignore[assignment]
    vad: SpeechDetector = _Embedded(_model("SileroSpeechDetector"))  # type: ignore[assignment]
    asr: Transcriber = _Embedded(_model("WhisperTranscriber"))  # type: ignore[assignment]
    ocr: TextReader = _Embedded(_model("RapidOCRReader"))  # type: ignore[assignment]
    answerer: Answerer = _Embedded(_extractive)  # type: ignore[assignment]
    captioner: Captioner | None = None
    reranker: Reranker | None = None
    image_embedder: ImageEmbedder | None = None

    def __repr__(self) -> str:  # without loading a default that is not loaded yet
        loaded = {name: self.__dict__.get(f"_{name}")
                  for name in ("embedder", "vad", "asr", "ocr", "answerer")}
        slots = ", ".join(f"{name}={'default' if v is None else type(v).__name__}"
                          for name, v in loaded.items())
        return (f"MemoryModels({slots}, captioner={self.captioner!r}, "
                f"reranker={self.reranker!r}, image_embedder={self.image_embedder!r})")
