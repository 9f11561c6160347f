"""`AppSession`: everything one browser session owns, as a plain, testable Python object.

The top of ``demos`` below the UI. One `AppSession` per browser tab owns a temporary
directory, its `memory.VideoMemory`, a running `venus.runtime.Session` (the dual loop on
its own `Timeline`, with its own private harness channel) fed by a `LiveSource`, and the
`TypedTurns` frontend wrapper through which typed messages and the work panel's cancel /
retry buttons reach the loop. `SessionRegistry` maps browser session ids to them and
cleans up when a tab closes. The UI only reads snapshots (timeline entries) and calls
these methods; nothing here imports Gradio.

Times: a loaded file is ingested first, so the conversation about it starts at the end
of the video: session time ``t`` is ``duration + seconds since the load``, and every
causal cutoff (answers, searches, summaries) therefore covers the whole file.
"""

from __future__ import annotations

import logging
import math
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from demos.conversation import TypedTurns
from demos.frontends import FrontendFactory, FrontendSpec
from demos.live import LiveSource
from demos.uploads import check_upload, sample_lecture
from memory import Answer, MemoryModels, Moment, VideoMemory
from memory.errors import MemoryToolkitError
from memory.media import VideoChunk
from venus.capabilities import builtin_capabilities
from venus.clock import Clock, WallClock
from venus.events import MemoryUpdated
from venus.frontend import DelegationRequest
from venus.runtime import Session, SessionOptions, SpeechOutput, TimedTextOutput
from venus.timeline import Timeline, TimelineEntry

__all__ = ["AppOptions", "AppSession", "SessionRegistry"]

logger = logging.getLogger(__name__)

# The embedded models are shared by every session of the process (loaded once); their
# streaming parts are not re-entrant, so ingests take turns.
_MODELS_LOCK = threading.Lock()

Progress = Callable[[float, str], None]


@dataclass
class AppOptions:
    """``root``: parent of every session's temp dir (default: the system temp dir);
    ``max_upload_mb``: upload size limit; ``words_per_second``: speaking rate of replies
    (text playout and TTS); ``sample_minutes``/``samples_dir``: the sample lecture;
    ``drain_s``: how long a stopped session keeps delivering background results;
    ``max_chunks``: end the schedule after that many seconds (tests; None: run until closed)."""

    root: Path | None = None
    max_upload_mb: float = 500.0
    words_per_second: float = 2.75
    sample_minutes: float = 3.0
    samples_dir: Path = Path("samples")
    drain_s: float = 5.0
    max_chunks: int | None = None
    frontend: FrontendSpec = field(default_factory=FrontendSpec)


