"""What both file decoders read from a PyAV container, below both of them.

The PyAV source (`memory.video.file`) and the decord source (`memory.video.decord_backend`)
share these: the size a frame is converted to, turning it upright, the picture track's
length and first time, and the audio decoder (decord's own audio reader decodes a whole
track at open, so both take audio from PyAV). `memory.video.probe` reads the track length
from here too. This module imports no other decoder module, so none of them imports
another to reach a helper.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memory.audio import downmix
from memory.media import SAMPLE_RATE
from memory.video.base import AudioBuffer

__all__ = ["MAX_SIDE", "AudioDecoder", "audio_channels", "picture_size", "stream_duration",
           "stream_origin", "upright"]

MAX_SIDE = 1920
"""Frames larger than this on their long side are scaled down as they are converted:
a 4K frame costs 25 MB as RGB, and OCR reads slides as well at 1920 px."""


def picture_size(width: int, height: int, max_side: int | None) -> tuple[int, int]:
    """(width, height) of a converted frame: scaled so its long side is at most
    ``max_side`` (even sizes, aspect kept)."""
    long = max(width, height)
    if not max_side or long <= max_side:
        return width, height
    scale = max_side / long
    return max(2, int(round(width * scale / 2)) * 2), max(2, int(round(height * scale / 2)) * 2)


def upright(image: np.ndarray, rotation: int) -> np.ndarray:
    """Turn a decoded picture by its display rotation (degrees counter-clockwise)."""
    turns = (rotation // 90) % 4
    return np.ascontiguousarray(np.rot90(image, k=turns)) if turns else image


def stream_duration(container: Any, stream: Any) -> float | None:
    """Length of the picture track in seconds, or None when the file does not say."""
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / 1_000_000
    return None


def stream_origin(stream: Any) -> float:
    """Media time of the picture track's first frame; chunk times count from here."""
    if stream.start_time is None or stream.time_base is None:
        return 0.0
    return float(stream.start_time * stream.time_base)


class AudioDecoder:
    """Decoded audio frames of any layout/rate -> 16 kHz in an `AudioBuffer`.

    A mono track stays mono; a track with two or more channels is resampled to stereo
    and each slice is downmixed by `slice` (`memory.audio.downmix`: safe against
    channels in antiphase, clipped to [-1, 1]).
    """

    def __init__(self, origin: float, channels: int = 1) -> None:
        import av

        self.channels = 1 if channels <= 1 else 2
        self.buffer = AudioBuffer(self.channels)
        self._origin = origin
        layout = "mono" if self.channels == 1 else "stereo"
        self._resampler = av.AudioResampler(format="flt", layout=layout, rate=SAMPLE_RATE)

    def push(self, frame: Any) -> None:
        time = None if frame.time is None else frame.time - self._origin
        for out in self._resampler.resample(frame):
            self.buffer.add(time, self._samples(out))
            time = None  # a second output piece follows the first

    def flush(self) -> None:
        for out in self._resampler.resample(None):
            self.buffer.add(None, self._samples(out))

    def slice(self, start: float, end: float) -> np.ndarray:
        """Mono audio of ``[start, end)``, downmixed and clipped."""
        return downmix(self.buffer.take(start, end))

    def _samples(self, frame: Any) -> np.ndarray:
        # Packed float has one plane; reading it directly skips to_ndarray's vstack.
        n = frame.samples * self.channels
        data = np.frombuffer(frame.planes[0], np.float32, n)
        return data.copy() if self.channels == 1 else data.reshape(-1, self.channels).T.copy()


def audio_channels(stream: Any) -> int:
    """How many channels an audio track has (1 when the codec does not say)."""
    ctx = getattr(stream, "codec_context", None)
    return int(getattr(ctx, "channels", 0) or getattr(getattr(ctx, "layout", None),
                                                      "nb_channels", 1) or 1)
