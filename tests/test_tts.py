"""The embedded eSpeak NG synthesizer, for real."""

import numpy as np
import pytest

from memory.errors import MemoryToolkitError
from memory.models import VOICES, EspeakSynthesizer


def test_synthesizes_16k_mono_with_word_timings():
    speech = EspeakSynthesizer().synthesize("The Calvin cycle fixes carbon dioxide.")
    assert speech.sample_rate == 16_000
    assert speech.audio.dtype == np.float32 and speech.audio.ndim == 1
    assert 1.0 < speech.duration < 5.0
    assert [w.text for w in speech.words] == ["The", "Calvin", "cycle", "fixes", "carbon", "dioxide"]
    starts = [w.start for w in speech.words]
    assert starts == sorted(starts) and speech.words[-1].end <= speech.duration + 1e-6
    assert np.abs(speech.audio).max() > 0.1


def test_voices_differ_and_rate_changes_length():
    tts = EspeakSynthesizer()
    a = tts.synthesize("Right, I see.", voice=VOICES[0])
    b = tts.synthesize("Right, I see.", voice=VOICES[1])
    assert not np.array_equal(a.audio[: min(len(a.audio), len(b.audio))],
                              b.audio[: min(len(a.audio), len(b.audio))])
    slow = tts.synthesize("one two three four five", rate=120)
    fast = tts.synthesize("one two three four five", rate=300)
    assert slow.duration > 1.5 * fast.duration


def test_unknown_voice_is_a_clear_error():
    with pytest.raises(MemoryToolkitError, match="no voice 'no-such-voice'"):
        EspeakSynthesizer().synthesize("hello", voice="no-such-voice")


def test_empty_text_gives_empty_speech():
    assert EspeakSynthesizer().synthesize("   ").duration == 0
