"""A typed "tell me when ..." in the app's conversation wrapper, and its work panel row:
the condition, waiting / fired at M:SS (video time) / cancelled, and Cancel."""

from __future__ import annotations

from demos.conversation import TypedTurns
from demos.work import work_html, work_rows
from venus.capabilities import builtin_capabilities
from venus.clock import SimulatedClock
from venus.runtime import Session, SessionOptions
from venus.testing import FakeFrontend, FakeMemory, FakeMoment, FakeSpeechOutput, FakeVideoSource

LECTURE = FakeMemory([
    FakeMoment(0, 5, "intro", "Welcome. He pressed a hand to his chest."),
    FakeMoment(15, 18, "chess", "Chess is a game of strategy."),
])


def _run(typed: dict[int, str], seconds: int, peek: dict | None = None) -> Session:
    holder: list[Session] = []
    turns: list[TypedTurns] = []

    def step(text):
        def act(chunk, view):
            turns[0].say(text)
            return FakeFrontend().default
        return act

    def look(chunk, view):
        peek["rows"] = work_rows(holder[0].timeline.entries)
        return FakeFrontend().default

    script = {i: step(t) for i, t in typed.items()}
    if peek is not None:
        script[peek["at"]] = look
    turns.append(TypedTurns(FakeFrontend(script), lambda q, at: "Not seen yet."))
    session = Session(turns[0], FakeVideoSource(seconds), clock=SimulatedClock(),
                      memory=LECTURE, capabilities=builtin_capabilities(),
                      speech=FakeSpeechOutput(), options=SessionOptions(drain_s=5.0),
                      session_id="user")
    holder.append(session)
    session.run()
    return session


def test_a_typed_watch_is_a_row_that_waits_then_fires_at_its_video_time():
    peek = {"at": 8}
    session = _run({1: "Let me know when chess comes up"}, 30, peek)
    [waiting] = peek["rows"]
    assert waiting.label == "Tell me when chess comes up"
    assert waiting.state_words == "Waiting" and waiting.can_cancel
    [row] = work_rows(session.timeline.entries)
    assert row.state_words == "Fired at 0:15" and not row.can_cancel
    assert "Fired at 0:15" in work_html([row]) and "Chess is a game" in work_html([row])
    assert session.speech.heard == ["Sure, I'll let you know when chess comes up.",
                                    "At 0:15: \u201cChess is a game of strategy.\u201d"]


def test_stop_watching_cancels_the_row_and_nothing_is_said():
    session = _run({1: "Tell me every time chess comes up", 5: "Stop watching."}, 30)
    [row] = work_rows(session.timeline.entries)
    assert row.label == "Tell me when chess comes up (every time)"
    assert row.state_words == "Cancelled" and not row.can_cancel
    assert not any(h.startswith("At 0:15") for h in session.speech.heard)
