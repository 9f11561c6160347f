"""Stop and response latency from Silero VAD on hand-built input/output waveforms."""

from __future__ import annotations

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from venus.eval.timing import MODEL_GAP_S, USER_GAP_S, overlap_timing, vad_regions

pytestmark = pytest.mark.slow  # Silero over 12-14 s signals: seconds on a loaded 2-core CPU


@pytest.fixture(scope="module")
def voice():
    from memory.models import EspeakSynthesizer

    tts = EspeakSynthesizer()
    return lambda text, v="en-us": tts.synthesize(text, voice=v).audio


def _place(total_s: float, *parts: tuple[float, np.ndarray]) -> np.ndarray:
    out = np.zeros(round(total_s * SAMPLE_RATE), np.float32)
    for at, audio in parts:
        a = round(at * SAMPLE_RATE)
        out[a:a + len(audio)] += audio[:len(out) - a]
    return out


def _cut(audio: np.ndarray, seconds: float) -> np.ndarray:
    return audio[:round(seconds * SAMPLE_RATE)]


def test_latencies_match_the_known_timings(voice):
    question = voice("What do leaves make from sunlight?")
    answer = voice("Leaves make sugar from sunlight in a process called photosynthesis, "
                   "and they store it for later.", "en-us+m3")
    interrupt = voice("Wait, what about the roots?")
    reply = voice("Roots take up water and minerals.", "en-us+m3")
    onset = 5.0
    inp = _place(14, (0.5, question), (onset, interrupt))
    stop_at = onset + 0.4  # the model is cut 0.4 s into the interruption
    end = onset + len(interrupt) / SAMPLE_RATE
    out = _place(14, (3.0, _cut(answer, stop_at - 3.0)), (end + 0.7, reply))

    user = vad_regions(inp, USER_GAP_S)
    model = vad_regions(out, MODEL_GAP_S)
    assert len(user) == 2 and len(model) == 2
    t = overlap_timing(user, model, onset, end)
    assert t.stop_latency == pytest.approx(0.4, abs=0.15)
    assert t.response_latency == pytest.approx(0.7, abs=0.2)


def test_a_model_that_keeps_talking_has_a_long_stop_and_no_response(voice):
    answer = voice("Leaves make sugar from sunlight in a process called photosynthesis, "
                   "and they store the sugar in their stems and roots for later.", "en-us+m3")
    inp = _place(12, (4.0, voice("Mm-hmm.")))
    out = _place(12, (2.0, answer))
    model = vad_regions(out, MODEL_GAP_S)
    t = overlap_timing(vad_regions(inp, USER_GAP_S), model, 4.0, 4.6)
    assert t.stop_latency > 2.0
    assert t.response_latency is None
    assert vad_regions(np.zeros(SAMPLE_RATE, np.float32), MODEL_GAP_S) == []
