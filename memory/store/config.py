"""Options and model bundle of a `VideoMemory` (typed dataclasses; no behaviour)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory.index.faiss_index import IndexOptions
from memory.store.keyframes import KeyFrameOptions
from memory.store.speech import SpeechOptions

__all__ = ["MemoryModels", "StoreOptions"]


@dataclass
class StoreOptions:
    """How a memory processes and groups a stream.

    Segments: adjacent chunks of one visual scene, cut at a new key frame once at least
    ``min_segment_s`` long, at a speech pause once ``target_segment_s`` long, and always
    at ``max_segment_s``. Chapters: segments rolled up over ``chapter_s`` (cut at a scene
    change) and at most ``max_chapter_s``. ``recent_s``: the window before a question
    that is always evidence. ``caption_at_ingest``: describe every new key frame with
    the captioner while ingesting (so scenes without text can be found; costs one VLM
    call per key frame) instead of only the retrieved ones. ``checkpoint_every``: segments between vector-index saves
    (SQLite is the commit log; the index files are checkpoints rebuilt from it).
    """

    min_segment_s: float = 4.0
    target_segment_s: float = 12.0
    max_segment_s: float = 30.0
    chapter_s: float = 180.0
    max_chapter_s: float = 300.0
    recent_s: float = 60.0
    min_ocr_confidence: float = 0.5
    jpeg_quality: int = 85
    checkpoint_every: int = 32
    candidates: int = 50
    caption_at_ingest: bool = False
    keyframes: KeyFrameOptions = field(default_factory=KeyFrameOptions)
    speech: SpeechOptions = field(default_factory=SpeechOptions)
    index: IndexOptions = field(default_factory=IndexOptions)


@dataclass
class MemoryModels:
    """The models a memory uses; any left as None gets the embedded default on first use.

    ``captioner`` (optional) describes new key frames so scenes without text can be
    found; ``answerer`` writes replies (extractive by default).
    """

    embedder: Any = None
    vad: Any = None
    asr: Any = None
    ocr: Any = None
    captioner: Any = None
    answerer: Any = None

    def get(self, name: str) -> Any:
        value = getattr(self, name)
        if value is None:
            value = _default(name)
            setattr(self, name, value)
        return value


def _default(name: str) -> Any:
    if name == "answerer":
        from memory.answer import ExtractiveAnswerer

        return ExtractiveAnswerer()
    from memory import models

    factory = {"embedder": "MiniLMEmbedder", "vad": "SileroSpeechDetector",
               "asr": "WhisperTranscriber", "ocr": "RapidOCRReader"}[name]
    return getattr(models, factory)()
