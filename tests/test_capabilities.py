"""Capability contracts and the built-in capabilities, run through the real harness."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from venus.capabilities import builtin_capabilities, calculate, evaluate
from venus.capabilities.text import clock_label
from venus.clock import SimulatedClock
from venus.errors import CapabilityDefinitionError, CapabilityFailure
from venus.events import Citation, EvidenceSnapshot, ResultReady, WorkResult
from venus.frontend import Decision, DelegationRequest
from venus.harness import (
    ArgumentsInvalid,
    Capability,
    CapabilityContext,
    CapabilityRegistry,
    MalformedOutput,
    capability,
)
from venus.runtime import Session
from venus.testing import FakeFrontend, FakeMemory, FakeMoment, FakeSpeechOutput, FakeVideoSource

LECTURE = FakeMemory([
    FakeMoment(0, 10, "The lecturer introduces photosynthesis in green plants.",
               "Today we talk about photosynthesis.", keyframe="kf/0.jpg"),
    FakeMoment(10, 20, "A slide shows chlorophyll absorbing sunlight.",
               "Chlorophyll absorbs sunlight mostly in red and blue.", "CHLOROPHYLL",
               keyframe="kf/10.jpg"),
    FakeMoment(20, 30, "The lecturer writes the glucose equation on the board.",
               "Glucose is produced from carbon dioxide and water.", keyframe="kf/20.jpg"),
    FakeMoment(30, 40, "Students discuss oxygen released by plants.",
               "Oxygen is released as a byproduct of photosynthesis."),
    FakeMoment(100, 110, "A video about mitochondria plays.", "Mitochondria make energy."),
])


def run_builtin(name: str, arguments: dict, at: int = 60, memory=LECTURE, seconds: int = 70):
    """Ask a built-in at chunk ``at`` of a session over ``memory``; return its result."""
    script = {at: Decision(delegations=(DelegationRequest.new(name, arguments),))}
    session = Session(FakeFrontend(script), FakeVideoSource(seconds), clock=SimulatedClock(),
                      capabilities=builtin_capabilities(), memory=memory,
                      speech=FakeSpeechOutput(), session_id="s1")
    session.run()
    results = session.timeline.events(ResultReady)
    assert len(results) == 1, session.timeline.events(ResultReady)
    return results[0].result, session


# -- contracts -----------------------------------------------------------------------


def test_a_plain_function_becomes_a_capability_with_schemas():
    @capability(timeout=3, side_effects=True)
    def add(a: int, b: Annotated[int, Field(ge=0)] = 1) -> int:
        """Add two numbers.

        More text that is not the description."""
        return a + b

    assert isinstance(add, Capability) and add(2, 3) == 5
    contract = add.describe()
    assert contract["name"] == "add" and contract["description"] == "Add two numbers."
    assert contract["input_schema"]["required"] == ["a"]
    assert contract["input_schema"]["properties"]["b"]["minimum"] == 0
    assert contract["output_schema"] == {"type": "integer"}
    assert contract["side_effects"] is True and contract["timeout"] == 3
    assert add.validate({"a": "4"}) == {"a": 4, "b": 1}


def test_bad_arguments_are_one_clear_error():
    @capability
    def add(a: int, b: int) -> int:
        return a + b

    with pytest.raises(ArgumentsInvalid, match=r"'add' are invalid: b: Field required; c: Extra"):
        add.validate({"a": 1, "c": 2})


def test_functions_that_cannot_be_capabilities_are_refused():
    def untyped(a):
        return a

    def star(*args: int) -> int:
        return 0

    with pytest.raises(CapabilityDefinitionError, match="has no type hint"):
        Capability(untyped)
    with pytest.raises(CapabilityDefinitionError, match=r"takes \*args"):
        Capability(star)
    registry = CapabilityRegistry([calculate])
    with pytest.raises(CapabilityDefinitionError, match="already registered"):
        registry.register(calculate)


class Answer(BaseModel):
    summary: str
    citations: list[Citation] = []
    extra: int = 0


def test_outputs_are_normalized():
    @capability
    def answer() -> Answer:
        return Answer(summary="at 1:00", citations=[Citation(60, 70, "kf.jpg")], extra=3)

    result = answer.normalize(answer.fn())
    assert result == WorkResult(True, "at 1:00", {"summary": "at 1:00", "citations": [
        {"start": 60.0, "end": 70.0, "keyframe": "kf.jpg", "label": ""}], "extra": 3},
        (Citation(60, 70, "kf.jpg"),))
    with pytest.raises(MalformedOutput, match="does not match its return type"):
        answer.normalize({"no_summary": 1})


def test_the_context_is_injected_and_not_part_of_the_schema():
    @capability
    async def where(context: CapabilityContext) -> str:
        return f"{context.session_id} at {context.snapshot.time:g}"

    assert where.input_schema["properties"] == {}
    script = {4: Decision(delegations=(DelegationRequest.new("where"),))}
    session = Session(FakeFrontend(script), FakeVideoSource(10), clock=SimulatedClock(),
                      capabilities=[where], session_id="s9")
    session.run()
    assert session.timeline.events(ResultReady)[0].result.summary == "s9 at 5"


# -- built-ins -------------------------------------------------------------------------


def test_search_memory_cites_moments_before_the_request():
    result, _ = run_builtin("search_memory", {"query": "chlorophyll sunlight", "k": 2})
    assert result.ok and result.summary.startswith("At 0:10")  # the memory's own answer
    assert result.citations[0] == Citation(10, 20, "kf/10.jpg", "0:10")
    assert all(c.end <= 61 for c in result.citations)  # nothing after the request


def test_search_memory_is_causal():
    result, _ = run_builtin("search_memory", {"query": "mitochondria energy"})
    assert result.ok and result.data["hits"] == []  # the mitochondria video comes later
    assert "didn't find" in result.summary


def test_search_memory_without_memory_fails_cleanly():
    result, _ = run_builtin("search_memory", {"query": "x"}, memory=None)
    assert not result.ok and "no video memory" in result.error.message


def test_summarize_range_is_extractive_and_cited():
    result, _ = run_builtin("summarize_range", {"start": 0, "end": 40, "sentences": 2})
    assert result.ok and result.summary.startswith("From 0:00 to 0:40:")
    picked = result.data["sentences"]
    assert len(picked) == 2
    source = " ".join(f"{m.text} {m.transcript}" for m in LECTURE.items)
    assert all(sentence in source for sentence in picked)
    assert [c["start"] for c in result.data["citations"]] == sorted(
        c["start"] for c in result.data["citations"])


def test_summarize_defaults_to_the_last_five_minutes_and_rejects_empty_ranges():
    result, _ = run_builtin("summarize_range", {})
    assert result.ok and result.data["start"] == 0.0 and result.data["end"] == 61.0
    result, _ = run_builtin("summarize_range", {"start": 50, "end": 20})
    assert not result.ok and "is empty" in result.error.message


def test_make_quiz_blanks_real_words_from_the_range():
    result, _ = run_builtin("make_quiz", {"start": 0, "end": 40, "questions": 3})
    assert result.ok
    questions = result.data["questions"]
    assert 1 <= len(questions) <= 3
    for q in questions:
        assert "_____" in q["question"] and q["answer"] in q["options"]
    assert len({q["answer"] for q in questions}) == len(questions)


def test_make_quiz_returns_every_question_with_its_answer_and_time():
    result, _ = run_builtin("make_quiz", {"start": 0, "end": 40, "questions": 3})
    questions = result.data["questions"]
    assert len(questions) == 3
    source = " ".join(f"{m.text} {m.transcript} {m.ocr_text}" for m in LECTURE.items)
    for i, q in enumerate(questions, 1):
        assert q["answer"] and q["answer"] in q["options"] and 0.0 <= q["time"] <= 40.0
        assert q["source"] in source and q["answer"].lower() in q["source"].lower()
        assert q["question"].replace("_____", q["answer"]).lower().endswith(
            q["source"].lower().split(q["answer"].lower(), 1)[1])
        line = f"{i}. ({clock_label(q['time'])}) {q['question']}"
        assert line in result.summary  # every question is shown ...
        assert f"{i}. {q['answer']} ({clock_label(q['time'])})" in result.summary  # ... and answered
    assert [q["time"] for q in questions] == sorted(q["time"] for q in questions)


def test_summarize_range_lists_the_slides_and_the_key_sentences():
    memory = FakeMemory([
        FakeMoment(0, 20, "s", "Acids donate hydrogen ions. Bases accept them.",
                   "Acids and Bases\nThe pH scale runs from zero to fourteen\nTour | slide 1"),
        FakeMoment(20, 40, "s", "Water evaporates and falls again as rain.",
                   "The Water Cycle\nEvaporation and rain\nTour | slide 2"),
    ])
    result, _ = run_builtin("summarize_range", {"start": 0, "end": 40}, memory=memory)
    assert result.data["titles"] == ["Acids and Bases", "The Water Cycle"]
    assert '"Acids and Bases" and "The Water Cycle"' in result.summary
    assert "Key points:" in result.summary and "evaporates" in result.summary


def test_file_mode_ranges_are_clamped_to_the_video_and_spoken_in_video_time():
    """In file mode the session clock runs on after the video (here 110 s long): "the
    last minute" asked at 251 s (start 191, end 251) is the video's last minute."""
    result, _ = run_builtin("summarize_range", {"start": 191.0, "end": 251.0}, at=250,
                            seconds=260)
    assert result.ok and result.summary.startswith("From 0:50 to 1:50:")
    assert result.data["start"] == 50.0 and result.data["end"] == 110.0
    result, _ = run_builtin("summarize_range", {}, at=250, seconds=260)
    assert result.data["end"] == 110.0
    quiz, _ = run_builtin("make_quiz", {"start": 0.0}, at=250, seconds=260)
    assert quiz.ok and "on 0:00-1:50" in quiz.summary
    late, _ = run_builtin("summarize_range", {"start": 120.0, "end": 140.0}, at=250,
                          seconds=260)
    assert not late.ok and "the video so far ends at 1:50" in late.error.message


