"""End of turn from the audio: Smart Turn v3.2 (`venus.perception.turn`) and its fake.

The real model hears Piper's neural voice: a finished question, and a longer question cut
mid-phrase from its own audio (so the cut keeps the rising, unfinished prosody of speech
that goes on). Synthesizing the cut *text* would not do: every TTS voice ends a text with
a falling, final intonation, and the model hears that as a finished turn (0.95 for Piper's
"What is the capital of the"). eSpeak's robotic prosody fooled it both ways (3 of 4 voices
scored the cut clip complete), so it is not used here.
"""

from __future__ import annotations

import numpy as np
import pytest

from memory.errors import AudioFormatError, ModelUnavailableError
from memory.media import SAMPLE_RATE
from venus.perception import EndOfTurnModel, SmartTurn, TurnPrediction
from venus.perception.turn import (
    DEFAULT_THRESHOLD,
    TURN_WINDOW_SECONDS,
    turn_model_path,
    turn_window,
    whisper_log_mel,
)
from venus.testing import FakeEndOfTurn

PAUSE = np.zeros(SAMPLE_RATE // 5, np.float32)  # the 0.2 s pause after which a loop asks


def _until_last_sound(audio: np.ndarray) -> np.ndarray:
    loud = np.flatnonzero(np.abs(audio) > 0.01)
    return audio[: loud[-1] + 1]


@pytest.fixture(scope="module")
def turn() -> SmartTurn:
    return SmartTurn().load()


@pytest.fixture(scope="module")
def piper():
    from memory.models import PiperSynthesizer

    return PiperSynthesizer()


@pytest.fixture(scope="module")
def question(piper) -> np.ndarray:
    speech = piper.synthesize("What is the capital of France?")
    return np.concatenate([_until_last_sound(speech.audio), PAUSE])


@pytest.fixture(scope="module")
def cut_question(piper) -> np.ndarray:
    """ "What is the capital of the" taken from "... of the United Kingdom?"."""
    speech = piper.synthesize("What is the capital of the United Kingdom?")
    second_the = [w for w in speech.words if w.text.lower() == "the"][1]
    audio = speech.audio[: round(second_the.end * SAMPLE_RATE)]
    return np.concatenate([_until_last_sound(audio), PAUSE])


def test_a_finished_question_is_complete_and_the_same_question_cut_mid_phrase_is_not(
        turn, question, cut_question):
    finished, cut = turn.predict(question), turn.predict(cut_question)
    assert finished.complete and finished.probability > DEFAULT_THRESHOLD
    assert not cut.complete and cut.probability < DEFAULT_THRESHOLD
    assert finished.probability > cut.probability


def test_a_prediction_is_a_frozen_verdict_with_the_time_it_took(turn, question):
    verdict = turn.predict(question)
    assert isinstance(verdict, TurnPrediction)
    assert 0.0 <= verdict.probability <= 1.0 and verdict.seconds > 0.0
    with pytest.raises(AttributeError):
        verdict.complete = False  # type: ignore[misc]


def test_the_model_hears_only_the_last_eight_seconds(turn, question):
    earlier = np.random.default_rng(0).normal(0, 0.1, 10 * SAMPLE_RATE).astype(np.float32)
    longer = np.concatenate([earlier, question])
    assert turn.predict(longer).probability == pytest.approx(
        turn.predict(longer[-TURN_WINDOW_SECONDS * SAMPLE_RATE:]).probability, abs=1e-6)


def test_the_threshold_decides_complete(question):
    strict = SmartTurn(threshold=0.999).predict(question)
    assert not strict.complete and strict.probability < 0.999


def test_the_window_keeps_the_end_and_pads_a_short_turn_with_silence_in_front():
    size = TURN_WINDOW_SECONDS * SAMPLE_RATE
    short = np.ones(SAMPLE_RATE, np.float32)
    window = turn_window(short)
    assert window.shape == (size,) and window.dtype == np.float32
    assert not window[:-SAMPLE_RATE].any() and window[-SAMPLE_RATE:].all()
    long = np.arange(size + 5, dtype=np.float64)
    assert np.array_equal(turn_window(long), long[5:].astype(np.float32))
    assert not turn_window(np.zeros(0, np.float32)).any()


@pytest.mark.parametrize("source", ["speech", "noise"])
def test_the_log_mel_features_match_transformers_whisper_feature_extractor(source, question):
    from transformers import WhisperFeatureExtractor

    noise = np.random.default_rng(3).normal(0, 0.3, 6 * SAMPLE_RATE).astype(np.float32)
    window = turn_window(question if source == "speech" else noise)  # 8 s, as the model hears
    # Smart Turn's settings, from arguments (nothing read from the hub).
    reference = WhisperFeatureExtractor(feature_size=80, sampling_rate=SAMPLE_RATE,
                                        hop_length=160, chunk_length=TURN_WINDOW_SECONDS,
                                        n_fft=400)
    expected = reference(window, sampling_rate=SAMPLE_RATE, return_tensors="np",
                         padding="max_length", max_length=TURN_WINDOW_SECONDS * SAMPLE_RATE,
                         truncation=True, do_normalize=True).input_features[0]
    ours = whisper_log_mel(window)
    assert ours.shape == expected.shape == (80, 800) and ours.dtype == np.float32
    np.testing.assert_allclose(ours, expected, atol=1e-4)


def test_a_missing_model_file_names_the_setup_script_and_the_variable(tmp_path):
    turn = SmartTurn(tmp_path / "absent.onnx")  # nothing is opened before the first call
    with pytest.raises(ModelUnavailableError, match=r"bash scripts/setup\.sh.*VENUS_TURN_DATA"):
        turn.predict(np.zeros(SAMPLE_RATE, np.float32))


def test_a_file_that_is_not_the_model_says_to_unzip_it_again(tmp_path):
    broken = tmp_path / "smart-turn-v3.2-cpu.onnx"
    broken.write_bytes(b"not an onnx graph")
    with pytest.raises(ModelUnavailableError, match="scripts/setup.sh"):
        SmartTurn(broken).load()


def test_the_model_folder_follows_venus_turn_data(tmp_path, monkeypatch):
    monkeypatch.setenv("VENUS_TURN_DATA", str(tmp_path))
    assert turn_model_path() == tmp_path / "smart-turn-v3.2-cpu.onnx"
    assert SmartTurn().model_path == tmp_path / "smart-turn-v3.2-cpu.onnx"


@pytest.mark.parametrize("audio", [np.zeros((2, 100), np.float32), np.zeros(100, np.int16)])
def test_audio_that_is_not_mono_float_is_refused_with_what_it_was(audio):
    with pytest.raises(AudioFormatError, match="1-D float audio"):
        SmartTurn().predict(audio)


def test_a_threshold_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="between 0 and 1"):
        SmartTurn(threshold=1.5)


