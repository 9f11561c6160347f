"""`AppSession`: everything one browser session owns, as a plain, testable Python object.

The top of ``demos`` below the UI. One `AppSession` per browser tab owns a temporary
directory, its `memory.VideoMemory`, a running `venus.runtime.Session` (the dual loop on
its own `Timeline`, with its own private harness channel) fed by a `LiveSource` on its
own thread (`demos.runner.Runner`), and the
`TypedTurns` frontend wrapper through which typed messages and the work panel's cancel /
retry buttons reach the loop (`demos.registry.SessionRegistry` maps browser session ids
to them and owns the `IngestPool` every tab's uploads wait in). The UI
reads snapshots (timeline entries, `status`) and calls these methods; nothing here
imports Gradio.

Modes: ``idle`` (nothing loaded), ``file`` (an upload or the sample lecture) and
``camera`` (webcam frames go into the memory as they arrive). Times in file mode: the
conversation starts when the file is accepted and its clock starts at the file's length,
so every causal cutoff (answers, searches, summaries) covers the whole file while the
file is watched in the ingest pool; what the page shows is video time (answers and
ranges are clamped to the part watched, see `demos.conversation`), and a question asked
before the video is fully watched is answered from the part watched, saying so.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from demos.changes import Changes
from demos.frontends import FrontendFactory, FrontendSpec
from demos.ingest import IngestJob, IngestPool, seconds_of
from demos.labels import Status, clock, span
from demos.link import AudioLink
from demos.results import Cited
from demos.runner import Runner, safe_name
from demos.uploads import check_upload, sample_lecture
from memory import Answer, MemoryModels, Moment, VideoMemory
from memory.errors import MemoryToolkitError, StoreWriteError
from memory.media import VideoChunk
from memory.store.config import StoreOptions
from memory.store.faults import discard, writing
from memory.store.keyframes import KeyFrameOptions
from memory.store.speech import SpeechOptions
from venus.clock import Clock, WallClock
from venus.events import (
    WorkItemCreated,
    WorkItemStateChanged,
    WorkState,
)
from venus.frontend import DelegationRequest
from venus.timeline import TimelineEntry

__all__ = ["AppOptions", "AppSession"]

logger = logging.getLogger(__name__)

IDLE_TEXT = "Upload a video, use the sample lecture, or start the camera."
_BEHIND_S = 4          # camera seconds waiting for the memory before the banner says so
_PAUSED_S = 5.0        # no camera frame for this long: the camera is paused
_ANSWERS_KEPT = 200
CAMERA_PIXEL_CHANGE = 0.05  # share of a camera frame that must change for a new key frame


@dataclass
class AppOptions:
    """``root``: parent of every session's temp dir (default: the system temp dir);
    ``max_upload_mb``: upload size limit; ``words_per_second``: speaking rate of replies
    (text playout and TTS); ``sample_minutes``/``samples_dir``: the sample lecture;
    ``drain_s``: how long a stopped session keeps delivering background results;
    ``max_chunks``: end the schedule after that many seconds (tests; None: run until
    closed); ``ingest_workers``: uploads watched at once (the others wait in line);
    ``max_sessions``: open tabs served at once; ``camera_batch_s``: seconds of camera
    audio buffered before it is transcribed (small, so the memory keeps up live);
    ``voice``: the assistant's voice (`demos.voice.VOICES`: ``auto`` is Piper when the
    ``voices`` extra is installed, else eSpeak NG)."""

    root: Path | None = None
    max_upload_mb: float = 500.0
    words_per_second: float = 2.75
    sample_minutes: float = 3.0
    samples_dir: Path = Path("samples")
    drain_s: float = 5.0
    max_chunks: int | None = None
    frontend: FrontendSpec = field(default_factory=FrontendSpec)
    ingest_workers: int = 2
    max_sessions: int = 32
    camera_batch_s: float = 3.0
    voice: str = "auto"


class AppSession:
    """One browser session: its memory, its conversation loop and its files."""

    def __init__(self, session_id: str, options: AppOptions | None = None, *,
                 frontend_factory: FrontendFactory | None = None,
                 models: MemoryModels | None = None, clock: Callable[[], Clock] = WallClock,
                 pool: IngestPool | None = None, now: Callable[[], float] | None = None
                 ) -> None:
        self.session_id = session_id
        self.options = options or AppOptions()
        self.frontend_factory = frontend_factory or self.options.frontend.factory()
        self.models = models if models is not None else MemoryModels()
        self.clock_factory = clock
        self._own_pool = pool is None
        self.pool = pool or IngestPool(self.options.ingest_workers)
        self.now = now or WallClock().now
        root = self.options.root
        if root is not None:
            Path(root).mkdir(parents=True, exist_ok=True)
        self.workdir = Path(root) if root is not None else Path(tempfile.gettempdir())
        self.directory = Path(tempfile.mkdtemp(prefix=f"venus-app-{safe_name(session_id)}-",
                                               dir=root))
        self.mode = "idle"
        self.video_path: Path | None = None
        self.video_name = ""
        self.job: IngestJob | None = None
        self.error: str | None = None
        self.fault: str | None = None  # the camera's memory disk is full or not writable
        self.answers: dict[str, Answer] = {}  # reply text -> the answer it came from
        self.cleared_at = 0  # the chat shows timeline entries from this one on
        self._generation = 0
        self.memory = self._new_memory()
        self._runner: Runner | None = None
        self._lock = threading.RLock()
        self._writer = ThreadPoolExecutor(1, thread_name_prefix=f"memory-{safe_name(session_id)}")
        self._backlog = 0  # camera chunks handed to the writer, not yet in the memory
        self._count_lock = threading.Lock()
        self._last_frame: float | None = None
        self._frames: tuple[tuple[int, int], tuple[float, list[Cited]]] = ((-1, -1), (0.0, []))
        self.closed = False
        self.closed_event = threading.Event()  # set once close() has deleted everything
        self.changes = Changes()  # the page stream waits on it (see demos.changes)
        self.link = AudioLink()  # the page's audio socket (demos.wire), across conversations

    # -- input ---------------------------------------------------------------------------
    def load_video(self, path: str | Path, name: str | None = None) -> Path:
        """Check an upload by its content, copy it, start the conversation and queue the
        ingest; returns the local copy (the player's source). A refused file raises
        `demos.UploadError` and leaves the current video and memory as they were."""
        info = check_upload(path, self.options.max_upload_mb)
        with self._lock:
            self._check_open()
            self._reset("file")
            local = self.directory / f"video-{self._generation}{Path(path).suffix.lower()}"
            try:
                with writing(self.directory, "app's work directory"):
                    shutil.copyfile(path, local)
            except StoreWriteError as exc:  # refused as an upload: the banner says it
                discard(local)
                raise exc.retold(flag="--workdir DIR", resume="", directory=self.workdir) \
                    from exc.__cause__
            self.video_path, self.video_name = local, name or Path(path).name
            self.job = IngestJob(local, self.memory, seconds_of(info.duration), self.now,
                                 self.video_name, workdir=self.workdir)
            self.pool.submit(self.job)
            self.start()
        return local

    def load_sample(self) -> Path:
        path = sample_lecture(self.options.sample_minutes, self.options.samples_dir)
        return self.load_video(path, "the sample lecture")

    def refuse(self, message: str) -> None:
        """Show a refused upload in the banner (until the next thing loads)."""
        self.error = message
        self.changes.notify()

    def ask(self, text: str) -> None:
        """A typed message: answered (or delegated) at the next one-second boundary."""
        self._feed(lambda r: r.frontend.say(text))

    def cancel(self, item_id: str) -> None:
        self._feed(lambda r: r.frontend.request(DelegationRequest.cancel(item_id)))

    def retry(self, item_id: str) -> None:
        """Run a work item again: the harness restarts one it still holds (failed,
        interrupted); a cancelled or already-reported one is asked for afresh."""
        created = next((e.event for e in self.entries() if isinstance(e.event, WorkItemCreated)
                        and e.event.item_id == item_id), None)
        if created is None:
            return
        state = self._state_of(item_id)
        request = DelegationRequest.retry(item_id) if state in ("failed", "interrupted") \
            else DelegationRequest.new(created.capability, dict(created.arguments))
        self._feed(lambda r: r.frontend.request(request))

    def push_frame(self, rgb) -> None:
        """A webcam frame. The camera starting (its first frame, or the first after a
        pause) switches the tab to camera mode; frames still streaming while a file is
        loaded are dropped, so an upload is never replaced by a camera left on."""
        with self._lock:
            now = self.now()
            previous, self._last_frame = self._last_frame, now
            if self.mode != "camera":
                started = previous is None or now - previous > _PAUSED_S
                if self.mode == "file" and not started:
                    return
                self._enter_camera()
        self._feed(lambda r: r.source.push_frame(rgb))

    def push_audio(self, sample_rate: int, samples, age_s: float | None = None) -> None:
        """Microphone samples; ``age_s``: how long ago their last sample was captured
        (None: just now, as they arrive)."""
        def give(r: Runner) -> None:
            at = None if age_s is None else r.source.clock.now() - age_s
            r.source.push_audio(sample_rate, samples, captured_at=at)
        self._feed(give)

    @property
    def streams_voice(self) -> bool:
        """The reply's audio goes to the page over its audio socket (`demos.wire`): the
        page is connected and the conversation speaks with a real output."""
        runner = self._runner
        return self.link.connected and runner is not None and runner.playout is not None

    def clear_conversation(self) -> None:
        """Empty the chat (the memory stays)."""
        self.cleared_at = len(self.entries())
        self.answers.clear()
        self.changes.notify()

    def forget(self) -> None:
        """Drop the video, its memory and the conversation (a confirmed user action)."""
        with self._lock:
            self._check_open()
            self._reset("idle")
            self.video_path, self.video_name = None, ""

    # -- the conversation loop -------------------------------------------------------------
    def start(self) -> Runner:
        """The running conversation (started on first use)."""
        return self._feed(lambda r: None)

    def _feed(self, give: Callable[[Runner], None]) -> Runner:
        """Hand input to the loop, starting it first if needed; the input is queued before
        the thread starts, so even a simulated loop (which runs at once) sees it."""
        with self._lock:
            self._check_open()
            if self._runner is None or self._runner.finished:
                self._runner = Runner(self, self.clock_factory())
                self.changes.notify()  # a new conversation: the page reads it afresh
            give(self._runner)
            self._runner.source.wake()
            if not self._runner.thread.is_alive() and not self._runner.started:
                self._runner.start()
            return self._runner

    def join(self, timeout: float | None = None) -> None:
        """Wait for the conversation loop to end (a bounded one: ``max_chunks``)."""
        if self._runner is not None:
            self._runner.thread.join(timeout)

    def wait_ingest(self, timeout: float | None = None) -> bool:
        return self.job.wait(timeout) if self.job is not None else True

    def _reset(self, mode: str) -> None:
        """Stop what runs (ingest, loop, camera writes), start a new memory; the caller
        holds the lock."""
        self._stop_ingest()
        self._stop_runner()
        self._writer.submit(lambda: None).result()  # camera chunks already queued land first
        try:
            self.memory.close()
        except MemoryToolkitError as exc:  # a full disk: what was committed stays there
            logger.warning("closing the memory of %s: %s", self.session_id, exc)
        self.fault = None
        self._generation += 1
        self.mode = mode
        self.error = None
        self.answers.clear()
        self.cleared_at = 0
        self.memory = self._new_memory(camera=mode == "camera")
        self.job = None
        self.changes.notify()

    def _enter_camera(self) -> None:
        self._check_open()
        self._reset("camera")
        self.video_path, self.video_name = None, ""
        self.start()

    def _stop_ingest(self) -> None:
        job = self.job
        if job is None:
            return
        job.cancel()
        if not job.wait(120.0):
            logger.warning("the ingest of %s did not stop within 120 s", job.name)

    def _stop_runner(self) -> None:
        if self._runner is not None:
            self._runner.stop()
            self._runner = None

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError(f"app session {self.session_id} is closed")

    def _answer(self, question: str, at: float) -> str:
        """A typed question; in file mode, asked of the video as watched so far."""
        if self.mode == "idle" or (self.mode == "camera" and self.watched() <= 0):
            return ("I haven't seen anything yet: upload a video, use the sample lecture or "
                    "start the camera, then ask again.")
        try:
            answer = self.memory.answer(question, at=None if self.mode == "file" else at)
        except MemoryToolkitError as exc:
            logger.warning("answer failed: %s", exc)
            return f"I couldn't look that up: {exc}"
        text = self._covering(answer.text)
        self.answers[text] = answer
        while len(self.answers) > _ANSWERS_KEPT:
            self.answers.pop(next(iter(self.answers)))
        return text

    def _covering(self, text: str) -> str:
        """Before the video is fully watched, say which part the answer comes from."""
        job = self.job
        if self.mode != "file" or job is None or job.progress().state == "done":
            return text
        watched = self.watched()
        if watched <= 0:
            return "I haven't watched any of the video yet; ask again in a few seconds."
        return f"So far I've watched {span(0, watched)} of {clock(job.total_s)}. {text}"

    def _remember(self, chunk: VideoChunk) -> None:
        """Live camera chunks go into the memory off the schedule, in order."""
        memory = self.memory
        with self._count_lock:
            self._backlog += 1

        def add() -> None:
            try:
                if memory is self.memory and not self.closed:
                    memory.add(chunk)
                    self._disk_fault(None)
            except StoreWriteError as exc:  # camera seconds go unremembered until it writes
                self._disk_fault(exc)
            finally:
                with self._count_lock:
                    self._backlog -= 1
        self._writer.submit(add)

    def _disk_fault(self, exc: StoreWriteError | None) -> None:
        told = None if exc is None else str(exc.retold(
            flag="--workdir DIR", resume="the camera is remembered again when it can write",
            directory=self.workdir, place="app's work directory"))
        if told != self.fault:
            self.fault = told
            self.changes.notify()

    # -- reading (for the UI) --------------------------------------------------------------
    def entries(self) -> tuple[TimelineEntry, ...]:
        runner = self._runner
        return runner.timeline.entries if runner is not None else ()

    def conversation(self) -> object | None:
        """The current conversation (a new one after each load, forget or camera start);
        compare by identity to know the timeline was replaced."""
        return self._runner

    def timeline_length(self) -> int:
        runner = self._runner
        return len(runner.timeline) if runner is not None else 0

    def now_in_session(self) -> float:
        runner = self._runner
        return runner.session.now() if runner is not None and runner.started else 0.0

    def origin(self) -> float:
        """Session time at which the current conversation started."""
        runner = self._runner
        return runner.offset if runner is not None else 0.0

    def media_end(self) -> float | None:
        """How much of the video exists, in file mode (None: session time is video time)."""
        return self.watched() if self.mode == "file" else None

    def watched(self) -> float:
        """Seconds of video in the memory (read again only when the memory changed)."""
        return self._facts()[0]

    def keyframes(self) -> list[Cited]:
        """Each distinct key frame once, at the start of the first stretch showing it."""
        return self._facts()[1]

    def _facts(self) -> tuple[float, list[Cited]]:
        memory = self.memory
        key = (id(memory), memory.version)
        if self._frames[0] == key:
            return self._frames[1]
        duration = memory.duration
        seen: set[str] = set()
        frames = []
        for m in (memory.moments(0.0, duration, committed_only=True) if duration > 0 else []):
            if m.keyframe and m.keyframe not in seen:
                seen.add(m.keyframe)
                frames.append(Cited(m.start, m.end, m.keyframe, m.ocr_text or m.text))
        self._frames = (key, (duration, frames))
        return duration, frames

    def frame_at(self, t: float) -> str | None:
        """The key frame on screen at ``t`` (the newest one starting at or before it)."""
        best = None
        for f in self.keyframes():
            if f.start <= t + 0.5:
                best = f.keyframe
        return best

    def search(self, query: str, k: int = 5) -> list[Moment]:
        if not query.strip():
            return []
        return self.memory.search(query.strip(), k=k, before=None)

    def status(self) -> Status:
        """The banner: what this tab's assistant is doing, in one line."""
        if self.error:
            return Status("error", f"⚠️ {self.error}")
        if self.mode == "file" and self.job is not None:
            return self._file_status()
        if self.mode == "camera":
            return self._camera_status()
        return Status("idle", IDLE_TEXT)

    def _file_status(self) -> Status:
        job = self.job
        p = job.progress()
        name = self.video_name
        if p.state == "queued":
            ahead = (f"{p.ahead} video{'s' if p.ahead != 1 else ''} ahead of it"
                     if p.ahead else "it is next")
            return Status("queued", f"Waiting for a free worker to watch {name} ({ahead}; "
                          f"{self.pool.workers} watched at a time).", 0.0)
        if p.state == "running":
            eta = f" · about {clock(p.eta_s)} left" if p.eta_s is not None else ""
            return Status("loading", f"Watching {name}: {p.fraction:.0%} ({clock(p.done_s)} of "
                          f"{clock(p.total_s)}){eta}. You can ask about the part watched.",
                          p.fraction)
        if p.state == "stalled":  # the disk: its sentence says the fix and what goes on
            return Status("error", f"⚠️ {p.error}", p.fraction)
        if p.state == "failed":
            return Status("error", f"⚠️ Stopped watching {name} at {clock(p.done_s)}: "
                          f"{p.error}. Ask about the part watched, or upload it again.")
        frames = len(self.keyframes())
        return Status("ready", f"Ready: watched all {clock(p.total_s)} of {name} · "
                      f"{frames} key frame{'s' if frames != 1 else ''}. Ask about it below.")

    def _camera_status(self) -> Status:
        runner = self._runner
        if self.fault:
            return Status("error", f"⚠️ {self.fault}")
        if runner is None:
            return Status("camera", "Camera stopped.")
        last = runner.source.last_frame_at
        watched = clock(self.watched())
        frames = len(self.keyframes())
        if self._backlog >= _BEHIND_S:
            return Status("behind", f"Falling behind: {self._backlog} s of camera not yet in "
                          f"memory · {watched} remembered · {frames} key frames")
        if last is None:
            return Status("camera", "Camera on: waiting for the first frame …")
        ago = max(0.0, runner.session.now() - last)
        if ago > _PAUSED_S:
            return Status("camera", f"Camera paused: no frame for {ago:.0f} s · {watched} "
                          f"remembered · {frames} key frames")
        return Status("camera", f"Camera live: last frame {ago:.0f} s ago · {watched} "
                      f"remembered · {frames} key frame{'s' if frames != 1 else ''}")

    def _state_of(self, item_id: str) -> str:
        state = ""
        for e in self.entries():
            if isinstance(e.event, WorkItemStateChanged) and e.event.item_id == item_id:
                state = WorkState(e.event.state).value
        return state

    # -- cleanup -------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the ingest and the loop, close the memory and delete this session's files."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            self._stop_ingest()
            self._stop_runner()
        self._writer.shutdown(wait=True, cancel_futures=True)
        try:
            self.memory.close()
        except MemoryToolkitError as exc:
            logger.warning("closing the memory of %s: %s", self.session_id, exc)
        if self._own_pool:
            self.pool.shutdown()
        shutil.rmtree(self.directory, ignore_errors=True)
        self.closed_event.set()
        self.changes.notify()  # the page stream ends

    def _new_memory(self, camera: bool = False) -> VideoMemory:
        # Camera: speech is transcribed every few seconds (not every 30 s), and a key frame
        # needs a real change of scene, not a flicker or a moving hand (each one is OCR'd).
        options = StoreOptions(
            speech=SpeechOptions(batch_seconds=self.options.camera_batch_s,
                                 max_batch_seconds=max(10.0, 3 * self.options.camera_batch_s)),
            keyframes=KeyFrameOptions(pixel_change=CAMERA_PIXEL_CHANGE)) if camera else None
        return VideoMemory.create(self.directory / f"memory-{self._generation}", self.models,
                                  options)
