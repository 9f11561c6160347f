"""The memory directory on disk: a version file, SQLite metadata, key-frame JPEGs.

SQLite (WAL mode) is the commit log: a batch of chunks, the key frames, segments (with
their evidence units) and chapters they closed, the lexical index rows of those segments
and chapters, and the new ``version`` are written in one transaction, so a process
killed at any point leaves the last committed chunk intact and nothing half written.
The vector-index files are checkpoints of what SQLite holds (embeddings are stored as
blobs) and are topped up from it on open. Lexical search is FTS5 in the same file
(`TextIndex`, in `memory.store.text_index`), so it is on disk and never rebuilt.

Reads are named by meaning (`MemoryDB.chunks_ending_in`, `MemoryDB.segments_by_id`, ...);
no SQL leaves this module and `text_index`.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memory.errors import StoreError
from memory.lexical import TERMS_VERSION
from memory.models.base import Word
from memory.store.faults import as_store_fault, discard, writing
from memory.store.records import (
    ChapterRecord,
    ChunkRecord,
    KeyFrameRecord,
    SegmentRecord,
    UnitRecord,
)
from memory.store.text_index import TextIndex, _marks

__all__ = ["FORMAT", "UNITS_VERSION", "MemoryDB", "TextIndex", "read_format", "write_format"]

FORMAT = 1
"""Version of the memory-directory layout this code reads and writes (tables added since
format 1 was first written, such as the lexical index and the units, are filled in from
the rows already there when an older directory is opened)."""
VERSION_FILE = "VERSION"
UNITS_VERSION = "4"  # how evidence units are cut (`memory.store.units`); a memory whose
# units were cut another way has them cut again from its chunk rows when opened

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS keyframes (id INTEGER PRIMARY KEY, time REAL, path TEXT,
    ocr_text TEXT, caption TEXT, signature BLOB);
CREATE TABLE IF NOT EXISTS chunks (idx INTEGER PRIMARY KEY, start REAL, end REAL,
    words TEXT, keyframe_id INTEGER, segment_id INTEGER);
CREATE TABLE IF NOT EXISTS keyframe_vectors (id INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_segment ON chunks(segment_id);
CREATE INDEX IF NOT EXISTS chunks_end ON chunks(end);
CREATE INDEX IF NOT EXISTS chunks_keyframe ON chunks(keyframe_id);
CREATE TABLE IF NOT EXISTS segments (id INTEGER PRIMARY KEY, start REAL, end REAL,
    first_chunk INTEGER, last_chunk INTEGER, transcript TEXT, ocr_text TEXT,
    keyframe_id INTEGER, summary TEXT, embedding BLOB, chapter_id INTEGER);
CREATE TABLE IF NOT EXISTS chapters (id INTEGER PRIMARY KEY, start REAL, end REAL,
    first_segment INTEGER, last_segment INTEGER, summary TEXT, embedding BLOB);
CREATE TABLE IF NOT EXISTS units (id INTEGER PRIMARY KEY, segment_id INTEGER, kind TEXT,
    start REAL, end REAL, text TEXT, template TEXT, keyframe_id INTEGER, embedding BLOB);
CREATE INDEX IF NOT EXISTS units_segment ON units(segment_id);
CREATE INDEX IF NOT EXISTS units_template ON units(template);
CREATE INDEX IF NOT EXISTS units_start ON units(start);
CREATE VIRTUAL TABLE IF NOT EXISTS segments_fts USING fts5(terms,
    tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE IF NOT EXISTS chapters_fts USING fts5(terms,
    tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE IF NOT EXISTS segments_vocab USING fts5vocab(segments_fts, row);
CREATE VIRTUAL TABLE IF NOT EXISTS chapters_vocab USING fts5vocab(chapters_fts, row);
"""

_CHUNK_COLUMNS = ("SELECT c.idx, c.start, c.end, c.words, c.keyframe_id, c.segment_id, "
                  "k.ocr_text, k.caption FROM chunks c "
                  "LEFT JOIN keyframes k ON k.id = c.keyframe_id ")