def test_smart_turn_and_the_fake_both_satisfy_the_protocol():
    assert isinstance(SmartTurn(), EndOfTurnModel)
    assert isinstance(FakeEndOfTurn(), EndOfTurnModel)


def test_the_fake_is_complete_after_the_given_silence_and_remembers_what_it_heard():
    fake = FakeEndOfTurn(silence_s=0.5)
    speech = np.full(SAMPLE_RATE, 0.2, np.float32)
    assert not fake.predict(np.concatenate([speech, np.zeros(SAMPLE_RATE // 4, np.float32)])).complete
    done = fake.predict(np.concatenate([speech, np.zeros(SAMPLE_RATE // 2, np.float32)]))
    assert done == TurnPrediction(complete=True, probability=1.0, seconds=0.0)
    assert fake.heard == [SAMPLE_RATE * 5 // 4, SAMPLE_RATE * 3 // 2]


def test_the_fake_follows_a_rule_when_given_one():
    fake = FakeEndOfTurn(rule=lambda audio: 0.9 if len(audio) > SAMPLE_RATE else 0.1)
    assert fake.predict(np.zeros(2 * SAMPLE_RATE, np.float32)).complete
    assert fake.predict(np.zeros(SAMPLE_RATE // 2, np.float32)).probability == 0.1
