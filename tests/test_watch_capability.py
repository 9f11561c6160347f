"""The ``watch`` capability through a real harness and session, in simulated time."""

from __future__ import annotations

from venus.capabilities import builtin_capabilities
from venus.capabilities.watch import NO_IMAGE_MODEL
from venus.clock import SimulatedClock
from venus.events import (
    ControlToken,
    ResultReady,
    SpeechDetected,
    UserWordsTranscribed,
    WorkItemStateChanged,
    WorkState,
)
from venus.frontend import Decision, DelegationRequest
from venus.runtime import Session, SessionOptions
from venus.testing import FakeFrontend, FakeMemory, FakeMoment, FakeSpeechOutput, FakeVideoSource


def lecture() -> FakeMemory:
    return FakeMemory([
        FakeMoment(0, 5, "intro", "Welcome to the course. He pressed a hand to his chest."),
        FakeMoment(20, 24, "exam", "Now let us talk about the exam.", "EXAM TOPICS"),
        FakeMoment(40, 44, "chess", "Chess is a game of strategy."),
        FakeMoment(60, 64, "exam again", "The exam is on Friday."),
    ])


def watch_at(index: int, **arguments) -> Decision:
    return Decision(delegations=(DelegationRequest.new("watch", arguments),))


def user_says(text: str, index: int) -> Decision:
    return Decision(ControlToken.LISTEN, perceived=(
        SpeechDetected(index, index + 1.0), UserWordsTranscribed(text, index, index + 1.0)))


def run(script, seconds=80, memory=None) -> Session:
    s = Session(FakeFrontend(script), FakeVideoSource(seconds), clock=SimulatedClock(),
                capabilities=builtin_capabilities(), memory=memory or lecture(),
                speech=FakeSpeechOutput(), session_id="s1",
                options=SessionOptions(drain_s=5.0))
    s.run()
    return s


def delivered_at(session: Session) -> list[float]:
    """When each alert began to be spoken (its item moved to DELIVERING)."""
    return [t.time for t in session.timeline if isinstance(t.event, WorkItemStateChanged)
            and t.event.state is WorkState.DELIVERING]


def test_a_watch_alerts_once_with_the_evidence_and_its_video_time():
    s = run({1: watch_at(1, condition="he mentions chess")})
    [ready] = s.timeline.events(ResultReady)
    data = ready.result.data
    assert data["evidence"]["start"] == 40 and data["evidence"]["text"] == \
        "Chess is a game of strategy."
    assert data["video_time"] >= 44  # known when the sentence was committed, not before
    assert s.speech.heard == ["At 0:40: \u201cChess is a game of strategy.\u201d"]
    assert 44 <= delivered_at(s)[0] <= 46


def test_chess_never_fires_on_chest_and_nothing_fires_before_it_is_committed():
    s = run({1: watch_at(1, condition="chess")}, seconds=30)
    assert s.timeline.events(ResultReady) == []  # chess comes at 0:40, after the end


def test_every_time_keeps_the_watch_and_each_alert_is_its_own_item():
    s = run({1: watch_at(1, condition="the exam", every_time=True)})
    heard = s.speech.heard
    assert [h.split(" ")[1].rstrip(":") for h in heard] == ["0:20", "1:00"]


def test_a_watch_set_halfway_is_about_what_comes_next():
    s = run({30: watch_at(30, condition="the exam")})
    assert s.speech.heard == ["At 1:00: \u201cThe exam is on Friday.\u201d"]


def test_an_alert_waits_for_the_user_to_finish():
    script = {1: watch_at(1, condition="chess")}
    script.update({i: user_says("and another thing about this", i) for i in range(42, 55)})
    s = run(script)
    assert delivered_at(s)[0] > 55.0


def test_a_cancelled_watch_never_speaks():
    def cancel(chunk, view):
        return Decision(delegations=tuple(DelegationRequest.cancel(w.item_id) for w in view.work))

    s = run({1: watch_at(1, condition="chess"), 10: cancel})
    states = [e.state for e in s.timeline.events(WorkItemStateChanged)]
    assert states[-1] is WorkState.CANCELLED and s.speech.heard == []


def test_a_visual_condition_without_an_image_model_is_refused_in_one_sentence():
    s = run({1: watch_at(1, condition="a dog walks in")}, seconds=10)
    [ready] = s.timeline.events(ResultReady)
    assert not ready.result.ok and ready.result.summary == NO_IMAGE_MODEL
