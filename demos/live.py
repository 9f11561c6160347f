"""`LiveSource`: the app's one-second chunk schedule, fed by the browser's camera and mic.

Below `demos.state`. The session reads it as an async source (``pace=False``: it paces
itself on the injected clock). Each second it yields a `memory.media.VideoChunk` holding
the webcam frames and microphone audio the browser streamed during that second, or an
empty, silent chunk when nothing was streamed, so control tokens, overlap handling and
background delivery keep their cadence with or without a camera. Browser threads only
append to locked buffers; `close` ends the stream at the next boundary.

Given an ``idle`` test (the app's: nothing is being said and no background work is open),
an unbounded schedule goes to sleep after ``quiet_after`` chunks in a row that carried
nothing while ``idle()`` held, and wakes on the next input (`push_frame`, `push_audio`,
`wake`, `close`): an idle tab's conversation costs nothing. The chunk after a sleep is
numbered by the clock, so chunk times stay session times (the session sees a jump).
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

_MAX_AUDIO_S = 5.0  # drop older mic audio if the schedule fell behind (never unbounded)


class LiveSource:
    """One chunk per second of ``clock`` time, numbered from ``first_index``.

    ``on_chunk`` is called with each chunk that carried camera frames (the app adds them
    to the video memory in its own worker, off the schedule). With ``keep_frames`` False
    (file mode: the video is the file) webcam frames are not kept. ``last_frame_at`` is
    the clock time of the newest webcam frame (None before the first).
    """

    def __init__(self, clock: Clock, first_index: int = 0,
                 on_chunk: Callable[[VideoChunk], None] | None = None,
                 max_chunks: int | None = None, keep_frames: bool = True,
                 idle: Callable[[], bool] | None = None, quiet_after: int = 5) -> None:
        self.clock = clock
        self.idle = idle
        self.quiet_after = quiet_after
        self.sleeps = 0  # times the schedule went to sleep (for tests and the curious)
        self.first_index = first_index
        self.on_chunk = on_chunk
        self.max_chunks = max_chunks
        self.keep_frames = keep_frames
        self.last_frame_at: float | None = None
        self._lock = threading.Lock()
        self._frames: list[np.ndarray] = []
        self._audio: list[np.ndarray] = []
        self._closed = threading.Event()
        self._woken = False  # an input since the schedule last decided to sleep
        self._waker: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

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

    def push_audio(self, sample_rate: int, samples: np.ndarray) -> None:
        """Microphone samples at any rate (int16 or float, mono or stereo)."""
        audio = np.asarray(samples)
        if audio.ndim == 2:
            audio = audio.mean(axis=1)
        if np.issubdtype(audio.dtype, np.integer):
            audio = audio.astype(np.float32) / float(np.iinfo(audio.dtype).max)
        audio = resample(audio.astype(np.float32), int(sample_rate), SAMPLE_RATE)
        with self._lock:
            self._audio.append(audio)
            while sum(len(a) for a in self._audio) > _MAX_AUDIO_S * SAMPLE_RATE:
                self._audio.pop(0)
        self.wake()

    def wake(self) -> None:
        """Something arrived (a typed turn, a decision about work): a sleeping schedule
        delivers its next chunk at the next second of the clock."""
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

    # -- session side ------------------------------------------------------------------
    async def __aiter__(self) -> AsyncIterator[VideoChunk]:
        start = self.clock.now()
        count = quiet = 0
        while not self.closed and (self.max_chunks is None or count < self.max_chunks):
            if quiet >= self.quiet_after and await self._sleep():
                if self.closed:
                    return
                count = max(count, math.floor(self.clock.now() - start))
                quiet = 0
            await self.clock.sleep_until(start + count + 1)
            if self.closed:
                return
            chunk = self._take(self.first_index + count)
            count += 1
            if chunk.frames and self.on_chunk is not None:
                self.on_chunk(chunk)
            with self._lock:
                woken, self._woken = self._woken, False
            calm = not (woken or chunk.frames or chunk.has_audio)
            quiet = quiet + 1 if calm and self.idle is not None and self.idle() else 0
            yield chunk

    async def _sleep(self) -> bool:
        """Wait for an input (True), unless one came in meanwhile (False)."""
        if self.idle is None or not self.idle():
            return False
        event = asyncio.Event()
        with self._lock:
            if self._woken or self.closed:
                return False
            self._waker = (asyncio.get_running_loop(), event)
        self.sleeps += 1
        try:
            await event.wait()
        finally:
            with self._lock:
                self._waker = None
        return True

    def _take(self, index: int) -> VideoChunk:
        with self._lock:
            frames, self._frames = self._frames, []
            audio = np.concatenate(self._audio) if self._audio else np.zeros(0, np.float32)
            self._audio = [audio[SAMPLE_RATE:]] if len(audio) > SAMPLE_RATE else []
        heard = len(audio) > 0
        second = np.zeros(SAMPLE_RATE, np.float32)
        second[:min(len(audio), SAMPLE_RATE)] = audio[:SAMPLE_RATE]
        start = float(index)
        return VideoChunk(index, start, start + 1.0,
                          tuple(Frame(start, f) for f in frames), second, heard)
