"""Stop and response latency from VAD, the way FDB v1.5's timing script measures them.

Scoring layer of `venus.eval` (no session, only signals). Speech regions come from
Silero VAD over the whole file: the user's (``input.wav``) with gaps under 0.6 s merged,
the model's (``output.wav``) with gaps under 0.5 s merged. For an overlap at
[``onset``, ``end``] (from ``metadata.json``; the user's VAD region over it refines the
end when it is found):

* **stop latency**: from the overlap onset to the end of the model region that was
  playing at the onset (0 if none was);
* **response latency**: from the overlap's end to the start of the first model region
  that begins after it (None if the model never starts again).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

__all__ = ["MODEL_GAP_S", "USER_GAP_S", "Timing", "overlap_timing", "vad_regions"]

USER_GAP_S = 0.6
MODEL_GAP_S = 0.5


@cache
def _detector(gap_s: float):
    from memory.models import SileroSpeechDetector

    return SileroSpeechDetector(min_silence_s=gap_s, min_speech_s=0.1)


def vad_regions(audio: np.ndarray, gap_s: float) -> list[tuple[float, float]]:
    """Silero speech regions of a 16 kHz signal, gaps shorter than ``gap_s`` merged."""
    if not len(audio) or float(np.max(np.abs(audio))) < 1e-4:
        return []
    return [(r.start, r.end) for r in _detector(gap_s).detect(audio)]


@dataclass(frozen=True)
class Timing:
    overlap: tuple[float, float]
    stop_latency: float | None
    response_latency: float | None


def overlap_timing(user: list[tuple[float, float]], model: list[tuple[float, float]],
                   onset: float, end: float) -> Timing:
    """Latencies for one overlap from the two sides' regions (see the module docstring)."""
    for s, e in user:
        if s <= end and e >= onset:  # the user's region over the overlap: trust VAD's end
            end = max(end, min(e, end + 1.0))
            break
    playing = [e for s, e in model if s <= onset < e]
    stop = max(0.0, playing[0] - onset) if playing else 0.0
    after = [s for s, _ in model if s >= end]
    response = round(after[0] - end, 3) if after else None
    return Timing((onset, end), round(stop, 3), response)
