"""The read side of a memory: indexes loaded from disk, search, moments and answers.

`VideoMemory` extends this with the write side. Every read takes a cutoff: rows that
end after it are outside the id range handed to the indexes, and the stretch not yet
closed into a segment (the open window) is read from the chunk rows up to the cutoff
only, so a question asked at time t never sees anything after t.

Public reads take the lock once, bring the memory up to date (`_sync`: the writer
commits what it has buffered) and then run on the unlocked internals (``_search``,
``_moments``, ...), so one question is one pass through the store. Answers are worked
out by `memory.answering`, which reads the memory through the `AnswerSource` port it
declares and `ReaderSource` implements here, the lock held (the store imports answering,
never the reverse).

`MemoryReader.open` opens a memory read-only, also while another process ingests into
it: before each read it reloads the rows committed since (SQLite's WAL lets readers
and the one writer work at once), and it never writes the index files, which belong
to the writer.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memory.answering.options import AnswerOptions
from memory.answering.pipeline import answer as answer_question
from memory.answering.source import Candidates
from memory.errors import ModelUnavailableError, StoreError
from memory.evidence import Answer, Evidence, Moment
from memory.index.faiss_index import FaissIndex
from memory.models.base import Answerer, Reranker
from memory.store.config import MemoryModels, StoreOptions
from memory.store.db import MemoryDB
from memory.store.hierarchy import segment_summary
from memory.store.levels import LEVELS, SEGMENT, Level, keyframe_path, level_named
from memory.store.pictures import PictureIndex
from memory.store.records import ChunkRecord
from memory.store.retrieval import Candidate, LevelIndex
from memory.store.unit_reads import moment_units, units_between
from memory.store.units import build_units, stitched, trailing_fragment

__all__ = ["MemoryReader"]

logger = logging.getLogger(__name__)
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

    read_only = True

    def __init__(self, directory: Path, db: MemoryDB, models: MemoryModels,
                 options: StoreOptions) -> None:
        self.directory, self.db, self.models, self.options = directory, db, models, options
        self.timers: dict[str, float] = {}
        self._lock = threading.RLock()
        self._vectors_cache: dict[str, np.ndarray] = {}
        self._indexes: dict[str, LevelIndex] = {}
        self._loaded = self._stored_version()
        for level in LEVELS.values():
            self._load_level(level)
        self._pictures = PictureIndex(directory, db, models.image_embedder, options.index,
                                      writable=not self.read_only)
        if not self.read_only:
            self._fill_units()
            self._pictures.fill()
        if models.image_embedder is None and len(self._pictures):
            logger.warning("%s", self._pictures.missing_model())

    @classmethod
    def open(cls, directory: str | Path, models: MemoryModels | None = None,
             options: StoreOptions | None = None) -> MemoryReader:
        """Open a memory read-only: searches and answers see each batch the writing
        process commits, and nothing here ever writes to the directory."""
        from memory.store.db import read_format

        d = Path(directory)
        if not d.is_dir():
            raise StoreError(f"no memory at {d}; create one with VideoMemory.create({str(d)!r})")
        read_format(d)
        return cls(d, MemoryDB(d / "memory.sqlite", writable=False), models or MemoryModels(),
                   options or StoreOptions())

    def close(self) -> None:
        """Release the database (a reader writes nothing)."""
        with self._lock:
            self.db.close()

    def __enter__(self) -> MemoryReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _stored_version(self) -> int:
        return int(self.db.get_meta("version", "0") or 0)

    # -- indexes --------------------------------------------------------------------
    def _load_level(self, level: Level) -> None:
        rows = level.rows(self.db)
        if not rows:
            return
        dim = next((len(r.embedding) for r in rows if r.embedding is not None), None)
        index = LevelIndex(dim or self._dim(), level.text(self.db), self.options.index,
                           self._checkpoint(level, dim))
        present = set(index.vectors.ids().tolist())
        for r in rows:
            index.add(r.id, r.start, r.end, r.embedding, in_faiss=r.id in present)
        stale = present - {r.id for r in rows}
        if stale:
            index.vectors.remove(np.array(sorted(stale)))
        self._indexes[level.name] = index

    def _checkpoint(self, level: Level, dim: int | None) -> FaissIndex | None:
        path = self.directory / level.checkpoint_file
        if not path.is_file() or dim is None:
            return None
        try:
            index = FaissIndex.load(str(path), self.options.index)
        except StoreError as exc:
            logger.warning("%s; rebuilding it from the metadata", exc)
            return None
        return index if index.dim == dim else None

    def _index(self, level: Level) -> LevelIndex:
        if level.name not in self._indexes:
            self._indexes[level.name] = LevelIndex(self._dim(), level.text(self.db),
                                                   self.options.index)
        return self._indexes[level.name]

    def _dim(self) -> int:
        stored = self.db.get_meta("embedding_dim")
        return int(stored) if stored else int(self.models.embedder.dim)

    def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.models.embedder.embed(texts), dtype=np.float32)
        stored = self.db.get_meta("embedding_dim")
        if stored is None:
            if not self.read_only:
                self.db.set_meta("embedding_dim", vectors.shape[1])
        elif int(stored) != vectors.shape[1]:
            raise StoreError(f"this memory was built with {stored}-d embeddings but the "
                             f"embedder gives {vectors.shape[1]}-d; open it with the same "
                             f"embedder or re-ingest into a new memory")
        return vectors

    def _cached_vector(self, text: str) -> np.ndarray:
        """A vector for a text outside the index (the open stretch), kept for the next
        few questions asked at the same moment."""
        vector = self._vectors_cache.pop(text, None)
        if vector is None:
            vector = self._embed([text])[0]
        self._vectors_cache[text] = vector
        while len(self._vectors_cache) > 64:
            self._vectors_cache.pop(next(iter(self._vectors_cache)))
        return vector

    def _fill_units(self) -> None:
        """Cut and embed the evidence units of segments stored before units existed, or
        cut by other rules (`memory.store.db.UNITS_VERSION`), from their chunk rows."""
        if self.db.units_built():
            return
        ids = self.db.segment_ids()
        if ids:
            logger.info("cutting evidence units for %d stored segments", len(ids))
            by_segment: dict[int, list[ChunkRecord]] = {i: [] for i in ids}
            for c in self.db.chunks_of_segments(ids):
                by_segment[c.segment_id].append(c)
            units, carry, last = {}, (), None
            for sid in ids:
                units[sid] = build_units(by_segment[sid], sid, carry)
                fragment = stitched(units[sid], carry)
                if fragment is not None and last is not None:
                    units[last] = [u for u in units[last]
                                   if not (u.kind == "said" and abs(u.start - fragment) < 1e-6)]
                carry = trailing_fragment([*carry, *(w for c in by_segment[sid] for w in c.words)])
                last = sid
            flat = [u for us in units.values() for u in us]
            for start in range(0, len(flat), 256):
                batch = flat[start:start + 256]
                for u, v in zip(batch, self._embed([u.text for u in batch])):
                    u.embedding = v
            self.db.write_units(units)
        self.db.mark_units_built()

    def _sync(self, flush: bool = True) -> None:
        """Bring the memory up to date before a read: reload what another process has
        committed since (the writer overrides this: with ``flush`` it commits its own
        buffer)."""
        version = self._stored_version()
        if version == self._loaded:
            return
        self._loaded = version
        self._indexes = {}
        self._vectors_cache.clear()
        for level in LEVELS.values():
            self._load_level(level)
        self._pictures.reload()

    # -- public reads -----------------------------------------------------------------
    @property
    def duration(self) -> float:
        """Media time covered by committed chunks (seconds)."""
        return self.db.media_end()

    @locked
    def search(self, query: str, k: int = 5, before: float | None = None,
               start: float | None = None, end: float | None = None,
               level: str = "segment") -> list[Moment]:
        """The ``k`` moments best matching ``query`` among those ending by ``before``
        (and overlapping ``[start, end]`` when given), best first."""
        self._sync()
        vector = self._embed([query])[0]
        return self._search(query, vector, k, before, start, end, level_named(level))

    @locked
    def search_image(self, image, k: int = 5, before: float | None = None,
                     start: float | None = None, end: float | None = None) -> list[Moment]:
        """The ``k`` key frames most like ``image`` (a PIL image, an RGB uint8 array or a
        path) among those on screen by ``before`` (and during ``[start, end]``), best first.
        Each is a moment of the chunks that showed it, with its times and its JPEG; the
        score is the image model's cosine similarity. Needs `MemoryModels.image_embedder`."""
        from memory.models.image_embedder import as_rgb

        if self.models.image_embedder is None:
            raise ModelUnavailableError(self._pictures.missing_model())
        picture = as_rgb(image)
        self._sync()
        if not len(self._pictures) and self.db.keyframes_without_vectors():
            raise StoreError(f"the key frames of {self.directory} have no image vectors yet: "
                             f"open it once with VideoMemory.open(path, MemoryModels("
                             f"image_embedder=...)) to embed them")
        hits = self._pictures.search(self._pictures.image_vector(picture), k, before, start, end)
        return [self._keyframe_moment(i, score, before) for i, score in hits]

    @locked
    def moments(self, start: float, end: float, level: str = "segment", *,
                committed_only: bool = False) -> list[Moment]:
        """Chronological moments overlapping ``[start, end]`` that end by ``end``; for
        segments, the not-yet-closed stretch up to ``end`` comes last (level "chunk").

        ``committed_only``: what the writer has committed, its buffered chunks left as
        they are. A plain read first transcribes the buffer, which cuts the speech batch
        there and so changes what Whisper hears next: a display that reads while a stream
        is being added (`venus demo`, the app's key frames) must not, or its transcript
        depends on when it happened to read."""
        self._sync(flush=not committed_only)
        return self._moments(start, end, level_named(level))

    @locked
    def recent(self, at: float | None = None) -> Moment | None:
        """The last ``recent_s`` seconds before ``at`` as one chunk-level moment."""
        self._sync()
        return self._recent(self.duration if at is None else at)

    @locked
    def evidence(self, start: float, end: float, *, flush: bool = True) -> list[Evidence]:
        """Every sentence said and line shown in ``[start, end]`` that ends by ``end``, in
        time order; screen text repeated on most key frames (a footer) is flagged
        ``boilerplate``. What summaries and quizzes are made from. ``flush=False``: read
        only what is committed, leaving a writer's buffered chunks for their batch (a
        watch polling every second would otherwise cut Whisper's batches to a second)."""
        self._sync(flush)
        return self.answer_source().units_between(start, end)

    @locked
    def answer(self, question: str, at: float | None = None, k: int = 3) -> Answer:
        """Answer ``question`` as asked at media time ``at`` (default: now)."""
        self._sync()
        answer = answer_question(self.answer_source(), question,
                                 self.duration if at is None else at, k)
        return self._pictures.hint(answer)

    def answer_source(self) -> ReaderSource:
        """This memory as answering reads it (`memory.answering.AnswerSource`); the
        caller holds the lock and has synced."""
        return ReaderSource(self)

    # -- internals (the caller holds the lock) ---------------------------------------------
    def _search(self, query: str, vector: np.ndarray, k: int, before: float | None,
                start: float | None = None, end: float | None = None,
                level: Level = SEGMENT) -> list[Moment]:
        index = self._index(level)
        tail = self._tail(before, start, end) if level.open_stretch else []
        tail_moment = chunk_moment(tail, self.directory) if tail else None
        extra = None
        if tail_moment is not None and tail_moment.text:
            extra = (tail_moment.text, self._cached_vector(tail_moment.text))
        id_range = index.id_range(before, start, end)
        pictures = self._picture_ranking(query, before, start, end, id_range, tail) \
            if level.open_stretch else []
        found = index.search(query, vector, id_range, self.options.candidates, extra,
                             [[i for i, _ in pictures]] if pictures else ())
        if not found and tail_moment is not None:
            return [dataclasses.replace(tail_moment, score=0.0)]
        moments = self._moments_for(found[:k], level, tail_moment)
        shown = dict(pictures)  # a moment found by a picture is quoted with that picture
        return [dataclasses.replace(m, keyframe=keyframe_path(self.directory, shown[i]))
                if i in shown else m for m, i in zip(moments, (c.id for c in found[:k]))]

    def _picture_ranking(self, query: str, before: float | None, start: float | None,
                         end: float | None, id_range: tuple[int, int] | None,
                         tail: list[ChunkRecord]) -> list[tuple[int, int]]:
        """Segments (and -1, the open stretch) ranked by the image model's match of
        ``query`` to the key frames they show; empty without an image model."""
        if self.models.image_embedder is None or not len(self._pictures):
            return []
        vector = self._pictures.text_vector(query)
        open_keyframes = {c.keyframe_id for c in tail if c.keyframe_id is not None}
        return self._pictures.segment_ranking(vector, self.options.candidates, before, start,
                                              end, id_range, open_keyframes)

    def _keyframe_moment(self, keyframe_id: int, score: float, before: float | None) -> Moment:
        chunks = self.db.chunks_showing(keyframe_id, _FOREVER if before is None else before)
        return dataclasses.replace(chunk_moment(chunks, self.directory), score=score)

    def _moments_for(self, found: list[Candidate], level: Level,
                     tail_moment: Moment | None) -> list[Moment]:
        rows = {r.id: r for r in level.by_id(self.db, [c.id for c in found if c.id >= 0])}
        return [dataclasses.replace(tail_moment, score=c.score) if c.id < 0
                else level.moment(rows[c.id], c.score, self.directory) for c in found]

    def _tail(self, before: float | None, start: float | None,
              end: float | None) -> list[ChunkRecord]:
        """Committed chunks after the last closed segment that ends by ``before``."""
        limit = before if before is not None else _FOREVER
        chunks = self.db.chunks_ending_in(self._closed_by(limit), limit)
        return [c for c in chunks if (start is None or c.end > start)
                and (end is None or c.start < end)]

    def _closed_by(self, limit: float) -> float:
        """The end of the last segment closed by ``limit`` (0 when none): after it, the
        video as seen at ``limit`` is the open stretch."""
        index = self._indexes.get(SEGMENT.name)
        if index is None or not len(index):
            return 0.0
        ends = index.ends()
        n = int(np.searchsorted(ends, limit + 1e-6, side="right"))
        return float(ends[n - 1]) if n else 0.0

    def _moments(self, start: float, end: float, level: Level) -> list[Moment]:
        self._index(level)
        out = [level.moment(r, 0.0, self.directory) for r in level.ending_in(self.db, start, end)]
        if level.open_stretch:
            tail = self._tail(end, start, end)
            if tail:
                out.append(chunk_moment(tail, self.directory))
        return out

    def _recent(self, at: float) -> Moment | None:
        chunks = self.db.chunks_ending_in(at - self.options.recent_s, at)
        return chunk_moment(chunks, self.directory) if chunks else None

    def _captioned(self, moment: Moment) -> Moment:
        captioner = self.models.captioner
        if captioner is None or moment.caption or not moment.keyframe:
            return moment
        from PIL import Image

        with Image.open(moment.keyframe) as img:
            image = np.asarray(img.convert("RGB"))
        return dataclasses.replace(moment, caption=captioner.caption(image))


