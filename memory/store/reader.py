"""The read side of a memory: indexes loaded from disk, search, moments and answers.

`VideoMemory` extends this with the write side. Every read takes a cutoff: rows that
end after it are outside the id range handed to the indexes, and the stretch not yet
closed into a segment (the open window) is read from the chunk rows up to the cutoff
only, so a question asked at time t never sees anything after t.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
from pathlib import Path

import numpy as np

from memory.answer import Answer, Moment
from memory.errors import StoreError
from memory.index.faiss_index import FaissIndex
from memory.store.config import MemoryModels, StoreOptions
from memory.store.db import MemoryDB
from memory.store.hierarchy import segment_summary
from memory.store.records import ChunkRecord
from memory.store.retrieval import LevelIndex
from memory.timeparse import parse_time

__all__ = ["LEVELS", "MemoryReader"]

logger = logging.getLogger(__name__)
LEVELS = ("segment", "chapter")
_FOREVER = 1e18


def locked(method):
    """Run ``method`` under the memory's lock: one writer or reader at a time, so a live
    ingest thread and a question from another thread never see a half-added batch."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return run


class MemoryReader:
    """Read access to one memory directory (see `VideoMemory` for the full API)."""

    def __init__(self, directory: Path, db: MemoryDB, models: MemoryModels,
                 options: StoreOptions) -> None:
        self.directory, self.db, self.models, self.options = directory, db, models, options
        self.timers: dict[str, float] = {}
        self._lock = threading.RLock()
        self._tail_vectors: dict[str, np.ndarray] = {}
        self._levels: dict[str, LevelIndex] = {}
        for level in LEVELS:
            self._load_level(level)

    # -- indexes --------------------------------------------------------------------
    def _load_level(self, level: str) -> None:
        rows = self.db.segments() if level == "segment" else self.db.chapters()
        if not rows:
            return
        dim = next((len(r.embedding) for r in rows if r.embedding is not None), None)
        index = LevelIndex(dim or self._dim(), self.options.index, self._checkpoint(level, dim))
        present = set(index.vectors.ids().tolist())
        for r in rows:
            index.add(r.id, r.start, r.end, r.summary, r.embedding, in_faiss=r.id in present)
        stale = present - {r.id for r in rows}
        if stale:
            index.vectors.remove(np.array(sorted(stale)))
        self._levels[level] = index

    def _checkpoint(self, level: str, dim: int | None) -> FaissIndex | None:
        path = self.directory / f"{level}s.faiss"
        if not path.is_file() or dim is None:
            return None
        try:
            index = FaissIndex.load(str(path), self.options.index)
        except StoreError as exc:
            logger.warning("%s; rebuilding it from the metadata", exc)
            return None
        return index if index.dim == dim else None

    def _level(self, level: str) -> LevelIndex:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
        if level not in self._levels:
            self._levels[level] = LevelIndex(self._dim(), self.options.index)
        return self._levels[level]

    def _dim(self) -> int:
        stored = self.db.get_meta("embedding_dim")
        return int(stored) if stored else int(self.models.get("embedder").dim)

    def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.models.get("embedder").embed(texts), dtype=np.float32)
        stored = self.db.get_meta("embedding_dim")
        if stored is None:
            self.db.set_meta("embedding_dim", vectors.shape[1])
        elif int(stored) != vectors.shape[1]:
            raise StoreError(f"this memory was built with {stored}-d embeddings but the "
                             f"embedder gives {vectors.shape[1]}-d; open it with the same "
                             f"embedder or re-ingest into a new memory")
        return vectors

    # -- reading --------------------------------------------------------------------
    @property
    def duration(self) -> float:
        """Media time covered by committed chunks (seconds)."""
        row = self.db.conn.execute("SELECT MAX(end) FROM chunks").fetchone()
        return float(row[0] or 0.0)

    @locked
    def search(self, query: str, k: int = 5, before: float | None = None,
               start: float | None = None, end: float | None = None,
               level: str = "segment") -> list[Moment]:
        """The ``k`` moments best matching ``query`` among those ending by ``before``
        (and overlapping ``[start, end]`` when given), best first."""
        index = self._level(level)
        tail = self._tail(before, start, end) if level == "segment" else []
        tail_moment = _chunk_moment(tail, self.directory) if tail else None
        vector = self._embed([query])[0]
        extra = None
        if tail_moment is not None and tail_moment.text:
            extra = (tail_moment.text, self._tail_vector(tail_moment.text))
        id_range = index.id_range(before, start, end) or (0, 0)
        found = index.search(query, vector, id_range, self.options.candidates, extra)
        if not found and tail_moment is not None:
            return [dataclasses.replace(tail_moment, score=0.0)]
        return self._moments_for(found[:k], level, tail_moment)

    def _tail_vector(self, text: str) -> np.ndarray:
        """The open stretch's vector, kept for the few questions asked at one moment
        (an answer searches up to three times at the same cutoff)."""
        vector = self._tail_vectors.pop(text, None)
        if vector is None:
            vector = self._embed([text])[0]
        self._tail_vectors[text] = vector
        while len(self._tail_vectors) > 8:
            self._tail_vectors.pop(next(iter(self._tail_vectors)))
        return vector

    def _moments_for(self, found, level: str, tail_moment: Moment | None) -> list[Moment]:
        ids = [c.id for c in found if c.id >= 0]
        rows = {r.id: r for r in self._rows(level, ids)}
        out = []
        for c in found:
            if c.id < 0:
                out.append(dataclasses.replace(tail_moment, score=c.score))
            else:
                out.append(self._row_moment(rows[c.id], level, c.score))
        return out

    def _rows(self, level: str, ids: list[int]):
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        fetch = self.db.segments if level == "segment" else self.db.chapters
        return fetch(f"id IN ({marks})", tuple(ids))

    def _row_moment(self, row, level: str, score: float) -> Moment:
        if level == "chapter":
            return Moment(row.start, row.end, score, row.summary, level="chapter", id=row.id)
        return Moment(row.start, row.end, score, row.summary, row.transcript, row.ocr_text,
                      _keyframe_path(self.directory, row.keyframe_id), "segment", row.id)

    def _tail(self, before: float | None, start: float | None,
              end: float | None) -> list[ChunkRecord]:
        """Committed chunks after the last closed segment that ends by ``before``."""
        index = self._levels.get("segment")
        covered = 0.0
        if index is not None and len(index):
            ends = index.ends()
            n = int(np.searchsorted(ends, (before if before is not None else _FOREVER) + 1e-6,
                                    side="right"))
            covered = float(ends[n - 1]) if n else 0.0
        limit = before if before is not None else _FOREVER
        chunks = self.db.chunks("c.end > ? AND c.end <= ?", (covered + 1e-6, limit + 1e-6))
        return [c for c in chunks if (start is None or c.end > start)
                and (end is None or c.start < end)]

    @locked
    def moments(self, start: float, end: float, level: str = "segment") -> list[Moment]:
        """Chronological moments overlapping ``[start, end]`` that end by ``end``; for
        segments, the not-yet-closed stretch up to ``end`` comes last (level "chunk")."""
        self._level(level)
        fetch = self.db.segments if level == "segment" else self.db.chapters
        rows = fetch("end > ? AND end <= ?", (start, end + 1e-6))
        out = [self._row_moment(r, level, 0.0) for r in rows]
        if level == "segment":
            tail = self._tail(end, start, end)
            if tail:
                out.append(_chunk_moment(tail, self.directory))
        return out

    @locked
    def recent(self, at: float | None = None) -> Moment | None:
        """The last ``recent_s`` seconds before ``at`` as one chunk-level moment."""
        at = self.duration if at is None else at
        chunks = self.db.chunks("c.end > ? AND c.end <= ?",
                                (at - self.options.recent_s, at + 1e-6))
        return _chunk_moment(chunks, self.directory) if chunks else None

    @locked
    def answer(self, question: str, at: float | None = None, k: int = 3) -> Answer:
        """Answer ``question`` as asked at media time ``at`` (default: now)."""
        now = self.duration if at is None else at
        window = parse_time(question, now=now, recent=self.options.recent_s)
        start, end = window.start, window.end
        for topic, after in ((window.after_topic, True), (window.before_topic, False)):
            if topic:
                anchor = self.search(topic, k=1, before=now)
                if anchor:
                    a = anchor[0]
                    start, end = (a.end - 1.0, a.end + 180.0) if after else (a.start - 180.0,
                                                                              a.start)
        query = window.query or question
        hits = self.search(query, k=k, before=now, start=start, end=end)
        if not hits and (start is not None or end is not None):
            hits = self.search(query, k=k, before=now)
        if window.order is not None:  # "at the start" / "just now": the window's edge first
            hits.sort(key=lambda m: m.start, reverse=window.order == "latest")
        hits = [self._captioned(m) for m in hits]
        recent = self.recent(now)
        text = self.models.get("answerer").answer(question, hits, recent)
        return Answer(question, text, tuple(hits), now, recent, (start, end))

    def _captioned(self, moment: Moment) -> Moment:
        captioner = self.models.captioner
        if captioner is None or moment.caption or not moment.keyframe:
            return moment
        from PIL import Image

        with Image.open(moment.keyframe) as img:
            image = np.asarray(img.convert("RGB"))
        return dataclasses.replace(moment, caption=captioner.caption(image))


def _keyframe_path(directory: Path, keyframe_id: int | None) -> str | None:
    return None if keyframe_id is None else str(directory / f"keyframes/{keyframe_id:08d}.jpg")


def _chunk_moment(chunks: list[ChunkRecord], directory: Path) -> Moment:
    transcript = " ".join(c.transcript for c in chunks if c.transcript)
    ocr = "\n".join(dict.fromkeys(c.ocr_text for c in chunks if c.ocr_text))
    caption = " ".join(dict.fromkeys(c.caption for c in chunks if c.caption))
    keyframe = next((c.keyframe_id for c in chunks if c.keyframe_id is not None), None)
    return Moment(chunks[0].start, chunks[-1].end, 0.0, segment_summary(transcript, ocr, caption),
                  transcript, ocr, _keyframe_path(directory, keyframe), "chunk", None, caption)
