"""Batch ingest of many videos into a `VideoLibrary`, fanned out as Ray tasks.

Each video is one task (`ingest_video`) that builds the video's own memory in its shard
directory; the process that holds the library merges each shard as its task finishes.
A task killed part-way (a worker lost, a node gone, kill -9) leaves its shard with every
batch it committed; Ray runs it again (``max_retries``), and any later run of the same
ingest resumes it, from its last committed chunk, without repeating a row.

Where tasks run: with ``ray`` installed (the ``[scale]`` extra), on a local Ray started
for the run, or on an existing cluster by ``address`` ("ray://head:10001" or "auto");
the library directory must then be at the same path on every node (a shared file
system). Without ray, the same tasks run in a local process pool. ``num_gpus`` per task
(default: 1 when the cluster has GPUs) lets Whisper run on CUDA there (its device is
"auto"). Progress: videos done, hours done, and an ETA from the hours done so far.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typing_extensions import Self

from memory.errors import MissingExtraError, StoreError, StoreWriteError

__all__ = ["BatchResult", "VideoJob", "VideoResult", "find_videos", "ingest_video",
           "ingest_videos"]

logger = logging.getLogger(__name__)
VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm", ".mov", ".avi", ".m4v", ".mpg", ".mpeg", ".ts",
                  ".flv", ".wmv")
_POLL_S = 1.0  # how often the driver looks at the shards for progress (wall time)


@dataclass(frozen=True)
class VideoJob:
    """What a worker needs to ingest one video: where from and into which memory."""

    video_id: str
    source: str
    shard: str
    duration: float | None = None
    threads: int = 1
    options: Any = None  # StoreOptions, pickled to the worker


@dataclass(frozen=True)
class VideoResult:
    video_id: str
    chunks: int
    seconds: float
    resumed_from: int
    worker: str


@dataclass
class BatchResult:
    """What a batch did: per video, its result or the error that stopped it."""

    done: list[VideoResult] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    runner: str = ""

    @property
    def hours(self) -> float:
        return sum(r.seconds for r in self.done) / 3600.0


def find_videos(directory: str | os.PathLike) -> list[Path]:
    """The video files directly inside ``directory``, by name."""
    d = Path(directory)
    if not d.is_dir():
        raise StoreError(f"{d} is not a directory of videos; pass a folder holding video "
                         f"files ({', '.join(VIDEO_SUFFIXES[:4])}, ...)")
    found = sorted(p for p in d.iterdir() if p.suffix.lower() in VIDEO_SUFFIXES and p.is_file())
    if not found:
        raise StoreError(f"no video files in {d} (looked for {', '.join(VIDEO_SUFFIXES)})")
    return found


_MODELS: dict[int, Any] = {}  # one set of models per worker process, for all its tasks


def _worker_models(threads: int):
    from memory.store.config import MemoryModels

    if threads not in _MODELS:
        import torch

        from memory.models import WhisperTranscriber

        torch.set_num_threads(threads)
        _MODELS[threads] = MemoryModels(asr=WhisperTranscriber(cpu_threads=threads))
    return _MODELS[threads]


def ingest_video(job: VideoJob, source: Iterable | None = None) -> VideoResult:
    """Build (or resume) the memory of one video in ``job.shard``; a Ray task or a pool
    worker runs this. ``source`` replaces the file with a chunk iterable (chunks already
    committed are skipped, so a full stream resumes as the file does)."""
    import socket

    from memory.store.memory import VideoMemory

    shard = Path(job.shard)
    models = _worker_models(job.threads)
    if (shard / "VERSION").is_file():
        mem = VideoMemory.open(shard, models, job.options)
    else:
        mem = VideoMemory.create(shard, models, job.options)
    resumed = mem.next_index
    try:
        stats = mem.ingest(job.source if source is None else source)
    finally:
        mem.close()
    return VideoResult(job.video_id, int(stats["chunks"]), float(stats["duration"]), resumed,
                       f"{socket.gethostname()}:{os.getpid()}")


def committed_seconds(shard: str | os.PathLike) -> float:
    """Media seconds a shard has committed (0 before its first commit)."""
    path = Path(shard) / "memory.sqlite"
    if not path.is_file():
        return 0.0
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.2)
        try:
            return float(con.execute("SELECT MAX(end) FROM chunks").fetchone()[0] or 0.0)
        finally:
            con.close()
    except sqlite3.Error:  # being created or locked for a moment: no figure this time
        return 0.0


def ingest_videos(library, sources: str | os.PathLike | Sequence, workers: int = 2,
                  address: str | None = None, num_gpus: float | None = None,
                  use_ray: bool | None = None, progress: bool = False,
                  max_retries: int = 3) -> BatchResult:
    """Ingest ``sources`` (a folder of videos, or a list of paths) into ``library``,
    ``workers`` at a time, each into its own memory, merging each as it finishes.

    ``use_ray``: None uses Ray when it is installed, True requires it, False uses a
    local process pool. Videos already in the library are skipped; videos whose ingest
    was cut short resume. Returns what was done and what failed (with the reason).
    """
    paths = find_videos(sources) if isinstance(sources, (str, os.PathLike)) else \
        [Path(s) for s in sources]
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    result = BatchResult()
    jobs = _plan(library, paths, workers, result)
    runner = _ray_runner(workers, address, num_gpus, max_retries) \
        if _want_ray(use_ray, address) else _PoolRunner(workers, max_retries)
    result.runner = runner.name
    t0 = time.perf_counter()
    with _Progress(jobs, progress) as bar:
        try:
            runner.run(jobs, lambda job, res: _finish(library, job, res, result, bar),
                       lambda job, err: _fail(job, err, result, bar), bar.poll)
        finally:
            runner.close()
    result.wall_s = time.perf_counter() - t0
    return result


def _plan(library, paths: list[Path], workers: int, result: BatchResult) -> list[VideoJob]:
    from memory.video.probe import probe

    jobs = []
    ready = {r.source: r for r in library.videos() if r.state == "ready"}
    threads = max(1, (os.cpu_count() or 1) // workers)
    for path in paths:
        if str(path) in ready:
            result.skipped.append(ready[str(path)].video_id)
            continue
        if not path.is_file():
            raise StoreError(f"no video at {path}; check the path")
        record = library.register(path)
        duration = probe(path).duration
        jobs.append(VideoJob(record.video_id, str(path.resolve()), str(record.directory.resolve()),
                             duration, threads, library.options))
    return jobs


def _finish(library, job: VideoJob, res: VideoResult, result: BatchResult, bar) -> None:
    library.merge(job.video_id, final=True)
    result.done.append(res)
    bar.video_done(job, res.seconds)


def _fail(job: VideoJob, err: BaseException, result: BatchResult, bar) -> None:
    fault = _disk_fault(err)
    if fault is not None:  # every other video would meet the same disk: stop the batch
        raise fault
    logger.error("ingest of %s failed: %s", job.source, err)
    result.failed[job.video_id] = f"{type(err).__name__}: {err}"
    bar.video_done(job, 0.0)


def _disk_fault(err: BaseException) -> StoreWriteError | None:
    """The full or read-only disk behind a video's failure (Ray wraps a task's error in
    a `RayTaskError` that keeps the original as its ``cause``)."""
    for e in (err, getattr(err, "cause", None), err.__cause__):
        if isinstance(e, StoreWriteError):
            return e
    return None


def _want_ray(use_ray: bool | None, address: str | None) -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        if use_ray or address:
            raise MissingExtraError("ray", "scale", "Batch ingest on Ray") from None
        return False
    return use_ray is not False


class _Progress:
    """Videos done, hours done and an ETA, from the shards' committed chunks."""

    def __init__(self, jobs: list[VideoJob], enabled: bool) -> None:
        from tqdm.auto import tqdm

        self.jobs = {j.video_id: j for j in jobs}
        self.total = sum(j.duration or 0.0 for j in jobs)
        self.finished: dict[str, float] = {}
        self.bar = tqdm(total=round(self.total / 3600.0, 3), unit="h", desc="library ingest",
                        disable=not enabled)
        self._shown = 0.0

    def __enter__(self) -> Self:
        self._postfix()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.close()

    def poll(self) -> None:
        done = sum(self.finished.get(v, committed_seconds(j.shard))
                   for v, j in self.jobs.items()) / 3600.0
        self.bar.update(round(done - self._shown, 3))
        self._shown = round(done, 3)
        self._postfix()

    def video_done(self, job: VideoJob, seconds: float) -> None:
        self.finished[job.video_id] = seconds or job.duration or 0.0
        self.poll()

    def _postfix(self) -> None:
        self.bar.set_postfix_str(f"videos {len(self.finished)}/{len(self.jobs)}")