class AppSession:
    """One browser session: its memory, its conversation loop and its files."""

    def __init__(self, session_id: str, options: AppOptions | None = None, *,
                 frontend_factory: FrontendFactory | None = None,
                 models: MemoryModels | None = None, clock: Callable[[], Clock] = WallClock
                 ) -> None:
        self.session_id = session_id
        self.options = options or AppOptions()
        self.frontend_factory = frontend_factory or self.options.frontend.factory()
        self.models = models if models is not None else MemoryModels()
        self.clock_factory = clock
        root = self.options.root
        if root is not None:
            Path(root).mkdir(parents=True, exist_ok=True)
        self.directory = Path(tempfile.mkdtemp(prefix=f"venus-app-{_safe(session_id)}-",
                                               dir=root))
        self.video_path: Path | None = None
        self.answers: list[Answer] = []
        self.error: str | None = None
        self._generation = 0
        self.memory = self._new_memory()
        self._runner: _Runner | None = None
        self._lock = threading.RLock()
        self._writer = ThreadPoolExecutor(1, thread_name_prefix=f"memory-{_safe(session_id)}")
        self.closed = False

    # -- input ---------------------------------------------------------------------------
    def load_video(self, path: str | Path, progress: Progress | None = None) -> dict:
        """Validate, copy and ingest a video, then restart the conversation after its end."""
        info = check_upload(path, self.options.max_upload_mb)
        with self._lock:
            self._stop_runner()
            self._generation += 1
            local = self.directory / f"video-{self._generation}{Path(path).suffix.lower()}"
            shutil.copyfile(path, local)
            self.memory.close()
            self.memory = self._new_memory()
            self.answers.clear()
            self.video_path = local
        total = max(1, math.ceil(info.duration or 1.0))
        report = progress or (lambda fraction, text: None)
        report(0.0, "loading the models")
        self._ingest(local, total, report)
        report(1.0, "ready")
        self.start()
        return self.memory.stats()

    def load_sample(self, progress: Progress | None = None) -> dict:
        report = progress or (lambda fraction, text: None)
        report(0.0, "preparing the sample lecture")
        path = sample_lecture(self.options.sample_minutes, self.options.samples_dir)
        return self.load_video(path, progress)

    def _ingest(self, path: Path, total: int, report: Progress) -> None:
        from memory.video import open_video

        with _MODELS_LOCK, open_video(path) as source:
            for chunk in source:
                self.memory.add(chunk)
                report(min(0.99, (chunk.index + 1) / total),
                       f"watched {chunk.index + 1} of {total} s")
            self.memory.finish()

    def ask(self, text: str) -> None:
        """A typed message: answered (or delegated) at the next one-second boundary."""
        self._feed(lambda r: r.frontend.say(text))

    def cancel(self, item_id: str) -> None:
        self._feed(lambda r: r.frontend.decide(DelegationRequest.cancel(item_id)))

    def retry(self, item_id: str) -> None:
        self._feed(lambda r: r.frontend.decide(DelegationRequest.retry(item_id)))

    def push_frame(self, rgb) -> None:
        self._feed(lambda r: r.source.push_frame(rgb))

    def push_audio(self, sample_rate: int, samples) -> None:
        self._feed(lambda r: r.source.push_audio(sample_rate, samples))

    # -- the conversation loop -------------------------------------------------------------
    def start(self) -> _Runner:
        """The running conversation (started on first use)."""
        return self._feed(lambda r: None)

    def _feed(self, give: Callable[[_Runner], None]) -> _Runner:
        """Hand input to the loop, starting it first if needed; the input is queued before
        the thread starts, so even a simulated loop (which runs at once) sees it."""
        with self._lock:
            if self.closed:
                raise RuntimeError(f"app session {self.session_id} is closed")
            if self._runner is None or self._runner.finished:
                self._runner = _Runner(self, self.clock_factory())
            give(self._runner)
            if not self._runner.thread.is_alive() and not self._runner.started:
                self._runner.start()
            return self._runner

    def join(self, timeout: float | None = None) -> None:
        """Wait for the conversation loop to end (a bounded one: ``max_chunks``)."""
        if self._runner is not None:
            self._runner.thread.join(timeout)

    def _stop_runner(self) -> None:
        if self._runner is not None:
            self._runner.stop()
            self._runner = None

    def _answer(self, question: str, at: float) -> str:
        try:
            answer = self.memory.answer(question, at=at)
        except MemoryToolkitError as exc:
            logger.warning("answer failed: %s", exc)
            return f"I couldn't look that up: {exc}"
        self.answers.append(answer)
        return answer.text

    def _remember(self, chunk: VideoChunk) -> None:
        """Live camera chunks go into the memory off the schedule, in order."""
        def add() -> None:
            with _MODELS_LOCK:
                self.memory.add(chunk)
        self._writer.submit(add)

    # -- reading (for the UI) --------------------------------------------------------------
    def entries(self) -> tuple[TimelineEntry, ...]:
        runner = self._runner
        return runner.timeline.entries if runner is not None else ()

    def now(self) -> float:
        runner = self._runner
        return runner.session.now() if runner is not None and runner.started else 0.0

    def keyframes(self) -> list[Moment]:
        """One moment per segment with a key frame, in time order."""
        duration = self.memory.duration
        if duration <= 0:
            return []
        return [m for m in self.memory.moments(0.0, duration) if m.keyframe]

    def search(self, query: str, k: int = 5) -> list[Moment]:
        if not query.strip():
            return []
        return self.memory.search(query.strip(), k=k, before=None)

    # -- cleanup -------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the loop, close the memory and delete every file of this session."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            self._stop_runner()
        self._writer.shutdown(wait=True, cancel_futures=True)
        try:
            self.memory.close()
        except MemoryToolkitError as exc:
            logger.warning("closing the memory of %s: %s", self.session_id, exc)
        shutil.rmtree(self.directory, ignore_errors=True)

    def _new_memory(self) -> VideoMemory:
        return VideoMemory.create(self.directory / f"memory-{self._generation}", self.models)


