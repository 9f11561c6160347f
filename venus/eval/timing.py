"""Speech regions of evaluation signals: where the user speaks, where the output is heard.

Scoring layer of `venus.eval` (signals only, no session). `vad_regions` is Silero VAD
over a whole file with short gaps merged (the user's side: gaps under `USER_GAP_S`,
0.6 s, as FDB v1.5's timing script merges them). `heard_regions` is what a listener
hears of the assistant's output, as exactly as silences can be measured: Silero speech
(no padding, gaps under 0.1 s bridged) *and* a signal above -60 dBFS (10 ms frames, gaps
under 50 ms bridged). Either one saying "silent" makes a stretch silent: Silero alone
trims ~0.05 s of a silence at each edge (its window hangs over), the level alone would
call breath or noise speech. A duck (-15 dB in `venus.speech`) stays speech for both.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from memory.media import SAMPLE_RATE

__all__ = ["MODEL_GAP_S", "USER_GAP_S", "heard_regions", "intersect", "speech_regions",
           "vad_regions"]

USER_GAP_S = 0.6
MODEL_GAP_S = 0.5
HEARD_GAP_S = 0.1
LEVEL_GAP_S = 0.05
SILENT_LEVEL = 1e-3  # -60 dBFS peak in a 10 ms frame

Regions = list[tuple[float, float]]


@cache
def _detector(gap_s: float, pad_s: float):
    from memory.models import SileroSpeechDetector

    return SileroSpeechDetector(min_silence_s=gap_s, min_speech_s=0.1, pad_s=pad_s)


def vad_regions(audio: np.ndarray, gap_s: float, pad_s: float = 0.05) -> Regions:
    """Silero speech regions of a 16 kHz signal, gaps shorter than ``gap_s`` merged."""
    if not len(audio) or float(np.max(np.abs(audio))) < 1e-4:
        return []
    return [(r.start, r.end) for r in _detector(gap_s, pad_s).detect(audio)]


def intersect(a: Regions, b: Regions) -> Regions:
    """Stretches inside a region of both sorted, non-overlapping lists."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def speech_regions(audio: np.ndarray, gap_s: float = 0.5, level: float = 1e-3) -> list[tuple[float, float]]:
    """Voiced stretches of a clean synthetic signal (10 ms frames, gaps < ``gap_s`` merged)."""
    frame = SAMPLE_RATE // 100
    n = len(audio) // frame
    loud = np.abs(audio[:n * frame]).reshape(n, frame).max(axis=1) > level
    regions: list[tuple[float, float]] = []
    for i in np.flatnonzero(loud):
        t = int(i) / 100
        if regions and t - regions[-1][1] < gap_s:
            regions[-1] = (regions[-1][0], t + 0.01)
        else:
            regions.append((t, t + 0.01))
    return regions


def heard_regions(audio: np.ndarray) -> Regions:
    """Where the output is audible speech (see the module docstring)."""
    loud = speech_regions(audio, gap_s=LEVEL_GAP_S, level=SILENT_LEVEL)
    return [(round(float(s), 3), round(float(e), 3)) for s, e in
            intersect(vad_regions(audio, HEARD_GAP_S, pad_s=0.0), loud)]
