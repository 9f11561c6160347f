"""Transcription of user speech regions off the decision path: one owned ASR worker.

Above `config`: the owner (`UserPerception`) submits a job when a region closes (final
words) or, once per chunk, for the growing region (partial words); one background
thread (`AsrWorker`) runs them in order (CTranslate2 releases the GIL, so the decision
step keeps running meanwhile). `RegionTranscription` tracks the jobs and decides when
each result becomes *visible* to perception:

* **live** (``deterministic=False``, wall clock): whatever has finished by the time of a
  chunk is used; the step never waits for the worker.
* **deterministic** (``deterministic=True``, simulated time: tests, evaluation, replay):
  a result is *due* at the first chunk boundary at least ``latency_s`` after it was
  submitted (a job is submitted at the end of the chunk that completed its audio); at
  that boundary the step blocks until it is ready, and not before it is it shown, so a
  run gives the same frames on any machine at any load. ``latency_s=0`` is the
  synchronous behaviour (results in the chunk that submitted them).

Bounded: only the newest partial of a region matters, so a partial superseded before it
is visible is dropped (live: if it has not started; deterministic: if it is not yet
due: a rule on media time only); at most ``max_pending`` jobs are outstanding (the
submitter waits for the oldest beyond that). A worker exception is raised on the
owner's thread at the next `collect` (`TranscriptionFailed`); `reset` drops every job,
`close` stops and joins the thread. Any `memory.models.Transcriber` works; the default
is the embedded Whisper tiny.en.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from memory.media import SAMPLE_RATE
from memory.models.base import ShortClipTranscriber, Transcriber, Word
from memory.models.whisper_short import MAX_CLIP_S
from venus.clock import perf_seconds
from venus.errors import BackendError

__all__ = ["AsrJob", "AsrWorker", "RegionTranscription", "TranscriptionFailed",
           "user_transcriber"]

logger = logging.getLogger(__name__)

_MIN_ASR_S = 0.2  # shorter audio only makes Whisper hallucinate
_EPS = 1e-6  # media-time tolerance for "due at this boundary"


class TranscriptionFailed(BackendError):
    """The ASR worker's transcriber raised; the original exception is the cause."""


@dataclass(eq=False)
class AsrJob:
    """One transcription: ``audio`` starts at media time ``start``; ``submitted`` is the
    media time (a chunk end) it was submitted at and ``due`` when it is shown in
    deterministic mode; ``speech_end`` is where the user stopped (finals only)."""

    seq: int
    region: int
    kind: Literal["partial", "final"]
    audio: np.ndarray
    start: float
    submitted: float
    due: float
    speech_end: float | None = None
    context: tuple[str, ...] = ()  # the conversation context at submission (topic cue)
    words: tuple[Word, ...] = ()
    topic_similarity: float | None = None  # of the words with ``context`` (None without)
    error: BaseException | None = None
    queued_at: float = 0.0  # wall clock (perf_seconds) at submission
    started_at: float | None = None
    run_s: float | None = None  # wall seconds of the transcriber call
    short: bool = False  # transcribed by the short-context pass (`transcribe_short`)
    visible_at: float | None = None  # media time it was shown at
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def wall_s(self) -> float | None:
        """Submission to result, wall seconds (queueing plus the call)."""
        if self.started_at is None or self.run_s is None:
            return None
        return self.started_at + self.run_s - self.queued_at


def user_transcriber() -> Transcriber:
    """Whisper for the live user: greedy decoding only.

    Whisper's temperature fallback samples from CTranslate2's random state, so the same
    audio could come out as different words from one run to the next; a simulated
    session must replay identically, and a user's short turns rarely need the fallback.
    """
    from memory.models import WhisperTranscriber

    return WhisperTranscriber(temperatures=(0.0,))


