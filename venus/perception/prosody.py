"""Prosody and loudness of user speech: level, pitch, rate, and the calibrated user level.

Above `config`/`types`, pure numpy. Pitch is a plain autocorrelation F0 estimate (the
classic method: normalised autocorrelation peak in the allowed lag range); it is a cue,
not a pitch tracker. `LoudnessCalibration` holds the user's running speech level so that
quieter, farther talkers (a TV, a conversation across the room) stand out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memory.audio import rms_db
from memory.media import SAMPLE_RATE
from memory.models.base import Word

__all__ = ["LoudnessCalibration", "estimate_f0", "rms_db", "words_per_second"]

_F0_FRAME = 1024  # 64 ms: two periods of the lowest pitch searched (60 Hz)


def _frame_f0(frame: np.ndarray, min_lag: int, max_lag: int, voicing: float) -> float | None:
    frame = frame - frame.mean()
    energy = float(np.dot(frame, frame))
    if energy < 1e-6:
        return None
    n = 1 << (2 * len(frame) - 1).bit_length()
    spec = np.fft.rfft(frame, n)
    ac = np.fft.irfft(spec * np.conj(spec), n)[: max_lag + 2] / energy
    region = ac[min_lag:max_lag + 1]
    best = float(region.max())
    if best < voicing:
        return None
    # The first lag that nearly reaches the best peak is the period; later peaks at
    # multiples of it (sub-harmonics) are about as high and must not win.
    first = int(np.argmax(region >= 0.85 * best))
    lag = min_lag + first
    while lag < max_lag and ac[lag + 1] > ac[lag]:
        lag += 1
    a, b, c = ac[lag - 1], ac[lag], ac[lag + 1]
    denom = a - 2 * b + c
    shift = 0.5 * (a - c) / denom if abs(denom) > 1e-12 else 0.0  # parabolic peak
    return SAMPLE_RATE / (lag + shift)


def estimate_f0(audio: np.ndarray, min_hz: float = 60.0, max_hz: float = 400.0,
                voicing: float = 0.45) -> float | None:
    """Median F0 (Hz) over the voiced 64 ms frames of ``audio``; None if none is voiced."""
    min_lag = int(SAMPLE_RATE / max_hz)
    max_lag = min(int(SAMPLE_RATE / min_hz), _F0_FRAME - 1)
    hop = _F0_FRAME // 2
    f0s = [f for i in range(0, len(audio) - _F0_FRAME + 1, hop)
           if (f := _frame_f0(audio[i:i + _F0_FRAME].astype(np.float64),
                              min_lag, max_lag, voicing)) is not None]
    return float(np.median(f0s)) if f0s else None


def words_per_second(words: Sequence[Word]) -> float | None:
    """Speaking rate over the span of ``words``; None for fewer than two words."""
    if len(words) < 2:
        return None
    span = words[-1].end - words[0].start
    return len(words) / span if span > 0 else None


class LoudnessCalibration:
    """The user's speech level in dBFS, a duration-weighted running mean.

    Only speech attributed to the user updates it: everything until the first level
    exists, then speech no more than ``margin_db`` below it. The weight of the past is
    capped at ``horizon_s`` seconds so the level follows the user moving.

    A level built on less than ``settle_s`` of speech is not yet known well: speech is
    called quieter only ``unsettled_db`` further below it (`extra_db`). A browser's
    automatic gain starts high and settles over the first utterances: heard through
    Chromium's capture, a user's first question came in 6-9 dB louder than everything
    they said after it (eSpeak and Flite voices through the app), so their interruption
    read 8.8 dB below a level made of that one question: "quiet", a TV, talked through.
    """

    def __init__(self, margin_db: float = 8.0, horizon_s: float = 30.0, *,
                 settle_s: float = 10.0, unsettled_db: float = 2.0) -> None:
        self.margin_db, self.horizon_s = margin_db, horizon_s
        self.settle_s, self.unsettled_db = settle_s, unsettled_db
        self.reset()

    @property
    def extra_db(self) -> float:
        """How much further below the level speech must be to be quieter, while the
        level rests on less than ``settle_s`` of speech (0 once it is settled)."""
        return self.unsettled_db if self.seconds < self.settle_s else 0.0

    def reset(self) -> None:
        self.level_db: float | None = None
        self.seconds = 0.0

    def relative(self, level_db: float) -> float | None:
        return None if self.level_db is None else level_db - self.level_db

    def is_quieter(self, level_db: float) -> bool:
        rel = self.relative(level_db)
        return rel is not None and rel < -(self.margin_db + self.extra_db)

    def update(self, level_db: float, seconds: float) -> bool:
        """Fold in ``seconds`` of speech at ``level_db`` if it is the user's; say if it was."""
        if seconds <= 0 or level_db <= -90.0 or self.is_quieter(level_db):
            return False
        if self.level_db is None:
            self.level_db, self.seconds = level_db, seconds
            return True
        w = min(self.seconds, self.horizon_s)
        self.level_db = (self.level_db * w + level_db * seconds) / (w + seconds)
        self.seconds += seconds
        return True

    def calibrate(self, audio: np.ndarray) -> float:
        """Seed the level from a sample of the user speaking (all of ``audio`` is speech)."""
        self.reset()
        self.update(rms_db(audio), len(audio) / SAMPLE_RATE)
        return float(self.level_db if self.level_db is not None else -100.0)
