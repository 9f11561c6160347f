"""The library's SQLite file: the memory schema (segments, chapters, their FTS5 indexes)
over every video, plus the ``videos`` table.

Each video has a number ``no`` and owns the id block ``[no << 32, (no + 1) << 32)``: its
segments and chapters are stored here under ``no << 32 | id`` (the id it has in its own
memory), so "this video" and "this video up to time t" are id ranges for FAISS and FTS5
alike. Key frames and chunk numbers stay those of the video's own memory (its shard
directory), where the JPEGs are. Units, chunks and key frames are not copied: answers are
made by the video's own memory. Merge progress is stored in ``meta`` in the same
transaction as the rows (``merged:<no>``), so a crash merges nothing twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory.store.db import MemoryDB, _marks, _vector

__all__ = ["ID_BITS", "LibraryDB", "VideoRow", "video_block"]

ID_BITS = 32
_VIDEOS = """
CREATE TABLE IF NOT EXISTS videos (no INTEGER PRIMARY KEY, video_id TEXT UNIQUE NOT NULL,
    title TEXT, source TEXT, shard TEXT NOT NULL, state TEXT NOT NULL, duration REAL);
"""


def video_block(no: int) -> tuple[int, int]:
    """The ``[lo, hi)`` ids of video number ``no``."""
    return no << ID_BITS, (no + 1) << ID_BITS


@dataclass(frozen=True)
class VideoRow:
    no: int
    video_id: str
    title: str
    source: str | None
    shard: str
    state: str
    duration: float


class LibraryDB(MemoryDB):
    """`MemoryDB` of the library directory with its videos and merge marks."""

    place = "library directory"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        with self.writing():
            self.conn.executescript(_VIDEOS)

    # -- videos ---------------------------------------------------------------------
    def videos(self) -> list[VideoRow]:
        rows = self.conn.execute("SELECT no, video_id, title, source, shard, state, duration "
                                 "FROM videos ORDER BY no").fetchall()
        return [VideoRow(r[0], r[1], r[2] or "", r[3], r[4], r[5], r[6] or 0.0) for r in rows]

    def add_video(self, video_id: str, title: str, source: str | None, state: str) -> int:
        """Register a video; its number is one more than any number ever given out (so a
        removed video's ids are never reused), its memory ``videos/<no>-<video_id>``."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            last = max(int(self.get_meta("last_video_no", "-1")), c.execute(
                "SELECT COALESCE(MAX(no), -1) FROM videos").fetchone()[0])
            no = last + 1
            c.execute("INSERT INTO videos VALUES (?,?,?,?,?,?,0)",
                      (no, video_id, title, source, f"videos/{no:05d}-{video_id}", state))
            c.execute("INSERT OR REPLACE INTO meta VALUES ('last_video_no', ?)", (str(no),))
            c.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise
        return no

    def set_video(self, no: int, state: str, duration: float | None = None) -> None:
        if duration is None:
            self.conn.execute("UPDATE videos SET state=? WHERE no=?", (state, no))
        else:
            self.conn.execute("UPDATE videos SET state=?, duration=? WHERE no=?",
                              (state, duration, no))

    def merged(self, no: int) -> dict[str, int]:
        """How far video ``no`` is merged: its last segment and chapter id, its version."""
        raw = self.get_meta(f"merged:{no}")
        return json.loads(raw) if raw else {"segment": -1, "chapter": -1, "version": 0}

    def delete_video(self, no: int) -> None:
        """Remove a video's rows, lexical rows, merge mark and registration, atomically."""
        lo, hi = video_block(no)
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            for table in ("segments", "chapters", "segments_fts", "chapters_fts"):
                key = "rowid" if table.endswith("_fts") else "id"
                c.execute(f"DELETE FROM {table} WHERE {key} >= ? AND {key} < ?", (lo, hi))
            c.execute("DELETE FROM meta WHERE key=?", (f"merged:{no}",))
            c.execute("DELETE FROM videos WHERE no=?", (no,))
            c.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    # -- lean reads for the indexes -------------------------------------------------------
    def times(self, table: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(ids, starts, ends)`` of every row of ``table`` (segments or chapters), by id."""
        rows = self.conn.execute(f"SELECT id, start, end FROM {table} ORDER BY id").fetchall()
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
        arr = np.asarray(rows, dtype=np.float64)
        ids = np.asarray([r[0] for r in rows], np.int64)
        return ids, arr[:, 1], arr[:, 2]

    def embeddings(self, table: str, ids: np.ndarray) -> np.ndarray | None:
        """The stored embeddings of ``ids`` (in that order); None when there are none."""
        out = []
        for p in range(0, len(ids), 900):  # SQLite's bound-parameter limit
            part = [int(i) for i in ids[p:p + 900]]
            rows = dict(self.conn.execute(
                f"SELECT id, embedding FROM {table} WHERE id IN ({_marks(part)})", part))
            out += [_vector(rows.get(i)) for i in part]
        if not out or any(v is None for v in out):
            return None
        return np.vstack(out).astype(np.float32)
