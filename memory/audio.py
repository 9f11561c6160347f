"""Audio helpers: resampling (through PyAV's libswresample), downmixing, loudness, WAV output."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

__all__ = ["downmix", "resample", "rms_db", "write_wav"]

# Side (L - R) must carry this many times the energy of mid (L + R) before it is used:
# a voice panned hard to one side has equal mid and side, and must stay on mid.
_SIDE_OVER_MID = 2.0


def resample(samples: np.ndarray, rate_in: int, rate_out: int = 16_000) -> np.ndarray:
    """Resample mono float32 audio with libswresample (band-limited, unlike np.interp)."""
    samples = np.ascontiguousarray(samples, dtype=np.float32)
    if rate_in == rate_out or samples.size == 0:
        return samples.copy()
    import av

    resampler = av.AudioResampler(format="flt", layout="mono", rate=rate_out)
    frame = av.AudioFrame.from_ndarray(samples[None, :], format="flt", layout="mono")
    frame.sample_rate = rate_in
    pieces = [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
    pieces += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    out = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
    expected = int(round(len(samples) * rate_out / rate_in))
    if len(out) >= expected:
        return out[:expected].astype(np.float32, copy=False)
    return np.pad(out, (0, expected - len(out))).astype(np.float32, copy=False)


def downmix(channels: np.ndarray) -> np.ndarray:
    """Stereo ``(2, n)`` -> mono that survives channels in antiphase, clipped to [-1, 1].

    The plain average (mid, ``(L + R) / 2``) cancels when one channel is the other
    inverted (a miswired microphone, a phase-flipped export); then the difference
    (side, ``(L - R) / 2``) holds the sound. Whichever of the two has clearly more energy
    is used; ordinary stereo keeps mid. Mono ``(n,)`` or ``(1, n)`` passes through. The
    result is clipped, because a decoder hitting corrupt data can overshoot wildly.
    """
    arr = np.asarray(channels, dtype=np.float32)
    if arr.ndim == 1 or arr.shape[0] == 1:
        return np.clip(arr.reshape(-1), -1.0, 1.0)
    left, right = arr[0], arr[1]
    mid, side = 0.5 * (left + right), 0.5 * (left - right)
    m2 = float(np.dot(mid, mid))
    s2 = float(np.dot(side, side))
    return np.clip(side if s2 > _SIDE_OVER_MID * m2 else mid, -1.0, 1.0)


def rms_db(samples: np.ndarray) -> float:
    """Loudness in dBFS (root mean square); -100 for silence."""
    if samples.size == 0:
        return -100.0
    rms = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))
    return 20.0 * np.log10(rms) if rms > 1e-5 else -100.0


def write_wav(path: str | Path, audio: np.ndarray, sample_rate: int = 16_000) -> Path:
    """Write mono float audio in [-1, 1] as 16-bit PCM WAV (clipped, not rescaled)."""
    path = Path(path)
    pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2")
    with wave.open(str(path), "wb") as fh:
        fh.setnchannels(1)
        fh.setsampwidth(2)
        fh.setframerate(sample_rate)
        fh.writeframes(pcm.tobytes())
    return path
