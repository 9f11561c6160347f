"""The Session: the dual loop of one conversation on one causal timeline.

Top of the runtime (composition). The **foreground loop** takes one-second
`memory.media.VideoChunk`s from a source and, after each, asks the `Frontend` for a
`Decision`, which it applies: perceived events and the control token go on the timeline,
speech is queued or stopped, delegation requests go to the `Harness`. The **background
loop** is the harness: its tasks run on the same event loop, and the foreground only ever
makes non-blocking calls into it, so a capability that takes 30 s never delays a chunk.
At every chunk boundary the session also polls speech playback (acknowledgements),
notices memory updates and lets the harness reintegrate finished results.

A file source is paced by the clock at one chunk per second of media time (``pace=True``);
a live source paces itself (``pace=False``). With a `SimulatedClock` an hour of session
runs in seconds and the timeline is the same on every run. `Session.run` is the sync
wrapper of `Session.arun`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, Iterable
from dataclasses import dataclass
from os import PathLike
from typing import Any

from memory.errors import MemoryToolkitError
from memory.media import VideoChunk
from venus.clock import Clock, WallClock
from venus.errors import ConfigError
from venus.events import (
    EVENT_TYPES,
    ChunkReceived,
    ControlTokenEmitted,
    DeliveryPolicy,
    ErrorCategory,
    ErrorRecorded,
    FloorAction,
    FloorActionTaken,
    MemoryUpdated,
    PlaybackAcknowledged,
    SessionEnded,
    SessionStarted,
    SpeechPlayed,
    SpeechQueued,
    SpeechStopped,
    WorkState,
)
from venus.frontend.base import Decision, Frontend, ResultOffer
from venus.harness import Harness, MemoryView
from venus.runtime.speech import PlaybackReport, PlaybackStatus, SpeechOutput, Utterance
from venus.runtime.text_speech import TimedTextOutput
from venus.runtime.view import build_view
from venus.timeline import Timeline

__all__ = ["Session", "SessionOptions", "SessionSummary"]

logger = logging.getLogger(__name__)

_STOPPING = (FloorAction.YIELD_FLOOR, FloorAction.STOP_OUTPUT, FloorAction.REVISE_RESPONSE)
_RUNNING = (WorkState.QUEUED, WorkState.RUNNING, WorkState.COMPLETED, WorkState.FAILED)


@dataclass(frozen=True)
class SessionOptions:
    """``pace``: wait on the clock for each chunk's media time (file sources); ``drain_s``:
    after the source ends, keep delivering background results this long; ``tick_s``: the
    cadence of that drain."""

    pace: bool = True
    drain_s: float = 60.0
    tick_s: float = 1.0


@dataclass(frozen=True)
class SessionSummary:
    session_id: str
    chunks: int
    reason: str
    delivered: int
    cancelled: int
    timeline_path: str | None


class Session:
    """One conversation: a source, a frontend, speech output and a (possibly shared) harness.

    Without ``harness`` the session makes its own from ``capabilities`` and closes it at
    the end; a shared harness is only detached from. ``timeline`` may be a `Timeline`
    (e.g. `Timeline.load` of a stopped session: its work items come back INTERRUPTED), a
    path for a new JSONL file, or None for an in-memory timeline.
    """

    def __init__(self, frontend: Frontend, source: Iterable[VideoChunk] | AsyncIterable[VideoChunk],
                 *, clock: Clock | None = None, harness: Harness | None = None,
                 capabilities: Iterable[Any] = (), speech: SpeechOutput | None = None,
                 memory: MemoryView | None = None,
                 timeline: Timeline | str | PathLike | None = None,
                 session_id: str = "session", options: SessionOptions | None = None) -> None:
        self.frontend = frontend
        self.source = source
        self.clock = clock or (harness.clock if harness else WallClock())
        if harness is not None and harness.clock is not self.clock:
            raise ConfigError("the session and its shared harness must use the same clock; "
                              "pass clock=harness.clock")
        self._owns_harness = harness is None
        self.harness = harness or Harness(list(capabilities), self.clock)
        self.speech = speech or TimedTextOutput()
        self.memory = memory
        self.timeline = (timeline if isinstance(timeline, Timeline)
                         else Timeline(session_id, timeline))
        self.session_id = self.timeline.session_id
        self.options = options or SessionOptions()
        self.chunks = 0
        self._origin = 0.0
        self._view_seq = 0
        self._utterances = 0
        self._memory_version: int | None = None

    def run(self) -> SessionSummary:
        """Run the whole session on its clock (sync wrapper of `arun`)."""
        return self.clock.run(self.arun())

    async def arun(self) -> SessionSummary:
        self._origin = self.clock.now() - self.timeline.last_time  # a resumed session continues
        self.timeline.bind_clock(self.now)
        self._view_seq = self.timeline.next_seq
        self.channel = self.harness.attach(self.session_id, self.timeline, self.memory)
        self.timeline.record(SessionStarted(self.clock.kind, getattr(self.frontend, "name", "?")))
        reason = "cancelled"
        try:
            reason = await self._foreground()
            await self._drain()
        finally:
            await self._finish(reason)
        return self._summary(reason)

    def now(self) -> float:
        """Session time in seconds."""
        return self.clock.now() - self._origin

    # -- foreground loop -------------------------------------------------------------

    async def _foreground(self) -> str:
        next_chunk, close = self._reader()
        try:
            return await self._consume(next_chunk)
        finally:
            await close()  # release our iterator (a decoder's file handle) even on error

    async def _consume(self, next_chunk) -> str:
        start, first = self.now(), None
        while True:
            try:
                chunk = await next_chunk()
            except MemoryToolkitError as exc:  # bad input: record it, keep what was built
                self.timeline.record(ErrorRecorded("source", ErrorCategory.SOURCE, str(exc)))
                return f"source failed: {exc}"
            if chunk is None:
                return "source ended"
            if self.options.pace:
                first = chunk.start if first is None else first
                await self.clock.sleep_until(self._origin + start + chunk.end - first)
            await self._step(chunk)

    def _reader(self):
        """``(next_chunk, close)`` coroutine functions over the source, sync or async."""
        if isinstance(self.source, AsyncIterable):
            aiterator = self.source.__aiter__()

            async def next_async() -> VideoChunk | None:
                try:
                    return await aiterator.__anext__()
                except StopAsyncIteration:
                    return None

            async def close_async() -> None:
                if hasattr(aiterator, "aclose"):
                    await aiterator.aclose()
            return next_async, close_async
        iterator = iter(self.source)

        async def close() -> None:
            if hasattr(iterator, "close"):
                await self.clock.run_sync(iterator.close)
        return (lambda: self.clock.run_sync(next, iterator, None)), close

    async def _step(self, chunk: VideoChunk) -> None:
        self.chunks += 1
        self._on_reports(self.speech.poll(self.now()))  # playback up to the chunk boundary
        self.timeline.record(ChunkReceived(chunk.index, chunk.start, chunk.end, chunk.has_audio,
                                           len(chunk.frames)))
        offers, context = self._background_tick()
        view = build_view(self.timeline, self.channel, chunk_index=chunk.index,
                          since_seq=self._view_seq, speaking=self.speech.busy,
                          offers=offers, context=context)
        self._view_seq = self.timeline.next_seq
        decision = await self.clock.run_sync(self.frontend.step, chunk, view)
        self.harness.acknowledge_context(self.channel)
        self._apply(decision, chunk.index)
        self._honour_stops()
        self._deliver(offers, user_speaking=decision.user_speaking)
        self.harness.check()

    def _apply(self, decision: Decision, index: int) -> None:
        for event in decision.perceived:
            if type(event).__name__ not in EVENT_TYPES:
                raise TypeError(f"{self.frontend!r} perceived {event!r}, which is not a "
                                f"venus.events event")
            self.timeline.record(event)
        self.timeline.record(ControlTokenEmitted(decision.token, index))
        if decision.floor is not None:
            self.timeline.record(FloorActionTaken(decision.floor, index))
            if decision.floor in _STOPPING:
                self._stop(decision.floor.value)
        if decision.speech:
            self._say(decision.speech)
        for request in decision.delegations:
            self.harness.submit(self.channel, request)

    # -- background side, seen from the foreground -----------------------------------

    def _background_tick(self) -> tuple[list[ResultOffer], list[ResultOffer]]:
        memory = self.memory
        if memory is not None and memory.version != self._memory_version:
            self._memory_version = memory.version
            self.timeline.record(MemoryUpdated(memory.version))
        offers, context = self.harness.reintegrate(self.channel)
        self._honour_stops()
        return offers, context

    def _honour_stops(self) -> None:
        if self.channel.stops:  # a result being spoken was cancelled: stop it now
            self.channel.stops.clear()
            self._stop("delivery cancelled")

    def _deliver(self, offers: list[ResultOffer], *, user_speaking: bool) -> None:
        chosen = self.harness.to_speak(self.channel, offers, assistant_speaking=self.speech.busy,
                                       user_speaking=user_speaking)
        for offer in chosen:
            if offer.policy is DeliveryPolicy.INTERRUPT and self.speech.busy:
                self._stop("interrupted by a background result")
            self._say(offer.speech, offer.item_id)

    def _say(self, text: str, item_id: str | None = None) -> None:
        self._utterances += 1
        uid = f"u{self._utterances}"
        self.speech.queue(Utterance(uid, text, item_id), self.now())
        self.timeline.record(SpeechQueued(uid, text, item_id))
        if item_id is not None:
            self.harness.delivering(self.channel, item_id, uid)
        self._on_reports(self.speech.poll(self.now()))

    def _stop(self, reason: str) -> None:
        self._on_reports(self.speech.stop(self.now()), reason)

    def _on_reports(self, reports: list[PlaybackReport], reason: str = "") -> None:
        for report in reports:
            uid, at = report.utterance_id, report.time
            if report.status is PlaybackStatus.STARTED:
                self.timeline.record(SpeechPlayed(uid), at)
            elif report.status is PlaybackStatus.FINISHED:
                item_id = self.channel.speaking.get(uid)
                self.timeline.record(PlaybackAcknowledged(uid, item_id), at)
                self.harness.on_playback(self.channel, uid, complete=True)
            else:
                self.timeline.record(SpeechStopped(uid, report.heard_fraction, reason or "stopped"),
                                     at)
                self.harness.on_playback(self.channel, uid, complete=False,
                                         heard_fraction=report.heard_fraction)

    # -- after the source ------------------------------------------------------------

    async def _drain(self) -> None:
        """Keep delivering background results for a while after the last chunk."""
        deadline = self.now() + self.options.drain_s
        while self._busy() and self.now() < deadline:
            await self.clock.sleep(self.options.tick_s)
            self._on_reports(self.speech.poll(self.now()))
            offers, _ = self._background_tick()
            self._deliver(offers, user_speaking=False)
            self.harness.check()

    def _busy(self) -> bool:
        return self.speech.busy or any(i.state in _RUNNING for i in self.channel.open())

    async def _finish(self, reason: str) -> None:
        self._stop("session ended")
        await self.harness.detach(self.channel, "session ended")
        self.timeline.record(SessionEnded(reason, self.chunks))
        if self._owns_harness:
            await self.harness.aclose()
        self.timeline.close()

    def _summary(self, reason: str) -> SessionSummary:
        items = self.channel.items.values()
        path = str(self.timeline.path) if self.timeline.path else None
        return SessionSummary(
            self.session_id, self.chunks, reason,
            delivered=sum(i.state is WorkState.DELIVERED for i in items),
            cancelled=sum(i.state is WorkState.CANCELLED for i in items), timeline_path=path)