class ReaderSource:
    """A `MemoryReader` as an `memory.answering.AnswerSource`: the reader's own reads,
    made while its lock is held (one question is one pass through the store)."""

    def __init__(self, reader: MemoryReader) -> None:
        self._reader = reader

    @property
    def duration(self) -> float:
        return self._reader.duration

    @property
    def recent_s(self) -> float:
        return self._reader.options.recent_s

    @property
    def answer_options(self) -> AnswerOptions:
        return self._reader.options.answer

    @property
    def answerer(self) -> Answerer:
        return self._reader.models.answerer

    @property
    def reranker(self) -> Reranker | None:
        return self._reader.models.reranker

    def embed(self, text: str) -> np.ndarray:
        return self._reader._embed([text])[0]

    def find(self, query: str, vector: np.ndarray, k: int, before: float,
             start: float | None = None, end: float | None = None) -> list[Moment]:
        return self._reader._search(query, vector, k, before, start, end)

    def moments_between(self, start: float, end: float) -> list[Moment]:
        return self._reader._moments(start, end, SEGMENT)

    def recent(self, at: float) -> Moment | None:
        return self._reader._recent(at)

    def captioned(self, moment: Moment) -> Moment:
        return self._reader._captioned(moment)

    def units_between(self, lo: float, hi: float, now: float | None = None) -> list[Evidence]:
        now = hi if now is None else now
        reader = self._reader
        tail = reader._tail(now, lo, hi)
        closed = reader._closed_by(now) if tail else 0.0
        return units_between(reader.db, lo, hi, now, tail, closed)

    def units_in(self, moments: Sequence[Moment], now: float) -> Candidates:
        units, owners, vectors = moment_units(self._reader.db, moments, now,
                                              self._reader._cached_vector)
        return Candidates(units, owners, vectors)

    def term_counts(self, terms: Sequence[str], now: float) -> tuple[int, dict[str, int]]:
        reader = self._reader
        text_index = reader.db.segment_text
        below = None
        if now < reader.duration:  # asked back in time: only what was indexed by then
            ids = reader._index(SEGMENT).id_range(now)
            below = ids[1] if ids else 0
        return text_index.rows(below), text_index.doc_freq(list(terms), below)


def chunk_moment(chunks: list[ChunkRecord], directory: Path) -> Moment:
    """The chunks of the open stretch (or the recent window) as one "chunk" moment."""
    transcript = " ".join(c.transcript for c in chunks if c.transcript)
    ocr = "\n".join(dict.fromkeys(c.ocr_text for c in chunks if c.ocr_text))
    caption = " ".join(dict.fromkeys(c.caption for c in chunks if c.caption))
    keyframe = next((c.keyframe_id for c in chunks if c.keyframe_id is not None), None)
    return Moment(chunks[0].start, chunks[-1].end, 0.0, segment_summary(transcript, ocr, caption),
                  transcript, ocr, keyframe_path(directory, keyframe), "chunk", None, caption)
