"""The Session dual loop: cadence, replay, freshness, delivery policy, playback
acknowledgement, recovery after a crash and bad sources. Simulated time throughout."""

from __future__ import annotations

import shutil

import pytest

from memory.errors import TruncatedVideoError
from venus.clock import SimulatedClock, WallClock
from venus.errors import ConfigError
from venus.events import (
    ChunkReceived,
    ControlToken,
    DeliveryPolicy,
    ErrorCategory,
    ErrorRecorded,
    FloorAction,
    MemoryUpdated,
    PlaybackAcknowledged,
    ReintegrationDecided,
    ResultDelivered,
    SessionEnded,
    SpeechDetected,
    SpeechStopped,
    UserWordsTranscribed,
    Verdict,
    WorkItemStateChanged,
    WorkState,
)
from venus.frontend import Decision, DelegationRequest
from venus.harness import CapabilityContext, Harness, capability
from venus.runtime import Session, SessionOptions, compare_decisions
from venus.testing import FakeFrontend, FakeMemory, FakeMoment, FakeSpeechOutput, FakeVideoSource
from venus.timeline import Timeline


@capability(timeout=None)
async def lookup(query: str, context: CapabilityContext, seconds: float = 5.0) -> str:
    await context.clock.sleep(seconds)
    return f"answer about {query}"


@capability(timeout=None)
async def essay(context: CapabilityContext) -> str:
    await context.clock.sleep(2)
    return " ".join(["word"] * 20)  # eight seconds of speech


def session(script, seconds=40, capabilities=(lookup,), **kwargs) -> Session:
    kwargs.setdefault("speech", FakeSpeechOutput())
    return Session(FakeFrontend(script), FakeVideoSource(seconds), clock=SimulatedClock(),
                   capabilities=list(capabilities), session_id="s1", **kwargs)


def ask(name, **arguments):
    return Decision(delegations=(DelegationRequest.new(name, arguments),))


def user_says(text, index):
    return Decision(ControlToken.LISTEN, perceived=(SpeechDetected(index, index + 1.0),
                                                     UserWordsTranscribed(text, index, index + 1.0)))


def item_states(timeline, item_id):
    return [e.state for e in timeline.events(WorkItemStateChanged) if e.item_id == item_id]


def busy_script():
    return {
        1: Decision(ControlToken.SPEAK, speech="hello, I am watching with you"),
        2: user_says("what was on the first slide", 2),
        3: ask("lookup", query="first slide"),
        5: ask("lookup", query="the chart", seconds=12.0),
        6: user_says("and the second one", 6),
        8: lambda chunk, view: Decision(delegations=(DelegationRequest.cancel(view.work[0].item_id),))
        if view.work else Decision(),
        12: Decision(ControlToken.SPEAK, speech="the slides are about rivers",
                     floor=FloorAction.CONTINUE_SPEAKING),
    }


def test_an_hour_of_session_keeps_a_one_second_cadence():
    s = session({}, seconds=3600)
    s.run()
    times = [e.time for e in s.timeline if isinstance(e.event, ChunkReceived)]
    assert times == [float(i + 1) for i in range(3600)]


