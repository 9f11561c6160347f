"""The memory directory on disk: a version file, SQLite metadata, key-frame JPEGs.

SQLite (WAL mode) is the commit log: a batch of chunks, the key frames, segments and
chapters they closed, and the new ``version`` are written in one transaction, so a
process killed at any point leaves the last committed chunk intact and nothing half
written. The vector-index files are checkpoints of what SQLite holds (embeddings are
stored as blobs) and are topped up from it on open.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import numpy as np

from memory.errors import StoreError
from memory.models.base import Word
from memory.store.records import ChapterRecord, ChunkRecord, KeyFrameRecord, SegmentRecord

__all__ = ["FORMAT", "MemoryDB", "read_format", "write_format"]

FORMAT = 1
"""Version of the memory-directory layout this code reads and writes."""
VERSION_FILE = "VERSION"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS keyframes (id INTEGER PRIMARY KEY, time REAL, path TEXT,
    ocr_text TEXT, caption TEXT, signature BLOB);
CREATE TABLE IF NOT EXISTS chunks (idx INTEGER PRIMARY KEY, start REAL, end REAL,
    words TEXT, keyframe_id INTEGER, segment_id INTEGER);
CREATE INDEX IF NOT EXISTS chunks_segment ON chunks(segment_id);
CREATE INDEX IF NOT EXISTS chunks_end ON chunks(end);
CREATE TABLE IF NOT EXISTS segments (id INTEGER PRIMARY KEY, start REAL, end REAL,
    first_chunk INTEGER, last_chunk INTEGER, transcript TEXT, ocr_text TEXT,
    keyframe_id INTEGER, summary TEXT, embedding BLOB, chapter_id INTEGER);
CREATE TABLE IF NOT EXISTS chapters (id INTEGER PRIMARY KEY, start REAL, end REAL,
    first_segment INTEGER, last_segment INTEGER, summary TEXT, embedding BLOB);
"""


def write_format(directory: Path) -> None:
    tmp = directory / f"{VERSION_FILE}.tmp"
    tmp.write_text(json.dumps({"format": FORMAT, "kind": "realtime-venus video memory"}))
    os.replace(tmp, directory / VERSION_FILE)


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
    return json.dumps([[w.text, round(w.start, 3), round(w.end, 3)] for w in words])


def _words(text: str) -> tuple[Word, ...]:
    return tuple(Word(t, s, e) for t, s, e in json.loads(text or "[]"))


def _blob(vector: np.ndarray | None) -> bytes | None:
    return None if vector is None else np.asarray(vector, np.float32).tobytes()


def _vector(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32).copy()


class MemoryDB:
    """The SQLite file of one memory directory."""

    def __init__(self, path: Path) -> None:
        try:
            # One connection shared by the threads of one process (a harness capability
            # may read from a worker thread); `VideoMemory` serialises access with a lock.
            self.conn = sqlite3.connect(str(path), isolation_level=None,
                                        check_same_thread=False)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the memory database {path} ({exc}); the directory "
                             f"is damaged or not a memory: recreate it") from exc

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
               chapters: list[ChapterRecord], version: int) -> None:
        """Write one batch atomically: all of it or (after a crash) none of it."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            for ch in chunks:
                kf = ch.new_keyframe
                if kf is not None:
                    c.execute("INSERT OR REPLACE INTO keyframes VALUES (?,?,?,?,?,?)",
                              (kf.id, kf.time, kf.path, kf.ocr_text, kf.caption, kf.signature))
                c.execute("INSERT INTO chunks VALUES (?,?,?,?,?,?)",
                          (ch.index, ch.start, ch.end, _words_json(ch.words), ch.keyframe_id,
                           ch.segment_id))
            self._segments(segments)
            self._chapters(chapters)
            c.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(version),))
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def _segments(self, segments: list[SegmentRecord]) -> None:
        for s in segments:
            self.conn.execute(
                "INSERT OR REPLACE INTO segments VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (s.id, s.start, s.end, s.first_chunk, s.last_chunk, s.transcript, s.ocr_text,
                 s.keyframe_id, s.summary, _blob(s.embedding), s.chapter_id))
            self.conn.execute("UPDATE chunks SET segment_id=? WHERE idx BETWEEN ? AND ?",
                              (s.id, s.first_chunk, s.last_chunk))

    def _chapters(self, chapters: list[ChapterRecord]) -> None:
        for ch in chapters:
            self.conn.execute("INSERT OR REPLACE INTO chapters VALUES (?,?,?,?,?,?,?)",
                              (ch.id, ch.start, ch.end, ch.first_segment, ch.last_segment,
                               ch.summary, _blob(ch.embedding)))
            self.conn.execute("UPDATE segments SET chapter_id=? WHERE id BETWEEN ? AND ?",
                              (ch.id, ch.first_segment, ch.last_segment))

    # -- reads ----------------------------------------------------------------------
    def last_chunk(self) -> int:
        row = self.conn.execute("SELECT MAX(idx) FROM chunks").fetchone()
        return -1 if row[0] is None else int(row[0])

    def next_id(self, table: str) -> int:
        row = self.conn.execute(f"SELECT MAX(id) FROM {table}").fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def chunks(self, where: str = "1", args: tuple = ()) -> list[ChunkRecord]:
        rows = self.conn.execute(
            "SELECT c.idx, c.start, c.end, c.words, c.keyframe_id, c.segment_id, "
            "k.ocr_text, k.caption FROM chunks c LEFT JOIN keyframes k ON k.id = c.keyframe_id "
            f"WHERE {where} ORDER BY c.idx", args).fetchall()
        return [ChunkRecord(r[0], r[1], r[2], _words(r[3]), r[4], r[6] or "", r[7] or "",
                            None, r[5]) for r in rows]

    def keyframe(self, keyframe_id: int) -> KeyFrameRecord | None:
        r = self.conn.execute("SELECT * FROM keyframes WHERE id=?", (keyframe_id,)).fetchone()
        return None if r is None else KeyFrameRecord(r[0], r[1], r[2], r[3] or "", r[5] or b"",
                                                     r[4] or "")

    def last_keyframe(self) -> KeyFrameRecord | None:
        row = self.conn.execute("SELECT MAX(id) FROM keyframes").fetchone()
        return None if row[0] is None else self.keyframe(int(row[0]))

    def segments(self, where: str = "1", args: tuple = ()) -> list[SegmentRecord]:
        rows = self.conn.execute(f"SELECT * FROM segments WHERE {where} ORDER BY id",
                                 args).fetchall()
        return [SegmentRecord(*r[:9], _vector(r[9]), r[10]) for r in rows]

    def chapters(self, where: str = "1", args: tuple = ()) -> list[ChapterRecord]:
        rows = self.conn.execute(f"SELECT * FROM chapters WHERE {where} ORDER BY id",
                                 args).fetchall()
        return [ChapterRecord(*r[:6], _vector(r[6])) for r in rows]

    def counts(self) -> dict[str, int]:
        return {t: self.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in ("chunks", "keyframes", "segments", "chapters")}