class _PoolRunner:
    """The tasks in a local process pool (no Ray); a pool broken by a killed worker is
    started again and its unfinished videos resubmitted (they resume)."""

    name = "process pool"

    def __init__(self, workers: int, max_retries: int) -> None:
        self.workers, self.max_retries = workers, max_retries

    def run(self, jobs, on_done: Callable, on_fail: Callable, poll: Callable) -> None:
        from multiprocessing import get_context

        todo, tries = list(jobs), {j.video_id: 0 for j in jobs}
        while todo:
            with ProcessPoolExecutor(self.workers, mp_context=get_context("spawn")) as pool:
                pending = {pool.submit(ingest_video, j): j for j in todo}
                try:
                    todo = self._drain(pending, tries, on_done, on_fail, poll)
                except BaseException:  # the batch stops (a full disk): start no more videos
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise

    def _drain(self, pending: dict, tries: dict, on_done: Callable, on_fail: Callable,
               poll: Callable) -> list:
        """Wait for every video of one pool; returns those to submit again (pool broken)."""
        from concurrent.futures.process import BrokenProcessPool

        again = []
        while pending:
            finished, _ = wait(pending, timeout=_POLL_S, return_when=FIRST_COMPLETED)
            poll()
            for fut in finished:
                job = pending.pop(fut)
                try:
                    on_done(job, fut.result())
                except BrokenProcessPool as exc:
                    tries[job.video_id] += 1
                    if tries[job.video_id] > self.max_retries:
                        on_fail(job, exc)
                    else:
                        again.append(job)
                except Exception as exc:  # noqa: BLE001 - the video's own error: recorded, go on
                    on_fail(job, exc)
        return again

    def close(self) -> None:
        pass


