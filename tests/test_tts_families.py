"""The Piper and Flite voice families, for real (Piper's neural voice, Debian's flite)."""

import numpy as np
import pytest

from memory.errors import MemoryToolkitError
from memory.models import FliteSynthesizer, PiperSynthesizer, SpeechSynthesizer

TEXT = "Wait, what do the roots do? I thought plants eat soil."


@pytest.fixture(scope="module", params=["piper", "flite"])
def tts(request):
    return PiperSynthesizer() if request.param == "piper" else FliteSynthesizer()


def test_speaks_16k_mono_with_every_word_timed(tts):
    assert isinstance(tts, SpeechSynthesizer)
    speech = tts.synthesize(TEXT)
    assert speech.sample_rate == 16_000 and speech.audio.dtype == np.float32
    assert 1.5 < speech.duration < 8.0 and np.abs(speech.audio).max() > 0.1
    assert [w.text for w in speech.words] == TEXT.split()
    starts = [w.start for w in speech.words]
    assert starts == sorted(starts) and speech.words[-1].end <= speech.duration + 1e-6
    second = next(w for w in speech.words if w.text == "I")  # the second sentence
    assert second.start > 0.3 * speech.duration


def test_same_text_same_samples_whatever_came_before(tts):
    first = tts.synthesize("Leaves make sugar.").audio
    tts.synthesize("Something else entirely, to move any state along.")
    assert np.array_equal(first, tts.synthesize("Leaves make sugar.").audio)


def test_rate_changes_length_and_bad_input_is_one_clear_error(tts):
    slow, fast = tts.synthesize(TEXT, rate=120), tts.synthesize(TEXT, rate=220)
    assert slow.duration > 1.3 * fast.duration
    with pytest.raises(MemoryToolkitError, match="no voice 'nope'"):
        tts.synthesize("hello", voice="nope")
    with pytest.raises(MemoryToolkitError, match="rate must be"):
        tts.synthesize("hello", rate=5)
    assert tts.synthesize("  ").duration == 0


def test_flite_voices_differ():
    tts = FliteSynthesizer()
    a, b = (tts.synthesize("Right, I see.", voice=v).audio for v in ("rms", "slt"))
    n = min(len(a), len(b))
    assert not np.array_equal(a[:n], b[:n])


def test_a_missing_flite_program_names_the_package(tmp_path):
    with pytest.raises(MemoryToolkitError, match="flite failed|apt-get install flite"):
        FliteSynthesizer(program=str(tmp_path / "no-flite")).synthesize("hello")
