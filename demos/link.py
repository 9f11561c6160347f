"""`AudioLink`: one tab's audio connection, microphone frames in and the reply's playout out.

Between `demos.state` (one link per `AppSession`, kept across conversations) and the
socket (`demos.wire`). The session's thread posts messages (`demos.playout` frames and
cuts, and a few state words) and the socket's event loop sends them; the socket hands
the page's microphone frames to the app (`AppSession.push_audio`) stamped with their
capture time, and its playback reports back here.

Messages to the page: binary audio frames (`demos.playout.encode_audio`) and JSON
objects ``{"op": ...}``: ``hello`` (a new conversation: its session clock starts again,
``epoch`` counts them), ``cut`` (drop what is held from a session time on), ``queued`` (a
reply is being prepared: the page shows *thinking* until it plays) and ``stopped`` (the
reply was cut; nothing more of it will come). From the page: binary microphone frames
(`demos.playout.decode_mic`) and ``{"op": "played", "at": t, "lag": s}``: the session
time it is playing now and how far behind the session's clock that is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import threading
from collections import deque

from demos.playout import AudioFrame, Cut, encode_audio

__all__ = ["AudioLink"]

_OUTBOX = 400  # messages held for a slow page before the oldest are dropped (~40 s)


class AudioLink:
    """A tab's link; ``token`` is the secret the page's socket opens it with."""

    def __init__(self) -> None:
        self.token = secrets.token_urlsafe(18)
        self._lock = threading.Lock()
        self._outbox: deque[bytes | str] = deque(maxlen=_OUTBOX)
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None
        self._connection = 0
        self.connected = False
        self.epoch = 0
        self.lags: deque[float] = deque(maxlen=600)  # page playout behind the session (s)
        self.mic_frames = 0

    # -- the socket's side ---------------------------------------------------------------
    def open(self) -> int:
        """A page connected (a second one replaces the first); returns its number."""
        with self._lock:
            self._connection += 1
            self.connected = True
            self._outbox.clear()
            self._outbox.append(self._hello())
            waiter = self._waiter
        self._wake(waiter)
        return self._connection

    def close(self, connection: int) -> None:
        with self._lock:
            if connection == self._connection:
                self.connected = False
                waiter = self._waiter
            else:
                waiter = None
        self._wake(waiter)

    def current(self, connection: int) -> bool:
        return self.connected and connection == self._connection

    async def take(self, timeout: float = 1.0) -> list[bytes | str]:
        """The messages posted since the last call (waits up to ``timeout`` for one)."""
        with self._lock:
            if not self._outbox:
                event = asyncio.Event()
                self._waiter = (asyncio.get_running_loop(), event)
            else:
                event = None
        if event is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(event.wait(), timeout)
        with self._lock:
            self._waiter = None
            taken = list(self._outbox)
            self._outbox.clear()
        return taken

    def played(self, report: dict) -> None:
        """The page's playback report (``lag``: seconds behind the session's clock)."""
        lag = report.get("lag")
        if isinstance(lag, (int, float)) and -5.0 < lag < 5.0:
            self.lags.append(float(lag))

    def lag(self) -> float | None:
        """The page's playout lag behind the session's clock (the median of its recent
        reports; None before the first)."""
        lags = list(self.lags)[-50:]
        return float(sorted(lags)[len(lags) // 2]) if lags else None

    # -- the session's side ----------------------------------------------------------------
    def new_conversation(self) -> None:
        """A new conversation loop: its session clock starts again."""
        with self._lock:
            self.epoch += 1
        self.post(self._hello())

    def post(self, message: AudioFrame | Cut | dict | bytes | str) -> None:
        if isinstance(message, AudioFrame):
            message = encode_audio(message)
        elif isinstance(message, Cut):
            message = json.dumps(message.message())
        elif isinstance(message, dict):
            message = json.dumps(message)
        with self._lock:
            if not self.connected:
                return
            self._outbox.append(message)
            waiter = self._waiter
        self._wake(waiter)

    def _hello(self) -> str:
        return json.dumps({"op": "hello", "epoch": self.epoch})

    @staticmethod
    def _wake(waiter) -> None:
        if waiter is not None:
            loop, event = waiter
            with contextlib.suppress(RuntimeError):  # that loop has closed
                loop.call_soon_threadsafe(event.set)
