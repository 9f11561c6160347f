"""The embedded Silero VAD (ONNX through onnxruntime), for real, offline and streaming."""

import subprocess
import sys

import numpy as np
import pytest

from memory.errors import AudioFormatError, ModelUnavailableError
from memory.models import EspeakSynthesizer, SileroSpeechDetector, SpeechDetector

SR = 16_000


@pytest.fixture(scope="module")
def vad():
    return SileroSpeechDetector()


@pytest.fixture(scope="module")
def padded_sentence():
    """A synthesized sentence with 2 s of silence each side, and its true start/end."""
    speech = EspeakSynthesizer().synthesize("The Calvin cycle fixes carbon dioxide into sugar.")
    voiced = np.flatnonzero(np.abs(speech.audio) > 0.01)
    start, end = 2.0 + voiced[0] / SR, 2.0 + voiced[-1] / SR
    silence = np.zeros(2 * SR, np.float32)
    return np.concatenate([silence, speech.audio, silence]), start, end


def test_finds_the_sentence_padded_with_silence(vad, padded_sentence):
    audio, start, end = padded_sentence
    regions = vad.detect(audio)
    assert isinstance(vad, SpeechDetector)
    assert len(regions) == 1
    assert abs(regions[0].start - start) < 0.3 and abs(regions[0].end - end) < 0.3


@pytest.mark.parametrize("kind", ["silence", "white noise", "pure tone"])
def test_finds_no_speech_in_non_speech(vad, kind):
    t = np.arange(4 * SR) / SR
    audio = {
        "silence": np.zeros(4 * SR),
        "white noise": np.random.default_rng(0).standard_normal(4 * SR) * 0.1,
        "pure tone": 0.3 * np.sin(2 * np.pi * 440 * t),
    }[kind].astype(np.float32)
    assert vad.detect(audio) == []


def test_streaming_over_arbitrary_feeds_equals_the_offline_pass(vad, padded_sentence):
    audio = padded_sentence[0]
    audio = audio[: len(audio) // 512 * 512]  # offline zero-pads a partial last window
    offline = vad.probabilities(audio)
    stream = vad.stream()
    sizes = np.random.default_rng(1).integers(1, 3000, size=len(audio))
    streamed, i = [], 0
    for size in sizes:
        if i >= len(audio):
            break
        streamed += stream.feed(audio[i:i + size])
        i += size
    np.testing.assert_allclose(streamed, offline, atol=1e-6)
    assert stream.position == pytest.approx(len(audio) / SR) and stream.buffered == 0
    assert vad.regions_from(streamed, len(audio) / SR) == vad.detect(audio)


def test_stream_buffers_leftovers_and_resets(vad, padded_sentence):
    audio = padded_sentence[0][: 3 * SR]
    stream = vad.stream()
    assert stream.feed(audio[:500]) == [] and stream.buffered == 500
    first = stream.feed(audio[500:])
    assert len(first) == 3 * SR // 512 and stream.position == pytest.approx(len(first) * 0.032)
    stream.reset()
    assert stream.position == 0 and stream.buffered == 0
    np.testing.assert_allclose(stream.feed(audio), first, atol=1e-6)


def test_wrong_rate_or_stereo_is_a_clear_error(vad):
    with pytest.raises(AudioFormatError, match="mono"):
        vad.detect(np.zeros((SR, 2), np.float32))
    with pytest.raises(AudioFormatError, match="mono"):
        vad.stream().feed(np.zeros((2, SR), np.float32))
    with pytest.raises(AudioFormatError, match="44100 Hz"):
        vad.detect(np.zeros(44_100, np.float32), sample_rate=44_100)
    with pytest.raises(AudioFormatError, match="8000 Hz"):
        vad.stream().feed(np.zeros(8_000, np.float32), sample_rate=8_000)


def test_bad_model_path_names_the_path(tmp_path):
    with pytest.raises(ModelUnavailableError, match="missing-vad.onnx"):
        SileroSpeechDetector(model_path=str(tmp_path / "missing-vad.onnx"))


def test_importing_the_detector_leaves_torch_threads_alone():
    code = ("import torch; before = torch.get_num_threads(); "
            "from memory.models import SileroSpeechDetector; SileroSpeechDetector().detect("
            "__import__('numpy').zeros(16000, 'float32')); "
            "assert torch.get_num_threads() == before, (before, torch.get_num_threads())")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_one_call_per_feed_gives_the_window_by_window_probabilities(vad, padded_sentence):
    from memory.models.vad import VADStream, _Silero

    assert vad._session.sequence is not None  # the wheel carries the sequence export
    audio = padded_sentence[0]
    one_by_one = VADStream(_Silero(vad._session.window))  # the per-window model only
    batched = vad.stream()
    sizes = np.random.default_rng(2).integers(1, 9000, size=200)
    a, b, i = [], [], 0
    for size in sizes:
        a += batched.feed(audio[i:i + size])
        b += one_by_one.feed(audio[i:i + size])
        i += size
        if i >= len(audio):
            break
    assert len(a) == len(b) > 100
    np.testing.assert_array_equal(a, b)
