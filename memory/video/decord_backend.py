"""The optional decord decoder, behind the same `VideoSource` interface as PyAV.

Users ask for decord by name, so it is offered (``pip install 'realtime-venus[decord]'``),
but PyAV stays the default: `venus bench decode --decoder both` measured decord slower
here. decord reads the frame index up front, so each chunk asks for exactly the frames
nearest its sample times (one small ``get_batch`` per chunk: memory stays bounded,
unlike one batch for the whole file). decord's own audio reader decodes the whole
track at open, so audio comes from PyAV, streamed the same way as the PyAV source; and
the file is validated by the same PyAV probe, so bad input raises the same errors.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from memory.errors import MissingExtraError, NotAVideoError, TruncatedVideoError
from memory.media import Frame, VideoChunk, VideoInfo
from memory.video.base import chunk_samples, silence
from memory.video.probe import open_input, reason, stream_rotation
from memory.video.streams import (
    MAX_SIDE,
    AudioDecoder,
    audio_channels,
    picture_size,
    stream_duration,
    stream_origin,
    upright,
)

__all__ = ["DecordVideoSource"]

logger = logging.getLogger(__name__)

_EPS = 1e-6


def _import_decord() -> Any:
    try:
        import decord
    except ImportError:
        raise MissingExtraError("decord", "decord", "The decord video decoder") from None
    return decord


class DecordVideoSource:
    """A video file decoded by decord; see `memory.video.open_video`."""

    decoder = "decord"

    def __init__(self, path: str | bytes | os.PathLike, fps: float = 1.0, start: float = 0.0,
                 max_side: int | None = MAX_SIDE) -> None:
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps}")
        if start < 0:
            raise ValueError(f"start must be >= 0 seconds, got {start}")
        decord = _import_decord()
        self.fps = fps
        self._first = math.floor(start + _EPS)
        self._container, video, self._audio, loc = open_input(path)
        self.path = str(loc)
        self.rotation = stream_rotation(loc)
        coded = (video.codec_context.width, video.codec_context.height)
        width, height = picture_size(*coded, max_side)
        scale = {} if (width, height) == coded else {"width": width, "height": height}
        try:
            self._reader = decord.VideoReader(self.path, ctx=decord.cpu(0), **scale)
        except Exception as exc:  # decord raises DECORDError/RuntimeError with C++ context
            self._container.close()
            raise self._translate(exc) from None
        # decord times count from the stream's first frame, as chunk times do.
        self._times = self._reader.get_frame_timestamp(np.arange(len(self._reader)))[:, 0]
        self._duration = stream_duration(self._container, video) or float(
            self._reader.get_frame_timestamp(len(self._reader) - 1)[1])
        self._origin = stream_origin(video)
        self._size = (height, width) if self.rotation % 180 else (width, height)
        if self._audio is None:
            logger.warning("%s has no audio stream; its chunks carry silence (has_audio=False)",
                           self.path)
        self._iterated = False

    def _translate(self, exc: Exception) -> Exception:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "av_read_frame" in text:
            return TruncatedVideoError(
                f"{self.path} is truncated or corrupt: decord stops at its first unreadable "
                f"packet and decodes nothing; use decoder='pyav' to decode the readable part",
                self.path, seconds_decoded=0.0)
        return NotAVideoError(f"decord cannot read {self.path} ({text}); try decoder='pyav'",
                              self.path)

    @property
    def info(self) -> VideoInfo:
        return VideoInfo(path=self.path, duration=self._duration, width=self._size[0],
                         height=self._size[1], native_fps=float(self._reader.get_avg_fps()),
                         has_audio=self._audio is not None, decoder=self.decoder,
                         rotation=self.rotation)

    def __iter__(self) -> Iterator[VideoChunk]:
        if self._iterated:
            raise RuntimeError("a video source can be iterated once; open the file again")
        self._iterated = True
        return self._chunks()

    def close(self) -> None:
        self._container.close()
        self._reader = None

    def __enter__(self) -> DecordVideoSource:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _chunks(self) -> Iterator[VideoChunk]:
        audio = _AudioStream(self._container, self._audio, self._origin, self._first)
        last = math.ceil(self._duration - _EPS)
        for index in range(self._first, last):
            stop = min(index + 1.0, self._duration)
            frames = self._frames(index, stop)
            if self._audio is None:
                yield VideoChunk(index, float(index), stop, frames, silence(index, stop), False)
            else:
                yield VideoChunk(index, float(index), stop, frames, audio.slice(index, stop))

    def _frames(self, index: int, stop: float) -> tuple[Frame, ...]:
        times = chunk_samples(index, self._duration, self.fps)
        if not times:
            return ()
        picks = [self._nearest(t) for t in times]
        try:
            images = self._reader.get_batch(picks).asnumpy()
        except Exception as exc:  # decord cannot decode a frame it indexed: a broken file
            raise TruncatedVideoError(
                f"{self.path} is truncated or corrupt: decord failed at {times[0]:.1f} s "
                f"({str(exc).splitlines()[0]})", self.path, seconds_decoded=float(index)) from None
        return tuple(Frame(t, upright(np.ascontiguousarray(img), self.rotation))
                     for t, img in zip(times, images))

    def _nearest(self, t: float) -> int:
        """The frame nearest ``t``; a tie goes to the earlier frame (as in FrameSampler)."""
        i = int(np.searchsorted(self._times, t + _EPS))
        if i == 0:
            return 0
        if i >= len(self._times) or t - self._times[i - 1] <= self._times[i] - t:
            return i - 1
        return i


class _AudioStream:
    """PyAV audio of one stream, decoded just far enough for the chunk asked for.

    Always decoded from the stream's start (audio before a resume point is dropped), so
    a resumed pass hears exactly what a whole pass hears.
    """

    def __init__(self, container: Any, stream: Any, origin: float, first: int) -> None:
        self._decoder = AudioDecoder(origin, audio_channels(stream)) \
            if stream is not None else None
        self._done = stream is None
        self._first = first
        if stream is not None:
            self._packets = container.demux(stream)

    def slice(self, start: float, stop: float) -> np.ndarray:
        assert self._decoder is not None
        while not self._done and self._decoder.buffer.reached < stop - _EPS:
            self._decode_next()
            if self._first and start <= self._first:
                self._decoder.buffer.drop(float(self._first))
        return self._decoder.slice(start, stop)

    def _decode_next(self) -> None:
        import av

        assert self._decoder is not None
        try:
            packet = next(self._packets)
        except StopIteration:
            self._decoder.flush()
            self._done = True
            return
        except av.error.FFmpegError as exc:  # the file ends early: pad the rest with silence
            logger.warning("audio stops early (%s); padding with silence", reason(exc))
            self._done = True
            return
        try:
            frames = packet.decode()
        except av.error.FFmpegError as exc:  # one broken packet: skip it, keep the rest
            logger.warning("skipped a corrupt audio packet (%s)", reason(exc))
            return
        for frame in frames:
            self._decoder.push(frame)