def test_make_quiz_on_an_empty_range_fails_cleanly():
    result, _ = run_builtin("make_quiz", {"start": 45, "end": 60})
    assert not result.ok and "nothing was recorded" in result.error.message


@pytest.mark.parametrize("expression, value", [
    ("2 + 3 * 4", 14), ("(3 + 4) * 2 ^ 3", 56), ("sqrt(16) / 2", 2), ("-7 // 2", -4),
    ("10 % 4", 2), ("round(pi, 2)", 3.14), ("2 ** -1", 0.5), ("max(1, 5, 3)", 5),
])
def test_calculate_evaluates_arithmetic(expression, value):
    assert evaluate(expression) == pytest.approx(value)


@pytest.mark.parametrize("expression, problem", [
    ("__import__('os').system('true')", "only numbers"), ("1 / 0", "division by zero"),
    ("9 ** 9 ** 9", "too large"), ("(10 ** 300) ** 5", "astronomically"), ("2 +", "not an"),
    ("x + 1", "only numbers"), ("'a' * 3", "only numbers"), ("sqrt(-1)", "math domain"),
])
def test_calculate_refuses_what_is_not_safe_arithmetic(expression, problem):
    with pytest.raises(CapabilityFailure, match=problem):
        evaluate(expression)


def test_calculate_through_the_harness():
    result, session = run_builtin("calculate", {"expression": "12 * 12"}, at=2, seconds=10)
    assert result.summary == "12 * 12 = 144" and session.speech.heard == ["12 * 12 = 144"]


