"""Rows of a memory: chunks, key frames, segments, their evidence units, chapters.

The bottom of the store package: everything above (pipeline, hierarchy, database,
retrieval) passes these around; nothing here does work.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memory.models.base import Word

__all__ = ["ChapterRecord", "ChunkRecord", "KeyFrameRecord", "SegmentRecord", "UnitRecord"]


@dataclass
class KeyFrameRecord:
    """A frame that showed something new: its JPEG (relative to the memory dir) and OCR.

    ``id`` is the index of the chunk where it appeared; ``embedding`` its vector from the
    image model (`memory.models.base.ImageEmbedder`), when the memory has one.
    """

    id: int
    time: float
    path: str
    ocr_text: str
    signature: bytes = b""
    caption: str = ""
    image: np.ndarray | None = field(default=None, repr=False)  # until written to disk
    embedding: np.ndarray | None = field(default=None, repr=False)


@dataclass
class ChunkRecord:
    """One processed second: its words, the key frame on screen, and any new key frame."""

    index: int
    start: float
    end: float
    words: tuple[Word, ...] = ()
    keyframe_id: int | None = None
    ocr_text: str = ""
    caption: str = ""
    new_keyframe: KeyFrameRecord | None = None
    segment_id: int | None = None

    @property
    def transcript(self) -> str:
        return " ".join(w.text.strip() for w in self.words if w.text.strip())


@dataclass
class UnitRecord:
    """A sentence said or a line shown inside a segment (see `memory.evidence.Evidence`).

    ``template`` is the text lower-cased with digits masked: screen lines sharing one
    on most key frames (a footer "... | slide 3") are boilerplate.
    """

    kind: str
    text: str
    start: float
    end: float
    template: str = ""
    keyframe_id: int | None = None
    segment_id: int | None = None
    embedding: np.ndarray | None = field(default=None, repr=False)


@dataclass
class SegmentRecord:
    """Adjacent chunks that belong together (one visual scene, bounded length)."""

    id: int
    start: float
    end: float
    first_chunk: int
    last_chunk: int
    transcript: str
    ocr_text: str
    keyframe_id: int | None
    summary: str
    embedding: np.ndarray | None = field(default=None, repr=False)
    chapter_id: int | None = None
    units: list[UnitRecord] = field(default_factory=list, repr=False)
    replaces: float | None = None  # start of the previous segment's fragment said whole here


@dataclass
class ChapterRecord:
    """A few minutes of segments, summarised by their slide titles and first sentences."""

    id: int
    start: float
    end: float
    first_segment: int
    last_segment: int
    summary: str
    embedding: np.ndarray | None = field(default=None, repr=False)