class AsrWorker:
    """One background thread running transcription jobs in submission order."""

    def __init__(self, transcriber: Transcriber | None = None, name: str = "venus-asr",
                 similarity: Callable[[str, tuple[str, ...]], float | None] | None = None,
                 *, short_context: bool = False) -> None:
        self._transcriber = transcriber
        self.short_context = short_context  # try `ShortClipTranscriber.transcribe_short` first
        self._similarity = similarity
        self._name = name
        self._queue: deque[AsrJob] = deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._busy = False

    @property
    def transcriber(self) -> Transcriber:
        if self._transcriber is None:
            self._transcriber = user_transcriber()
        return self._transcriber

    @property
    def thread(self) -> threading.Thread | None:
        """The worker thread (None until the first job)."""
        return self._thread

    def join_idle(self) -> None:
        """Wait until no job is queued or running."""
        with self._cond:
            self._cond.wait_for(lambda: not self._queue and not self._busy)

    def submit(self, job: AsrJob) -> None:
        with self._cond:
            if self._closed:
                raise RuntimeError("the ASR worker is closed; make a new UserPerception")
            if self._thread is None:  # started on first use: idle perception costs no thread
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            job.queued_at = perf_seconds()
            self._queue.append(job)
            self._cond.notify()

    def cancel(self, job: AsrJob) -> bool:
        """Drop ``job`` if it has not started; True if dropped (it will never run)."""
        with self._cond:
            try:
                self._queue.remove(job)
            except ValueError:
                return False
        job.done.set()
        return True

    def close(self, wait: bool = True) -> None:
        """Drop queued jobs, stop the thread, and (``wait``) join it after its current job."""
        with self._cond:
            self._closed = True
            dropped, self._queue = list(self._queue), deque()
            self._cond.notify_all()
            thread = self._thread
        for job in dropped:
            job.done.set()
        if wait and thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                job = self._queue.popleft()
                self._busy = True
                job.started_at = perf_seconds()
            try:
                if len(job.audio) >= _MIN_ASR_S * SAMPLE_RATE:
                    job.words = self._transcribe(job)
                if job.words and job.context and self._similarity is not None:
                    # The topical cue embeds the words (MiniLM): here, off the decision path.
                    text = " ".join(w.text.strip() for w in job.words)
                    job.topic_similarity = self._similarity(text, job.context)
            except BaseException as exc:  # noqa: BLE001 - handed to the owner's thread, not swallowed
                job.error = exc
            finally:
                job.run_s = perf_seconds() - job.started_at
                job.done.set()


    def _transcribe(self, job: AsrJob) -> tuple[Word, ...]:
        transcriber = self.transcriber
        if self.short_context and isinstance(transcriber, ShortClipTranscriber):
            quick = transcriber.transcribe_short(job.audio, offset=job.start)
            if quick is not None:
                job.short = True
                return tuple(quick.words)
        return tuple(transcriber.transcribe(job.audio, offset=job.start).words)


