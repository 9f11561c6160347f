"""`VideoMemory`: the streaming, persistent, causal video memory (the package's top).

Composes the chunk pipeline (key frames, OCR, batched VAD + ASR), the hierarchy
(segments, chapters), the SQLite commit log, the vector/lexical indexes and the
answerer. Typical use::

    mem = VideoMemory.create("lecture.mem")
    mem.ingest("lecture.mp4", progress=True)
    mem.search("what is entropy", k=5, before=600.0)
    mem.answer("what was on the slide at the start?", at=600.0)

Every read takes a cutoff (``before`` / ``at``); rows ending after it are never scored.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memory.errors import StoreError, StoreWriteError, VideoError
from memory.media import VideoChunk
from memory.store.config import MemoryModels, StoreOptions
from memory.store.db import VERSION_FILE, MemoryDB, read_format, write_format
from memory.store.faults import writing
from memory.store.hierarchy import ChapterRoller, Segmenter
from memory.store.keyframes import save_jpeg
from memory.store.levels import CHAPTER, SEGMENT
from memory.store.lock import WriterLock
from memory.store.pipeline import ChunkPipeline, RecordBatch
from memory.store.reader import MemoryReader, locked
from memory.store.records import ChunkRecord, SegmentRecord
from memory.store.timing import StageTimes
from memory.store.units import trailing_fragment

__all__ = ["VideoMemory"]

logger = logging.getLogger(__name__)
_DB = "memory.sqlite"


class VideoMemory(MemoryReader):
    """A memory directory opened for reading and appending. Use `create` or `open`.

    One process writes a memory at a time: the writer holds ``writer.lock`` (released
    on `close` or when the process ends, also by kill -9), and a second writer gets a
    `StoreError` naming the holder; readers use `MemoryReader.open` alongside it.
    """

    read_only = False

    def __init__(self, directory: Path, db: MemoryDB, models: MemoryModels | None,
                 options: StoreOptions | None) -> None:
        try:
            self._writer = WriterLock.acquire(directory)
        except BaseException:
            db.close()
            raise
        try:
            super().__init__(directory, db, models or MemoryModels(),
                             options or StoreOptions())
        except BaseException:
            self._writer.release()
            db.close()
            raise
        # One thread doing every stage: the process's CPU clock is each stage's own.
        self.timers = StageTimes(time.thread_time if self.options.workers else time.process_time)
        self._pipeline: ChunkPipeline | None = None
        self._file_batches = False  # inside `ingest`: speech in file-length batches
        self._take_committed_state()

    def _take_committed_state(self) -> None:
        """Streaming state from what SQLite has committed (on open, and after a failed
        write: `_rewind`)."""
        db = self.db
        self._version = int(db.get_meta("version", "0"))
        self._last_index = db.last_chunk()
        self._segmenter = Segmenter(self.options, db.next_segment_id(), db.open_chunks(),
                                    self._carry(db))
        self._roller = ChapterRoller(self.options, db.next_chapter_id(), db.open_segments())
        self._since_checkpoint = 0
        self._pushed = self._last_index  # last chunk handed to the pipeline
        # Exact resume: the VAD hears again the committed chunks since its last restart.
        self._warm_from = int(db.get_meta("speech_anchor") or self.next_index)
        self._heard = self._warm_from - 1

    def _rewind(self) -> None:
        """After a failed write: drop what was not committed (the pipeline's buffered
        chunks, the open segment's state) and go back to the committed state, as a fresh
        `open` would. Feeding the stream again from `resume_index` then commits the same
        batches an uninterrupted run would have."""
        if self._pipeline is not None:
            self._pipeline.close()
            self._pipeline = None
        self._take_committed_state()

    @staticmethod
    def _carry(db: MemoryDB):
        """The unfinished last sentence of the last closed segment (for a resumed stream)."""
        last = db.next_segment_id() - 1
        if last < 0:
            return ()
        return trailing_fragment([w for c in db.chunks_of_segments([last]) for w in c.words])

    # -- opening --------------------------------------------------------------------
    @classmethod
    def create(cls, directory: str | Path, models: MemoryModels | None = None,
               options: StoreOptions | None = None) -> VideoMemory:
        """Make a new, empty memory in ``directory`` (created if missing)."""
        d = Path(directory)
        if (d / VERSION_FILE).exists():
            raise StoreError(f"{d} already holds a memory; open it with "
                             f"VideoMemory.open({str(d)!r}) or choose another directory")
        try:
            with writing(d):
                (d / "keyframes").mkdir(parents=True, exist_ok=True)
            db = MemoryDB(d / _DB)
            write_format(d)  # last: a directory with a VERSION file is a complete memory
        except StoreWriteError as exc:
            raise exc.retold(resume="") from exc.__cause__  # nothing was committed yet
        return cls(d, db, models, options)

    @classmethod
    def open(cls, directory: str | Path, models: MemoryModels | None = None,
             options: StoreOptions | None = None) -> VideoMemory:
        """Open an existing memory; its format must be one this version reads."""
        d = Path(directory)
        if not d.is_dir():
            raise StoreError(f"no memory at {d}; create one with VideoMemory.create({str(d)!r})")
        read_format(d)
        return cls(d, MemoryDB(d / _DB), models, options)

    # -- writing --------------------------------------------------------------------
    @property
    def version(self) -> int:
        """Chunks committed so far; increases with each commit (a cheap change marker)."""
        return self._version

    @property
    def next_index(self) -> int:
        """Index of the next chunk this memory expects (resume point)."""
        return self._last_index + 1

    @property
    def resume_index(self) -> int:
        """The chunk a resumed stream should start from: a few committed chunks before
        `next_index` are heard again by the VAD (not stored again), so the chunks,
        segments and answers after a crash are those of an uninterrupted ingest."""
        return min(self._warm_from, self.next_index)

    @locked
    def add(self, chunk: VideoChunk) -> int:
        """Process one chunk; returns how many chunks this call committed.

        Chunks at or before the last committed one are skipped, so re-feeding a stream
        after a crash duplicates nothing.
        """
        if chunk.index <= self._last_index:
            if self._warm_from <= chunk.index and self._heard < chunk.index \
                    and self._pushed <= self._last_index:
                self._heard = chunk.index
                self._get_pipeline().hear(chunk)
            return 0
        if chunk.index <= self._pushed:
            return 0
        self._pushed = chunk.index
        return self._commit_all(self._get_pipeline().push(chunk))

    @locked
    def flush(self) -> int:
        """Transcribe and commit every buffered chunk (the open segment stays open)."""
        if self._pipeline is None or not self._pipeline.pending:
            return 0
        return self._commit_all(self._pipeline.flush())

    @locked
    def finish(self) -> int:
        """End of stream: commit everything and close the open segment and chapter."""
        n = self._commit_all(self._pipeline.flush() if self._pipeline else [], end=True)
        self.checkpoint()
        return n

    def ingest(self, source: str | os.PathLike | Iterable[VideoChunk], progress: bool = False,
               fps: float = 1.0, finish: bool = True,
               subtitles: str | os.PathLike | bool | None = None,
               live: bool = False) -> dict[str, Any]:
        """Add every chunk of ``source`` (a video path or URL, or any chunk iterable).

        Resumes after the last committed chunk. A truncated file keeps what was read:
        it is committed before the error is raised again. ``subtitles`` (for a path):
        None uses a side-car ``.srt``/``.vtt`` or the file's own text track when there
        is one, a path reads that file, False ignores subtitles; where subtitles run
        they are the transcript, and speech recognition covers the rest. Speech is
        transcribed in file batches (`SpeechOptions.file_batch_seconds`, growing to it
        from 30 s: cheaper per second; a crash redoes the batches not committed yet,
        at most ``queue_batches`` and the one filling); ``live=True`` keeps the short
        batches of `add` (a camera or stream handed over as an iterable).
        """
        from tqdm.auto import tqdm

        chunks, total = self._open_source(source, fps, subtitles)
        bar = tqdm(total=total, initial=self.resume_index, disable=not progress, unit="s",
                   desc="ingest")
        self._batch_for_file(not live)
        try:
            try:
                for chunk in self._timed(chunks):
                    self.add(chunk)
                    bar.update(1)
            except VideoError:
                self.finish()
                raise
            finally:
                bar.close()
                getattr(chunks, "close", lambda: None)()
            if finish:
                self.finish()
        finally:
            self._batch_for_file(False)
        return self.stats()

    def _batch_for_file(self, file: bool) -> None:
        self._file_batches = file
        if self._pipeline is not None:
            self._pipeline.speech.file = file

    def _open_source(self, source, fps: float, subtitles=None):
        if isinstance(source, (str, bytes, os.PathLike)):
            from memory.video import open_video

            src = open_video(source, fps=fps, start=float(self.resume_index),
                             subtitles=subtitles)
            duration = src.info.duration
            return src, None if duration is None else int(-(-duration // 1))
        return source, None

    def _timed(self, chunks: Iterable[VideoChunk]):
        it = iter(chunks)
        while True:
            try:
                with self.timers.measure("decode"):
                    chunk = next(it)
            except StopIteration:
                return
            yield chunk

    def _get_pipeline(self) -> ChunkPipeline:
        if self._pipeline is None:
            self._pipeline = ChunkPipeline(self.models, self.options, self.timers,
                                           self.db.last_keyframe())
            self._pipeline.speech.file = self._file_batches
        return self._pipeline

    def _pending(self) -> int:
        return self._pipeline.pending if self._pipeline else 0

    def _commit_all(self, batches: list[RecordBatch], end: bool = False) -> int:
        """Commit each speech batch on its own (the same commits in every run of a
        stream, wherever it was resumed); ``end`` closes the open segment after them.

        A full or read-only disk raises `StoreWriteError` with everything committed
        before it kept, and the writer rewound to that (`_rewind`)."""
        try:
            n = sum(self._commit(b.records, b.anchor) for b in batches)
            if end:
                n += self._commit([], None, end=True)
        except StoreWriteError:
            self._rewind()
            raise
        return n

    def _commit(self, records: list[ChunkRecord], anchor: int | None,
                end: bool = False) -> int:
        segments = [s for r in records for s in self._segmenter.add(r)]
        if end:
            segments += self._segmenter.flush()
        if not records and not segments:
            return 0
        self._embed_segments(segments)
        chapters = [c for s in segments for c in self._roller.add(s)]
        if end:
            chapters += self._roller.flush()
        self._embed_keyframes(records)
        version = self._version + len(records)
        last = max([self._last_index] + [r.index for r in records])
        with self.db.writing():  # the pictures first: a row never names a missing file
            self._write_keyframes(records)
            self.db.commit(records, segments, chapters, version,
                           {"speech_anchor": last + 1 if anchor is None else anchor})
        self._version = version
        if records:
            self._last_index = max(self._last_index, records[-1].index)
        self._index_rows(segments, chapters)
        self._pictures.add(records)
        self._since_checkpoint += len(segments)
        if self._since_checkpoint >= self.options.checkpoint_every:
            self.checkpoint()
        return len(records)

    def _embed_segments(self, segments: list[SegmentRecord]) -> None:
        """Embed each segment's summary and its evidence units in one batch."""
        rows = [s for s in segments if s.summary] + [u for s in segments for u in s.units]
        if not rows:
            return
        texts = [getattr(r, "summary", None) or r.text for r in rows]
        with self.timers.measure("embed"):
            vectors = self._embed(texts)
        for row, vector in zip(rows, vectors):
            row.embedding = vector

    def _embed_keyframes(self, records: list[ChunkRecord]) -> None:
        """New key frames through the image model (when there is one), in one batch."""
        if self.models.image_embedder is None:
            self._pictures.embed_new(records)
            return
        with self.timers.measure("image_embed"):
            self._pictures.embed_new(records)

    def _write_keyframes(self, records: list[ChunkRecord]) -> None:
        with self.timers.measure("jpeg"):
            for r in records:
                kf = r.new_keyframe
                if kf is not None and kf.image is not None:
                    save_jpeg(kf.image, str(self.directory / kf.path), self.options.jpeg_quality,
                              self.options.keyframe_max_side)
                    kf.image = None  # the pixels live on disk from now on

    def _index_rows(self, segments, chapters) -> None:
        with self.timers.measure("index"):
            for s in segments:
                self._index(SEGMENT).add(s.id, s.start, s.end, s.embedding)
            for c in chapters:
                self._index(CHAPTER).add(c.id, c.start, c.end, c.embedding)

    @locked
    def checkpoint(self) -> None:
        """Save the vector indexes (atomically) so the next open loads them quickly."""
        with self.db.writing():
            for level in (SEGMENT, CHAPTER):
                index = self._indexes.get(level.name)
                if index is not None:
                    index.vectors.save(str(self.directory / level.checkpoint_file))
            self._pictures.save()
        self._since_checkpoint = 0

    @locked
    def close(self) -> None:
        """Commit what is buffered (the open segment stays open for a resumed stream)."""
        try:
            self.flush()
            try:
                self.checkpoint()
            except StoreWriteError as exc:  # a cache of SQLite's rows: rebuilt on open
                logger.info("%s (the vector index is rebuilt from the committed rows when "
                            "the memory is opened again)", exc)
        finally:
            if self._pipeline is not None:
                self._pipeline.close()
                self._pipeline = None
            self.db.close()
            self._writer.release()

    def __enter__(self) -> VideoMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @locked
    def stats(self) -> dict[str, Any]:
        counts = self.db.counts()
        disk = sum(p.stat().st_size for p in self.directory.rglob("*") if p.is_file())
        return {"version": self.version, "duration": self.duration, **counts,
                "pending_chunks": self._pending(), "disk_mb": round(disk / 2**20, 3),
                "index": {k: v.vectors.kind for k, v in self._indexes.items()},
                "stage_seconds": {k: round(v, 3) for k, v in self.timers.items()},
                "stage_cpu_seconds": {k: round(v, 3) for k, v in self.timers.cpu.items()}}

    def _sync(self, flush: bool = True) -> None:
        """Commit the buffered chunks first (unless ``flush`` is False), so a read sees
        everything added so far; on a full or read-only disk the read goes on with what
        was committed (a conversation about the memory outlives its disk filling up)."""
        if flush and self._pending():
            try:
                self.flush()
            except StoreWriteError as exc:
                logger.warning("%s (reading what was committed)", exc)
