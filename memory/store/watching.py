"""`watch_video`: standing conditions over a video file as it is ingested.

The file-mode Python API behind ``venus watch`` and notebook 04's watch section. Composes
the store (`VideoMemory`, the top of the package) with the matcher (`memory.watch`): the
video is ingested (or a kept memory reused and finished), and after each commit the
watchers step one chunk at a time over what was newly committed, so each alert comes at
the video time a viewer playing the file would have got it, however much faster than real
time the file is read. ``on_alert`` is called as each alert happens. The watchers read
what is committed only (`memory.watch.committed`): a read that committed the writer's
buffered speech first would cut Whisper's file batches short (slower, and heard
differently).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory.store.config import MemoryModels
from memory.store.db import VERSION_FILE
from memory.store.memory import VideoMemory
from memory.watch import WatchCondition, Watcher, WatchMatch, WatchOptions, watch_memory

__all__ = ["WatchAlertRecord", "WatchReport", "watch_video"]


@dataclass(frozen=True)
class WatchAlertRecord:
    """One alert of a file watch: the request as given (``index``: its position among
    the requests) and the match."""

    request: str
    match: WatchMatch
    index: int = 0

    def to_json(self) -> dict[str, Any]:
        m = self.match
        return {"request": self.request, "video_time": round(m.at, 3),
                "evidence": {"start": round(m.start, 3), "end": round(m.end, 3),
                             "text": m.text}}


@dataclass
class WatchReport:
    """Every alert in the order it fired, the video's length and the wall seconds."""

    video_seconds: float = 0.0
    alerts: list[WatchAlertRecord] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"video_seconds": round(self.video_seconds, 3),
                "alerts": [a.to_json() for a in self.alerts]}


def watch_video(video: str | os.PathLike | None, requests: Sequence[str | tuple[str, bool]], *,
                memory_dir: str | os.PathLike | None = None,
                models: MemoryModels | None = None, options: WatchOptions | None = None,
                on_alert: Callable[[WatchAlertRecord], None] | None = None,
                progress: bool = False) -> WatchReport:
    """Ingest ``video`` (or finish or reuse the memory in ``memory_dir``) and watch it.

    ``requests``: conditions ("the exam", "the slide about photosynthesis comes up"), or
    ``(condition, every_time)`` pairs; each fires once unless ``every_time``. Without
    ``memory_dir`` the memory lives in a temporary directory, removed at the end.
    ``video`` may be None when ``memory_dir`` holds a finished memory.
    """
    pairs = [(r, False) if isinstance(r, str) else (r[0], bool(r[1])) for r in requests]
    watchers = [Watcher(WatchCondition.parse(c), every, options=options or WatchOptions())
                for c, every in pairs]
    report = WatchReport()
    t0 = time.perf_counter()
    with _memory(memory_dir) as directory:
        mem = _open(directory, models)
        try:
            state = _Progress(mem, pairs, watchers, report, on_alert)
            if video is not None:
                mem.ingest(state.chunks(video), progress=progress)
            state.step()
            report.video_seconds = float(mem.duration)
        finally:
            mem.close()
    report.seconds = time.perf_counter() - t0
    return report


@dataclass
class _Progress:
    """Steps the watchers over what each commit added."""

    mem: VideoMemory
    pairs: list[tuple[str, bool]]
    watchers: list[Watcher]
    report: WatchReport
    on_alert: Callable[[WatchAlertRecord], None] | None
    done: float = 0.0

    def chunks(self, video) -> Iterator:
        from memory.video import open_video

        source = open_video(video, fps=1.0, start=float(self.mem.resume_index))
        try:
            for chunk in source:
                self.step()
                yield chunk
        finally:
            source.close()

    def step(self) -> None:
        end = float(self.mem.duration)  # committed chunks: reading it commits nothing
        if end <= self.done:
            return
        index = {id(w): i for i, w in enumerate(self.watchers)}
        before = [len(w.fired) for w in self.watchers]
        watch_memory(self.mem, self.watchers, start=self.done, end=end)
        self.done = end
        fresh = [(m.at, index[id(w)], m) for w, n in zip(self.watchers, before)
                 for m in w.fired[n:]]
        for _, i, match in sorted(fresh, key=lambda x: (x[0], x[1])):
            record = WatchAlertRecord(self.pairs[i][0], match, i)
            self.report.alerts.append(record)
            if self.on_alert is not None:
                self.on_alert(record)


class _memory:
    """The memory directory given, or a temporary one removed afterwards."""

    def __init__(self, directory: str | os.PathLike | None) -> None:
        self.directory = directory
        self._tmp: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> Path:
        if self.directory is not None:
            return Path(self.directory)
        self._tmp = tempfile.TemporaryDirectory(prefix="venus-watch-")
        return Path(self._tmp.name) / "memory"

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()


def _open(directory: Path, models: MemoryModels | None) -> VideoMemory:
    if (directory / VERSION_FILE).exists():
        return VideoMemory.open(directory, models=models)
    return VideoMemory.create(directory, models=models)
