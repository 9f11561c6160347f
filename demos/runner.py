"""`Runner`: one app session's conversation loop, on its own thread.

Under `demos.state` (an `AppSession` starts one per conversation). The `venus.runtime.Session`
runs on the thread, fed hop by hop by a `LiveSource`; after each hop's decisions the
page gets what the output will play next (`demos.playout` through the tab's
`AudioLink`), and the page's playout lag comes back as the echo reference's delay. The
runtime's reports of a reply (queued, playing, stopped) go to the page as its state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import threading
from typing import TYPE_CHECKING

from demos.changes import TimelineWakes
from demos.conversation import TypedTurns
from demos.live import LiveSource
from demos.playout import PlayoutStream
from demos.voice import app_models
from venus.clock import Clock
from venus.events import MemoryUpdated, SpeechPlayed, SpeechQueued, SpeechStopped
from venus.factory import AssistantOptions, assistant
from venus.frontend import Frontend
from venus.frontend.embedded import EmbeddedFrontend
from venus.frontend.model_backed import ModelFrontend
from venus.runtime import DuplexOptions, SessionOptions
from venus.speech import OutputControl, TimedTextOutput
from venus.timeline import Timeline

if TYPE_CHECKING:
    from demos.state import AppOptions, AppSession

__all__ = ["Runner", "safe_name"]

logger = logging.getLogger(__name__)

class Runner:
    """One `Session` on its own thread, fed by a `LiveSource`, until stopped."""

    def __init__(self, app: AppSession, clock: Clock) -> None:
        memory, options = app.memory, app.options
        # File mode: the conversation starts after the whole file (all of it is the past).
        self.offset = app.job.total_s if app.mode == "file" and app.job else memory.duration
        self.timeline = Timeline(app.session_id, app.directory / f"timeline-{app._generation}.jsonl")
        self.timeline.subscribe(TimelineWakes(app.changes))
        if self.offset > 0:
            self.timeline.record(MemoryUpdated(memory.version), time=self.offset)
        remember = app._remember if app.mode == "camera" else None
        # Asleep while nothing is said, heard or worked on (an unbounded schedule only: a
        # bounded one, in tests, delivers all its chunks).
        idle = self._idle if options.max_chunks is None else None
        self.source = LiveSource(clock, math.ceil(self.offset), remember, options.max_chunks,
                                 keep_frames=app.mode == "camera", idle=idle)
        inner = app.frontend_factory(memory)
        self.frontend = TypedTurns(inner, app._answer, app.media_end)
        self.session = assistant(
            memory, clock=clock, frontend=self.frontend, speech=_speech(inner, options),
            timeline=self.timeline, session_id=app.session_id,
            models=app_models(options.voice), options=AssistantOptions(
                duplex=DuplexOptions(partials="overlap") if isinstance(inner, EmbeddedFrontend)
                else None, perceive=_hears(inner),
                session=SessionOptions(pace=False, drain_s=options.drain_s)))
        self.speech = self.session.speech
        # The page plays the reply as the output schedules it (demos.playout, demos.wire).
        self.link = app.link
        self.playout = PlayoutStream(self.speech) if isinstance(self.speech, OutputControl) \
            else None
        if self.playout is not None:
            self.timeline.subscribe(self._page_state)
            self.link.new_conversation()
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name=f"session-{safe_name(app.session_id)}")
        self.started = False
        self.finished = False
        self.error: BaseException | None = None

    def start(self) -> None:
        self.started = True
        self.thread.start()

    def _idle(self) -> bool:
        """Nothing is being said and no background work is open (the schedule may sleep)."""
        return not (self.speech.busy or self.session.link.busy)

    async def _hops(self):
        """The source's hops. After each hop's decisions, at once (not once the next
        hop's audio is in), the page gets what the output will play next; while the loop
        waits for that audio, a reply whose first audio is synthesized starts then and
        goes to the page (it would otherwise wait up to a hop). On the session's thread."""
        hops = self.source.__aiter__()
        first_audio = getattr(self.speech, "first_audio", None)  # an AudioSpeechOutput's
        upcoming: asyncio.Future | None = None
        try:
            while True:
                self._to_page()
                upcoming = asyncio.ensure_future(hops.__anext__())
                while not upcoming.done():
                    first = first_audio() if first_audio is not None else None
                    if first is None:
                        await asyncio.wait({upcoming})
                        break
                    await asyncio.wait({upcoming, asyncio.wrap_future(first)},
                                       return_when=asyncio.FIRST_COMPLETED)
                    if first.done() and not upcoming.done():
                        self.session.poll_output()
                        self._to_page()
                try:
                    hop = upcoming.result()
                except StopAsyncIteration:
                    return
                yield hop
        finally:
            if upcoming is not None and not upcoming.done():
                upcoming.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                    await upcoming
            await hops.aclose()

    def _to_page(self) -> None:
        """Send the page what the output will play next (and read its playout lag)."""
        if self.playout is not None and self.link.connected:
            for message in self.playout.step(self.session.now()):
                self.link.post(message)
            lag = self.link.lag()
            if lag is not None:  # the echo reference: what the page was playing
                self.session.duplex.sink_lag_s = max(0.0, lag)

    def _page_state(self, entry) -> None:
        """A reply decided (the page shows *thinking* until it plays), started or cut."""
        e = entry.event
        if isinstance(e, SpeechQueued):
            self.link.post({"op": "queued", "utterance": e.utterance_id})
        elif isinstance(e, SpeechPlayed):
            self.link.post({"op": "playing", "utterance": e.utterance_id})
        elif isinstance(e, SpeechStopped):
            self.link.post({"op": "stopped", "utterance": e.utterance_id})

    def _run(self) -> None:
        try:
            with self.session:
                self.session.run(self._hops())
        except BaseException as exc:  # shown in the UI; the thread must not die silently
            logger.exception("session %s failed", self.session.session_id)
            self.error = exc
        finally:
            self.finished = True

    def stop(self, timeout: float = 10.0) -> None:
        self.source.close()
        if self.thread.is_alive() and threading.current_thread() is not self.thread:
            self.thread.join(timeout)


def _hears(frontend: Frontend) -> bool:
    """Frontends that listen to the user (speech, the overlap gate) get the audio path;
    others (scripted ones) only the typed turns."""
    return isinstance(frontend, (EmbeddedFrontend, ModelFrontend))


def _speech(frontend: Frontend, options: AppOptions) -> TimedTextOutput | None:
    """None (the assistant's TTS output) for a listening frontend, else text playout."""
    return None if _hears(frontend) else TimedTextOutput(options.words_per_second)


def safe_name(text: str) -> str:
    """``text`` as a short name for a directory or a thread (letters and digits only)."""
    return "".join(c if c.isalnum() else "-" for c in text)[:16]
