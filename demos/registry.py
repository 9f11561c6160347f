"""`SessionRegistry`: browser session ids -> `demos.state.AppSession`.

Between `demos.state` (one tab) and the handlers. It owns what tabs share - the embedded
models, loaded once, and the bounded `IngestPool` every tab's uploads wait in - and
cleans up when a tab closes. Nothing here imports Gradio.
"""

from __future__ import annotations

import logging
import secrets
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from demos.errors import SessionLimitError
from demos.frontends import FrontendFactory
from demos.ingest import IngestPool
from demos.state import AppOptions, AppSession
from demos.voice import app_models
from memory import MemoryModels
from memory.errors import MemoryToolkitError
from venus.clock import Clock, WallClock
from venus.errors import VenusError

__all__ = ["SessionRegistry"]

logger = logging.getLogger(__name__)


class SessionRegistry:
    """Browser session id -> `AppSession`; nothing is shared between two ids except the
    embedded models (loaded once) and the ingest pool (bounded, first come first served)."""

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
        self.pool = IngestPool(self.options.ingest_workers)
        self.now = WallClock().now
        self._sessions: dict[str, AppSession] = {}
        self._lock = threading.Lock()
        self.ready = threading.Event()  # set once `warm_up` has loaded every model

    def get(self, session_id: str) -> AppSession:
        with self._lock:
            app = self._sessions.get(session_id)
            if app is None or app.closed:
                if len(self._sessions) >= self.options.max_sessions:
                    raise SessionLimitError(
                        f"this app already serves {self.options.max_sessions} open tabs; "
                        f"close one or try again later")
                app = AppSession(session_id, self.options, frontend_factory=self.frontend_factory,
                                 models=self.models, clock=self.clock, pool=self.pool,
                                 now=self.now)
                self._sessions[session_id] = app
            return app

    def warm_up(self) -> threading.Thread:
        """Load the embedded models in the background, so the first upload and the first
        spoken question do not wait for them (each is loaded once and shared); `ready`
        is set when done."""
        def load() -> None:
            for name in ("embedder", "vad", "asr", "ocr"):
                try:
                    getattr(self.models, name)
                except MemoryToolkitError as exc:  # shown again when an upload needs it
                    logger.warning("could not load the %s model: %s", name, exc)
            try:  # the assistant's voice and ears: the first spoken question waits for none
                app_models(self.options.voice).warm_up()
            except (MemoryToolkitError, VenusError) as exc:
                logger.warning("could not load the assistant's models: %s", exc)
            self.ready.set()
        thread = threading.Thread(target=load, daemon=True, name="venus-warm-up")
        thread.start()
        return thread

    def find(self, session_id: str) -> AppSession | None:
        with self._lock:
            return self._sessions.get(session_id)

    def by_token(self, token: str) -> AppSession | None:
        """The open tab whose audio link has this secret token (`demos.wire`)."""
        with self._lock:
            return next((a for a in self._sessions.values()
                         if token and not a.closed and secrets.compare_digest(a.link.token, token)),
                        None)

    def close(self, session_id: str) -> None:
        with self._lock:
            app = self._sessions.pop(session_id, None)
        if app is not None:
            app.close()

    def close_all(self) -> None:
        for session_id in list(self._sessions):
            self.close(session_id)
        self.pool.shutdown()
        if self._own_root:
            shutil.rmtree(self.options.root, ignore_errors=True)

    def __len__(self) -> int:
        return len(self._sessions)
