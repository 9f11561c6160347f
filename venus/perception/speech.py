"""Streaming speech boundaries and the audio kept for transcription.

Above `config`/`types`: `SpeechTracker` turns Silero VAD probabilities (one per 32 ms
window, from `memory.models.VADStream`) into onset/offset events with hysteresis;
`AudioWindow` keeps just the recent audio that an open speech region may still need.
Both own their state explicitly and reset cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memory.media import SAMPLE_RATE
from venus.perception.config import PerceptionConfig
from venus.perception.types import SpeechBoundary

__all__ = ["WINDOW_SECONDS", "AudioWindow", "SpeechTracker"]

WINDOW_SECONDS = 512 / SAMPLE_RATE  # Silero's fixed window at 16 kHz (32 ms)


@dataclass
class _TrackerState:
    speaking: bool = False
    run: int = 0  # consecutive windows on the other side of the threshold
    run_start: float = 0.0  # media time where that run began
    region_start: float | None = None


class SpeechTracker:
    """Hysteresis over window probabilities: onset after ``onset_windows`` windows at or
    above ``onset_threshold``, offset after ``offset_silence_s`` below
    ``offset_threshold``; each event carries the time the run *began*."""

    def __init__(self, config: PerceptionConfig) -> None:
        self.config = config
        self._silence_windows = max(1, round(config.offset_silence_s / WINDOW_SECONDS))
        self.reset()

    def reset(self) -> None:
        self._s = _TrackerState()

    @property
    def speaking(self) -> bool:
        return self._s.speaking

    @property
    def region_start(self) -> float | None:
        """Onset time of the open region (None while silent)."""
        return self._s.region_start

    @property
    def silent_since(self) -> float | None:
        """While speaking: when the silence the next offset would end began (None while
        the latest window is speech or the user is silent)."""
        s = self._s
        return s.run_start if s.speaking and s.run > 0 else None

    def update(self, prob: float, time: float) -> SpeechBoundary | None:
        """Feed the probability of the window starting at ``time``; maybe return an event."""
        s, c = self._s, self.config
        crossing = prob < c.offset_threshold if s.speaking else prob >= c.onset_threshold
        if not crossing:
            s.run = 0
            return None
        if s.run == 0:
            s.run_start = time
        s.run += 1
        if not s.speaking and s.run >= c.onset_windows:
            s.speaking, s.run, s.region_start = True, 0, s.run_start
            return SpeechBoundary("onset", s.run_start)
        if s.speaking and s.run >= self._silence_windows:
            s.speaking, s.run, s.region_start = False, 0, None
            return SpeechBoundary("offset", s.run_start)
        return None

    def split(self, time: float) -> None:
        """Start a new region at ``time`` without leaving speech (long monologues)."""
        if self._s.speaking:
            self._s.region_start = time


class AudioWindow:
    """The recent audio on one media-time axis: append chunks, slice by time, trim.

    Assumes contiguous chunks (the chunk source guarantees it); memory stays bounded
    because the owner trims everything before what an open region may still need.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._start = 0.0  # media time of self._audio[0]
        self._audio = np.zeros(0, np.float32)

    @property
    def end(self) -> float:
        return self._start + len(self._audio) / SAMPLE_RATE

    def append(self, start: float, audio: np.ndarray) -> None:
        if len(self._audio) == 0:
            self._start = start
        self._audio = np.concatenate([self._audio, audio.astype(np.float32, copy=False)])

    def slice(self, start: float, end: float) -> tuple[float, np.ndarray]:
        """Audio in ``[start, end)`` clipped to what is held, with its actual start time."""
        i = max(0, round((start - self._start) * SAMPLE_RATE))
        j = max(i, min(len(self._audio), round((end - self._start) * SAMPLE_RATE)))
        return self._start + i / SAMPLE_RATE, self._audio[i:j]

    def trim_before(self, time: float) -> None:
        cut = int((time - self._start) * SAMPLE_RATE)
        if cut > 0:
            self._audio = self._audio[cut:].copy()
            self._start += cut / SAMPLE_RATE
