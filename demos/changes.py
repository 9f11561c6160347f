"""`Changes`: tells a tab's page stream that something its page shows may have changed.

Below `demos.state` (no Gradio). The page stream (`demos.handlers.Handlers.live`) waits on
it instead of polling: it renders when a change is announced, and otherwise only as often
as the banner's own text moves on with time (the ETA while a video is watched, the age of
the camera's last frame). `notify` may be called from any thread; `wait` is awaited on
the stream's event loop. `TimelineWakes` announces the conversation's timeline entries
except the ones an idle second is made of (its chunk and its control token), so an idle
tab's stream sleeps while the once-a-second conversation loop runs on.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

from venus.events import (
    ChunkReceived,
    ControlToken,
    ControlTokenEmitted,
    PlaybackAcknowledged,
    SpeechPlayed,
    SpeechStopped,
)
from venus.timeline import TimelineEntry

__all__ = ["Changes", "TimelineWakes"]


class Changes:
    """A change counter with waiters. ``count`` only grows; a waiter passes the count it
    has seen and wakes when it moved (or after ``timeout`` seconds)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    @property
    def count(self) -> int:
        return self._count

    def notify(self) -> None:
        with self._lock:
            self._count += 1
            waiters = list(self._waiters)
        for loop, event in waiters:
            with contextlib.suppress(RuntimeError):  # that loop has closed: nobody waits
                loop.call_soon_threadsafe(event.set)

    async def wait(self, seen: int, timeout: float | None = None) -> int:
        """The count once it differs from ``seen`` (at once if it already does), or after
        ``timeout`` seconds of the event loop's time (None: no limit)."""
        event = asyncio.Event()
        waiter = (asyncio.get_running_loop(), event)
        with self._lock:
            if self._count != seen:
                return self._count
            self._waiters.add(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), timeout)
        finally:
            with self._lock:
                self._waiters.discard(waiter)
        return self._count


class TimelineWakes:
    """A timeline listener that notifies ``changes`` of entries the page may show.

    An idle second (a `ChunkReceived` and a control token other than the end of a turn)
    changes nothing on the page, so it is not announced, except the first second after
    activity or any second while a reply plays (the conversation strip closes the busy
    second and draws the new one).
    """

    def __init__(self, changes: Changes) -> None:
        self.changes = changes
        self._busy = True
        self._playing: set[str] = set()

    def __call__(self, entry: TimelineEntry) -> None:
        e = entry.event
        if isinstance(e, ChunkReceived):
            if self._busy or self._playing:
                self.changes.notify()
            self._busy = False
            return
        if isinstance(e, ControlTokenEmitted) and \
                ControlToken(e.token) is not ControlToken.TURN_EOS:
            return
        if isinstance(e, SpeechPlayed):
            self._playing.add(e.utterance_id)
        elif isinstance(e, (SpeechStopped, PlaybackAcknowledged)):
            self._playing.discard(e.utterance_id)
        self._busy = True
        self.changes.notify()
