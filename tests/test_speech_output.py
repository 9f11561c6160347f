"""AudioSpeechOutput with the real eSpeak voice, and the echo canceller, on session time."""

from __future__ import annotations

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from memory.models import EspeakSynthesizer
from venus.runtime import PlaybackStatus, SpeechOutput, Utterance
from venus.speech import (
    AudioSpeechOutput,
    EchoCanceller,
    EchoOptions,
    SpeechOutputOptions,
    split_pieces,
)

TEXT = ("Photosynthesis turns light into sugar. Chlorophyll absorbs red and blue light, "
        "and reflects green, which is why leaves look green to us.")


class _Memo:
    """The real eSpeak voice, memoised: eSpeak's samples vary a little from call to call,
    and the comparisons below need the same audio for the same piece."""

    def __init__(self) -> None:
        self._tts = EspeakSynthesizer()
        self._done: dict = {}

    def synthesize(self, text, voice=None, rate=None, pitch=None):
        key = (text, voice, rate, pitch)
        if key not in self._done:
            self._done[key] = self._tts.synthesize(text, voice, rate, pitch)
        return self._done[key]


@pytest.fixture(scope="module")
def tts():
    return _Memo()


def _out(tts) -> AudioSpeechOutput:
    return AudioSpeechOutput(synthesizer=tts)


def _sample(t: float) -> int:
    return round(t * SAMPLE_RATE)


def test_implements_the_runtime_protocol(tts):
    assert isinstance(_out(tts), SpeechOutput)


def test_stop_is_silent_from_the_decision_sample(tts):
    out = _out(tts)
    out.queue(Utterance("u1", TEXT), 0.5)
    assert [r.status for r in out.poll(1.0)] == [PlaybackStatus.STARTED]
    reports = out.stop(1.7371)
    assert [(r.utterance_id, r.status) for r in reports] == [("u1", PlaybackStatus.STOPPED)]
    assert reports[0].time == pytest.approx(1.7371, abs=1 / SAMPLE_RATE)
    wave = out.waveform(4.0)
    cut = _sample(1.7371)
    assert np.abs(wave[:_sample(0.5)]).max() == 0.0  # nothing before it was queued
    assert np.abs(wave[_sample(0.6):cut]).max() > 0.05
    assert np.abs(wave[cut + _sample(0.02):]).max() == 0.0  # within one 20 ms frame: at once
    assert not out.busy and out.poll(5.0) == []


def test_flush_drops_everything_queued_atomically(tts):
    out = _out(tts)
    for i in range(3):
        out.queue(Utterance(f"u{i}", f"Sentence number {i} of the answer."), 0.0)
    out.poll(0.5)
    reports = out.flush(0.9)
    assert [(r.utterance_id, r.status) for r in reports] == [
        ("u0", PlaybackStatus.STOPPED), ("u1", PlaybackStatus.STOPPED), ("u2", PlaybackStatus.STOPPED)]
    assert [r.heard_fraction for r in reports][1:] == [0.0, 0.0]
    assert out.poll(20.0) == [] and not out.busy
    assert np.abs(out.waveform(20.0)[_sample(0.9):]).max() == 0.0


def test_word_level_acknowledgement_of_what_was_heard(tts):
    out = _out(tts)
    out.queue(Utterance("u1", TEXT), 0.0)
    out.poll(1.0)
    out.stop(2.0)
    heard = out.heard["u1"]
    assert heard.status is PlaybackStatus.STOPPED
    words = TEXT.split()
    n = len(heard.heard_text.split())
    assert 2 <= n < len(words) and heard.heard_text == " ".join(words[:n])
    assert heard.unheard_text == " ".join(words[n:])
    assert heard.fraction == pytest.approx(n / len(words))
    # The first piece alone (word timings from the TTS) takes at least as long as was played.
    first = tts.synthesize(split_pieces(TEXT)[0], out.options.voice, out.options.rate)
    assert first.words[min(n, len(first.words)) - 1].end <= 2.0 + 1e-6 or n > len(first.words)


