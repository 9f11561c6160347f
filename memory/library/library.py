"""`VideoLibrary`: many videos in one place, searched and answered across videos.

Each video is ingested into its own `VideoMemory` (a *shard*: ``videos/<no>-<id>/``),
exactly as one video is anywhere else, so ingest, resume after a kill, key frames and
answers are that code's. The library merges what a shard has committed - its segments
and chapters with their embeddings and lexical rows - into its own store
(`memory.library.db`) under the video's id block, and keeps one `FaissIndex` per level
over all videos; a search is one `LevelIndex` search (dense + FTS5, fused) restricted to
id ranges: the videos asked about, each up to its own causal cutoff. An answer is made by
the memories of the videos the search ranks first, and the best-supported one wins; its
citations carry ``(video_id, start, end)``.

A library on disk::

    LIB/LIBRARY              format marker
    LIB/library.sqlite       videos, merged segments/chapters, FTS5, merge marks
    LIB/segments.faiss ...   vector checkpoints (rebuilt from SQLite when stale)
    LIB/videos/00000-intro/  the video "intro": a plain VideoMemory directory
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import shutil
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from typing_extensions import Self

from memory.errors import StoreError, StoreWriteError
from memory.evidence import Answer, Moment
from memory.index.faiss_index import FaissIndex, normalize_ranges
from memory.lexical import index_terms
from memory.library.db import ID_BITS, LibraryDB, VideoRow, video_block
from memory.library.terms import TermIndex
from memory.store.config import MemoryModels, StoreOptions
from memory.store.db import MemoryDB
from memory.store.faults import discard, writing
from memory.store.levels import LEVELS, Level, level_named
from memory.store.lock import WriterLock
from memory.store.memory import VideoMemory
from memory.store.reader import MemoryReader
from memory.store.retrieval import LevelIndex, id_range_of

__all__ = ["VideoLibrary", "VideoRecord"]

logger = logging.getLogger(__name__)
MARKER = "LIBRARY"
FORMAT = 1
_DB = "library.sqlite"
Cutoff = float | Mapping[str, float] | None


@dataclass(frozen=True)
class VideoRecord:
    """A video of the library. ``state``: "ingesting" (its memory is being built, or was
    when a process stopped: `VideoLibrary.add` or `resume` continues it), "live" (fed by
    a caller through `VideoLibrary.stream`) or "ready"."""

    video_id: str
    number: int
    title: str
    source: str | None
    state: str
    duration: float
    directory: Path


def slug(text: str) -> str:
    """A video id made from a file name: lower case, letters, digits and dashes."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:60] or "video"


