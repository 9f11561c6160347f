"""The hierarchy: chunks merge into segments, segments roll up into chapters.

A segment is a run of adjacent chunks that belong together: the same visual scene (no
new key frame), bounded in length and cut preferably at a pause in speech, so a spoken
sentence rarely straddles two segments. A chapter covers a few minutes of segments.
Each level has a summary text; segments are embedded from theirs, chapters take the
normalised mean of their segments' embeddings (cheap, and it stays in the same space). A
closing segment also cuts its evidence units (the sentences said and the lines shown,
`memory.store.units`), which are embedded with it.
Only the open segment and the open chapter live in RAM; closed ones go to disk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from memory.store.config import StoreOptions
from memory.store.records import ChapterRecord, ChunkRecord, SegmentRecord
from memory.models.base import Word
from memory.store.units import build_units, stitched, trailing_fragment

__all__ = ["ChapterRoller", "Segmenter", "segment_summary"]


def segment_summary(transcript: str, ocr_text: str, caption: str = "") -> str:
    """What a segment is indexed by: on-screen text, then speech, then the caption."""
    parts = [p for p in (ocr_text.strip(), transcript.strip(), caption.strip()) if p]
    return "\n".join(parts)


class Segmenter:
    """Streaming state: the chunks of the open segment."""

    def __init__(self, options: StoreOptions, next_id: int,
                 open_chunks: list[ChunkRecord] | None = None,
                 carry: Sequence[Word] = ()) -> None:
        self.options = options
        self.next_id = next_id
        self.open: list[ChunkRecord] = list(open_chunks or [])
        self.carry: tuple[Word, ...] = tuple(carry)  # the last segment's unfinished sentence

    def add(self, chunk: ChunkRecord) -> list[SegmentRecord]:
        """Take one chunk; return the segments it closed (zero, one or two)."""
        closed = []
        if self.open and self._cut_before(chunk):
            closed.append(self._close())
        self.open.append(chunk)
        if self._duration() >= self.options.max_segment_s:
            closed.append(self._close())
        return closed

    def flush(self) -> list[SegmentRecord]:
        return [self._close()] if self.open else []

    def _duration(self) -> float:
        return self.open[-1].end - self.open[0].start if self.open else 0.0

    def _cut_before(self, chunk: ChunkRecord) -> bool:
        length = self._duration()
        if chunk.new_keyframe is not None and length >= self.options.min_segment_s:
            return True
        if length < self.options.target_segment_s:
            return False
        prev = self.open[-1]
        return not prev.words or prev.words[-1].end <= prev.end - 0.25

    def _close(self) -> SegmentRecord:
        chunks, self.open = self.open, []
        transcript = " ".join(c.transcript for c in chunks if c.transcript)
        screens = list(dict.fromkeys(c.ocr_text for c in chunks if c.ocr_text))
        captions = list(dict.fromkeys(c.caption for c in chunks if c.caption))
        ocr = "\n".join(screens)
        keyframe = next((c.keyframe_id for c in chunks if c.keyframe_id is not None), None)
        seg = SegmentRecord(self.next_id, chunks[0].start, chunks[-1].end, chunks[0].index,
                            chunks[-1].index, transcript, ocr, keyframe,
                            segment_summary(transcript, ocr, " ".join(captions)),
                            units=build_units(chunks, self.next_id, self.carry))
        seg.replaces = stitched(seg.units, self.carry)
        self.carry = trailing_fragment([*self.carry, *(w for c in chunks for w in c.words)])
        for c in chunks:
            c.segment_id = seg.id
        self.next_id += 1
        return seg


class ChapterRoller:
    """Streaming state: the segments of the open chapter (their ids, times and vectors)."""

    def __init__(self, options: StoreOptions, next_id: int,
                 open_segments: list[SegmentRecord] | None = None) -> None:
        self.options = options
        self.next_id = next_id
        self.open: list[SegmentRecord] = list(open_segments or [])

    def add(self, segment: SegmentRecord) -> list[ChapterRecord]:
        closed = []
        if self.open and self._cut_before(segment):
            closed.append(self._close())
        self.open.append(segment)
        return closed

    def flush(self) -> list[ChapterRecord]:
        return [self._close()] if self.open else []

    def _cut_before(self, segment: SegmentRecord) -> bool:
        length = self.open[-1].end - self.open[0].start
        new_scene = segment.keyframe_id != self.open[-1].keyframe_id
        return (length >= self.options.max_chapter_s
                or (length >= self.options.chapter_s and new_scene))

    def _close(self, summarize: Callable[[list[SegmentRecord]], str] | None = None):
        segs, self.open = self.open, []
        summary = (summarize or chapter_summary)(segs)
        vectors = [s.embedding for s in segs if s.embedding is not None]
        embedding = None
        if vectors:
            mean = np.mean(np.vstack(vectors), axis=0)
            embedding = (mean / max(np.linalg.norm(mean), 1e-12)).astype(np.float32)
        chapter = ChapterRecord(self.next_id, segs[0].start, segs[-1].end, segs[0].id,
                                segs[-1].id, summary, embedding)
        for s in segs:
            s.chapter_id = chapter.id
        self.next_id += 1
        return chapter


def chapter_summary(segments: list[SegmentRecord], max_chars: int = 1200) -> str:
    """Slide titles (first OCR line of each scene) and the first sentence of each segment."""
    titles = list(dict.fromkeys(s.ocr_text.splitlines()[0] for s in segments if s.ocr_text))
    firsts = [_first_sentence(s.transcript) for s in segments if s.transcript]
    text = "\n".join(["; ".join(titles), " ".join(f for f in firsts if f)]).strip()
    return text[:max_chars]


def _first_sentence(text: str) -> str:
    return next((p.strip() for p in re.split(r"(?<=[.!?])\s+", text) if p.strip()), "")