def test_finished_only_when_the_last_sample_played(tts):
    out = _out(tts)
    out.queue(Utterance("u1", "Short answer."), 0.0)
    duration = tts.synthesize("Short answer.", out.options.voice, out.options.rate).duration
    reports = out.poll(duration - 0.05)
    assert [r.status for r in reports] == [PlaybackStatus.STARTED]
    reports = out.poll(duration + 0.5)
    assert [r.status for r in reports] == [PlaybackStatus.FINISHED]
    assert reports[0].time == pytest.approx(duration, abs=1e-3)
    assert out.heard["u1"].fraction == 1.0


def test_pause_holds_the_cursor_and_loses_nothing(tts):
    plain, paused = _out(tts), _out(tts)
    for out in (plain, paused):
        out.queue(Utterance("u1", TEXT), 0.0)
    paused.pause(1.0)
    paused.resume(2.5)
    plain.poll(12.0)
    paused.advance(13.5)
    a, b = plain.waveform(12.0), paused.waveform(13.5)
    assert np.abs(b[_sample(1.0):_sample(2.5)]).max() == 0.0
    np.testing.assert_array_equal(b[:_sample(1.0)], a[:_sample(1.0)])
    np.testing.assert_array_equal(b[_sample(2.5):_sample(13.5)], a[_sample(1.0):_sample(12.0)])


def test_duck_lowers_the_gain_then_restores_it(tts):
    plain, ducked = _out(tts), _out(tts)
    for out in (plain, ducked):
        out.queue(Utterance("u1", TEXT), 0.0)
    ducked.duck(1.0)
    ducked.unduck(2.0)
    plain.poll(3.0)
    ducked.poll(3.0)
    a, b = plain.waveform(3.0), ducked.waveform(3.0)
    seg = slice(_sample(1.0), _sample(2.0))
    np.testing.assert_allclose(b[seg], a[seg] * ducked.duck_gain, atol=1e-6)
    np.testing.assert_array_equal(b[_sample(2.0):], a[_sample(2.0):])


def test_preview_is_what_will_play_and_commits_nothing(tts):
    out = _out(tts)
    out.queue(Utterance("u1", TEXT), 0.0)
    # what played is reported by the call that played it (the sink's clock), at once
    assert [r.status for r in out.advance(1.0)] == [PlaybackStatus.STARTED]
    ahead = out.preview(1.0, 2.0)
    assert out.horizon == pytest.approx(1.0)
    assert out.poll(2.0) == []
    assert out.horizon == pytest.approx(1.0)  # follows the input: waits for the next advance
    out.advance(2.0)
    np.testing.assert_array_equal(out.rendered(1.0, 2.0), ahead)


def test_split_pieces_keeps_every_word():
    text = "One two three, four five six seven eight nine ten eleven twelve thirteen fourteen fifteen. End!"
    pieces = split_pieces(text, max_words=6)
    assert " ".join(pieces).split() == text.split()
    assert all(len(p.split()) <= 6 for p in pieces)


def test_echo_canceller_removes_a_delayed_scaled_echo_but_keeps_the_user(tts):
    ref_speech = tts.synthesize(TEXT).audio[:2 * SAMPLE_RATE]
    user = tts.synthesize("Wait, what about the roots?", voice="en-us+f2").audio[:SAMPLE_RATE]
    canceller = EchoCanceller()
    h = canceller.history_samples
    delay = int(0.03 * SAMPLE_RATE)
    for k in range(2):  # echo only, then double talk in the second second
        chunk_ref = np.concatenate([np.zeros(SAMPLE_RATE), ref_speech])[k * SAMPLE_RATE + SAMPLE_RATE - h:
                                                                       (k + 2) * SAMPLE_RATE]
        mic = 0.5 * chunk_ref[h - delay: h - delay + SAMPLE_RATE]
        if k == 1:
            mic = mic + user
        cleaned = canceller.cancel(mic.astype(np.float32), chunk_ref.astype(np.float32))
        if k == 0:
            assert np.sqrt(np.mean(cleaned ** 2)) < 1e-3 * np.sqrt(np.mean(mic ** 2))
            assert canceller.last.delay_s == pytest.approx(0.03, abs=1e-3)
            assert canceller.last.gain == pytest.approx(0.5, abs=0.01)
        else:
            corr = np.dot(cleaned, user) / np.linalg.norm(cleaned) / np.linalg.norm(user)
            assert corr > 0.95


