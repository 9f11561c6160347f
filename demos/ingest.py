"""Watching uploaded videos: a bounded pool of ingest workers shared by every tab.

Below `demos.state` (no Gradio). An `IngestJob` is one video going into one tab's
`memory.VideoMemory` through its file path (`VideoMemory.ingest`: speech in file
batches), a chunk at a time, with its progress, an ETA and a cancel flag checked between
chunks; `IngestPool` runs at most ``workers`` jobs at once (a
`concurrent.futures.ThreadPoolExecutor`) and tells a waiting job its place in line. The
embedded models are shared by every memory of the process; each memory owns its own
streaming state (VAD stream, speech buffer, key-frame detector), so two ingests run side
by side and one tab's camera never waits behind another tab's upload.

A full or read-only disk under the memory stalls the job instead of failing it: what
was committed stays (and can be asked about), the banner says the one sentence of the
`memory.errors.StoreWriteError`, and the job tries a small write every ``retry_s``;
once one succeeds it watches on from the memory's last committed chunk.

Closing a tab cancels its job: a queued job never starts; a running one stops at the
next chunk, and `IngestJob.wait` returns once it no longer touches the memory, so the
memory is closed only after that (no "closed database" from a worker).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from memory.errors import MemoryToolkitError, StoreWriteError

__all__ = ["IngestJob", "IngestPool", "Progress", "can_write_to"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Progress:
    """``state``: queued, running, stalled (the memory's disk is full or not writable:
    ``error`` says it), done, cancelled or failed; ``ahead``: jobs in line before this
    one (queued only); ``eta_s``: seconds left, once there is a rate."""

    state: str
    done_s: float
    total_s: float
    ahead: int = 0
    eta_s: float | None = None
    error: str = ""

    @property
    def fraction(self) -> float:
        return min(1.0, self.done_s / self.total_s) if self.total_s > 0 else 0.0


class IngestJob:
    """One video file into one memory; ``now`` is the clock the ETA is measured on."""

    def __init__(self, path: Path, memory, total_s: float, now: Callable[[], float],
                 name: str = "", *, retry_s: float = 5.0,
                 can_write: Callable[[Path], bool] | None = None,
                 workdir: Path | None = None) -> None:
        self.path, self.memory, self.name = Path(path), memory, name or Path(path).name
        self.workdir = workdir  # the app's work directory: what a disk fault names
        self.retry_s = retry_s  # how often a stalled job tries the disk again
        self._can_write = can_write or can_write_to
        self.total_s = max(1.0, float(total_s))
        self._now = now
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._finished = threading.Event()
        self._state = "queued"
        self._done_s = 0.0
        self._started: float | None = None
        self._rate_from: tuple[float, float] | None = None  # (time, done_s) after the first chunk
        self._error = ""
        self._pool: IngestPool | None = None

    # -- control -------------------------------------------------------------------------
    def cancel(self) -> None:
        self._cancel.set()
        with self._lock:
            if self._state == "queued":
                self._state = "cancelled"
                self._finished.set()

    def wait(self, timeout: float | None = None) -> bool:
        """True once the job no longer touches its memory (finished, failed or cancelled)."""
        return self._finished.wait(timeout)

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    def progress(self) -> Progress:
        with self._lock:
            state, done = self._state, self._done_s
        ahead = self._pool.ahead_of(self) if state == "queued" and self._pool else 0
        return Progress(state, done, self.total_s, ahead, self._eta(state, done), self._error)

    def _eta(self, state: str, done: float) -> float | None:
        if state != "running" or self._rate_from is None:
            return None
        t0, d0 = self._rate_from
        elapsed = self._now() - t0
        if elapsed <= 0 or done <= d0:
            return None
        return max(0.0, (self.total_s - done) * elapsed / (done - d0))

    # -- the worker ----------------------------------------------------------------------
    def run(self) -> None:
        with self._lock:
            if self._state != "queued":  # cancelled while waiting
                return
            self._state = "running"
            self._started = self._now()
        try:
            state = self._watch_until_written()
        except MemoryToolkitError as exc:  # a bad stretch of file: keep what was read
            logger.warning("ingest of %s stopped: %s", self.name, exc)
            state, self._error = "failed", str(exc)
        except Exception as exc:  # our bug; shown in the banner, logged with its trace
            logger.exception("ingest of %s failed", self.name)
            state, self._error = "failed", f"{type(exc).__name__}: {exc}"
        with self._lock:
            self._state = state
        self._finished.set()

    def _watch_until_written(self) -> str:
        """`_watch`, stalled (not failed) by a full or read-only disk, and resumed from
        the last committed chunk once the disk takes a write again."""
        while True:
            try:
                return self._watch()
            except StoreWriteError as exc:
                logger.warning("ingest of %s stalled: %s", self.name, exc)
                if not self._stall(exc):
                    return "cancelled"

    def _stall(self, exc: StoreWriteError) -> bool:
        """Wait for the disk; False when cancelled meanwhile."""
        told = exc.retold(flag="--workdir DIR",
                          resume="watching resumes by itself when it can write again",
                          **_named(self.workdir))
        with self._lock:
            self._state, self._error = "stalled", str(told)
        directory = Path(exc.directory)
        while not self._cancel.wait(self.retry_s):
            if self._can_write(directory):
                with self._lock:
                    self._state, self._error = "running", ""
                return True
        return False

    def _watch(self) -> str:
        from memory.video import open_video

        # From the memory's resume point: a stalled job resumes without decoding again
        # what was committed (`VideoMemory.ingest` on a path starts there too).
        start = float(getattr(self.memory, "resume_index", 0))
        with open_video(self.path, start=start) as source:
            # A file goes in by the memory's file path (`VideoMemory.ingest`): speech in
            # file batches, cheaper per second than `add`'s 30 s live ones.
            self.memory.ingest(self._chunks(source), finish=False)
        if self._cancel.is_set():
            return "cancelled"
        self.memory.finish()
        with self._lock:
            self._done_s = self.total_s
        return "done"


    def _chunks(self, source):
        """The file's chunks, each counted once the memory took it; stops on cancel."""
        for chunk in source:
            if self._cancel.is_set():
                return
            yield chunk
            with self._lock:
                self._done_s = min(self.total_s, chunk.end)
                if self._rate_from is None:  # the first chunk pays the model loading
                    self._rate_from = (self._now(), self._done_s)


