"""`LiveSource`: the app's one-second chunk schedule, fed by the browser's camera and mic.

Below `demos.state`. The session reads it as an async source (``pace=False``: it paces
itself on the injected clock). Each second it yields a `memory.media.VideoChunk` holding
the webcam frames and microphone audio the browser streamed during that second, or an
empty, silent chunk when nothing was streamed, so control tokens, overlap handling and
background delivery keep their cadence with or without a camera. Browser threads only
append to locked buffers; `close` ends the stream at the next boundary.
"""

from __future__ import annotations

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
                 max_chunks: int | None = None, keep_frames: bool = True) -> None:
        self.clock = clock
        self.first_index = first_index
        self.on_chunk = on_chunk
        self.max_chunks = max_chunks
        self.keep_frames = keep_frames
        self.last_frame_at: float | None = None
        self._lock = threading.Lock()
        self._frames: list[np.ndarray] = []
        self._audio: list[np.ndarray] = []
        self._closed = threading.Event()

    # -- browser side ------------------------------------------------------------------
    def push_frame(self, rgb: np.ndarray) -> None:
        """A webcam frame (H x W x 3 uint8); the newest of each second is kept."""
        if not self.keep_frames:
            return
        frame = np.ascontiguousarray(np.asarray(rgb, dtype=np.uint8)[..., :3])
        with self._lock:
            self._frames[:] = [frame]
            self.last_frame_at = self.clock.now()

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

    def close(self) -> None:
        self._closed.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    # -- session side ------------------------------------------------------------------
    async def __aiter__(self) -> AsyncIterator[VideoChunk]:
        start = self.clock.now()
        count = 0
        while not self.closed and (self.max_chunks is None or count < self.max_chunks):
            await self.clock.sleep_until(start + count + 1)
            if self.closed:
                return
            chunk = self._take(self.first_index + count)
            count += 1
            if chunk.frames and self.on_chunk is not None:
                self.on_chunk(chunk)
            yield chunk

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
