"""Scripted conversations in simulated time with real VAD, ASR, TTS and the embedded
frontend: the four overlap kinds while the assistant speaks, echo of its own voice,
a delegated request answered at a free moment, an interruption during delivery."""

from __future__ import annotations

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from memory.samples.slides import draw_scene
from memory.video.writer import write_video
from venus.events import (
    FloorActionTaken,
    OverlapClassified,
    OverlapKind,
    PlaybackAcknowledged,
    ResultDelivered,
    SessionStarted,
    SpeechDetected,
    SpeechQueued,
    SpeechStopped,
    UserWordsTranscribed,
    WorkItemStateChanged,
    WorkState,
)
from venus.frontend.embedded import resume_text
from venus.scenario import parse_scenario, run_scenario, shared_models
from venus.speech.synthesis import espeak_voice, piper_missing, piper_voice

pytestmark = pytest.mark.slow

NOTES = [
    {"start": 0, "end": 30, "text": "Leaves make sugar from sunlight in a process called photosynthesis.",
     "transcript": "Leaves make sugar from sunlight. Chlorophyll absorbs red and blue light."},
    {"start": 30, "end": 60, "text": "Roots take up water and minerals from the soil.",
     "transcript": "Roots take up water and minerals from the soil."},
]
QUESTION = {"at": 1.0, "text": "What do leaves make from sunlight?", "label": "question"}
OVERLAPS = {
    "backchannel": {"text": "Mm-hmm.", "voice": "en-us"},
    "other_directed": {"text": "John, can you pass me the salt?", "voice": "en-us"},
    "background": {"text": "And now the weather for the weekend, sunny with light winds.",
                   "voice": "en+m7", "gain_db": -20, "speaker": "background"},
    "interruption": {"text": "Wait, what do the roots do?", "voice": "en-us"},
}
MODES = {"backchannel": "audio", "other_directed": "omni", "background": "omni",
         "interruption": "omni"}


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = tmp_path_factory.mktemp("video") / "scene.mp4"
    frames = [draw_scene(name, (160, 120)) for name in ("forest", "ocean")] * 10
    return str(write_video(path, frames, fps=1.0))


def _run(doc, out=None):
    return run_scenario(parse_scenario(doc), out)


@pytest.fixture(scope="module", params=list(OVERLAPS))
def overlap(request, video):
    kind = request.param
    doc = {"name": kind, "notes": NOTES, "mode": MODES[kind],
           "turns": [QUESTION, dict(OVERLAPS[kind], after_assistant=1.5, label=kind)]}
    if kind == "interruption":
        doc["video"] = video
    return kind, _run(doc)


def _entries(run, kind):
    return [(e.time, e.event) for e in run.timeline if isinstance(e.event, kind)]


def test_a_harmless_overlap_never_silences_the_output(overlap):
    """Backchannel, other-directed, background: the output may duck, but a listener never
    hears it stop for more than 0.8 s from the onset to 1 s after the overlap ends (the
    strict RESUME rule of `venus.eval.listener`, on the output as played)."""
    from venus.eval.listener import SILENCE_S, silences
    from venus.eval.timing import heard_regions

    kind, run = overlap
    if kind == "interruption":
        pytest.skip("an interruption must stop the output")
    _, over = run.turns
    audio = run.output_audio
    regions = heard_regions(audio)
    # gaps inside the answer (the silence after its last word is its end, not a stop)
    gaps = [(a, b) for a, b in silences(regions, len(audio) / 16000)
            if b > over.start and a < over.end + 1.0 and b < regions[-1][1]]
    assert all(b - a <= SILENCE_S for a, b in gaps), (over.start, over.end, gaps)


def test_each_overlap_kind_gets_the_right_action(overlap):
    kind, run = overlap
    _, over = run.turns
    classified = [e for _, e in _entries(run, OverlapClassified)]
    assert [c.kind for c in classified] == [OverlapKind(kind)], classified
    answer = _entries(run, SpeechQueued)[0][1]
    assert "sugar" in answer.text.lower()
    stopped = [e for _, e in _entries(run, SpeechStopped) if e.reason != "session ended"]
    acked = [e.utterance_id for _, e in _entries(run, PlaybackAcknowledged)]
    if kind == "background":  # a TV's words are not the user's
        words = " ".join(e.text for _, e in _entries(run, UserWordsTranscribed)).lower()
        assert "weather" not in words and "weekend" not in words
    if kind != "interruption":
        # keeps speaking: the answer plays to the end, none of its queued audio is lost
        assert not stopped and answer.utterance_id in acked
        heard = run.output.heard[answer.utterance_id]
        assert heard.fraction == 1.0
        assert len(_entries(run, SpeechQueued)) == 1  # and it did not answer the overlap
        return
    # interruption: silent within 0.6 s of the user's onset (the word probe read "wait"),
    # then answers the new question
    silent = run.silent_after(over.start)
    assert silent is not None and silent - over.start <= 0.6, silent
    assert [s.utterance_id for s in stopped] == [answer.utterance_id]
    assert stopped[0].heard_fraction < 1.0
    later = [(t, e) for t, e in _entries(run, SpeechQueued) if t >= over.end]
    assert later and "roots" in later[0][1].text.lower()


