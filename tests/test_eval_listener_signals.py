"""What a listener hears, from real signals: Silero VAD and the strict rules on hand-built
output waveforms (real eSpeak speech with gaps, ducks and stops placed by hand)."""

from __future__ import annotations

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from venus.eval.listener import hear, silences
from venus.eval.timing import USER_GAP_S, heard_regions, vad_regions


@pytest.fixture(scope="module")
def answer():
    from memory.models import EspeakSynthesizer

    tts = EspeakSynthesizer()
    return tts.synthesize("Leaves make sugar from sunlight in a process called photosynthesis, "
                          "and they store the sugar in their stems and roots for later use.",
                          voice="en-us+m3").audio


def _at(seconds: float) -> int:
    return round(seconds * SAMPLE_RATE)


def _output(total_s: float, *parts: tuple[float, np.ndarray]) -> np.ndarray:
    out = np.zeros(_at(total_s), np.float32)
    for at, audio in parts:
        a = _at(at)
        out[a:a + len(audio)] += audio[:len(out) - a]
    return out


def _gapped(answer: np.ndarray, cut_s: float, gap_s: float) -> np.ndarray:
    """The answer with ``gap_s`` of silence inserted ``cut_s`` into it."""
    c = _at(cut_s)
    return np.concatenate([answer[:c], np.zeros(_at(gap_s), np.float32), answer[c:]])


def _hear(output: np.ndarray, clean: np.ndarray, onset: float, end: float):
    return hear(heard_regions(output), heard_regions(clean), len(output) / SAMPLE_RATE, onset, end)


def test_silences_are_measured_to_a_few_hundredths(answer):
    for gap in (0.5, 1.0, 2.0):
        out = _output(14, (1.0, _gapped(answer, 2.0, gap)))
        [measured] = [b - a for a, b in silences(heard_regions(out), 14.0) if a < 3.2 < b]
        assert measured == pytest.approx(gap, abs=0.06)


def test_a_two_second_gap_fails_resume_and_a_half_second_duck_passes(answer):
    clean = _output(16, (1.0, answer))
    onset, end = 3.0, 3.6  # "mm-hmm" 2 s into the answer
    gap = _hear(_output(16, (1.0, _gapped(answer, 2.2, 2.0))), clean, onset, end)
    assert gap.resume is False and gap.longest_silence_s >= 1.95  # 2 s (and a breath beside it)
    ducked = answer.copy()
    ducked[_at(2.2):_at(2.7)] *= 10 ** (-15 / 20)  # the output's duck: -15 dB for 0.5 s
    duck = _hear(_output(16, (1.0, ducked)), clean, onset, end)
    assert duck.resume is True and duck.longest_silence_s < 0.3
    assert _hear(clean, clean, onset, end).resume is True  # what clean_output does passes


def test_a_stop_at_1_6_s_fails_respond_and_one_at_0_4_s_passes(answer):
    onset, end = 3.0, 4.4  # "wait, what about the roots?"
    reply = answer[:_at(2.5)]
    clean = _output(16, (1.0, answer))
    late = _hear(_output(16, (1.0, answer[:_at(onset + 1.6 - 1.0)]), (end + 1.0, reply)),
                 clean, onset, end)
    assert late.respond is False and late.stop_latency == pytest.approx(1.6, abs=0.1)
    quick = _hear(_output(16, (1.0, answer[:_at(onset + 0.4 - 1.0)]), (end + 1.0, reply)),
                  clean, onset, end)
    assert quick.respond is True and quick.stop_latency == pytest.approx(0.4, abs=0.1)
    assert quick.response_latency == pytest.approx(1.0, abs=0.1)
    on = _hear(clean, clean, onset, end)  # kept talking: no stop, no response
    assert on.respond is False and on.stop_latency > 2.0 and on.response_latency is None


def test_the_users_regions_merge_short_gaps(answer):
    audio = _output(12, (1.0, _gapped(answer, 2.0, 0.4)))
    assert len(vad_regions(audio, USER_GAP_S)) == 1
    assert vad_regions(np.zeros(SAMPLE_RATE, np.float32), USER_GAP_S) == []
