"""Floor control that does not fall silent, as a listener hears it (the assistant's real
voice, Piper or eSpeak NG; users in eSpeak NG; Silero, Whisper, MiniLM; the embedded frontend through `venus.assistant`; simulated time).

* a backchannel, a remark to someone else and a TV in the background: the output may
  duck, but is never silent for more than 0.8 s while the answer had more to say;
* a real interruption: the output stops within 0.6 s of the onset, and the new question
  gets its own answer, also when the assistant's turn had ended before its words arrived
  (the "reign of terror" case of issue 11).
"""

from __future__ import annotations

import pytest

from venus.events import SpeechQueued
from venus.scenario import parse_scenario, run_scenario, shared_models
from venus.speech import split_pieces

pytestmark = pytest.mark.slow

HISTORY = [
    {"start": 0, "end": 60, "text": "The French Revolution began in 1789 with the storming of "
                                    "the Bastille in Paris."},
    {"start": 60, "end": 120, "text": "The Reign of Terror from 1793 to 1794 saw thousands "
                                      "executed by the guillotine."},
]
QUESTION = {"at": 1.0, "text": "When did the French Revolution begin?", "label": "question"}
FIRST = "At 0:00, The French Revolution began in 1789 with the storming of the Bastille in Paris."


def _duration(text: str) -> float:
    """How long the assistant's voice takes to say ``text`` (its pieces, as it plays them)."""
    tts = shared_models().voice.synthesizer
    return sum(tts.synthesize(p).duration for p in split_pieces(text))


def _queued(run):
    return [(e.time, e.event) for e in run.timeline if isinstance(e.event, SpeechQueued)]


@pytest.mark.parametrize("before_end_s", [0.1, 0.45, 0.9])
def test_a_question_heard_after_the_turn_ended_gets_its_own_answer(before_end_s):
    """The user cuts in just before the answer ends, so its words are in only after the
    assistant's own turn is over: the new question must still be answered, and not by
    repeating the answer the user already heard."""
    start = round(_duration(FIRST) - before_end_s, 2)
    doc = {"name": "reign", "notes": HISTORY, "turns": [
        QUESTION, {"after_assistant": start, "text": "Wait, what about the reign of terror?",
                   "label": "interruption"}]}
    run = run_scenario(parse_scenario(doc))
    over = run.turns[1]
    queued = _queued(run)
    assert queued[0][1].text == FIRST
    later = [(t, e) for t, e in queued[1:] if t >= over.start]
    assert later, "the interruption was never answered"
    t, reply = later[0]
    assert t - over.end <= 3.0, (t, over.end)
    assert reply.text != FIRST, "it repeated its old answer instead of answering"