def _ray_runner(workers, address, num_gpus, max_retries):
    return _RayRunner(workers, address, num_gpus, max_retries)


class _RayRunner:
    """The tasks on Ray: at most ``workers`` in flight, ``num_cpus`` = threads each."""

    def __init__(self, workers: int, address: str | None, num_gpus: float | None,
                 max_retries: int) -> None:
        import ray

        self.ray = ray
        self.started = not ray.is_initialized()
        if self.started:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=max(workers, os.cpu_count() or 1), include_dashboard=False,
                         log_to_driver=False)
        gpus = ray.cluster_resources().get("GPU", 0)
        self.num_gpus = (1.0 if gpus else 0.0) if num_gpus is None else float(num_gpus)
        self.workers, self.max_retries = workers, max_retries
        self.name = f"ray ({'cluster ' + address if address else 'local'})"

    def run(self, jobs, on_done: Callable, on_fail: Callable, poll: Callable) -> None:
        ray = self.ray
        task = ray.remote(ingest_video).options(num_cpus=1, num_gpus=self.num_gpus,
                                                max_retries=self.max_retries)
        queue, pending = list(jobs), {}
        while queue or pending:
            while queue and len(pending) < self.workers:
                job = queue.pop(0)
                pending[task.remote(job)] = job
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=_POLL_S)
            poll()
            for ref in ready:
                job = pending.pop(ref)
                try:
                    on_done(job, ray.get(ref))
                except Exception as exc:  # noqa: BLE001 - a RayError or the task's own: recorded
                    on_fail(job, exc)

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()
