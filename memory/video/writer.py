"""Write H.264/AAC MP4 files with PyAV: the sample media and test fixtures are made here.

Frames come from an iterable (so an hour of video never sits in RAM); audio is 16 kHz
float32 for the whole file, mono ``(n,)`` or stereo ``(2, n)``, or None for a file
without an audio stream. ``rotation`` writes a display matrix as phones do.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path

import numpy as np

from memory.media import SAMPLE_RATE

__all__ = ["write_video"]

_AUDIO_RATE = 48_000  # AAC is happiest at 48 kHz; decoders resample back to 16 kHz


def write_video(path: str | Path, frames: Iterable[np.ndarray], fps: float,
                audio: np.ndarray | None = None, *, crf: int = 28,
                video: bool = True, rotation: int = 0) -> Path:
    """Encode RGB uint8 ``frames`` at ``fps`` (and ``audio``) into an MP4 at ``path``.

    ``video=False`` writes an audio-only MP4 (a fixture for the no-video-stream error);
    ``rotation`` (degrees counter-clockwise) asks players to turn the stored picture.
    """
    import av

    from memory.audio import resample

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rate = Fraction(fps).limit_denominator(1000)
    with av.open(str(path), mode="w") as container:
        vstream = astream = None
        frame_iter = iter(frames)
        first = next(frame_iter, None) if video else None
        if first is not None:
            vstream = container.add_stream("libx264", rate=rate)
            vstream.height, vstream.width = first.shape[0], first.shape[1]
            vstream.pix_fmt = "yuv420p"
            vstream.options = {"crf": str(crf), "preset": "veryfast", "g": str(max(1, int(fps * 2)))}
            if rotation:
                vstream.set_display_rotation(rotation)
        channels = None if audio is None else np.atleast_2d(np.asarray(audio, np.float32))
        if channels is not None:
            astream = container.add_stream("aac", rate=_AUDIO_RATE)
            astream.layout = "mono" if channels.shape[0] == 1 else "stereo"
        if vstream is not None:
            for image in _chain(first, frame_iter):
                frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format="rgb24")
                container.mux(vstream.encode(frame))
            container.mux(vstream.encode(None))
        if astream is not None:
            _encode_audio(container, astream, np.stack(
                [resample(c, SAMPLE_RATE, _AUDIO_RATE) for c in channels]))
    return path


def _chain(first, rest):
    yield first
    yield from rest


def _encode_audio(container, stream, samples: np.ndarray) -> None:
    import av

    block = 1024 * 16
    layout = "mono" if samples.shape[0] == 1 else "stereo"
    for i in range(0, samples.shape[1], block):
        piece = samples[:, i: i + block].T.reshape(1, -1)  # packed: L R L R ...
        piece = np.ascontiguousarray(piece, dtype=np.float32)
        frame = av.AudioFrame.from_ndarray(piece, format="flt", layout=layout)
        frame.sample_rate = _AUDIO_RATE
        frame.pts = i
        frame.time_base = Fraction(1, _AUDIO_RATE)
        container.mux(stream.encode(frame))
    container.mux(stream.encode(None))
