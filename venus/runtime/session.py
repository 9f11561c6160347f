"""The Session: the dual loop of one conversation on one causal timeline.

Top of the runtime (composition): ``Session = clock + DuplexIO(output, echo, gate) +
Frontend.decide(frame, view) -> Decision + SessionLink(harness)``. The **foreground
loop** takes one-second `memory.media.VideoChunk`s from a source; each goes through the
session's `DuplexIO` (echo removal, perception, the overlap gate, playback up to the
chunk's end) and the resulting frame to the `Frontend`, whose `Decision` the session
applies: perceived events and the control token go on the timeline, speech is queued or
stopped, delegation requests go to the harness through the session's `SessionLink`. The
**background loop** is the harness: its tasks run on the same event loop, and the
foreground only ever makes non-blocking calls into it, so a capability that takes 30 s
never delays a chunk. At every chunk boundary the session also polls speech playback
(acknowledgements), notices memory updates and ticks the link (reintegration of
finished results).

A file source is paced by the clock at one chunk per second of media time (``pace=True``);
a live source paces itself (``pace=False``). With a `SimulatedClock` an hour of session
runs in seconds and the timeline is the same on every run. `Session.run` is the sync
wrapper of `Session.arun`. A session is a context manager: leaving it closes the frontend
and the duplex I/O (perception's ASR worker). `venus.assistant` builds a whole one.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import AsyncIterable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass
from os import PathLike
from typing import Any

from memory.errors import MemoryToolkitError
from memory.media import VideoChunk
from venus.clock import Clock, WallClock, perf_seconds
from venus.errors import ConfigError
from venus.events import (
    EVENT_TYPES,
    ChunkReceived,
    ControlToken,
    ControlTokenEmitted,
    DeliveryPolicy,
    ErrorCategory,
    ErrorRecorded,
    FloorActionTaken,
    MemoryUpdated,
    PlaybackAcknowledged,
    SessionEnded,
    SessionStarted,
    SpeechPlayed,
    SpeechQueued,
    SpeechStopped,
)
from venus.frontend.base import Decision, DuplexFrame, Frontend, ResultOffer
from venus.harness import Harness, MemoryView, SessionLink, Tick
from venus.runtime.duplex import DuplexIO
from venus.runtime.hops import ChunkTally, check_hop, merge_frames, split_hops
from venus.runtime.view import build_view
from venus.speech.base import PlaybackReport, PlaybackStatus, SpeechOutput, Utterance
from venus.timeline import Timeline

__all__ = ["Session", "SessionOptions", "SessionSummary"]

logger = logging.getLogger(__name__)



@dataclass(frozen=True)
class SessionOptions:
    """``pace``: wait on the clock for each chunk's media time (file sources); ``drain_s``:
    after the source ends, keep delivering background results this long; ``tick_s``: the
    cadence of that drain; ``turn_gap_s``: when a decision cuts the output while it is
    audibly playing (a late verdict: nothing had paused it) and says something new, the
    new words begin this long after the cut, so a listener hears one turn end before the
    next begins (glued to the cut they sound like the same turn; FDB's timing merges gaps
    up to 0.5 s into one). A reply after a pause the gate made is not delayed.
    ``hop_s``: the runtime's hop (`venus.runtime.hops`): each chunk is heard (echo,
    perception, the overlap gate) and played in hops of this length. A frontend decides
    on every hop when its ``hop_s`` is no longer than that (the embedded policy), else once
    per one-second chunk, on the chunk's hops merged into one frame (a model that decodes
    per chunk, or a frontend that names no ``hop_s``)."""

    pace: bool = True
    drain_s: float = 60.0
    tick_s: float = 1.0
    turn_gap_s: float = 0.6
    hop_s: float = 0.1


@dataclass(frozen=True)
class SessionSummary:
    session_id: str
    chunks: int
    reason: str
    delivered: int
    cancelled: int
    timeline_path: str | None


class Session:
    """One conversation: a source, a frontend, its duplex I/O and a (possibly shared) harness.

    ``duplex`` is the audio path (`DuplexIO`); without it the session plays ``speech``
    (default: a `venus.speech.TimedTextOutput`) with no perception, which suits scripted
    frontends (`venus.testing.FakeFrontend`). Without ``harness`` the session makes its
    own from ``capabilities`` and closes it at the end; a shared harness is only
    detached from. ``timeline`` may be a `Timeline` (e.g. `Timeline.load` of a stopped
    session: its work items come back INTERRUPTED), a path for a new JSONL file, or None
    for an in-memory timeline. ``source`` may also be given to `run` / `arun`.
    """

    def __init__(self, frontend: Frontend,
                 source: Iterable[VideoChunk] | AsyncIterable[VideoChunk] | None = None,
                 *, clock: Clock | None = None, harness: Harness | None = None,
                 capabilities: Iterable[Any] = (), speech: SpeechOutput | None = None,
                 duplex: DuplexIO | None = None, memory: MemoryView | None = None,
                 timeline: Timeline | str | PathLike | None = None,
                 session_id: str = "session", options: SessionOptions | None = None) -> None:
        if not isinstance(frontend, Frontend):
            raise ConfigError(f"{frontend!r} is not a venus.frontend.Frontend: it needs a name, "
                              f"decide(frame, view) -> Decision, reset() and close()")
        if duplex is not None and speech is not None and duplex.output is not speech:
            raise ConfigError("give the speech output either as speech= or inside duplex=, "
                              "not two different ones")
        self.frontend = frontend
        self.source = source
        self.duplex = duplex or DuplexIO(speech)
        self.clock = clock or (harness.clock if harness else WallClock())
        if harness is not None and harness.clock is not self.clock:
            raise ConfigError("the session and its shared harness must use the same clock; "
                              "pass clock=harness.clock")
        self._owns_harness = harness is None
        self.harness = harness or Harness(list(capabilities), self.clock)
        self.speech = self.duplex.output
        self.memory = memory
        self.timeline = (timeline if isinstance(timeline, Timeline)
                         else Timeline(session_id, timeline))
        self.session_id = self.timeline.session_id
        self.options = options or SessionOptions()
        self.hop_s = check_hop(self.options.hop_s)
        self._per_hop = (getattr(frontend, "hop_s", None) or 1.0) <= self.hop_s + 1e-9
        self._pending: list[DuplexFrame] = []  # hops heard since the last decision
        self.chunks = 0
        self._tally = ChunkTally()
        self._origin = 0.0
        self._view_seq = 0
        self._utterances = 0
        self._memory_version: int | None = None
        self.link: SessionLink | None = None
        # Wall time per chunk of hearing + deciding as it runs live (bench): in
        # deterministic mode the time spent blocked on due ASR and word-probe results is left out (kept
        # in asr_wait_seconds), since a live step never waits for the worker.
        self.step_seconds: deque[float] = deque(maxlen=100_000)
        self.asr_wait_seconds: deque[float] = deque(maxlen=100_000)

    # -- lifetime ----------------------------------------------------------------------
    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the frontend and the duplex I/O (joins perception's ASR worker)."""
        try:
            self.frontend.close()
        finally:
            self.duplex.close()

    def run(self, source: Iterable[VideoChunk] | AsyncIterable[VideoChunk] | None = None
            ) -> SessionSummary:
        """Run the whole session on its clock (sync wrapper of `arun`)."""
        return self.clock.run(self.arun(source))

    async def arun(self, source: Iterable[VideoChunk] | AsyncIterable[VideoChunk] | None = None
                   ) -> SessionSummary:
        """Run the session over ``source`` (or the one given at construction)."""
        if source is not None:
            self.source = source
        if self.source is None:
            raise ConfigError("the session has no source: pass one to run(source) or Session(...)")
        self._origin = self.clock.now() - self.timeline.last_time  # a resumed session continues
        self.timeline.bind_clock(self.now)
        self._view_seq = self.timeline.next_seq
        self.link = self.harness.attach(self.session_id, self.timeline, self.memory)
        self.timeline.record(SessionStarted(self.clock.kind, self.frontend.name))
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
                self._close_tally()
                return "source ended"
            first = chunk.start if first is None else first
            hops = split_hops(chunk, self.hop_s)
            for i, hop in enumerate(hops):
                if self.options.pace:
                    await self.clock.sleep_until(self._origin + start + hop.end - first)
                await self._step(hop, last_of_split=len(hops) > 1 and i == len(hops) - 1)

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

    async def _step(self, hop: VideoChunk, last_of_split: bool = False) -> None:
        """One hop: hear it, decide, apply. The hop that completes a one-second chunk
        records it (`ChunkReceived`) and the chunk's control token."""
        self._on_reports(self.speech.poll(self.now()))  # playback up to the hop's start
        tally = self._tally
        tally.add(hop)
        complete = tally.completes(hop, last_of_split)
        if complete:
            self._record_chunk()
        elif not self._per_hop:  # a frontend that decides per chunk: hear the hop only
            await self.clock.run_sync(self._hear, hop)
            self._on_reports(self.duplex.take_played())
            return
        tick = self._background_tick()
        view = build_view(self.timeline, self.link, chunk_index=hop.index,
                          since_seq=self._view_seq, speaking=self.speech.busy,
                          offers=tick.offers, context=tick.context)
        self._view_seq = self.timeline.next_seq
        decision = await self.clock.run_sync(self._decide, hop, view)
        self._on_reports(self.duplex.take_played())  # playback as the sink reported it
        self.link.acknowledge_context()
        tally.tokens.append(decision.token)
        self._apply(decision, hop.index, chunk_token(tally.tokens) if complete else None)
        self._honour_stops(self.link.take_stop())
        self._deliver(tick.offers, user_speaking=decision.user_speaking or self.duplex.user_turn)
        self.link.check()

    def _record_chunk(self) -> None:
        tally = self._tally
        self.chunks += 1
        tally.recorded = True
        self.timeline.record(ChunkReceived(tally.index, tally.start, tally.end,
                                           tally.has_audio, tally.frames))

    def _close_tally(self) -> None:
        """The source ended inside a chunk (a file's last part-second): record it."""
        tally = self._tally
        if tally.index is not None and not tally.recorded:
            self._record_chunk()
            if tally.tokens:
                self.timeline.record(ControlTokenEmitted(chunk_token(tally.tokens), tally.index))

    def _hear(self, hop: VideoChunk) -> None:
        """Hear a hop the frontend does not decide on (yet): its frame waits for the chunk."""
        with self._timed():
            self._pending.append(self.duplex.hear(hop))

    def _decide(self, hop: VideoChunk, view) -> Decision:
        """Hear the hop through the duplex I/O, let the frontend decide (on this hop, or on
        the whole chunk the hop completes), settle the gate."""
        with self._timed():
            frames, self._pending = [*self._pending, self.duplex.hear(hop)], []
            decision = self.frontend.decide(merge_frames(frames), view)
            self.duplex.settle(decision, hop.end)
            return decision

    @contextmanager
    def _timed(self):
        """Time a step's hearing and deciding; in deterministic mode the time spent blocked
        on due words (ASR and word probe) is kept apart, since a live step never waits."""
        perception = self.duplex.perception

        def waited() -> float:
            return perception.asr.waited_s + perception.probe_waited_s if perception else 0.0

        began, before = perf_seconds(), waited()
        try:
            yield
        finally:
            wait = waited() - before
            self.asr_wait_seconds.append(wait)
            self.step_seconds.append(perf_seconds() - began - wait)

    def _apply(self, decision: Decision, index: int, token: ControlToken | None) -> None:
        for event in decision.perceived:
            if type(event).__name__ not in EVENT_TYPES:
                raise TypeError(f"{self.frontend!r} perceived {event!r}, which is not a "
                                f"venus.events event")
            self.timeline.record(event)
        if token is not None:  # one token per one-second chunk, the paper's cadence
            self.timeline.record(ControlTokenEmitted(token, index))
        delay = 0.0
        if decision.floor is not None:
            self.timeline.record(FloorActionTaken(decision.floor, index))
            if decision.floor.stops_output:
                control = self.duplex.control
                if control is not None and control.busy and not control.paused:
                    delay = self.options.turn_gap_s  # cut mid-speech: a turn gap first
                self._stop(decision.floor.value)
        if decision.speech:
            self._say(decision.speech, delay=delay)
        for request in decision.delegations:
            self.link.submit(request)

    # -- background side, seen from the foreground -----------------------------------

    def _background_tick(self) -> Tick:
        memory = self.memory
        if memory is not None and memory.version != self._memory_version:
            self._memory_version = memory.version
            self.timeline.record(MemoryUpdated(memory.version))
        tick = self.link.tick()
        self._honour_stops(tick.stop)
        return tick

    def _honour_stops(self, stop: bool) -> None:
        if stop:  # a result being spoken was cancelled: stop it now
            self._stop("delivery cancelled")

    def _deliver(self, offers: tuple[ResultOffer, ...], *, user_speaking: bool) -> None:
        chosen = self.link.choose(offers, assistant_speaking=self.speech.busy,
                                  user_speaking=user_speaking)
        for offer in chosen:
            if offer.policy is DeliveryPolicy.INTERRUPT and self.speech.busy:
                self._stop("interrupted by a background result")
            self._say(offer.speech, offer.item_id)

    def _say(self, text: str, item_id: str | None = None, delay: float = 0.0) -> None:
        self._utterances += 1
        uid = f"u{self._utterances}"
        self.speech.queue(Utterance(uid, text, item_id), self.now() + delay)
        self.timeline.record(SpeechQueued(uid, text, item_id))
        if item_id is not None:
            self.link.delivering(item_id, uid)
        self._on_reports(self.speech.poll(self.now()))

    def _stop(self, reason: str) -> None:
        self._on_reports(self.speech.stop(self.now()), reason)

    def _on_reports(self, reports: list[PlaybackReport], reason: str = "") -> None:
        for report in reports:
            uid, at = report.utterance_id, report.time
            if report.status is PlaybackStatus.STARTED:
                self.timeline.record(SpeechPlayed(uid), at)
            elif report.status is PlaybackStatus.FINISHED:
                self.timeline.record(PlaybackAcknowledged(uid, self.link.delivered_by(uid)), at)
                self.link.on_playback(report)
            else:
                self.timeline.record(SpeechStopped(uid, report.heard_fraction, reason or "stopped"),
                                     at)
                self.link.on_playback(report)

    def poll_output(self) -> None:
        """Between hops: let the output start what became ready since the last one (a
        reply's first audio, synthesized ahead), so it plays from now rather than from
        the next hop. Commits nothing past the input already heard."""
        self._on_reports(self.speech.poll(self.now()))

    # -- after the source ------------------------------------------------------------

    async def _drain(self) -> None:
        """Keep delivering background results for a while after the last chunk."""
        deadline = self.now() + self.options.drain_s
        while self._busy() and self.now() < deadline:
            await self.clock.sleep(self.options.tick_s)
            self._on_reports(self.speech.poll(self.now()))
            tick = self._background_tick()
            self._deliver(tick.offers, user_speaking=False)
            self.link.check()

    def _busy(self) -> bool:
        return self.speech.busy or self.link.busy

    async def _finish(self, reason: str) -> None:
        self._stop("session ended")
        await self.link.close("session ended")
        self.timeline.record(SessionEnded(reason, self.chunks))
        if self._owns_harness:
            await self.harness.aclose()
        self.timeline.close()

    def _summary(self, reason: str) -> SessionSummary:
        delivered, cancelled = self.link.counts()
        path = str(self.timeline.path) if self.timeline.path else None
        return SessionSummary(self.session_id, self.chunks, reason, delivered=delivered,
                              cancelled=cancelled, timeline_path=path)


def chunk_token(tokens: list[ControlToken]) -> ControlToken:
    """The control token of a one-second chunk from its hops' tokens: the last hop's,
    except that a turn that ended in the chunk (and no speech after) stays ``turn_eos``."""
    last = tokens[-1]
    if last is ControlToken.LISTEN and ControlToken.TURN_EOS in tokens:
        return ControlToken.TURN_EOS
    return last
