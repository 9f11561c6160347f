"""Voice families of the synthesized sets: the split by family, the real recordings, rooms."""

from __future__ import annotations

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from venus.errors import ConfigError
from venus.eval.synth import HELD_OUT_SEED, TUNING_SEED, _Voices, draw_spec
from venus.eval.voices import (
    BACKGROUND_FAMILIES,
    HELD_OUT_FAMILY,
    IMPULSES,
    TUNING_FAMILIES,
    human_clips,
    impulse,
    in_room,
    spoken,
)


def test_the_held_out_family_is_in_no_tuning_draw_and_alone_in_held_out_ones():
    assert HELD_OUT_FAMILY not in TUNING_FAMILIES + BACKGROUND_FAMILIES
    tuning = [draw_spec(TUNING_SEED, i) for i in range(60)]
    held = [draw_spec(HELD_OUT_SEED, i, held_out=True) for i in range(60)]
    assert {s.family for s in tuning} == set(TUNING_FAMILIES)  # chosen by seed, all used
    assert {s.background_family for s in tuning} == set(BACKGROUND_FAMILIES)
    assert {s.family for s in held} == {s.background_family for s in held} == {HELD_OUT_FAMILY}
    for s in tuning + held:  # the background is never the user's own voice
        assert s.background_voice != s.voice
        assert (s.background_clip is not None) == (s.background_family == "human")
    assert {s.room for s in tuning} == {None, *IMPULSES}  # dry half the time, else a room
    assert draw_spec(HELD_OUT_SEED, 3, held_out=True) == draw_spec(HELD_OUT_SEED, 3, held_out=True)


def test_real_recordings_come_with_their_words():
    clips = human_clips()
    speakers = {c.speaker for c in clips}
    assert {"call-diane", "call-sheila", "librivox-reader", "cards-speaker"} <= speakers
    for c in clips:
        assert c.text and c.audio.dtype == np.float32 and len(c.audio) > 0.3 * SAMPLE_RATE
        assert 0.01 < float(np.abs(c.audio).max()) <= 1.0
    assert any("Yankee" in c.text for c in clips)  # the call's own transcript (sample.stm)


def test_a_room_adds_a_tail_at_the_same_loudness():
    rng = np.random.default_rng(0)
    dry = (rng.standard_normal(SAMPLE_RATE) * 0.1).astype(np.float32)
    for name in IMPULSES:
        ir = impulse(name)
        assert abs(float(np.sum(ir ** 2)) - 1.0) < 1e-3 and np.argmax(np.abs(ir)) == 0
        wet = in_room(dry, name)
        assert len(wet) == len(dry) + SAMPLE_RATE // 2
        assert np.sqrt(np.mean(wet ** 2)) == pytest.approx(np.sqrt(np.mean(dry ** 2)), rel=1e-3)
        assert not np.allclose(wet[:len(dry)], dry, atol=1e-2)
    assert in_room(dry, None) is dry
    with pytest.raises(ConfigError, match="speech_data.sh"):
        impulse("no-such-room.wav")


def test_every_family_says_every_part_at_one_level():
    from memory.models import EspeakSynthesizer

    tts = EspeakSynthesizer()
    for spec in (draw_spec(TUNING_SEED, 1), draw_spec(HELD_OUT_SEED, 1, held_out=True),
                 next(draw_spec(TUNING_SEED, i) for i in range(40) if draw_spec(TUNING_SEED, i).family == "piper"),
                 next(draw_spec(TUNING_SEED, i) for i in range(40) if draw_spec(TUNING_SEED, i).background_family == "human")):
        voices = _Voices(tts, spec)
        for audio in (voices.say(spec.question[0]), voices.say(spec.backchannel), voices.background()):
            frames = audio[:len(audio) // 160 * 160].reshape(-1, 160)
            voiced = frames[np.abs(frames).max(axis=1) > 1e-3]
            level = 20 * np.log10(np.sqrt(np.mean(voiced ** 2)))
            assert -24.0 < level < -20.5 and np.abs(audio).max() < 1.0
    assert spoken("flite", "Mm-hmm.") == "Hmm." and spoken("espeak", "Mm-hmm.") == "Mm-hmm."


def test_an_interruption_always_changes_the_topic():
    from venus.eval.synth import (
        INTERRUPTION_TOPICS,
        INTERRUPTIONS,
        QUESTION_TOPICS,
        QUESTIONS,
        SOFT_INTERRUPTIONS,
        SOFT_TOPICS,
    )

    topics = dict(zip(INTERRUPTIONS + SOFT_INTERRUPTIONS, INTERRUPTION_TOPICS + SOFT_TOPICS))
    for seed, held in ((TUNING_SEED, False), (HELD_OUT_SEED, True)):
        for i in range(40):
            s = draw_spec(seed, i, held_out=held)
            assert QUESTION_TOPICS[QUESTIONS.index(s.question)] != topics[s.interruption]


def test_tuning_has_remarks_that_open_like_interruptions_and_soft_interruptions():
    """Remarks to someone else that begin "Wait, Sarah, ..." and interruptions with a soft
    or no opener are tuning material only: the held-out draw is the one every session
    measured, and its parts are drawn exactly as before."""
    from venus.eval.synth import (
        INTERRUPTIONS,
        OPENER_REMARKS,
        OTHER_NAMES,
        OTHER_REMARKS,
        SOFT_INTERRUPTIONS,
    )

    def forms(templates):
        return {t.format(name=n) for t in templates for n in OTHER_NAMES}

    tuning = [draw_spec(TUNING_SEED, i) for i in range(50)]
    held = [draw_spec(HELD_OUT_SEED, i, held_out=True) for i in range(50)]
    opener_remarks = [s for s in tuning if s.other in forms(OPENER_REMARKS)]
    soft = [s for s in tuning if s.interruption in SOFT_INTERRUPTIONS]
    assert 15 <= len(opener_remarks) <= 35 and 15 <= len(soft) <= 35
    assert {s.family for s in opener_remarks} == {s.family for s in soft} == set(TUNING_FAMILIES)
    assert all(s.other in forms(OTHER_REMARKS) and s.interruption in INTERRUPTIONS for s in held)
    # the other tuning samples keep their remark and interruption from the common lists
    assert all(s.other in forms(OTHER_REMARKS) for s in tuning if s not in opener_remarks)
    assert all(s.interruption in INTERRUPTIONS for s in tuning if s not in soft)