def test_a_timer_fires_later_in_session_time_and_never_goes_stale():
    result, session = run_builtin("set_timer", {"seconds": 600, "message": "stretch"},
                                  at=1, seconds=700)
    assert result.data["due"] == 602.0
    assert session.speech.heard == ["Reminder: stretch"]  # not "About what you asked earlier"


def test_builtins_have_contracts():
    names = {c.name for c in builtin_capabilities()}
    assert names == {"search_memory", "summarize_range", "make_quiz", "calculate", "set_timer",
                     "watch"}
    for cap in builtin_capabilities():
        assert cap.describe()["input_schema"]["type"] == "object"


def test_snapshot_is_what_capabilities_see():
    seen = {}

    @capability
    def peek(context: CapabilityContext) -> str:
        seen["snapshot"] = context.snapshot
        return "ok"

    script = {3: Decision(delegations=(DelegationRequest.new("peek"),))}
    Session(FakeFrontend(script), FakeVideoSource(8), clock=SimulatedClock(),
            capabilities=[peek], memory=LECTURE, session_id="s1").run()
    snapshot: EvidenceSnapshot = seen["snapshot"]
    assert snapshot.time == 4.0 and snapshot.memory_version == 5
    assert snapshot.keyframes == (0.0, 1.0, 2.0, 3.0)