def write_format(directory: Path) -> None:
    tmp = directory / f"{VERSION_FILE}.tmp"
    with writing(directory):
        try:
            tmp.write_text(json.dumps({"format": FORMAT, "kind": "realtime-venus video memory"}))
            os.replace(tmp, directory / VERSION_FILE)
        except BaseException:
            discard(tmp)
            raise


def read_format(directory: Path) -> int:
    path = directory / VERSION_FILE
    if not path.is_file():
        raise StoreError(f"{directory} is not a video memory (no {VERSION_FILE} file); "
                         f"create one with VideoMemory.create({str(directory)!r})")
    try:
        found = int(json.loads(path.read_text())["format"])
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"{path} is unreadable ({exc}); the memory directory is damaged: "
                         f"recreate it with VideoMemory.create") from exc
    if found != FORMAT:
        newer = "newer" if found > FORMAT else "older"
        raise StoreError(f"{directory} holds a memory of format {found}, {newer} than this "
                         f"version of realtime-venus reads (format {FORMAT}); "
                         f"{'upgrade realtime-venus' if found > FORMAT else 're-ingest it'}")
    return found


def _words_json(words: tuple[Word, ...]) -> str:
    # A word's source is stored only when it is not the transcriber ("asr").
    return json.dumps([[w.text, round(w.start, 3), round(w.end, 3)]
                       + ([w.source] if w.source != "asr" else []) for w in words])


def _words(text: str) -> tuple[Word, ...]:
    return tuple(Word(t, s, e, 1.0, *rest) for t, s, e, *rest in json.loads(text or "[]"))


def _blob(vector: np.ndarray | None) -> bytes | None:
    return None if vector is None else np.asarray(vector, np.float32).tobytes()


def _vector(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32).copy()