def _fractional_delay(x: np.ndarray, samples: float) -> np.ndarray:
    n = 1 << int(np.ceil(np.log2(2 * len(x))))
    f = np.fft.rfftfreq(n)
    return np.fft.irfft(np.fft.rfft(x, n) * np.exp(-2j * np.pi * f * samples), n)[:len(x)]


def test_echo_canceller_removes_an_echo_a_fraction_of_a_sample_off(tts):
    """A page plays at 48 kHz what the session rendered at 16 kHz: its echo comes back a
    fraction of a sample off the reference's grid, and one gain at the nearest whole
    sample left it only 7-10 dB down (`venus bench live --echo 0.3`: "sp sp" and the
    reply's own words were answered as the user's). A short filter around the delay
    removes it."""
    ref_speech = tts.synthesize(TEXT).audio[:3 * SAMPLE_RATE].astype(np.float64)
    canceller = EchoCanceller()
    h = canceller.history_samples
    padded = np.concatenate([np.zeros(h), ref_speech])
    echo = 0.3 * _fractional_delay(padded, 0.03 * SAMPLE_RATE + 1 / 3)
    hop = SAMPLE_RATE // 10
    left = []
    for k in range(len(ref_speech) // hop):  # the runtime's hops of a tenth of a second
        a, b = k * hop, (k + 1) * hop
        mic = echo[h + a: h + b].astype(np.float32)
        cleaned = canceller.cancel(mic, padded[a: h + b].astype(np.float32))
        if k >= 5:  # after the first half second
            left.append((float(np.sum(cleaned ** 2)), float(np.sum(mic ** 2))))
    residual, total = map(sum, zip(*left))
    assert 10 * np.log10(residual / total) < -30
    assert canceller.last.delay_s == pytest.approx(0.03, abs=2 / SAMPLE_RATE)
    assert canceller.last.gain == pytest.approx(0.3, abs=0.02)


def test_echo_canceller_follows_a_path_that_moved_while_the_user_spoke(tts):
    """A page that paused the reply for a backchannel plays the rest from a new offset:
    the echo path moves while the user's "Hmm" keeps the whole context's correlation
    low. The canceller finds the new path within a few hops of the user's end."""
    ref_speech = tts.synthesize(TEXT + " " + TEXT).audio[:5 * SAMPLE_RATE].astype(np.float64)
    user = tts.synthesize("Hmm.", voice="en-us+f2").audio[:int(0.6 * SAMPLE_RATE)]
    canceller = EchoCanceller()
    h = canceller.history_samples
    padded = np.concatenate([np.zeros(h), ref_speech])
    moved_at = 2 * SAMPLE_RATE  # the user speaks over the echo just before it moves
    echo = np.concatenate([0.3 * _fractional_delay(padded, 480)[:h + moved_at],
                           0.3 * _fractional_delay(padded, 640)[h + moved_at:]])
    echo[h + moved_at - len(user): h + moved_at] += user
    hop = SAMPLE_RATE // 10
    left = []
    for k in range(len(ref_speech) // hop):
        a, b = k * hop, (k + 1) * hop
        mic = echo[h + a: h + b].astype(np.float32)
        cleaned = canceller.cancel(mic, padded[a: h + b].astype(np.float32))
        if a >= moved_at + 3 * hop:
            left.append((float(np.sum(cleaned ** 2)), float(np.sum(mic ** 2))))
    residual, total = map(sum, zip(*left))
    assert 10 * np.log10(residual / total) < -30
    assert canceller.last.delay_s == pytest.approx(0.04, abs=2 / SAMPLE_RATE)


def test_echo_canceller_learns_no_path_from_the_user_alone_hop_by_hop(tts):
    """No echo comes back (the duplex bench plays none): the user's voice over a playing
    reference, hop by hop, teaches the canceller nothing, however short the stretch it
    looks at (a 0.3 s stretch of voiced murmurs can fit a filtered reference at 0.6-0.7
    by chance: the reply's own words were then subtracted into the user's)."""
    ref_speech = tts.synthesize(TEXT + " " + TEXT).audio[:6 * SAMPLE_RATE].astype(np.float64)
    user = tts.synthesize("Mmm. Uh-huh. Okay. Hmm, yes, yes.", voice="en-us").audio
    user = np.pad(user[:6 * SAMPLE_RATE], (0, 6 * SAMPLE_RATE - min(len(user), 6 * SAMPLE_RATE)))
    canceller = EchoCanceller(EchoOptions(max_delay_s=0.22))
    h = canceller.history_samples
    padded = np.concatenate([np.zeros(h), ref_speech])
    hop, shift = SAMPLE_RATE // 10, 1200  # the user's hops, 75 ms into the reference
    for k in range(len(ref_speech) // hop - 1):
        a, b = k * hop, (k + 1) * hop
        mic = user[a:b].astype(np.float32)
        cleaned = canceller.cancel(mic, padded[a + shift: h + b + shift].astype(np.float32))
        np.testing.assert_array_equal(cleaned, mic)
    assert canceller.path is None


def test_echo_canceller_leaves_the_mic_alone_without_echo(tts):
    ref = tts.synthesize(TEXT).audio[:SAMPLE_RATE]
    user = tts.synthesize("Hello there.", voice="en-us+f2").audio[:SAMPLE_RATE]
    mic = np.pad(user, (0, SAMPLE_RATE - len(user))).astype(np.float32)
    canceller = EchoCanceller()
    ref = np.concatenate([np.zeros(canceller.history_samples), np.pad(ref, (0, SAMPLE_RATE - len(ref)))])
    np.testing.assert_array_equal(canceller.cancel(mic, ref.astype(np.float32)), mic)


def test_a_session_speaks_through_it_and_hears_the_acknowledgement(tts):
    from venus.clock import SimulatedClock
    from venus.events import PlaybackAcknowledged, SpeechPlayed
    from venus.frontend import Decision
    from venus.runtime import Session
    from venus.testing import FakeFrontend, FakeVideoSource

    out = _out(tts)
    frontend = FakeFrontend({1: Decision(speech="Hello from the real voice.")})
    session = Session(frontend, FakeVideoSource(6), clock=SimulatedClock(), speech=out)
    session.run()
    played = session.timeline.events(SpeechPlayed)
    acked = session.timeline.events(PlaybackAcknowledged)
    assert [p.utterance_id for p in played] == ["u1"] and [a.utterance_id for a in acked] == ["u1"]
    wave = out.waveform()
    assert np.abs(wave[:_sample(2.0)]).max() == 0.0  # queued at the end of chunk 1
    assert np.abs(wave[_sample(2.0):_sample(2.5)]).max() > 0.05


def test_in_simulated_time_a_reply_starts_after_its_first_piece_would_be_synthesized(tts):
    """Live, the first piece (``first_piece_words``) is synthesized after the decision and
    the reply starts when it is ready; inline in simulated time it takes no session time,
    which made simulated reply onsets ~0.2 s earlier than the wall clock's with Piper.
    ``synthesis_s_per_word`` puts that delay back, deterministically."""
    options = SpeechOutputOptions(synthesis_s_per_word=0.04, first_piece_words=5)
    out = AudioSpeechOutput(options, synthesizer=tts)
    out.queue(Utterance("u1", TEXT), 1.0)  # its first piece: "Photosynthesis turns light into sugar."
    assert out.poll(1.15) == []  # 5 words x 0.04 s: not ready before 1.2 s
    started = out.poll(1.3)
    assert [r.status for r in started] == [PlaybackStatus.STARTED]
    assert started[0].time == pytest.approx(1.2, abs=1e-3)
    assert out.rendered(1.0, 1.2).max() == 0.0 and np.abs(out.rendered(1.2, 1.3)).max() > 0
    # off by default: starts at once
    plain = AudioSpeechOutput(synthesizer=tts)
    plain.queue(Utterance("u1", TEXT), 1.0)
    assert [r.time for r in plain.poll(1.1)] == [1.0]
