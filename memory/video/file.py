"""Video files as one-second chunks, decoded with PyAV (the default decoder).

`open_video` is the entry point for files; it validates the file once (missing, empty,
not a video, no video stream, unreadable codec, lost MP4 index) so every backend
reports bad input with the same `memory.errors` error, then hands over to the PyAV
source here or to the optional decord backend.

Why one pass with skipping, not seeking: the audio is needed whole, so every packet is
read in order anyway; a video packet is decoded only when no keyframe lies between it
and the next sample time (`_Keyframes`), and only the kept frames are converted to RGB.
Measured on a 640x360 30 fps H.264 hour with 2 s keyframe intervals at 1 fps (2 shared
cores): plain sequential decoding 53-57 s, this 34-42 s; seeking to every sample is
competitive only for short keyframe intervals and re-decodes whole GOPs for long ones,
and it would break the audio stream. Memory stays flat (106 MB peak for that hour, 50 MB
above the interpreter and its imports): the source holds the previous decoded frame, the
kept frames of about a chunk, and the audio not yet handed out.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from memory.errors import TruncatedVideoError
from memory.media import Cue, Frame, VideoChunk, VideoInfo
from memory.video import subtitles as subs
from memory.video.base import FrameSampler, VideoSource, silence
from memory.video.decord_backend import DecordVideoSource
from memory.video.probe import av_open, open_input, reason, stream_rotation, untimed
from memory.video.streams import (
    MAX_SIDE,
    AudioDecoder,
    audio_channels,
    picture_size,
    stream_duration,
    stream_origin,
    upright,
)

__all__ = ["DECODERS", "MAX_SIDE", "PyAVVideoSource", "open_video", "probe_video"]

logger = logging.getLogger(__name__)

DECODERS = ("pyav", "decord")
_EPS = 1e-6


def open_video(path: str | bytes | os.PathLike, fps: float = 1.0, decoder: str = "pyav",
               start: float = 0.0, max_side: int | None = MAX_SIDE,
               subtitles: str | os.PathLike | bool | None = None) -> VideoSource:
    """Open a video file or URL as a `VideoSource` of one-second chunks sampled at ``fps``.

    ``path`` is a ``str``/``bytes``/``os.PathLike`` path, a ``file://`` URL or an
    ``http(s)://`` URL (streamed by FFmpeg). ``decoder`` is ``"pyav"`` (default) or
    ``"decord"`` (the ``decord`` extra). ``start`` skips to that second (rounded down
    to a whole chunk), so a resumed ingest continues where it stopped; chunk indices
    stay those of the whole file, and the audio after ``start`` is exactly what a pass
    from the beginning gives. Frames are turned upright by the file's rotation and
    scaled to at most ``max_side`` pixels on their long side (None: full size).
    ``subtitles``: None finds them (a side-car ``.srt``/``.vtt`` next to the file, else
    the container's own text track), a path reads that file, False reads none; each
    chunk carries the cues that start in it (`VideoChunk.cues`).
    """
    if decoder == "pyav":
        return PyAVVideoSource(path, fps=fps, start=start, max_side=max_side,
                               subtitles=subtitles)
    if decoder == "decord":
        return DecordVideoSource(path, fps=fps, start=start, max_side=max_side)
    raise ValueError(f"unknown decoder {decoder!r}; choose one of {', '.join(DECODERS)}")


def probe_video(path: str | bytes | os.PathLike) -> tuple[Any, Any, Any]:
    """Open ``path`` with PyAV and return ``(container, video_stream, audio_stream|None)``.

    Raises the `memory.errors` error that names what is wrong with the input.
    """
    container, video, audio, _loc = open_input(path)
    return container, video, audio


def load_cues(loc: Any, subtitles: str | os.PathLike | bool | None,
              origin: float) -> tuple[Cue, ...]:
    """The subtitles of a video as `open_video`'s ``subtitles`` argument asks."""
    if subtitles is False:
        return ()
    if subtitles is not None and subtitles is not True:
        return subs.read_subtitles(os.fspath(subtitles))
    sidecar = None if loc.is_url else subs.find_subtitles(str(loc))
    if sidecar is not None:
        logger.info("reading subtitles from %s", sidecar)
        return subs.read_subtitles(sidecar)
    return subs.embedded_cues(lambda: av_open(loc), origin)


class _Keyframes:
    """Keyframe times from the container's index, to skip video no sample needs.

    A video packet need not be decoded when a keyframe after it comes at or before the
    next sample time: decoding restarts cleanly there, and both frames around the
    sample lie after it. Files without an index (or a partial one) skip nothing.
    """

    def __init__(self, stream: Any, origin: float) -> None:
        entries = stream.index_entries
        dts = [e.timestamp for e in entries if e.is_keyframe] if len(entries) else []
        self._dts = np.asarray(dts, np.int64)
        # The index holds decode times; a keyframe is shown a constant delay later.
        delay = (stream.start_time or 0) - (entries[0].timestamp if len(entries) else 0)
        self._times = (self._dts + delay) * float(stream.time_base) - origin

    def __bool__(self) -> bool:
        return self._dts.size > 1

    def skippable(self, dts: int | None, next_sample: float) -> bool:
        if dts is None:
            return False
        i = int(np.searchsorted(self._dts, dts, side="right"))  # next keyframe after it
        return i < self._dts.size and self._times[i] <= next_sample + _EPS


class PyAVVideoSource:
    """A video file or URL decoded by PyAV in one pass; see `open_video`.

    Every packet is read in order (audio is needed whole); a video packet is decoded
    unless the index shows a keyframe at or before the next sample time after it
    (``skip_gops``): with 2 s keyframe intervals that halves the work at 1 fps. A start
    past 0 reads the file from its beginning too, decoding the audio (cheap) and
    skipping the video up to the keyframe before ``start``, so a resumed ingest gets
    sample for sample the audio an uninterrupted one got (a seek restarts the audio
    decoder and resampler elsewhere and changes it slightly).
    """

    decoder = "pyav"

    def __init__(self, path: str | bytes | os.PathLike, fps: float = 1.0, start: float = 0.0,
                 *, skip_gops: bool = True, max_side: int | None = MAX_SIDE,
                 subtitles: str | os.PathLike | bool | None = None) -> None:
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps}")
        if start < 0:
            raise ValueError(f"start must be >= 0 seconds, got {start}")
        self.fps = fps
        self._skip = skip_gops
        self._first = math.floor(start + _EPS)
        self._container, self._video, self._audio, loc = open_input(path)
        self.path = str(loc)
        # Frame threading decodes ahead on every core; without it libavcodec uses one.
        self._video.codec_context.thread_type = "AUTO"
        self._origin = stream_origin(self._video)
        self._duration = stream_duration(self._container, self._video)
        self._untimed = untimed(self._container)
        ctx = self._video.codec_context
        rate = ctx.framerate if self._untimed else None
        rate = rate or self._video.average_rate or self._video.guessed_rate
        self._native_fps = float(rate) if rate else None
        self.rotation = stream_rotation(loc)
        self.cues = load_cues(loc, subtitles, self._origin)
        self.max_side = max_side
        self._size = picture_size(ctx.width, ctx.height, max_side)
        if self._audio is None:
            logger.warning("%s has no audio stream; its chunks carry silence (has_audio=False)",
                           self.path)
        self._iterated = False

    @property
    def info(self) -> VideoInfo:
        width, height = self._size
        if self.rotation % 180:
            width, height = height, width
        return VideoInfo(path=self.path, duration=self._duration, width=width,
                         height=height, native_fps=self._native_fps,
                         has_audio=self._audio is not None, decoder=self.decoder,
                         rotation=self.rotation)

    def __iter__(self) -> Iterator[VideoChunk]:
        if self._iterated:
            raise RuntimeError("a video source can be iterated once; open the file again")
        self._iterated = True
        return self._chunks()

    def close(self) -> None:
        self._container.close()

    def __enter__(self) -> PyAVVideoSource:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- decoding ----------------------------------------------------------------------

    def _chunks(self) -> Iterator[VideoChunk]:
        run = _Run(self)
        for frame in self._decoded(run):
            if run.audio is not None and frame.__class__.__name__ == "AudioFrame":
                run.push_audio(frame)
            else:
                run.add_video(frame)
            yield from run.ready()
        yield from run.finish()

    def _decoded(self, run: _Run) -> Iterator[Any]:
        """Every decoded frame in order; a broken packet is skipped and remembered."""
        import av

        streams = [s for s in (self._video, self._audio) if s is not None]
        packets = self._container.demux(*streams)
        keyframes = _Keyframes(self._video, self._origin) if self._skip else None
        while True:
            try:
                packet = next(packets)
            except StopIteration:
                return
            except av.error.FFmpegError as exc:  # the demuxer ran into missing bytes
                run.problem, run.problem_is_last = reason(exc), True
                return
            if keyframes and packet.stream is self._video and keyframes.skippable(
                    packet.dts, run.sampler.next_time):
                continue
            try:
                frames = packet.decode()
            except av.error.FFmpegError as exc:  # a cut-short or corrupt packet
                run.problem, run.problem_is_last = reason(exc), True
                run.bad_packets += 1
                continue
            if packet.size:  # a real packet decoded after the broken one: not a cut
                run.problem_is_last = False
            yield from frames


