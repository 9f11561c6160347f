"""The video-source seam and the chunking logic every source shares.

A `VideoSource` yields one-second `memory.media.VideoChunk`s: chunk ``i`` covers media
time ``[i, i + 1)`` (the last one may be shorter), holds the frames sampled at
``fps`` (sample ``j`` is at ``j / fps``; each holds the decoded frame nearest that
time) and exactly that span of 16 kHz mono audio.

This module sits at the bottom of `memory.video`: it knows nothing about decoders.
`FrameSampler` picks the nearest frame per sample time from a stream of timed frames
(without converting any frame to pixels), `AudioBuffer` cuts a continuous 16 kHz
stream into chunk-exact slices. The file sources (PyAV, decord) and the camera source
are built on top of these two.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

from memory.media import SAMPLE_RATE, VideoChunk, VideoInfo

__all__ = [
    "AudioBuffer",
    "FrameSampler",
    "VideoSource",
    "chunk_samples",
    "first_sample_index",
    "silence",
]

_EPS = 1e-6  # media times are floats; a sample "at" 2.0 must not slip into chunk 1

F = TypeVar("F")


@runtime_checkable
class VideoSource(Protocol):
    """Anything that yields one-second `VideoChunk`s: a file, a camera, a test fake.

    Use it as a context manager (or call `close`) so decoder handles and capture
    threads are released.
    """

    @property
    def info(self) -> VideoInfo: ...

    def __iter__(self) -> Iterator[VideoChunk]: ...

    def close(self) -> None: ...

    def __enter__(self) -> VideoSource: ...

    def __exit__(self, *exc: Any) -> None: ...


def first_sample_index(t: float, fps: float) -> int:
    """Index ``j`` of the first sample time ``j / fps`` at or after ``t``."""
    return max(0, math.ceil(t * fps - _EPS))


def chunk_samples(index: int, end: float, fps: float) -> list[float]:
    """The sample times of chunk ``index``: ``j / fps`` in ``[index, min(index + 1, end))``."""
    stop = min(index + 1.0, end)
    j = first_sample_index(index, fps)
    times = []
    while j / fps < stop - _EPS:
        times.append(j / fps)
        j += 1
    return times


def silence(start: float, end: float) -> np.ndarray:
    """Silent 16 kHz audio covering ``[start, end)``."""
    return np.zeros(_sample(end) - _sample(start), np.float32)


def _sample(t: float) -> int:
    return int(round(float(t) * SAMPLE_RATE))


class FrameSampler(Generic[F]):
    """Streaming nearest-frame selection at a fixed sampling rate.

    Feed decoded frames in presentation order with `offer`; it returns the
    ``(sample_time, frame)`` pairs that became decidable: a sample time is decided
    once a frame at or after it arrives (the nearer of that frame and the one before
    wins; a tie goes to the earlier frame). Frames are opaque here, so a decoder
    converts to RGB only the frames this returns. `finish` decides the samples left
    before ``end`` with the last frame.
    """

    def __init__(self, fps: float, start: float = 0.0) -> None:
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.fps = fps
        self._next = first_sample_index(start, fps)
        self._prev: tuple[float, F] | None = None

    @property
    def next_time(self) -> float:
        """The earliest sample time not decided yet."""
        return self._next / self.fps

    def offer(self, time: float, frame: F) -> list[tuple[float, F]]:
        decided = []
        while self.next_time <= time + _EPS:
            target = self.next_time
            pick = frame
            if self._prev is not None and target - self._prev[0] <= time - target:
                pick = self._prev[1]
            decided.append((target, pick))
            self._next += 1
        self._prev = (time, frame)
        return decided

    def finish(self, end: float) -> list[tuple[float, F]]:
        """Decide every sample before ``end`` with the last frame (the stream ended)."""
        decided = []
        while self._prev is not None and self.next_time < end - _EPS:
            decided.append((self.next_time, self._prev[1]))
            self._next += 1
        return decided


class AudioBuffer:
    """A continuous 16 kHz stream cut into chunk-exact slices.

    The first `add` fixes where the stream starts on the media timeline; later pieces
    follow it without gaps. `take(start, end)` returns exactly the samples of
    ``[start, end)`` (zeros where the stream has none) and forgets everything before
    ``end``, so the buffer holds only the audio not yet handed out. With ``channels``
    above 1, pieces and slices are ``(channels, n)`` arrays (a file source downmixes
    each slice itself); mono slices are ``(n,)``.
    """

    RESYNC = 0.05  # seconds; resampler delay is far below this

    def __init__(self, channels: int = 1) -> None:
        self.channels = channels
        self._pieces: list[np.ndarray] = []
        self._first: int | None = None  # sample index of the buffer's first sample
        self._count = 0

    @property
    def reached(self) -> float:
        """Media time up to which audio has arrived (0 before any)."""
        return 0.0 if self._first is None else (self._first + self._count) / SAMPLE_RATE

    def add(self, time: float | None, samples: np.ndarray) -> None:
        """Append ``samples`` that start at media ``time`` (None: right after the last).

        A piece more than `RESYNC` seconds away from where the stream has reached
        re-synchronises it (a gap becomes silence, an overlap is dropped), so a
        timestamp jump in the file does not shift every later second.
        """
        samples = np.asarray(samples, np.float32).reshape(self.channels, -1)
        if samples.shape[1] == 0:
            return
        if self._first is None:
            self._first = _sample(time or 0.0)
        elif time is not None and abs(time - self.reached) > self.RESYNC:
            shift = _sample(time) - (self._first + self._count)
            if shift > 0:
                self._append(np.zeros((self.channels, shift), np.float32))
            else:
                samples = samples[:, -shift:]
        self._append(samples)

    def _append(self, samples: np.ndarray) -> None:
        if samples.shape[1]:
            self._pieces.append(samples)
            self._count += samples.shape[1]

    def take(self, start: float, end: float) -> np.ndarray:
        lo, hi = _sample(start), _sample(end)
        out = np.zeros((self.channels, hi - lo), np.float32)
        if self._first is not None:
            data = self._data()
            a, b = max(lo, self._first), min(hi, self._first + data.shape[1])
            if b > a:
                out[:, a - lo: b - lo] = data[:, a - self._first: b - self._first]
            self._forget(hi, data)
        return out[0] if self.channels == 1 else out

    def drop(self, until: float) -> None:
        """Forget the audio before ``until`` without handing it out (a resumed decode
        reads the stream from its start so the audio after the resume point is exact)."""
        if self._first is not None and _sample(until) > self._first:
            self._forget(_sample(until), self._data())

    def _data(self) -> np.ndarray:
        if len(self._pieces) == 1:
            return self._pieces[0]
        if not self._pieces:
            return np.zeros((self.channels, 0), np.float32)
        return np.concatenate(self._pieces, axis=1)

    def _forget(self, hi: int, data: np.ndarray) -> None:
        drop = min(max(hi - self._first, 0), data.shape[1])
        rest = data[:, drop:]
        self._pieces = [rest] if rest.shape[1] else []
        self._first += drop
        self._count = rest.shape[1]
