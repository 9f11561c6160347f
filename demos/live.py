"""`LiveSource`: the app's schedule of audio hops, fed by the browser's camera and mic.

Below `demos.state`. The session reads it as an async source (``pace=False``: it paces
itself on the injected clock). It yields `memory.media.VideoChunk` hops of ``hop_s``
(0.1 s) on one session-time axis, numbered by the second they fall in, as soon as their
audio is in: the floor is decided on hops (`venus.runtime.hops`), and the hops of each
second also go, as one one-second chunk with the webcam's newest frame, to ``on_chunk``
(the app adds them to the video memory in its own worker, off the schedule).

**Nothing is invented.** Microphone audio is placed on the axis where it was captured:
when it arrives (in the browser's batches) its last sample is taken as captured then,
unless it follows on from the audio before it, which it then continues sample for
sample (arrival jitter never moves audio that is contiguous). Nothing is zero-padded
into a stretch that carried audio: a stretch nothing arrived for, once ``jitter_s`` has
passed without it, is a *gap* hop, silent with ``has_audio`` False, so control tokens,
overlap handling and background delivery keep their cadence without a microphone.
Audio that arrives for a stretch already handed out as a gap is dropped (shifting it
later would delay everything after it for good). Lag cannot ratchet: a hop is handed out as soon as its audio is in (not on the
next whole second), and audio more than ``max_lag_s`` behind the clock is dropped (a
gap, stamped) rather than queued.

Given an ``idle`` test (the app's: nothing is being said and no background work is open),
an unbounded schedule goes to sleep after ``quiet_after`` seconds in a row that carried
nothing while ``idle()`` held, and wakes on the next input (`push_frame`, `push_audio`,
`wake`, `close`): an idle tab's conversation costs nothing. After a sleep the axis jumps
to the clock (the session sees a jump). Browser threads only append to locked buffers;
`close` ends the stream at the next hop.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
from collections.abc import AsyncIterator, Callable

import numpy as np

from memory.audio import resample
from memory.media import SAMPLE_RATE, Frame, VideoChunk
from venus.clock import Clock

__all__ = ["LiveSource"]

_EPS = 1e-6
_POLL_S = 0.02  # how often a hop waiting for its audio looks again
_STREAMING_S = 2.0


class LiveSource:
    """Hops of ``hop_s`` on ``clock`` time, numbered by second from ``first_index``.

    ``on_chunk`` is called with each one-second chunk that carried camera frames. With
    ``keep_frames`` False (file mode: the video is the file) webcam frames are not kept.
    ``last_frame_at`` is the clock time of the newest webcam frame (None before the
    first). ``max_chunks`` ends the schedule after that many seconds (tests).
    ``gaps`` counts the hops handed out without audio while a microphone was streaming
    and ``dropped_s`` the audio dropped for lag (for tests, benchmarks and the curious).
    """

    def __init__(self, clock: Clock, first_index: int = 0,
                 on_chunk: Callable[[VideoChunk], None] | None = None,
                 max_chunks: int | None = None, keep_frames: bool = True,
                 idle: Callable[[], bool] | None = None, quiet_after: int = 5,
                 hop_s: float = 0.1, jitter_s: float = 0.6, max_lag_s: float = 1.5) -> None:
        self.clock = clock
        self.idle = idle
        self.quiet_after = quiet_after
        self.sleeps = 0  # times the schedule went to sleep
        self.first_index = first_index
        self.on_chunk = on_chunk
        self.max_chunks = max_chunks
        self.keep_frames = keep_frames
        self.hop_samples = round(hop_s * SAMPLE_RATE)
        self.jitter_s = jitter_s
        self.max_lag_s = max_lag_s
        self.last_frame_at: float | None = None
        self.gaps = 0
        self.dropped_s = 0.0
        self._lock = threading.Lock()
        self._frames: list[np.ndarray] = []
        # received audio not handed out yet, from sample `_at` of the axis (samples since
        # the schedule's origin); None while nothing is buffered
        self._audio = np.zeros(0, np.float32)
        self._at: int | None = None
        self._origin = clock.now() - first_index  # clock time of sample 0 of the axis
        self._out = first_index * SAMPLE_RATE  # the axis is handed out up to this sample
        self._heard_at: float | None = None  # clock time audio last arrived
        self._begun = False  # the schedule has begun handing out hops
        self._closed = threading.Event()
        self._woken = False
        self._waker: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None
        self._asleep = False

    # -- browser side ------------------------------------------------------------------
    def push_frame(self, rgb: np.ndarray) -> None:
        """A webcam frame (H x W x 3 uint8); the newest of each second is kept."""
        if not self.keep_frames:
            return
        frame = np.ascontiguousarray(np.asarray(rgb, dtype=np.uint8)[..., :3])
        with self._lock:
            self._frames[:] = [frame]
            self.last_frame_at = self.clock.now()
        self.wake()

    def push_audio(self, sample_rate: int, samples: np.ndarray,
                   captured_at: float | None = None) -> None:
        """Microphone samples at any rate (int16 or float, mono or stereo); ``captured_at``
        is the clock time of their last sample (default: now, as they arrive)."""
        audio = np.asarray(samples)
        if audio.ndim == 2:
            audio = audio.mean(axis=1)
        if np.issubdtype(audio.dtype, np.integer):
            audio = audio.astype(np.float32) / float(np.iinfo(audio.dtype).max)
        audio = resample(audio.astype(np.float32), int(sample_rate), SAMPLE_RATE)
        if not len(audio):
            return
        end = self.clock.now() if captured_at is None else captured_at
        with self._lock:
            self._place(audio, round((end - self._origin) * SAMPLE_RATE))
        self.wake()

    def _place(self, audio: np.ndarray, end: int) -> None:
        self._heard_at = self.clock.now()
        """Put ``audio`` on the axis: after the audio before it when it follows on
        (within the jitter), else where it was captured; never over what was handed out."""
        tail = self._out if self._at is None else self._at + len(self._audio)
        start = end - len(audio)
        if self._at is not None and abs(start - tail) <= self.jitter_s * SAMPLE_RATE:
            start = tail  # contiguous with what is buffered: arrival jitter moves nothing
        if not self._begun:  # before the schedule begins: what came opens it
            start = tail if self._at is not None else self._out
        if start < self._out:  # a stretch handed out already (as a gap): dropped, since
            # shifting it later would delay everything after it for good
            cut = min(len(audio), self._out - start)
            self.dropped_s += cut / SAMPLE_RATE
            audio, start = audio[cut:], self._out
            if not len(audio):
                return
        if self._at is None:
            self._audio, self._at = audio, start
        elif start <= tail:
            self._audio = np.concatenate([self._audio, audio])
        else:  # a gap inside the buffer: silence, stamped by the hop that holds it
            self._audio = np.concatenate([self._audio, np.zeros(start - tail, np.float32),
                                          audio])

    def wake(self) -> None:
        """Something arrived (a typed turn, a decision about work): a sleeping schedule
        delivers its next hop at once."""
        with self._lock:
            self._woken = True
            waker = self._waker
        if waker is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended
                waker[0].call_soon_threadsafe(waker[1].set)

    def close(self) -> None:
        self._closed.set()
        self.wake()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def asleep(self) -> bool:
        """The schedule is asleep, waiting for an input (an idle tab)."""
        with self._lock:
            return self._waker is not None and self._asleep


    # -- session side ------------------------------------------------------------------
    async def __aiter__(self) -> AsyncIterator[VideoChunk]:
        with self._lock:
            self._begun = True  # second k of the axis is index k, from now on
            self._origin = self.clock.now() - self.first_index
        seconds = quiet = 0
        while not self.closed and (self.max_chunks is None or seconds < self.max_chunks):
            if quiet >= self.quiet_after and await self._sleep():
                if self.closed:
                    return
                self._jump()
                quiet = 0
            hops: list[VideoChunk] = []
            while not hops or round(hops[-1].end * SAMPLE_RATE) % SAMPLE_RATE:
                # the last hop of the second carries its newest webcam frame
                last = (self._out + self.hop_samples) % SAMPLE_RATE == 0
                hop = await self._next_hop(last)
                if hop is None:
                    return
                hops.append(hop)
                yield hop
            chunk = _second(hops)
            if chunk.frames and self.on_chunk is not None:
                self.on_chunk(chunk)
            seconds += 1
            with self._lock:
                woken, self._woken = self._woken, False
            calm = not (woken or chunk.frames or chunk.has_audio)
            quiet = quiet + 1 if calm and self.idle is not None and self.idle() else 0

    async def _next_hop(self, last_of_second: bool) -> VideoChunk | None:
        """The next hop of the axis: handed out once its audio is in, or, with none coming,
        once ``jitter_s`` past its end (a gap); None once closed."""
        a = self._out
        b = a + self.hop_samples
        due = self._origin + b / SAMPLE_RATE
        while True:
            with self._lock:
                self._drop_lag()
                have = self._buffered_until()
            if have >= b:
                break
            now = self.clock.now()
            grace = self.jitter_s if self._streaming(now) else 0.0
            if now >= due + grace - _EPS:
                break  # nothing (or not all of it) came in time: the rest is a gap
            wait_until = due if now < due - _EPS else due + grace
            # in small steps: audio that comes in meanwhile is handed out at once
            await self.clock.sleep_until(min(wait_until, now + _POLL_S))
            if self.closed:
                return None
        with self._lock:
            audio, heard = self._take(a, b)
        self._out = b
        index = math.floor(a / SAMPLE_RATE + _EPS)
        start, end = a / SAMPLE_RATE, b / SAMPLE_RATE
        frames = self._take_frames() if last_of_second else ()
        stamped = tuple(Frame(start, f) for f in frames)
        if not heard and self._streaming(self.clock.now()):
            self.gaps += 1
        return VideoChunk(index, start, end, stamped, audio, heard)

    def _streaming(self, now: float) -> bool:
        """A microphone is sending (audio came within the last two seconds): a hop waits
        ``jitter_s`` for its audio before it is a gap; otherwise hops keep the clock."""
        return self._heard_at is not None and now - self._heard_at < _STREAMING_S

    def _buffered_until(self) -> int:
        return self._out if self._at is None else self._at + len(self._audio)

    def _take(self, a: int, b: int) -> tuple[np.ndarray, bool]:
        """Samples ``[a, b)`` of the axis (silence where none came) and whether any came."""
        out = np.zeros(b - a, np.float32)
        if self._at is None:
            return out, False
        lo, hi = max(a, self._at), min(b, self._at + len(self._audio))
        heard = hi > lo
        if heard:
            out[lo - a:hi - a] = self._audio[lo - self._at:hi - self._at]
        keep = max(0, b - self._at)
        self._audio = self._audio[keep:]
        self._at = None if not len(self._audio) else max(b, self._at)
        return out, heard

    def _drop_lag(self) -> None:
        """Audio more than ``max_lag_s`` behind the clock is dropped: the schedule jumps."""
        now = round((self.clock.now() - self._origin) * SAMPLE_RATE)
        late = now - int(self.max_lag_s * SAMPLE_RATE) - self._out
        if late > 0:
            skip = late - late % self.hop_samples + self.hop_samples
            if self._at is not None:
                cut = max(0, min(len(self._audio), self._out + skip - self._at))
                self.dropped_s += cut / SAMPLE_RATE
                self._audio = self._audio[cut:]
                self._at = None if not len(self._audio) else self._at + cut
            self._out += skip

    def _jump(self) -> None:
        """After a sleep: the axis continues at the start of the second the first new
        input falls in (the audio that woke it, or the clock)."""
        now = round((self.clock.now() - self._origin) * SAMPLE_RATE)
        with self._lock:
            first = now if self._at is None else min(self._at, now)
            target = first - first % SAMPLE_RATE
            self._out = max(self._out, target)

    def _take_frames(self) -> tuple[np.ndarray, ...]:
        with self._lock:
            frames, self._frames = self._frames, []
        return tuple(frames)

    async def _sleep(self) -> bool:
        """Wait for an input (True), unless one came in meanwhile (False)."""
        if self.idle is None or not self.idle():
            return False
        event = asyncio.Event()
        with self._lock:
            if self._woken or self.closed:
                return False
            self._waker = (asyncio.get_running_loop(), event)
            self._asleep = True
        self.sleeps += 1
        try:
            await event.wait()
        finally:
            with self._lock:
                self._waker, self._asleep = None, False
        return True


def _second(hops: list[VideoChunk]) -> VideoChunk:
    """The hops of one second as the one-second chunk the memory keeps."""
    first = hops[0]
    return VideoChunk(first.index, first.start, hops[-1].end,
                      tuple(f for h in hops for f in h.frames),
                      np.concatenate([np.asarray(h.audio, np.float32) for h in hops]),
                      any(h.has_audio for h in hops))