def test_replay_reproduces_the_same_timeline_and_decisions(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    session(busy_script(), timeline=first).run()
    session(busy_script(), timeline=second).run()
    assert first.read_bytes() == second.read_bytes()
    recorded = Timeline.load(first)
    replayed = session(busy_script())
    replayed.run()
    assert compare_decisions(recorded, replayed.timeline) == []
    different = session({**busy_script(), 20: ask("lookup", query="something else")})
    different.run()
    assert compare_decisions(recorded, different.timeline)


def test_a_revised_request_is_not_spoken_as_is():
    script = {2: ask("lookup", query="cats", seconds=10.0),
              5: Decision(delegations=(DelegationRequest.revise("s1/w1", {"query": "dogs"}),))}
    s = session(script)
    s.run()
    assert s.speech.heard == ["answer about dogs"]
    assert item_states(s.timeline, "s1/w1")[-1] is WorkState.CANCELLED
    assert item_states(s.timeline, "s1/w2")[-1] is WorkState.DELIVERED


def test_a_result_revised_after_it_finished_is_replaced_not_spoken():
    # the user holds the floor from the second the result is finished (3.0 s) on
    script = {i: user_says("hmm let me think", i) for i in range(3, 12)}
    script[2] = ask("lookup", query="cats", seconds=1.0)
    script[8] = Decision(delegations=(DelegationRequest.revise("s1/w1", {"query": "dogs"}),))
    s = session(script)
    s.run()
    verdicts = [(e.item_id, e.verdict) for e in s.timeline.events(ReintegrationDecided)]
    assert ("s1/w1", Verdict.REPLACE) in verdicts
    assert s.speech.heard == ["answer about dogs"]


def test_a_stale_result_is_framed_as_an_earlier_answer():
    script = {2: ask("lookup", query="cats", seconds=8.0), 4: user_says("anyway", 4),
              6: user_says("so about the lecture", 6)}
    s = session(script)
    s.run()
    assert s.speech.heard == ["About what you asked earlier: answer about cats"]


def test_newer_evidence_reruns_a_capability_that_asks_for_it():
    memory = FakeMemory([FakeMoment(0, 1, "a river")])
    runs = []

    @capability(timeout=None, refresh_on_new_evidence=True)
    async def count_moments(context: CapabilityContext) -> str:
        runs.append(context.snapshot.memory_version)
        await context.clock.sleep(3)
        return f"{len(context.memory.moments(0, 999))} moments"

    def grow(chunk, view):
        memory.add(FakeMoment(chunk.index, chunk.index + 1, "more river"))
        return Decision()

    script = {2: ask("count_moments"), 3: grow}
    s = session(script, capabilities=[count_moments], memory=memory)
    s.run()
    assert runs == [1, 2]
    assert s.timeline.events(MemoryUpdated)[-1].version == 2
    assert len(s.speech.heard) == 1


def test_no_result_is_spoken_while_the_user_speaks():
    script = {i: user_says("and another thing", i) for i in range(2, 15)}
    script[1] = ask("lookup", query="cats", seconds=1.0)
    s = session(script)
    s.run()
    queued = [t.time for t in s.timeline if isinstance(t.event, ResultDelivered)]
    assert queued and queued[0] > 15.0


def test_an_interrupted_delivery_goes_back_to_pending_and_is_acknowledged_later():
    def barge_in(chunk, view):
        return Decision(floor=FloorAction.YIELD_FLOOR,
                        perceived=(SpeechDetected(chunk.start, chunk.end),))

    s = session({1: ask("essay"), 6: barge_in}, capabilities=[essay])
    s.run()
    states = item_states(s.timeline, "s1/w1")
    assert states == [WorkState.QUEUED, WorkState.RUNNING, WorkState.COMPLETED,
                      WorkState.DELIVERING, WorkState.COMPLETED, WorkState.DELIVERING,
                      WorkState.DELIVERED]
    stopped = s.timeline.events(SpeechStopped)
    assert stopped and 0 < stopped[0].heard_fraction < 1
    acks = [t.seq for t in s.timeline if isinstance(t.event, PlaybackAcknowledged)
            and t.event.item_id == "s1/w1"]
    delivered = [t.seq for t in s.timeline if isinstance(t.event, ResultDelivered)]
    assert len(acks) == 1 and len(delivered) == 1 and acks[0] < delivered[0]


def test_an_interrupting_result_stops_current_speech():
    long_speech = " ".join(["talking"] * 50)
    s = session({1: Decision(ControlToken.SPEAK, speech=long_speech),
                 2: Decision(delegations=(DelegationRequest.new(
                     "lookup", {"query": "fire alarm", "seconds": 1.0},
                     policy=DeliveryPolicy.INTERRUPT),))})
    s.run()
    assert s.speech.heard == ["answer about fire alarm"]
    assert s.timeline.events(SpeechStopped)[0].reason == "interrupted by a background result"


def test_a_silent_result_reaches_the_frontend_context_not_the_speaker():
    frontend = FakeFrontend({2: Decision(delegations=(DelegationRequest.new(
        "lookup", {"query": "notes", "seconds": 1.0}, policy=DeliveryPolicy.SILENT),))})
    speech = FakeSpeechOutput()
    s = Session(frontend, FakeVideoSource(10), clock=SimulatedClock(), capabilities=[lookup],
                speech=speech, session_id="s1")
    s.run()
    seen = [v.context for v in frontend.views if v.context]
    assert len(seen) == 1 and seen[0][0].speech == "answer about notes"
    assert speech.heard == []
    assert s.timeline.events(ResultDelivered)[0].via == "context"


def test_a_restarted_session_shows_running_work_as_interrupted(tmp_path):
    path, crash = tmp_path / "live.jsonl", tmp_path / "crash.jsonl"

    def copy_file_mid_run(chunk, view):
        shutil.copy(path, crash)  # what a crash at this moment would leave on disk
        return Decision()

    session({2: ask("lookup", query="cats", seconds=30.0), 6: copy_file_mid_run},
            timeline=path).run()
    restored = Timeline.load(crash)

    def retry_interrupted(chunk, view):
        return Decision(delegations=tuple(DelegationRequest.retry(w.item_id) for w in view.work
                                          if w.state is WorkState.INTERRUPTED))

    frontend = FakeFrontend({0: retry_interrupted})
    resumed = Session(frontend, FakeVideoSource(40), clock=SimulatedClock(),
                      capabilities=[lookup], speech=FakeSpeechOutput(), timeline=restored)
    resumed.run()
    first_view = frontend.views[0]
    assert [(w.item_id, w.state) for w in first_view.work] == [("s1/w1", WorkState.INTERRUPTED)]
    assert resumed.speech.heard == ["answer about cats"]
    assert item_states(resumed.timeline, "s1/w1")[-1] is WorkState.DELIVERED
    seqs = [e.seq for e in Timeline.load(crash)]
    assert seqs == list(range(len(seqs)))


def test_a_failing_source_is_recorded_and_keeps_what_was_read():
    def broken():
        yield from FakeVideoSource(3)
        raise TruncatedVideoError("lecture.mp4 ends at 3.0 s of 60 s", "lecture.mp4", 3.0)

    s = Session(FakeFrontend(), broken(), clock=SimulatedClock(), session_id="s1")
    summary = s.run()
    assert summary.chunks == 3 and summary.reason.startswith("source failed")
    error = s.timeline.events(ErrorRecorded)[0]
    assert error.category is ErrorCategory.SOURCE and "ends at 3.0 s" in error.message


def test_async_sources_and_live_pacing_on_the_wall_clock():
    async def live():
        for chunk in FakeVideoSource(3):
            yield chunk

    s = Session(FakeFrontend(), live(), clock=WallClock(), session_id="live",
                options=SessionOptions(pace=False, drain_s=0.0))
    summary = s.run()
    assert summary.chunks == 3
    assert s.timeline.last(SessionEnded).reason == "source ended"


def test_views_are_causal():
    frontend = FakeFrontend()
    s = Session(frontend, FakeVideoSource(5), clock=SimulatedClock(), session_id="s1")
    s.run()
    for view in frontend.views:
        assert all(e.time <= view.time for e in view.recent)
        assert view.time == view.chunk_index + 1.0


def test_replace_supersedes_with_another_capability():
    @capability
    def shout(text: str) -> str:
        return text.upper()

    script = {2: ask("lookup", query="cats", seconds=10.0),
              4: Decision(delegations=(DelegationRequest.replace("s1/w1", "shout",
                                                                 {"text": "never mind"}),))}
    s = session(script, capabilities=[lookup, shout])
    s.run()
    assert s.speech.heard == ["NEVER MIND"]
    assert item_states(s.timeline, "s1/w1")[-1] is WorkState.CANCELLED


def test_a_retained_request_is_spoken_as_is_however_late():
    script = {2: ask("lookup", query="the proof", seconds=90.0),
              3: Decision(delegations=(DelegationRequest.retain("s1/w1"),))}
    script.update({i: user_says("meanwhile", i) for i in (10, 20, 30)})
    s = session(script, seconds=120)
    s.run()
    assert s.speech.heard == ["answer about the proof"]


def test_interrupted_work_can_be_dropped_after_a_restart(tmp_path):
    path, crash = tmp_path / "live.jsonl", tmp_path / "crash.jsonl"
    session({2: ask("lookup", query="cats", seconds=30.0),
             5: lambda chunk, view: (shutil.copy(path, crash), Decision())[1]},
            timeline=path).run()
    drop = FakeFrontend({0: lambda chunk, view: Decision(delegations=tuple(
        DelegationRequest.cancel(w.item_id) for w in view.work))})
    resumed = Session(drop, FakeVideoSource(5), clock=SimulatedClock(), capabilities=[lookup],
                      speech=FakeSpeechOutput(), timeline=Timeline.load(crash))
    resumed.run()
    assert item_states(resumed.timeline, "s1/w1")[-2:] == [WorkState.INTERRUPTED,
                                                            WorkState.CANCELLED]
    assert resumed.speech.heard == []


def test_a_shared_harness_must_share_the_clock():
    with pytest.raises(ConfigError, match="same clock"):
        Session(FakeFrontend(), FakeVideoSource(1), clock=SimulatedClock(),
                harness=Harness([], SimulatedClock()))


def test_cancelling_a_result_while_it_is_spoken_stops_it_at_once():
    def cancel_delivery(chunk, view):
        speaking = [w.item_id for w in view.work if w.state is WorkState.DELIVERING]
        return Decision(delegations=tuple(DelegationRequest.cancel(i) for i in speaking))

    s = session({1: ask("essay"), 6: cancel_delivery}, capabilities=[essay])
    s.run()
    assert item_states(s.timeline, "s1/w1")[-2:] == [WorkState.DELIVERING, WorkState.CANCELLED]
    stop = [t for t in s.timeline if isinstance(t.event, SpeechStopped)][0]
    assert stop.event.reason == "delivery cancelled" and stop.time == 7.0
    assert s.timeline.events(ResultDelivered) == [] and s.speech.heard == []


def test_the_session_closes_the_iterator_it_opened():
    closed = []

    def source():
        try:
            yield from FakeVideoSource(100)
        finally:
            closed.append(True)

    def stop_early(chunk, view):
        raise KeyboardInterrupt  # the user stops the session

    s = Session(FakeFrontend({3: stop_early}), source(), clock=SimulatedClock(), session_id="s1")
    with pytest.raises(KeyboardInterrupt):
        s.run()
    assert closed == [True]
    assert s.timeline.last(SessionEnded).reason == "cancelled"