class RegionTranscription:
    """The jobs of one perception stream and when their words become visible."""

    def __init__(self, transcriber: Transcriber | None = None, *, latency_s: float = 1.0,
                 deterministic: bool = True, max_pending: int = 4,
                 similarity: Callable[[str, tuple[str, ...]], float | None] | None = None,
                 short_context: bool = False) -> None:
        self.worker = AsrWorker(transcriber, similarity=similarity, short_context=short_context)
        self.latency_s = latency_s
        self.latency_per_s = 0.0  # deterministic delay per second of audio (see the config)
        # the same for clips the short-context pass takes (None: as the full pass)
        self.short_latency: tuple[float, float] | None = None
        self.deterministic = deterministic
        self.max_pending = max(1, max_pending)
        self._jobs: list[AsrJob] = []  # submitted, not yet visible, in submission order
        self._seq = 0
        self.finished: deque[AsrJob] = deque(maxlen=10_000)  # visible jobs (benchmarks)
        self.waited_s = 0.0  # wall seconds the owner blocked in `collect`/`submit` so far

    @property
    def transcriber(self) -> Transcriber:
        return self.worker.transcriber

    def pending_partial(self, region: int) -> bool:
        """A partial of ``region`` is submitted and its words are not visible yet."""
        return any(j.region == region and j.kind == "partial" for j in self._jobs)

    def promote(self, job: AsrJob, speech_end: float) -> bool:
        """Make a partial ``job`` the final job of its region (its audio holds all the
        region's speech). Not yet visible, it becomes the final; already shown as partial
        words (it finished before the offset was confirmed: with the short pass, the usual
        case live), its words are the final ones, shown at the next `collect`, with no
        second Whisper pass (which cost a hop and ~0.3 s live). False when it cannot be."""
        if job.kind != "partial":
            return False
        if job in self._jobs:
            job.kind, job.speech_end = "final", speech_end
            return True
        if job.visible_at is None or job.error is not None or not job.done.is_set():
            return False  # superseded or cancelled, never shown
        final = replace(job, kind="final", speech_end=speech_end, visible_at=None,
                        done=threading.Event())
        final.done.set()
        self._jobs.insert(0, final)
        return True

    def pending_final(self) -> bool:
        """A closed region's final words are not visible yet."""
        return any(j.kind == "final" for j in self._jobs)

    def submit(self, region: int, kind: Literal["partial", "final"], audio: np.ndarray,
               start: float, now: float, speech_end: float | None = None,
               context: tuple[str, ...] = ()) -> AsrJob:
        """Queue a job for ``region`` at media time ``now``; supersedes older partials."""
        self._raise_failure()
        for old in [j for j in self._jobs if j.region == region and j.kind == "partial"]:
            if self.deterministic and old.due <= now + _EPS:
                continue  # due at or before now: it is shown, whatever the machine's speed
            if self.worker.cancel(old) or self.deterministic:
                self._jobs.remove(old)
        self._seq += 1
        latency = self._latency(len(audio) / SAMPLE_RATE)
        job = AsrJob(self._seq, region, kind, np.array(audio, np.float32, copy=True), start,
                     now, now + latency, speech_end, context)
        self._bound()
        self._jobs.append(job)
        self.worker.submit(job)
        return job

    def _latency(self, seconds: float) -> float:
        if self.worker.short_context and self.short_latency is not None \
                and seconds <= MAX_CLIP_S \
                and isinstance(self.worker.transcriber, ShortClipTranscriber):
            fixed, per_s = self.short_latency
        else:
            fixed, per_s = self.latency_s, self.latency_per_s
        return fixed + per_s * seconds

    def collect(self, now: float) -> list[AsrJob]:
        """Jobs whose words become visible at media time ``now``, in submission order."""
        self._raise_failure()
        visible: list[AsrJob] = []
        for job in list(self._jobs):
            if self.deterministic:
                if job.due > now + _EPS:
                    break  # later jobs are due later still
                self._wait(job)
            elif not job.done.is_set():
                break  # one worker runs in order: nothing after this one is done either
            if job.error is not None:
                self._raise(job)
            job.visible_at = now
            self._jobs.remove(job)
            self.finished.append(job)
            visible.append(job)
        return visible

    def drain(self) -> None:
        """Wait until every submitted job has finished (their words show at the next
        `collect`, by the mode's rule), e.g. at the end of a live stream."""
        for job in list(self._jobs):
            self._wait(job)

    def reset(self) -> None:
        """Forget every job (queued ones never run; a running one's words are dropped)."""
        for job in self._jobs:
            self.worker.cancel(job)
        self._jobs = []

    def close(self, wait: bool = True) -> None:
        self._jobs = []
        self.worker.close(wait)

    def _bound(self) -> None:
        # Backpressure: a worker slower than speech must not grow an unbounded backlog.
        # Waiting changes no visibility rule, so deterministic runs stay reproducible.
        while True:
            running = [j for j in self._jobs if not j.done.is_set()]
            if len(running) < self.max_pending:
                return
            logger.warning("ASR is %d jobs behind; waiting for the oldest", len(running))
            self._wait(running[0])

    def _wait(self, job: AsrJob) -> None:
        if job.done.is_set():
            return
        began = perf_seconds()
        job.done.wait()
        self.waited_s += perf_seconds() - began

    def _raise_failure(self) -> None:
        for job in self._jobs:
            if job.error is not None:
                self._raise(job)

    def _raise(self, job: AsrJob) -> None:
        error = job.error
        self.reset()
        raise TranscriptionFailed(
            f"the transcriber failed on {job.kind} words of the speech at "
            f"{job.start:.2f} s ({type(error).__name__}: {error}); check the ASR model "
            f"or pass a working Transcriber") from error