class MemoryDB:
    """The SQLite file of one memory directory."""

    place = "memory directory"  # what a disk fault's sentence calls the directory

    def __init__(self, path: Path, writable: bool = True) -> None:
        self.directory = Path(path).parent
        try:
            # One connection shared by the threads of one process (a harness capability
            # may read from a worker thread); `VideoMemory` serialises access with a lock.
            self.conn = sqlite3.connect(str(path), isolation_level=None,
                                        check_same_thread=False)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            fault = as_store_fault(exc, self.directory, self.place)
            if fault is not None:  # a full or read-only disk, not a damaged file
                raise fault from exc
            raise StoreError(f"cannot open the memory database {path} ({exc}); the directory "
                             f"is damaged or not a memory: recreate it") from exc
        self.segment_text = TextIndex(self.conn, "segments_fts")
        self.chapter_text = TextIndex(self.conn, "chapters_fts")
        if writable:  # a reader in another process never writes
            with self.writing():
                self._fill_text_indexes()

    def writing(self):
        """A block whose disk faults become `StoreWriteError`s naming this directory."""
        return writing(self.directory, self.place)

    def rollback(self) -> None:
        """Undo the open transaction; SQLite may have rolled it back itself already (it
        does after a full disk), and a second ROLLBACK must not hide the first error."""
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def close(self) -> None:
        self.conn.close()

    # -- meta -----------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: object) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))

    # -- commit ---------------------------------------------------------------------
    def commit(self, chunks: list[ChunkRecord], segments: list[SegmentRecord],
               chapters: list[ChapterRecord], version: int,
               meta: dict[str, object] | None = None) -> None:
        """Write one batch atomically: all of it or (after a crash) none of it."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            for ch in chunks:
                kf = ch.new_keyframe
                if kf is not None:
                    c.execute("INSERT OR REPLACE INTO keyframes VALUES (?,?,?,?,?,?)",
                              (kf.id, kf.time, kf.path, kf.ocr_text, kf.caption, kf.signature))
                    if kf.embedding is not None:  # the image model's vector of it
                        c.execute("INSERT OR REPLACE INTO keyframe_vectors VALUES (?,?)",
                                  (kf.id, _blob(kf.embedding)))
                c.execute("INSERT INTO chunks VALUES (?,?,?,?,?,?)",
                          (ch.index, ch.start, ch.end, _words_json(ch.words), ch.keyframe_id,
                           ch.segment_id))
            self._segments(segments)
            self._chapters(chapters)
            c.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(version),))
            for key, value in (meta or {}).items():  # resume state, atomic with the rows
                c.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))
            c.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    def _segments(self, segments: list[SegmentRecord]) -> None:
        for s in segments:
            self.conn.execute(
                "INSERT OR REPLACE INTO segments VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (s.id, s.start, s.end, s.first_chunk, s.last_chunk, s.transcript, s.ocr_text,
                 s.keyframe_id, s.summary, _blob(s.embedding), s.chapter_id))
            self.conn.execute("UPDATE chunks SET segment_id=? WHERE idx BETWEEN ? AND ?",
                              (s.id, s.first_chunk, s.last_chunk))
            self.segment_text.write(s.id, s.summary)
            if s.units:
                self._units(s.id, s.units)
            if s.replaces is not None:  # the sentence it finishes is said whole here
                self.conn.execute("DELETE FROM units WHERE segment_id=? AND kind='said' AND "
                                  "ABS(start - ?) < 1e-6", (s.id - 1, s.replaces))

    def _units(self, segment_id: int, units: list[UnitRecord]) -> None:
        self.conn.execute("DELETE FROM units WHERE segment_id=?", (segment_id,))
        self.conn.executemany(
            "INSERT INTO units (segment_id, kind, start, end, text, template, keyframe_id, "
            "embedding) VALUES (?,?,?,?,?,?,?,?)",
            [(segment_id, u.kind, u.start, u.end, u.text, u.template, u.keyframe_id,
              _blob(u.embedding)) for u in units])

    def _chapters(self, chapters: list[ChapterRecord]) -> None:
        for ch in chapters:
            self.conn.execute("INSERT OR REPLACE INTO chapters VALUES (?,?,?,?,?,?,?)",
                              (ch.id, ch.start, ch.end, ch.first_segment, ch.last_segment,
                               ch.summary, _blob(ch.embedding)))
            self.conn.execute("UPDATE segments SET chapter_id=? WHERE id BETWEEN ? AND ?",
                              (ch.id, ch.first_segment, ch.last_segment))
            self.chapter_text.write(ch.id, ch.summary)

    def write_units(self, units_by_segment: dict[int, list[UnitRecord]]) -> None:
        """Replace all units with these (cut again for an older memory)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.execute("DELETE FROM units")
            for segment_id, units in units_by_segment.items():
                self._units(segment_id, units)
            self.conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    def _fill_text_indexes(self) -> None:
        """Index rows written before the lexical index existed (an older memory), and all
        rows again when they were indexed with other terms (`memory.lexical.TERMS_VERSION`)."""
        again = self.get_meta("terms") != TERMS_VERSION
        for index, table in ((self.segment_text, "segments"), (self.chapter_text, "chapters")):
            ids = [r[0] for r in self.conn.execute(f"SELECT id FROM {table}")]
            todo = ids if again else index.missing(ids)
            if not todo:
                continue
            rows = self.conn.execute(f"SELECT id, summary FROM {table} WHERE id IN "
                                     f"({_marks(todo)})", todo).fetchall()
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                for row_id, summary in rows:
                    index.write(row_id, summary or "")
                self.conn.execute("COMMIT")
            except BaseException:
                self.rollback()
                raise
        if again:
            self.set_meta("terms", TERMS_VERSION)

    # -- chunks and key frames ---------------------------------------------------------
    def last_chunk(self) -> int:
        row = self.conn.execute("SELECT MAX(idx) FROM chunks").fetchone()
        return -1 if row[0] is None else int(row[0])

    def media_end(self) -> float:
        """The end of the last committed chunk (media seconds; 0 when empty)."""
        row = self.conn.execute("SELECT MAX(end) FROM chunks").fetchone()
        return float(row[0] or 0.0)

    def _chunks(self, where: str, args: tuple = ()) -> list[ChunkRecord]:
        rows = self.conn.execute(f"{_CHUNK_COLUMNS} WHERE {where} ORDER BY c.idx",
                                 args).fetchall()
        return [ChunkRecord(r[0], r[1], r[2], _words(r[3]), r[4], r[6] or "", r[7] or "",
                            None, r[5]) for r in rows]

    def all_chunks(self) -> list[ChunkRecord]:
        return self._chunks("1")

    def open_chunks(self) -> list[ChunkRecord]:
        """Committed chunks not yet closed into a segment."""
        return self._chunks("c.segment_id IS NULL")

    def chunks_ending_in(self, lo: float, hi: float) -> list[ChunkRecord]:
        """Chunks with ``lo < end <= hi`` (a tolerance of 1e-6 s on both edges)."""
        return self._chunks("c.end > ? AND c.end <= ?", (lo + 1e-6, hi + 1e-6))

    def chunks_of_segments(self, segment_ids: Sequence[int]) -> list[ChunkRecord]:
        return self._chunks(f"c.segment_id IN ({_marks(segment_ids)})", tuple(segment_ids))

    def chunks_showing(self, keyframe_id: int, until: float) -> list[ChunkRecord]:
        """The chunks that showed a key frame and ended by ``until``."""
        return self._chunks("c.keyframe_id = ? AND c.end <= ?", (keyframe_id, until + 1e-6))

    def keyframe(self, keyframe_id: int) -> KeyFrameRecord | None:
        r = self.conn.execute("SELECT * FROM keyframes WHERE id=?", (keyframe_id,)).fetchone()
        return None if r is None else KeyFrameRecord(r[0], r[1], r[2], r[3] or "", r[5] or b"",
                                                     r[4] or "")

    def last_keyframe(self) -> KeyFrameRecord | None:
        row = self.conn.execute("SELECT MAX(id) FROM keyframes").fetchone()
        return None if row[0] is None else self.keyframe(int(row[0]))

    def keyframes_before(self, t: float) -> int:
        """How many key frames with on-screen text appeared before ``t``."""
        return self.conn.execute("SELECT COUNT(*) FROM keyframes WHERE time < ? AND "
                                 "ocr_text != ''", (t,)).fetchone()[0]

    def keyframe_vectors(self) -> list[tuple[int, float, float, np.ndarray]]:
        """Every key frame's image-model vector with the start and end of the chunk where
        the frame appeared (a key frame's id is that chunk's index), in id order."""
        rows = self.conn.execute("SELECT v.id, c.start, c.end, v.embedding FROM keyframe_vectors "
                                 "v JOIN chunks c ON c.idx = v.id ORDER BY v.id").fetchall()
        return [(int(i), float(s), float(e), _vector(b)) for i, s, e, b in rows]

    def keyframes_without_vectors(self) -> list[tuple[int, str]]:
        """``(id, path)`` of committed key frames that have no image-model vector."""
        rows = self.conn.execute("SELECT k.id, k.path FROM keyframes k JOIN chunks c ON "
                                 "c.idx = k.id WHERE k.id NOT IN (SELECT id FROM "
                                 "keyframe_vectors) ORDER BY k.id").fetchall()
        return [(int(i), str(p)) for i, p in rows]

    def segments_showing(self, keyframe_ids: Sequence[int]) -> dict[int, list[int | None]]:
        """For each key frame, the segments whose chunks show it (None: chunks not yet in a
        segment), in time order."""
        if not keyframe_ids:
            return {}
        rows = self.conn.execute(
            "SELECT keyframe_id, segment_id FROM chunks WHERE keyframe_id IN "
            f"({_marks(keyframe_ids)}) GROUP BY keyframe_id, segment_id ORDER BY MIN(idx)",
            tuple(keyframe_ids)).fetchall()
        out: dict[int, list[int | None]] = {}
        for keyframe_id, segment_id in rows:
            out.setdefault(int(keyframe_id), []).append(segment_id)
        return out

    def write_keyframe_vectors(self, rows: Sequence[tuple[int, np.ndarray]]) -> None:
        """Store vectors of key frames already committed (filling in an older memory)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.executemany("INSERT OR REPLACE INTO keyframe_vectors VALUES (?,?)",
                                  [(i, _blob(v)) for i, v in rows])
            self.conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    # -- segments, units and chapters -----------------------------------------------------
    def next_segment_id(self) -> int:
        return self._next_id("segments")

    def next_chapter_id(self) -> int:
        return self._next_id("chapters")

    def _next_id(self, table: str) -> int:
        row = self.conn.execute(f"SELECT MAX(id) FROM {table}").fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def _segments_where(self, where: str, args: tuple = ()) -> list[SegmentRecord]:
        rows = self.conn.execute(f"SELECT * FROM segments WHERE {where} ORDER BY id",
                                 args).fetchall()
        return [SegmentRecord(*r[:9], _vector(r[9]), r[10]) for r in rows]

    def all_segments(self) -> list[SegmentRecord]:
        return self._segments_where("1")

    def open_segments(self) -> list[SegmentRecord]:
        """Closed segments not yet rolled into a chapter."""
        return self._segments_where("chapter_id IS NULL")

    def segments_by_id(self, ids: Sequence[int]) -> list[SegmentRecord]:
        return self._segments_where(f"id IN ({_marks(ids)})", tuple(ids)) if ids else []

    def segments_ending_in(self, lo: float, hi: float) -> list[SegmentRecord]:
        """Segments with ``lo < end <= hi`` (``hi`` with a 1e-6 s tolerance)."""
        return self._segments_where("end > ? AND end <= ?", (lo, hi + 1e-6))

    def units_built(self) -> bool:
        """Whether the closed segments' units were cut by this version's rules (false in
        an older memory)."""
        return self.get_meta("units") == UNITS_VERSION

    def segment_ids(self) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT id FROM segments ORDER BY id")]

    def mark_units_built(self) -> None:
        self.set_meta("units", UNITS_VERSION)

    def _units_where(self, where: str, args: tuple = ()) -> list[UnitRecord]:
        rows = self.conn.execute(
            "SELECT kind, text, start, end, template, keyframe_id, segment_id, embedding "
            f"FROM units WHERE {where} ORDER BY start, id", args).fetchall()
        return [UnitRecord(*r[:7], _vector(r[7])) for r in rows]

    def all_units(self) -> list[UnitRecord]:
        return self._units_where("1")

    def units_of(self, segment_ids: Sequence[int]) -> list[UnitRecord]:
        """The units of these segments, in time order, with their embeddings."""
        if not segment_ids:
            return []
        return self._units_where(f"segment_id IN ({_marks(segment_ids)})", tuple(segment_ids))

    def units_overlapping(self, lo: float, hi: float) -> list[UnitRecord]:
        """Units of closed segments that overlap ``[lo, hi]`` (time order)."""
        return self._units_where("end >= ? AND start <= ?", (lo, hi))

    def screen_counts(self, templates: Sequence[str], before: float) -> dict[str, int]:
        """For each screen-line template, on how many key frames before ``before`` it was."""
        if not templates:
            return {}
        rows = self.conn.execute(
            "SELECT template, COUNT(DISTINCT keyframe_id) FROM units WHERE kind='shown' AND "
            f"start < ? AND template IN ({_marks(templates)}) GROUP BY template",
            (before, *templates)).fetchall()
        return dict(rows)

    def _chapters_where(self, where: str, args: tuple = ()) -> list[ChapterRecord]:
        rows = self.conn.execute(f"SELECT * FROM chapters WHERE {where} ORDER BY id",
                                 args).fetchall()
        return [ChapterRecord(*r[:6], _vector(r[6])) for r in rows]

    def all_chapters(self) -> list[ChapterRecord]:
        return self._chapters_where("1")

    def chapters_by_id(self, ids: Sequence[int]) -> list[ChapterRecord]:
        return self._chapters_where(f"id IN ({_marks(ids)})", tuple(ids)) if ids else []

    def chapters_ending_in(self, lo: float, hi: float) -> list[ChapterRecord]:
        return self._chapters_where("end > ? AND end <= ?", (lo, hi + 1e-6))

    def counts(self) -> dict[str, int]:
        return {t: self.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in ("chunks", "keyframes", "segments", "chapters")}