class _Run:
    """The state of one pass over a file: sampler, kept frames, audio, next chunk."""

    def __init__(self, source: PyAVVideoSource) -> None:
        self.source = source
        self.sampler: FrameSampler[Any] = FrameSampler(source.fps, source._first)
        self.audio = AudioDecoder(source._origin, audio_channels(source._audio)) \
            if source._audio is not None else None
        self.kept: dict[int, list[Frame]] = {}
        self.next_index = source._first
        self.video_end = 0.0  # media time just after the last decoded frame
        self.frame_step = 1.0 / source._native_fps if source._native_fps else 0.0
        self.problem: str | None = None
        self.problem_is_last = False  # the file ended on a broken packet: it was cut
        self.bad_packets = 0
        self._cues = [c for c in source.cues if c.start >= source._first - _EPS]
        self._cue = 0

    @property
    def end(self) -> float | None:
        return self.source._duration

    def cues(self, index: int) -> tuple[Cue, ...]:
        """The cues starting before the end of chunk ``index`` not handed out yet."""
        taken = []
        while self._cue < len(self._cues) and self._cues[self._cue].start < index + 1 - _EPS:
            taken.append(self._cues[self._cue])
            self._cue += 1
        return tuple(taken)

    def push_audio(self, frame: Any) -> None:
        assert self.audio is not None
        self.audio.push(frame)
        if self.source._first > 0 and self.next_index == self.source._first:
            self.audio.buffer.drop(float(self.next_index))  # resuming: not handed out

    def add_video(self, frame: Any) -> None:
        time = frame.time
        if time is None or self.source._untimed:  # a raw stream: frames follow each other
            time = self.video_end
        else:
            time -= self.source._origin
        self.video_end = max(self.video_end, time + self.frame_step)
        for sample_time, picked in self.sampler.offer(time, frame):
            self._keep(sample_time, picked)

    def _keep(self, sample_time: float, frame: Any) -> None:
        width, height = picture_size(frame.width, frame.height, self.source.max_side)
        if (width, height) == (frame.width, frame.height):
            image = frame.to_ndarray(format="rgb24")
        else:
            image = frame.to_ndarray(width=width, height=height, format="rgb24",
                                     interpolation="AREA")
        image = upright(image, int(round(frame.rotation or 0)) % 360)
        index = math.floor(sample_time + _EPS)
        self.kept.setdefault(index, []).append(Frame(sample_time, image))

    def ready(self, final_end: float | None = None) -> Iterator[VideoChunk]:
        """Chunks whose samples are all decided and whose audio has all arrived."""
        end = final_end if final_end is not None else self.end
        audio_until = math.inf if self.audio is None or final_end is not None else self.audio.buffer.reached
        while end is None or self.next_index < end - _EPS:
            stop = self.next_index + 1.0 if end is None else min(self.next_index + 1.0, end)
            done = final_end is not None or self.sampler.next_time >= stop - _EPS
            if not (done and audio_until >= stop - _EPS):
                return
            yield self._chunk(self.next_index, stop)
            self.next_index += 1

    def _chunk(self, index: int, stop: float) -> VideoChunk:
        frames = tuple(self.kept.pop(index, ()))
        cues = self.cues(index)
        if self.audio is None:
            return VideoChunk(index, float(index), stop, frames, silence(index, stop), False,
                              cues)
        return VideoChunk(index, float(index), stop, frames, self.audio.slice(index, stop),
                          cues=cues)

    def finish(self) -> Iterator[VideoChunk]:
        """The stream ended: emit the rest, or report where a truncated file stopped."""
        if self.audio is not None:
            self.audio.flush()
        end = self.end if self.end is not None else self.video_end
        short = self.video_end < end - max(2 * self.frame_step, 0.05)
        truncated = short or self.problem_is_last
        if self.problem and not truncated:
            logger.warning("%s: skipped %d corrupt packet(s) (%s)", self.source.path,
                           self.bad_packets, self.problem)
        if not truncated:
            for sample_time, picked in self.sampler.finish(end):
                self._keep(sample_time, picked)
            yield from self.ready(final_end=end)
            return
        yield from self.ready()
        raise self._truncated(end if short else None)

    def _truncated(self, promised: float | None) -> TruncatedVideoError:
        path, decoded = self.source.path, float(self.next_index)
        why = f" ({self.problem})" if self.problem else ""
        where = (f"its header says {promised:.1f} s but the data stops at "
                 f"{self.video_end:.1f} s" if promised is not None else
                 f"it ends inside a cut-off packet at {self.video_end:.1f} s")
        return TruncatedVideoError(
            f"{path} is truncated: {where}{why}; the first {decoded:.0f} whole seconds were "
            f"decoded, the rest of the file is missing", path, seconds_decoded=decoded)
