"""Whisper's output repairs (loops, stock sign-offs, silence) and short spoken questions.

The repairs are pure functions over Whisper segments, tested on made segments; the
short-clip test is the real tiny.en on real eSpeak questions, the duplex loop's path
(`WhisperTranscriber.transcribe` of one utterance).
"""

from dataclasses import dataclass

import pytest

from memory.models import EspeakSynthesizer, WhisperTranscriber
from memory.models.asr import _loops, _repaired


@dataclass
class _W:
    word: str
    start: float
    end: float
    probability: float = 0.9


@dataclass
class _Seg:
    text: str
    start: float
    end: float
    words: list
    compression_ratio: float = 1.2


def _seg(text: str) -> _Seg:
    words = [_W(" " + t, i * 0.3, i * 0.3 + 0.25) for i, t in enumerate(text.split())]
    return _Seg("".join(w.word for w in words), 0.0, len(words) * 0.3, words)


def _text(seg) -> str:
    return " ".join(w.word.strip() for w in seg.words)


def test_a_decoding_loop_is_cut_to_one_occurrence_with_its_times():
    seg = _seg("plants make food. plants make food. plants make food. plants make food. and then")
    assert _loops(seg)
    fixed = _repaired(seg)
    assert _text(fixed) == "plants make food. and then"
    assert [w.start for w in fixed.words] == pytest.approx([0.0, 0.3, 0.6, 3.6, 3.9])


def test_a_single_word_loop_is_cut_but_a_double_word_is_speech():
    assert _text(_repaired(_seg("the the the the the end"))) == "the end"
    kept = _seg("it was very very good")
    assert not _loops(kept) and _repaired(kept) is kept


def test_stock_sign_offs_are_dropped_and_the_rest_kept():
    fixed = _repaired(_seg("the acid turns red. Thank you for watching, see you in the next video."))
    assert _text(fixed) == "the acid turns red."
    assert _text(_repaired(_seg("Thanks for watching!"))) == ""


def test_a_segment_without_words_is_judged_by_its_text():
    seg = _Seg(" Thank you for watching.", 0.0, 2.0, [])
    assert _repaired(seg).text == ""
    plain = _Seg(" Photosynthesis.", 0.0, 2.0, [])
    assert _repaired(plain) is plain


@pytest.fixture(scope="module")
def asr():
    return WhisperTranscriber()


@pytest.mark.parametrize("voice", ["en-us", "en-us+f2", "en-us+m3", "en-us+f4", "en", "en+m7"])
def test_a_short_spoken_question_is_heard_as_a_question_not_a_sign_off(asr, voice):
    speech = EspeakSynthesizer(voice=voice).synthesize("What is photosynthesis?")
    heard = asr.transcribe(speech.audio, offset=10.0)
    words = [w.text.lower().strip(",.?!") for w in heard.words]
    assert "watching" not in words and "thank" not in words, heard.text
    assert len(words) == len(set(words)), f"a loop: {heard.text!r}"
    # tiny.en does not hear "photosynthesis" from eSpeak, but it hears a question (or,
    # in one voice, nothing: Whisper's no-speech rule), never a sign-off
    assert not words or words[0] in ("what", "whats"), heard.text
    for w in heard.words:
        assert 10.0 <= w.start <= w.end <= 10.0 + speech.duration + 1e-6