def test_audio_mode_is_chosen_per_session(overlap):
    kind, run = overlap
    started = _entries(run, SessionStarted)[0][1]
    assert started.frontend == ("embedded-audio" if MODES[kind] == "audio" else "embedded")


def test_output_is_sample_aligned_with_the_input(overlap):
    _, run = overlap
    assert len(run.output_audio) == len(run.input_audio)
    # the answer starts on the session timeline where the output says it started
    first = run.output.started[0][1]
    a = int(first * SAMPLE_RATE)
    assert np.abs(run.output_audio[:a]).max() == 0.0
    assert np.abs(run.output_audio[a:a + SAMPLE_RATE // 2]).max() > 0.05


def test_own_voice_echo_never_triggers_a_stop(tmp_path):
    doc = {"name": "echo", "notes": NOTES, "echo": {"gain_db": -3, "delay_ms": 40},
           "turns": [QUESTION, {"at": 11.0, "text": "What do roots take up from the soil?"}]}
    run = _run(doc, tmp_path)
    assert (tmp_path / "input.wav").is_file() and (tmp_path / "output.wav").is_file()
    assert not _entries(run, OverlapClassified)
    assert not [e for _, e in _entries(run, SpeechStopped) if e.reason != "session ended"]
    spoken = _entries(run, SpeechQueued)
    assert len(spoken) == 2 and "roots" in spoken[1][1].text.lower()
    # the microphone really carried the assistant's voice while it spoke ...
    start = run.output.started[0][1]
    seg = slice(int((start + 0.2) * SAMPLE_RATE), int((start + 1.2) * SAMPLE_RATE))
    assert np.sqrt(np.mean(run.input_audio[seg] ** 2)) > 0.02
    # ... yet no user speech was detected over it before the second question
    user = [e for _, e in _entries(run, SpeechDetected) if start < e.start < run.turns[1].start]
    assert not user, user


@pytest.mark.parametrize("delay_ms", [280, 180], ids=["after-the-report", "before-the-report"])
def test_echo_from_a_sink_that_plays_late_is_removed_when_the_sink_reports_its_lag(
        tmp_path, delay_ms):
    """A browser plays the reply behind the session's clock (its playout buffer), so its
    echo reaches the microphone later than the canceller searches (0.12 s). The page
    reports how late it plays (`DuplexOptions.sink_lag_s`, the app sets it from the
    page's reports): the reference is then what the sink was playing, and the echo of a
    page 0.25 s behind never stops the reply. The report counts the page's output
    latency; an echo tapped inside the page (the bench's loopback), or a microphone
    stamped late, comes earlier than it says: 0.07 s ahead is removed too."""
    doc = {"name": "echo-late", "notes": NOTES,
           "echo": {"gain_db": -3, "delay_ms": delay_ms, "sink_lag_ms": 250},
           "turns": [QUESTION, {"at": 11.0, "text": "What do roots take up from the soil?"}]}
    run = _run(doc, tmp_path)
    assert not [e for _, e in _entries(run, SpeechStopped) if e.reason != "session ended"]
    assert not _entries(run, OverlapClassified)
    start = run.output.started[0][1]
    user = [e for _, e in _entries(run, SpeechDetected) if start < e.start < run.turns[1].start]
    assert not user, user


def test_delegated_request_is_answered_later_at_a_free_moment():
    doc = {"name": "timer", "notes": NOTES, "turns": [
        {"at": 1.0, "text": "Remind me in 8 seconds to stretch.", "label": "request"},
        {"at": 10.0, "text": "What do roots take up from the soil?", "label": "question"}]}
    run = _run(doc)
    ack, answer, result = (e for _, e in _entries(run, SpeechQueued))
    assert "remind you" in ack.text.lower() and result.item_id is not None
    delivered = _entries(run, ResultDelivered)
    assert [e.item_id for _, e in delivered] == [result.item_id]
    queued_at = next(t for t, e in _entries(run, SpeechQueued) if e is result)
    ready_at = next(t for t, e in _entries(run, WorkItemStateChanged)
                    if e.state is WorkState.COMPLETED)
    user = run.turns[1]
    assert user.start <= ready_at <= user.end  # the timer fired while the user was talking
    answer_end = next(t for t, e in _entries(run, PlaybackAcknowledged)
                      if e.utterance_id == answer.utterance_id)
    assert queued_at >= user.end and queued_at >= answer_end - 1.0


def test_interruption_during_delivery_leaves_the_item_not_delivered():
    doc = {"name": "deliver", "notes": NOTES, "turns": [
        {"at": 1.0, "text": "Remind me in 5 seconds to stretch my legs, roll my shoulders and "
                            "drink some water.", "label": "request"},
        {"after_assistant": 1.5, "nth_utterance": 2, "text": "Wait, how do leaves make sugar?",
         "label": "interruption"}]}
    run = _run(doc)
    first = next(e for _, e in _entries(run, SpeechQueued) if e.item_id is not None)
    stop_t, stop = next((t, e) for t, e in _entries(run, SpeechStopped)
                        if e.utterance_id == first.utterance_id)
    assert stop.heard_fraction < 1.0
    delivered = _entries(run, ResultDelivered)
    assert all(t > stop_t and e.utterance_id != first.utterance_id for t, e in delivered)
    states = [(t, e.state) for t, e in _entries(run, WorkItemStateChanged) if t >= stop_t]
    assert states[0][1] is WorkState.COMPLETED  # back to pending, not delivered
    # Queued after the stop on the timeline (the same chunk, when the interruption is
    # classified on its final words: ASR runs in the background, see venus.perception).
    stop_seq = next(x.seq for x in run.timeline if x.event is stop)
    answer = [x.event for x in run.timeline if isinstance(x.event, SpeechQueued)
              and x.seq > stop_seq and x.event.item_id is None]
    assert answer and "sugar" in answer[0].text.lower()


def test_say_that_again_revises_from_what_was_heard():
    long_notes = [{"start": 0, "end": 30, "text": "Leaves make sugar from sunlight. Chlorophyll "
                   "absorbs red and blue light and reflects green light back to our eyes."}]
    doc = {"name": "repeat", "notes": long_notes, "turns": [
        {"at": 1.0, "text": "What do leaves make from sunlight?"},
        {"after_assistant": 3.0, "text": "Sorry, can you say that again?", "label": "interruption"}]}
    run = _run(doc)
    first = _entries(run, SpeechQueued)[0][1]
    stop = next(e for _, e in _entries(run, SpeechStopped) if e.utterance_id == first.utterance_id)
    assert 0 < stop.heard_fraction < 1
    floors = [e.action.value for _, e in _entries(run, FloorActionTaken)]
    # the gate paused on "Sorry" and the verdict waits for the words: the interruption and
    # the repeat are decided in one chunk, whose floor action (revise) stops the answer
    assert "revise_response" in floors
    revised = _entries(run, SpeechQueued)[1][1]
    heard = run.output.heard[first.utterance_id]
    assert revised.text == resume_text(first.text, heard.heard_text)
    assert first.text.endswith(revised.text) and len(revised.text) < len(first.text)


def test_a_quiet_tv_asking_a_question_is_not_answered():
    doc = {"name": "tv", "notes": NOTES, "turns": [
        {"at": 1.0, "text": "What do leaves make from sunlight?"},
        {"at": 10.0, "text": "What will the weather be like tomorrow in the north?",
         "voice": "en+m7", "gain_db": -20, "speaker": "background", "label": "background"}]}
    run = _run(doc)
    spoken = [e.text for _, e in _entries(run, SpeechQueued)]
    assert len(spoken) == 1 and "sugar" in spoken[0].lower()
    assert all("weather" not in e.text.lower() for _, e in _entries(run, UserWordsTranscribed))


LOUD_ECHO = {"name": "echo-interrupt", "notes": NOTES, "echo": {"gain_db": -3, "delay_ms": 25},
             "turns": [QUESTION, dict(OVERLAPS["interruption"], after_assistant=1.5)]}


@pytest.mark.parametrize("voice", ["espeak", "piper"])
def test_an_interruption_is_still_heard_through_loud_echo(voice):
    """In either assistant voice: Piper's voiced onsets once made the canceller learn a
    path a pitch period off at the start of the second answer (heard as an overlap)."""
    if voice == "piper" and piper_missing():
        pytest.skip(piper_missing())
    make = espeak_voice if voice == "espeak" else piper_voice
    run = run_scenario(parse_scenario(LOUD_ECHO), models=shared_models().with_voice(make()))
    over = run.turns[1]
    assert [e.kind for _, e in _entries(run, OverlapClassified)] == [OverlapKind.INTERRUPTION]
    silent = run.silent_after(over.start)
    assert silent is not None and silent - over.start <= 0.6
    later = [e for t, e in _entries(run, SpeechQueued) if t >= over.end]
    assert later and "roots" in later[0].text.lower()