class _Level:
    """One level over all videos: the vectors, the lexical index (FTS5 in the library's
    SQLite, searched through its `TermIndex` in RAM) and each video's (ids, starts, ends)
    in time order, for its cutoffs."""

    def __init__(self, level: Level, db: LibraryDB, options: StoreOptions) -> None:
        self.level, self.db, self.options = level, db, options
        self.vectors: FaissIndex | None = None
        self.terms = TermIndex()
        self.rows: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    @property
    def table(self) -> str:
        return f"{self.level.name}s"

    def index(self) -> LevelIndex | None:
        if self.vectors is None:
            return None
        return LevelIndex(self.vectors.dim, self.terms, self.options.index, self.vectors)

    def _terms_key(self) -> str:
        """What the lexical rows are: the store's version and how many there are."""
        count = self.db.conn.execute(f"SELECT COUNT(*) FROM {self.table}_fts_docsize"
                                     ).fetchone()[0]
        return f"{self.db.get_meta('version', '0')}:{count}"

    def _load_terms(self, checkpoint: Path) -> None:
        loaded = TermIndex.load(checkpoint, self._terms_key()) if checkpoint.is_file() \
            else None
        self.terms = loaded if loaded is not None else TermIndex.from_rows(
            self.db.conn.execute(f"SELECT rowid, terms FROM {self.table}_fts"))

    def save(self, directory: Path) -> None:
        if self.vectors is not None:
            self.vectors.save(str(directory / self.level.checkpoint_file))
        self.terms.save(directory / f"{self.table}.terms.npz", self._terms_key())

    def load(self, checkpoint: Path) -> None:
        self._load_terms(checkpoint.with_name(f"{self.table}.terms.npz"))
        ids, starts, ends = self.db.times(self.table)
        self.rows = {}
        videos = ids >> ID_BITS
        for no in np.unique(videos):
            keep = videos == no
            self.rows[int(no)] = (ids[keep], starts[keep], ends[keep])
        if checkpoint.is_file():
            try:
                self.vectors = FaissIndex.load(str(checkpoint), self.options.index)
            except StoreError as exc:
                logger.warning("%s; rebuilding it from the library's rows", exc)
        stale = np.setdiff1d(self.vectors.ids(), ids) if self.vectors is not None else []
        if len(stale):
            self.vectors.remove(stale)
        missing = ids if self.vectors is None else np.setdiff1d(ids, self.vectors.ids())
        for p in range(0, len(missing), 50_000):
            part = missing[p:p + 50_000]
            self._add_vectors(part, self.db.embeddings(self.table, part))

    def _add_vectors(self, ids: np.ndarray, vectors: np.ndarray | None) -> None:
        if vectors is None or not len(ids):
            return
        if self.vectors is None:
            self.vectors = FaissIndex(vectors.shape[1], self.options.index)
        self.vectors.add(ids, vectors)

    def add(self, no: int, rows: list) -> None:
        """Index rows of video ``no`` just merged (later than any of it indexed before)."""
        if not rows:
            return
        ids = np.array([r.id for r in rows], np.int64)
        old = self.rows.get(no)
        new = (ids, np.array([r.start for r in rows]), np.array([r.end for r in rows]))
        self.rows[no] = new if old is None else tuple(np.concatenate(p) for p in zip(old, new))
        self.terms.add((r.id, index_terms(r.summary)) for r in rows)  # as FTS5 stores them
        with_vec = [r for r in rows if r.embedding is not None]
        if with_vec:
            self._add_vectors(np.array([r.id for r in with_vec], np.int64),
                              np.vstack([r.embedding for r in with_vec]).astype(np.float32))

    def drop(self, no: int) -> None:
        """Forget video ``no`` (its rows are already deleted from the store)."""
        self.rows.pop(no, None)
        self.terms = TermIndex.from_rows(
            self.db.conn.execute(f"SELECT rowid, terms FROM {self.table}_fts"))
        if self.vectors is not None:
            self.vectors.remove_range(*video_block(no))

    def ranges(self, scope: list[tuple[int, float | None]], start, end):
        """Id ranges of ``scope`` ((video no, cutoff) pairs); None means every row."""
        if not scope:
            return []
        if start is None and end is None and all(cut is None for _, cut in scope) \
                and set(self.rows) <= {n for n, _ in scope}:
            return None
        out = []
        for no, cut in scope:
            rows = self.rows.get(no)
            if rows is None:
                continue
            if cut is None and start is None and end is None:
                out.append(video_block(no))
            else:
                r = id_range_of(*rows, cut, start, end)
                if r is not None:
                    out.append(r)
        return normalize_ranges(out)