class IngestPool:
    """At most ``workers`` ingests at once; the others wait their turn, in order."""

    def __init__(self, workers: int = 2) -> None:
        self.workers = max(1, int(workers))
        self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="venus-ingest")
        self._lock = threading.Lock()
        self._waiting: list[IngestJob] = []
        self._closed = False

    def submit(self, job: IngestJob) -> IngestJob:
        with self._lock:
            if self._closed:
                raise RuntimeError("the ingest pool is shut down")
            job._pool = self
            self._waiting.append(job)
        self._executor.submit(self._run, job)
        return job

    def ahead_of(self, job: IngestJob) -> int:
        """Jobs in line before ``job`` that still wait for a worker."""
        with self._lock:
            if job not in self._waiting:
                return 0
            return sum(1 for j in self._waiting[:self._waiting.index(job)] if not j.finished)

    def _run(self, job: IngestJob) -> None:
        with self._lock:
            if job in self._waiting:
                self._waiting.remove(job)
        job.run()

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            waiting, self._waiting = self._waiting, []
        for job in waiting:
            job.cancel()
        self._executor.shutdown(wait=True, cancel_futures=True)


def _named(workdir: Path | None) -> dict:
    """A disk fault named by the app's work directory (the operator's ``--workdir``),
    not by a session's own folder inside it."""
    return {} if workdir is None else {"directory": workdir, "place": "app's work directory"}


def can_write_to(directory: Path, size: int = 1 << 20) -> bool:
    """Whether ``directory`` takes a write of ``size`` bytes now (the file is removed)."""
    import os
    import tempfile

    try:
        fd, name = tempfile.mkstemp(prefix=".venus-space-", dir=directory)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(b"\0" * size)
            f.flush()
            os.fsync(f.fileno())
        return True
    except OSError:
        return False
    finally:
        os.unlink(name)


def seconds_of(duration: float | None) -> float:
    """The length shown for a file (whole seconds, at least one)."""
    return float(max(1, math.ceil(duration or 1.0)))
