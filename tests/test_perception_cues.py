"""Addressee cues from words, topical relation (real MiniLM), prosody helpers."""

from __future__ import annotations

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from memory.models.base import Word
from venus.errors import ConfigError
from venus.perception import (
    LoudnessCalibration,
    PerceptionConfig,
    TopicRelation,
    estimate_f0,
    lexical_cues,
    words_per_second,
)

CONFIG = PerceptionConfig(assistant_name="Venus", other_names=("Maria",))


@pytest.mark.parametrize("text, expected", [
    ("John, can you pass the salt?", {"other_name": "John", "request": True}),
    ("Hey Sam, look at this.", {"other_name": "Sam"}),
    ("Pass me the salt, John.", {"other_name": "John"}),
    ("I told Maria about the lecture", {"other_name": "Maria"}),
    ("Okay, what is the formula?", {"other_name": None, "question": True, "request": True}),
    ("Venus, what is on the slide?", {"addressed_by_name": True, "question": True,
                                      "other_name": None}),
    ("Hey Venus stop", {"addressed_by_name": True, "request": True}),
    ("Wait, go back to the previous slide", {"request": True, "other_name": None}),
    ("Tell me more about photosynthesis", {"request": True}),
    ("The weather was nice yesterday.", {"request": False, "question": False,
                                         "other_name": None, "backchannel": False}),
    ("Mm-hmm.", {"backchannel": True, "request": False}),
    ("Yeah.", {"backchannel": True}),
    ("I see.", {"backchannel": True}),
    ("Uh-huh", {"backchannel": True}),
])
def test_lexical_cues(text, expected):
    cues = lexical_cues(text, 0.6, CONFIG)
    for name, value in expected.items():
        assert getattr(cues, name) == value, (text, name, cues)


def test_other_directed_needs_a_name_that_is_not_the_assistant():
    assert lexical_cues("John, can you pass the salt?", 2.0, CONFIG).other_directed
    assert not lexical_cues("Venus, can you pass the salt?", 2.0, CONFIG).other_directed
    assert not lexical_cues("Can you pass the salt?", 2.0, CONFIG).other_directed


@pytest.mark.parametrize("text", [
    "If Sam, can you close the window, please?",  # Whisper's "Hey Sam", heard in the page
    "Face him, can you close the window, please?",
    "Could you pass me the salt?",
    "Hey, grab my keys, would you?",
])
def test_a_thing_to_do_in_the_room_is_a_request_not_a_question(text):
    cues = lexical_cues(text, 2.0, CONFIG)
    assert cues.request and not cues.question, cues


@pytest.mark.parametrize("text", [
    "Can you tell me about the roots?", "Can you put that another way?",
    "Could you walk me through it?", "Can you turn it off?", "What do roots pass to the leaves?",
])
def test_asking_the_assistant_to_do_something_stays_a_question(text):
    assert lexical_cues(text, 2.0, CONFIG).question, text


@pytest.mark.parametrize("text, question", [
    ("um, why are these green.", True),  # Whisper's "Um, why are leaves green?" (tuning seed 3)
    ("Oh, and what do roots take from the soil.", True),
    ("So how do bees help plants", True),
    ("Okay, and where does the water come from", True),
    ("um, right, please.", False),
    ("So do I.", False),  # an auxiliary after a lead-in is no question by itself
    ("And is that the pizza", False),
])
def test_a_question_word_after_a_filler_or_conjunction_opens_a_question(text, question):
    """Whisper often drops the question mark of a question it heard whole, and a question
    cut in over an answer often opens with a filler or "and"/"so": read past them to the
    question word (what, why, how, ...), not to an auxiliary ("So do I.")."""
    assert lexical_cues(text, 1.5, CONFIG).question is question, text


def test_long_backchannel_word_is_not_a_backchannel():
    assert not lexical_cues("Okay", 3.0, CONFIG).backchannel  # a drawn-out "okay" takes the floor
    assert not lexical_cues("yeah yeah I see what you mean", 1.0, CONFIG).backchannel


def test_topic_relation_with_minilm():
    topic = TopicRelation()
    assert topic.similarity("anything") is None  # no context yet
    topic.set_context(["Photosynthesis turns light, water and carbon dioxide into sugar.",
                       "Chlorophyll in the leaves absorbs the light."])
    on = topic.similarity("How do leaves use light to make sugar?")
    off = topic.similarity("John, can you pass the salt?")
    assert on is not None and off is not None
    assert on > off + 0.2
    assert on >= CONFIG.topic_threshold > off


def _harmonic(f0: float, seconds: float = 0.5) -> np.ndarray:
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    wave = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 6))
    return (0.2 * wave).astype(np.float32)


@pytest.mark.parametrize("f0", [90.0, 150.0, 220.0, 310.0])
def test_f0_of_a_harmonic_tone(f0):
    assert estimate_f0(_harmonic(f0)) == pytest.approx(f0, rel=0.03)


def test_f0_of_noise_and_silence_is_none():
    rng = np.random.default_rng(0)
    assert estimate_f0(rng.normal(0, 0.1, SAMPLE_RATE).astype(np.float32)) is None
    assert estimate_f0(np.zeros(SAMPLE_RATE, np.float32)) is None


def test_words_per_second():
    words = [Word("a", 0.0, 0.2), Word("b", 0.3, 0.5), Word("c", 0.6, 1.0)]
    assert words_per_second(words) == pytest.approx(3.0)
    assert words_per_second(words[:1]) is None


def test_calibration_ignores_quieter_speech_and_follows_the_user():
    cal = LoudnessCalibration(margin_db=8.0, horizon_s=10.0)
    assert cal.relative(-20.0) is None and not cal.is_quieter(-60.0)
    assert cal.update(-20.0, 2.0)
    assert not cal.update(-35.0, 5.0)  # a TV across the room: not the user
    assert cal.level_db == pytest.approx(-20.0)
    assert cal.is_quieter(-35.0) and not cal.is_quieter(-24.0)
    assert cal.update(-24.0, 2.0)  # the user stepped back a little
    assert -24.0 < cal.level_db < -20.0


def test_bad_thresholds_are_a_config_error():
    with pytest.raises(ConfigError, match="offset_threshold"):
        PerceptionConfig(onset_threshold=0.3, offset_threshold=0.5)


def test_exported_names_resolve():
    import venus.backends
    import venus.perception

    for module in (venus.perception, venus.backends):
        assert sorted(module.__all__) == sorted(set(module.__all__))
        for name in module.__all__:
            assert getattr(module, name) is not None, (module.__name__, name)


def test_a_level_made_of_little_speech_calls_speech_quieter_only_further_below_it():
    """A browser's automatic gain makes a user's first question 6-9 dB louder than what
    they say next: until the level rests on `settle_s` of speech, quieter means
    `unsettled_db` (2 dB) further below it, so the user's next words are still theirs; a TV
    15 dB down is quieter either way."""
    cal = LoudnessCalibration(margin_db=8.0, settle_s=10.0, unsettled_db=2.0)
    cal.update(-14.0, 2.4)  # the first question, the gain still high
    assert cal.extra_db == 2.0
    assert not cal.is_quieter(-22.8)  # 8.8 dB down: the same user, the gain settled
    assert cal.is_quieter(-29.0)  # 15 dB down: a TV
    assert cal.update(-22.8, 2.2) and cal.update(-22.0, 6.0)  # folded in: the user's
    assert cal.extra_db == 0.0 and cal.seconds >= 10.0
    assert cal.is_quieter(cal.level_db - 8.5)  # settled: the plain margin