class VideoLibrary:
    """A library directory opened for reading and adding videos. Use `create` or `open`.

    One process writes a library at a time (``writer.lock``); each video's memory has
    its own lock, so batch workers write their videos while this process merges.
    """

    def __init__(self, directory: Path, models: MemoryModels | None,
                 options: StoreOptions | None) -> None:
        self.directory = directory
        self.models = models or MemoryModels()
        self.options = options or StoreOptions()
        try:
            self._writer = WriterLock.acquire(directory, "library directory")
        except StoreWriteError:
            raise
        except StoreError as exc:
            held = str(exc).split(": one process writes")[0]
            raise StoreError(f"{held}: one process writes a library at a time; close it "
                             f"there (library.close()) or let its ingest finish, then open "
                             f"it again") from None
        try:
            self.db = LibraryDB(directory / _DB)
        except BaseException:
            self._writer.release()
            raise
        self._lock = threading.RLock()
        self._rows: list[VideoRow] | None = None  # the videos table, reread after a change
        self._readers: OrderedDict[int, MemoryReader] = OrderedDict()
        self._live: dict[int, VideoMemory] = {}
        self._levels = {name: _Level(level, self.db, self.options)
                        for name, level in LEVELS.items()}
        for name, lvl in self._levels.items():
            lvl.load(directory / LEVELS[name].checkpoint_file)

    # -- opening --------------------------------------------------------------------
    @classmethod
    def create(cls, directory: str | os.PathLike, models: MemoryModels | None = None,
               options: StoreOptions | None = None) -> VideoLibrary:
        """Make a new, empty library in ``directory`` (created if missing)."""
        d = Path(directory)
        if (d / MARKER).exists():
            raise StoreError(f"{d} already holds a video library; open it with "
                             f"VideoLibrary.open({str(d)!r})")
        try:
            with writing(d, "library directory"):
                (d / "videos").mkdir(parents=True, exist_ok=True)
            self = cls(d, models, options)
            tmp = d / f"{MARKER}.tmp"
            with self.db.writing():
                try:
                    tmp.write_text(json.dumps({"format": FORMAT,
                                               "kind": "realtime-venus video library"}))
                    os.replace(tmp, d / MARKER)
                except BaseException:
                    discard(tmp)
                    self.db.close()
                    self._writer.release()
                    raise
        except StoreWriteError as exc:
            raise exc.retold(resume="") from exc.__cause__  # nothing was committed yet
        return self

    @classmethod
    def open(cls, directory: str | os.PathLike, models: MemoryModels | None = None,
             options: StoreOptions | None = None) -> VideoLibrary:
        """Open an existing library (and what its videos' memories committed since)."""
        d = Path(directory)
        marker = d / MARKER
        if not marker.is_file():
            hint = " (it is one video's memory: open it with VideoMemory.open)" \
                if (d / "VERSION").is_file() else ""
            raise StoreError(f"no video library at {d}{hint}; create one with "
                             f"VideoLibrary.create({str(d)!r})")
        found = json.loads(marker.read_text()).get("format")
        if found != FORMAT:
            raise StoreError(f"{d} holds a library of format {found}; this version of "
                             f"realtime-venus reads format {FORMAT}")
        return cls(d, models, options)

    @classmethod
    def open_or_create(cls, directory: str | os.PathLike, models: MemoryModels | None = None,
                       options: StoreOptions | None = None) -> VideoLibrary:
        d = Path(directory)
        return cls.open(d, models, options) if (d / MARKER).is_file() else \
            cls.create(d, models, options)

    # -- videos ---------------------------------------------------------------------
    def videos(self) -> list[VideoRecord]:
        """Every video, in the order they were added."""
        with self._lock:
            return [self._record(r) for r in self._video_rows()]

    def video(self, video_id: str) -> VideoRecord:
        return self._record(self._row(video_id))

    def _record(self, r: VideoRow) -> VideoRecord:
        return VideoRecord(r.video_id, r.no, r.title, r.source, r.state, r.duration,
                           self.directory / r.shard)

    def _video_rows(self) -> list[VideoRow]:
        if self._rows is None:
            self._rows = self.db.videos()
        return self._rows

    def _row(self, video_id: str) -> VideoRow:
        for r in self._video_rows():
            if r.video_id == video_id:
                return r
        known = ", ".join(r.video_id for r in self._video_rows()) or "none yet"
        raise StoreError(f"no video {video_id!r} in this library (videos: {known}); add it "
                         f"with library.add(path)")

    def register(self, source: str | os.PathLike | None, video_id: str | None = None,
                 title: str | None = None, state: str = "ingesting") -> VideoRecord:
        """Give a video a number, an id and a memory directory (or return the one it has,
        when ``video_id`` is already here and not finished)."""
        with self._lock:
            name = Path(str(source)).stem if source is not None else "stream"
            vid = video_id or slug(name)
            existing = {r.video_id: r for r in self._video_rows()}
            if vid in existing:
                row = existing[vid]
                if row.state == "ready":
                    raise StoreError(f"the library already holds a video {vid!r}; remove it "
                                     f"first (library.remove({vid!r})) or pass another "
                                     f"video_id")
                return self._record(row)
            src = None if source is None else os.fspath(source)
            with self.db.writing():
                no = self.db.add_video(vid, title or name, src, state)
            self._rows = None
            return self._record(next(r for r in self._video_rows() if r.no == no))

    def add(self, source: str | os.PathLike | Iterable, video_id: str | None = None,
            title: str | None = None, progress: bool = False) -> VideoRecord:
        """Ingest one video (a path, URL or chunk iterable) into its own memory, then
        merge it. A video whose ingest stopped part-way resumes where it was committed."""
        is_path = isinstance(source, (str, bytes, os.PathLike))
        record = self.register(source if is_path else None, video_id, title)
        with self._open_shard(record) as mem:
            mem.ingest(source, progress=progress)
        return self.merge(record.video_id, final=True)

    def resume(self, progress: bool = False) -> list[VideoRecord]:
        """Finish every video whose ingest was cut short (those with a file source)."""
        return [self.add(r.source, r.video_id, progress=progress) for r in self.videos()
                if r.state == "ingesting" and r.source]

    def stream(self, video_id: str, title: str | None = None) -> VideoMemory:
        """The memory of a live video: `add` its chunks; each search of the library sees
        what it has committed (merged on the way)."""
        with self._lock:
            record = self.register(None, video_id, title, state="live")
            if record.number not in self._live:
                self._live[record.number] = self._open_shard(record)
            return self._live[record.number]

    def _open_shard(self, record: VideoRecord) -> VideoMemory:
        d = record.directory
        if (d / "VERSION").is_file():
            return VideoMemory.open(d, self.models, self.options)
        return VideoMemory.create(d, self.models, self.options)

    def merge(self, video_id: str, final: bool = False) -> VideoRecord:
        """Copy what the video's memory has committed since the last merge into the
        library (one transaction); ``final`` marks it ready."""
        with self._lock, self.db.writing():
            row = self._row(video_id)
            self._merge(row)
            if final:
                self.db.set_video(row.no, "ready", self._duration(row))
                self._rows = None
                self._live.pop(row.no, None)
            self.checkpoint()
            return self.video(video_id)

    def _merge(self, row: VideoRow) -> int:
        path = self.directory / row.shard / "memory.sqlite"
        if not path.is_file():
            return 0
        done = self.db.merged(row.no)
        shard = MemoryDB(path)
        try:
            version = int(shard.get_meta("version", "0"))
            if version == done["version"]:
                return 0
            segments = [s for s in shard.all_segments() if s.id > done["segment"]]
            chapters = [c for c in shard.all_chapters() if c.id > done["chapter"]]
            dim = shard.get_meta("embedding_dim")
        finally:
            shard.close()
        return self._merge_rows(row, segments, chapters, version, dim)

    def merge_rows(self, video_id: str, segments: list, chapters: list,
                   duration: float | None = None) -> int:
        """Merge rows given directly (ids as in the video's own memory, later than any
        merged before): how synthetic libraries are built (`memory.benchmarks.library`)."""
        with self._lock, self.db.writing():
            row = self._row(video_id)
            dim = next((str(len(s.embedding)) for s in segments if s.embedding is not None),
                       None)
            n = self._merge_rows(row, segments, chapters, self.db.merged(row.no)["version"],
                                 dim)
            if duration is not None:
                self.db.set_video(row.no, row.state, duration)
                self._rows = None
            return n

    def _merge_rows(self, row: VideoRow, segments: list, chapters: list, version: int,
                    dim: str | None) -> int:
        done = self.db.merged(row.no)
        base = row.no << ID_BITS
        mark = {"segment": max([done["segment"]] + [s.id for s in segments]),
                "chapter": max([done["chapter"]] + [c.id for c in chapters]),
                "version": version}
        segments = [dataclasses.replace(
            s, id=base + s.id, units=[],
            chapter_id=None if s.chapter_id is None else base + s.chapter_id) for s in segments]
        chapters = [dataclasses.replace(c, id=base + c.id, first_segment=base + c.first_segment,
                                        last_segment=base + c.last_segment) for c in chapters]
        meta = {f"merged:{row.no}": json.dumps(mark)}
        if dim and self.db.get_meta("embedding_dim") is None:
            meta["embedding_dim"] = dim
        self.db.commit([], segments, chapters, int(self.db.get_meta("version", "0")) + 1, meta)
        self._levels["segment"].add(row.no, segments)
        self._levels["chapter"].add(row.no, chapters)
        return len(segments)

    def _duration(self, row: VideoRow) -> float:
        try:
            con = sqlite3.connect(f"file:{self.directory / row.shard / 'memory.sqlite'}?mode=ro",
                                  uri=True)
            try:
                return float(con.execute("SELECT MAX(end) FROM chunks").fetchone()[0] or 0.0)
            finally:
                con.close()
        except sqlite3.Error:
            return 0.0

    def remove(self, video_id: str) -> None:
        """Remove a video: its rows, vectors and lexical rows here, and its memory
        directory (key frames included)."""
        with self._lock:
            row = self._row(video_id)
            live = self._live.pop(row.no, None)
            if live is not None:
                live.close()
            reader = self._readers.pop(row.no, None)
            if reader is not None:
                reader.close()
            shard = self.directory / row.shard
            if (shard / "VERSION").is_file():  # refuse while another process writes it
                WriterLock.acquire(shard).release()
            with self.db.writing():
                self.db.delete_video(row.no)
            self._rows = None
            for lvl in self._levels.values():
                lvl.drop(row.no)
            self.checkpoint()
            shutil.rmtree(shard, ignore_errors=True)

    # -- reads ----------------------------------------------------------------------
    def _sync(self) -> None:
        """Merge what live videos (and videos other processes are ingesting) committed."""
        for row in self._video_rows():
            if row.state != "ready":
                try:
                    if row.no in self._live:
                        self._live[row.no].flush()
                    with self.db.writing():
                        self._merge(row)
                except StoreWriteError as exc:  # read what was merged before the disk filled
                    logger.warning("%s (reading what was merged)", exc)

    def _scope(self, videos: Sequence[str] | None,
               before: Cutoff) -> list[tuple[int, float | None]]:
        rows = self._video_rows()
        if videos is not None:
            by_id = {r.video_id: r for r in rows}
            unknown = [v for v in videos if v not in by_id]
            if unknown:
                self._row(unknown[0])  # raises, naming the videos there are
            rows = [by_id[v] for v in videos]
        if isinstance(before, Mapping):
            return [(r.no, before.get(r.video_id)) for r in rows]
        return [(r.no, before) for r in rows]

    def search(self, query: str, k: int = 5, videos: Sequence[str] | None = None,
               before: Cutoff = None, start: float | None = None, end: float | None = None,
               level: str = "segment") -> list[Moment]:
        """The ``k`` moments best matching ``query`` across ``videos`` (all by default),
        best first. ``before``: one cutoff for every video, or ``{video_id: t}`` (a video
        not named has none); rows ending after a video's cutoff are never scored."""
        with self._lock:
            self._sync()
            lvl = self._levels[level_named(level).name]
            index = lvl.index()
            ranges = lvl.ranges(self._scope(videos, before), start, end)
            if index is None or ranges == []:
                return []
            vector = np.asarray(self.models.embedder.embed([query]), np.float32)[0]
            found = index.search(query, vector, ranges or [(0, 1 << 62)],
                                 self.options.candidates)
            return self._moments(lvl.level, found[:k])

    def _moments(self, level: Level, found) -> list[Moment]:
        rows = {r.id: r for r in level.by_id(self.db, [c.id for c in found])}
        videos = {r.no: r for r in self._video_rows()}
        out = []
        for c in found:
            row, video = rows[c.id], videos[c.id >> ID_BITS]
            local = dataclasses.replace(row, id=c.id - (video.no << ID_BITS))
            m = level.moment(local, c.score, self.directory / video.shard)
            out.append(dataclasses.replace(m, video_id=video.video_id))
        return out

    def answer(self, question: str, videos: Sequence[str] | None = None, at: Cutoff = None,
               k: int = 3, candidates: int = 3) -> Answer:
        """Answer ``question`` from the library: the ``candidates`` videos whose moments
        rank first answer it from their own memories (as asked at their cutoff in ``at``),
        and the best-supported answer is returned, its citations carrying video ids."""
        hits = self.search(question, k=20, videos=videos, before=at)
        order = list(dict.fromkeys(m.video_id for m in hits))[:candidates]
        if not order:
            if videos is not None and len(videos) == 1:
                order = list(videos)
            else:
                return Answer(question, "I haven't seen that.", found=False,
                              extras={"score": 0.0, "videos": []})
        best: tuple[float, int, Answer, str] | None = None
        for rank, vid in enumerate(order):
            cut = at.get(vid) if isinstance(at, Mapping) else at
            ans = self.reader(vid).answer(question, at=cut, k=k)
            key = (float(bool(ans.found)), float(ans.extras.get("score", 0.0) or 0.0), -rank)
            if best is None or key > best[0]:
                best = (key, rank, ans, vid)
        _, _, ans, vid = best
        cites = tuple(dataclasses.replace(m, video_id=vid) for m in ans.citations)
        recent = ans.recent and dataclasses.replace(ans.recent, video_id=vid)
        return dataclasses.replace(ans, citations=cites, recent=recent,
                                   extras={**ans.extras, "video_id": vid, "videos": order})

    def reader(self, video_id: str) -> MemoryReader:
        """The video's own memory, read-only (kept open for the next few questions)."""
        with self._lock:
            row = self._row(video_id)
            if row.no in self._live:
                return self._live[row.no]
            reader = self._readers.pop(row.no, None)
            if reader is None:
                reader = MemoryReader.open(self.directory / row.shard, self.models,
                                           self.options)
            self._readers[row.no] = reader
            while len(self._readers) > 8:
                self._readers.popitem(last=False)[1].close()
            return reader

    # -- upkeep ---------------------------------------------------------------------
    def checkpoint(self) -> None:
        """Save the vector indexes (atomically); SQLite holds everything they hold."""
        with self._lock, self.db.writing():
            for lvl in self._levels.values():
                lvl.save(self.directory)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            counts = {t: self.db.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                      for t in ("videos", "segments", "chapters")}
            index = {n: {"kind": lvl.vectors.kind, "vectors": len(lvl.vectors),
                         "ram_mb": lvl.vectors.nbytes / 2**20, "recall": lvl.vectors.recall}
                     for n, lvl in self._levels.items() if lvl.vectors is not None}
            hours = sum(r.duration for r in self._video_rows()) / 3600.0
            return {**counts, "hours": hours, "index": index}

    def close(self) -> None:
        with self._lock:
            try:
                for mem in list(self._live.values()):
                    mem.close()
                for reader in self._readers.values():
                    reader.close()
                self._live.clear()
                self._readers.clear()
                self.checkpoint()
            finally:
                self.db.close()
                self._writer.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
