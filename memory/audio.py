"""Audio helpers: resampling (through PyAV's libswresample), loudness, WAV output."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

__all__ = ["resample", "rms_db", "write_wav"]


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
