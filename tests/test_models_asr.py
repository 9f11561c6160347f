"""The embedded Whisper tiny.en transcriber (faster-whisper), for real, on synthesized speech."""

import numpy as np
import pytest

from memory.errors import AudioFormatError, ModelUnavailableError
from memory.models import EspeakSynthesizer, Transcriber, WhisperTranscriber, word_error_rate

SR = 16_000
SPOKEN = [  # (sentence, eSpeak voice): everyday lecture words, four different voices
    ("Today we will look at how plants make their own food from sunlight.", "en-us"),
    ("Please open your books to the second chapter before we begin.", "en"),
    ("After the break we will talk about the French revolution.", "en-us+f2"),
    ("Stop for a moment, I have a question about the last slide.", "en-us+m5"),
]


@pytest.fixture(scope="module")
def asr():
    return WhisperTranscriber()


@pytest.fixture(scope="module")
def speeches():
    tts = EspeakSynthesizer()
    return [tts.synthesize(text, voice=voice) for text, voice in SPOKEN]


@pytest.fixture(scope="module")
def one_by_one(asr, speeches):
    return [asr.transcribe(s.audio) for s in speeches]


def _assert_times_sane(transcript, start, end):
    words = transcript.words
    assert words, "no words"
    for w in words:
        assert start - 1e-6 <= w.start <= w.end <= end + 1e-6, (w, start, end)
    starts = [w.start for w in words]
    assert starts == sorted(starts)


@pytest.mark.slow
def test_transcribes_different_voices_with_low_word_error_rate(asr, speeches, one_by_one):
    assert isinstance(asr, Transcriber)
    for (text, voice), speech, transcript in zip(SPOKEN, speeches, one_by_one):
        assert word_error_rate(text, transcript.text) < 0.3, (voice, transcript.text)
        _assert_times_sane(transcript, 0.0, speech.duration)
        assert transcript.segments[0].start < 0.5


@pytest.mark.slow
def test_offset_shifts_every_time(asr, speeches, one_by_one):
    shifted = asr.transcribe(speeches[0].audio, offset=100.0)
    assert [w.text for w in shifted.words] == [w.text for w in one_by_one[0].words]
    np.testing.assert_allclose([w.start - 100.0 for w in shifted.words],
                               [w.start for w in one_by_one[0].words], atol=1e-6)
    assert shifted.segments[0].start >= 100.0


@pytest.mark.slow
def test_batch_matches_one_by_one(asr, speeches, one_by_one):
    offsets = [3.0 + 10.0 * i for i in range(len(speeches))]
    batch = asr.transcribe_batch([(s.audio, off) for s, off in zip(speeches, offsets)])
    assert len(batch) == len(speeches)
    for (text, _), speech, off, single, packed in zip(SPOKEN, speeches, offsets, one_by_one,
                                                       batch):
        assert word_error_rate(single.text, packed.text) < 0.2, (single.text, packed.text)
        assert word_error_rate(text, packed.text) < 0.3
        _assert_times_sane(packed, off, off + speech.duration)


def test_batch_keeps_empty_items_in_place(asr):
    assert asr.transcribe_batch([]) == []
    out = asr.transcribe_batch([(np.zeros(0, np.float32), 5.0)])
    assert len(out) == 1 and out[0].text == "" and out[0].words == ()


def test_empty_audio_gives_an_empty_transcript(asr):
    assert asr.transcribe(np.zeros(0, np.float32)).segments == ()


def test_stereo_audio_is_a_clear_error(asr):
    with pytest.raises(AudioFormatError, match="mono"):
        asr.transcribe(np.zeros((SR, 2), np.float32))


def test_bad_model_path_names_the_path(tmp_path):
    with pytest.raises(ModelUnavailableError, match="no-whisper-here"):
        WhisperTranscriber(model_path=str(tmp_path / "no-whisper-here"))


@pytest.mark.parametrize(("reference", "hypothesis", "expected"), [
    ("The Calvin cycle.", "the calvin cycle", 0.0),
    ("Chapters 3 to 5, 100%!", "chapters three to five one hundred percent", 0.0),
    ("water boils at one hundred degrees", "water boils at 100 degrees.", 0.0),
    ("a b c d", "a x c", 0.5),
    ("a b", "a b c d", 1.0),
    ("", "", 0.0),
    ("", "hello", 1.0),
])
def test_word_error_rate_normalises_case_punctuation_and_numbers(reference, hypothesis,
                                                                  expected):
    assert word_error_rate(reference, hypothesis) == pytest.approx(expected)