class _Runner:
    """One `Session` on its own thread, fed by a `LiveSource`, until stopped."""

    def __init__(self, app: AppSession, clock: Clock) -> None:
        memory, options = app.memory, app.options
        offset = memory.duration
        self.timeline = Timeline(app.session_id, app.directory / f"timeline-{app._generation}.jsonl")
        if offset > 0:  # the conversation starts where the ingested video ends
            self.timeline.record(MemoryUpdated(memory.version), time=offset)
        self.source = LiveSource(clock, math.ceil(offset), app._remember, options.max_chunks)
        inner = app.frontend_factory(memory)
        self.frontend = TypedTurns(inner, app._answer)
        output = getattr(inner, "output", None)
        self.speech = output if isinstance(output, SpeechOutput) else \
            TimedTextOutput(options.words_per_second)
        self.session = Session(
            self.frontend, self.source, clock=clock, capabilities=builtin_capabilities(),
            speech=self.speech, memory=memory,
            timeline=self.timeline, session_id=app.session_id,
            options=SessionOptions(pace=False, drain_s=options.drain_s))
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name=f"session-{_safe(app.session_id)}")
        self.started = False
        self.finished = False
        self.error: BaseException | None = None

    def start(self) -> None:
        self.started = True
        self.thread.start()

    def _run(self) -> None:
        try:
            self.session.run()
        except BaseException as exc:  # shown in the UI; the thread must not die silently
            logger.exception("session %s failed", self.session.session_id)
            self.error = exc
        finally:
            self.finished = True
            close = getattr(self.frontend.inner, "close", None)
            if callable(close):
                close()

    def stop(self, timeout: float = 10.0) -> None:
        self.source.close()
        if self.thread.is_alive() and threading.current_thread() is not self.thread:
            self.thread.join(timeout)


class SessionRegistry:
    """Browser session id -> `AppSession`; nothing is shared between two ids."""

    def __init__(self, options: AppOptions | None = None,
                 frontend_factory: FrontendFactory | None = None,
                 clock: Callable[[], Clock] = WallClock) -> None:
        self.options = options or AppOptions()
        self._own_root = self.options.root is None
        if self._own_root:  # one private folder, the only one the server may serve files from
            self.options.root = Path(tempfile.mkdtemp(prefix="venus-app-"))
        self.frontend_factory = frontend_factory or self.options.frontend.factory()
        self.models = MemoryModels()  # loaded once, shared by every session
        self.clock = clock
        self._sessions: dict[str, AppSession] = {}
        self._lock = threading.Lock()

    def get(self, session_id: str) -> AppSession:
        with self._lock:
            app = self._sessions.get(session_id)
            if app is None or app.closed:
                app = AppSession(session_id, self.options, frontend_factory=self.frontend_factory,
                                 models=self.models, clock=self.clock)
                self._sessions[session_id] = app
            return app

    def close(self, session_id: str) -> None:
        with self._lock:
            app = self._sessions.pop(session_id, None)
        if app is not None:
            app.close()

    def close_all(self) -> None:
        for session_id in list(self._sessions):
            self.close(session_id)
        if self._own_root:
            shutil.rmtree(self.options.root, ignore_errors=True)

    def __len__(self) -> int:
        return len(self._sessions)


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text)[:16]
