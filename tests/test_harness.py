"""The Harness in real sessions: failures, timeouts, cancellation, retries, idempotency,
duplicates, schema errors, concurrency and private channels. Simulated time throughout."""

from __future__ import annotations

import asyncio

import pytest

from venus.clock import SimulatedClock
from venus.errors import CapabilityFailure
from venus.events import (
    ChunkReceived,
    DelegationRejected,
    ErrorCategory,
    ErrorRecorded,
    ResultDelivered,
    ResultReady,
    WorkItemCreated,
    WorkItemStateChanged,
    WorkState,
)
from venus.frontend import Decision, DelegationRequest
from venus.harness import CapabilityContext, Harness, HarnessOptions, RetryPolicy, capability
from venus.runtime import Session, SessionOptions
from venus.testing import FakeFrontend, FakeSpeechOutput, FakeVideoSource


def run(capabilities, script, seconds=40, **session_kwargs):
    speech = FakeSpeechOutput()
    session = Session(FakeFrontend(script), FakeVideoSource(seconds), clock=SimulatedClock(),
                      capabilities=capabilities, speech=speech, session_id="s1",
                      **session_kwargs)
    session.run()
    return session.timeline, speech


def ask(capability_name, **arguments):
    return Decision(delegations=(DelegationRequest.new(capability_name, arguments),))


def states(timeline, item_id="s1/w1"):
    return [e.state for e in timeline.events(WorkItemStateChanged) if e.item_id == item_id]


def chunk_times(timeline):
    return [e.time for e in timeline if isinstance(e.event, ChunkReceived)]


def assert_cadence(timeline, seconds):
    assert chunk_times(timeline) == [float(i + 1) for i in range(seconds)]


def errors(timeline):
    return [(e.category, e.item_id) for e in timeline.events(ErrorRecorded)]


@capability(timeout=5)
async def explode(n: int) -> str:
    raise RuntimeError(f"kaboom {n}")


@capability(timeout=5, retry=RetryPolicy(attempts=2, backoff=1.0))
async def hang(context: CapabilityContext) -> str:
    await context.clock.sleep(10_000)
    return "never"


@capability(timeout=5)
def malformed() -> int:
    return "not a number"  # type: ignore[return-value]


@capability(timeout=None)
async def slow(seconds: float, context: CapabilityContext) -> str:
    await context.clock.sleep(seconds)
    return f"slept {seconds:g}s"


def test_a_raising_capability_fails_is_recorded_and_reported():
    timeline, speech = run([explode], {2: ask("explode", n=1)})
    assert states(timeline) == [WorkState.QUEUED, WorkState.RUNNING, WorkState.FAILED,
                                WorkState.DELIVERING, WorkState.DELIVERED]
    assert (ErrorCategory.RAISED, "s1/w1") in errors(timeline)
    assert "kaboom 1" in timeline.events(ResultReady)[0].result.error.message
    assert any("couldn't finish" in text for text in speech.heard)
    assert_cadence(timeline, 40)


def test_a_hanging_capability_times_out_after_its_retries():
    timeline, _ = run([hang], {2: ask("hang")})
    assert states(timeline)[:6] == [WorkState.QUEUED, WorkState.RUNNING, WorkState.QUEUED,
                                    WorkState.RUNNING, WorkState.FAILED, WorkState.DELIVERING]
    result = timeline.events(ResultReady)[0].result
    assert result.error.category is ErrorCategory.TIMEOUT
    changes = [(e.state, t.time) for t in timeline for e in [t.event]
               if isinstance(e, WorkItemStateChanged)]
    # Requested at 3 s; 5 s timeout, 1 s backoff, 5 s timeout again.
    assert (WorkState.FAILED, 14.0) in changes
    assert_cadence(timeline, 40)


def test_malformed_output_fails_without_retry():
    timeline, _ = run([malformed], {2: ask("malformed")})
    assert timeline.events(ResultReady)[0].result.error.category is ErrorCategory.MALFORMED_OUTPUT
    assert states(timeline).count(WorkState.RUNNING) == 1
    assert_cadence(timeline, 40)


def test_cancel_mid_run_is_prompt_recorded_and_never_delivered():
    seen = {}

    @capability(timeout=None)
    async def long_job(context: CapabilityContext) -> str:
        try:
            await context.clock.sleep(100)
        except asyncio.CancelledError:
            seen["cancelled_at"] = context.clock.now()
            raise
        return "done"

    def cancel_it(chunk, view):
        return Decision(delegations=(DelegationRequest.cancel(view.work[0].item_id),))

    timeline, speech = run([long_job], {2: ask("long_job"), 9: cancel_it})
    assert states(timeline) == [WorkState.QUEUED, WorkState.RUNNING, WorkState.CANCELLED]
    assert seen["cancelled_at"] == 10.0  # the chunk at which it was cancelled
    assert (ErrorCategory.CANCELLED, "s1/w1") in errors(timeline)
    assert timeline.events(ResultDelivered) == [] and speech.heard == []
    assert_cadence(timeline, 40)


def test_a_capability_that_swallows_cancellation_still_ends_cancelled():
    @capability(timeout=None)
    async def stubborn(context: CapabilityContext) -> str:
        try:
            await context.clock.sleep(100)
        except asyncio.CancelledError:
            return "ignored the cancel"
        return "done"

    def cancel_it(chunk, view):
        return Decision(delegations=(DelegationRequest.cancel(view.work[0].item_id),))

    timeline, speech = run([stubborn], {2: ask("stubborn"), 5: cancel_it})
    assert states(timeline)[-1] is WorkState.CANCELLED
    assert speech.heard == []


def test_invalid_arguments_are_rejected_and_nothing_runs():
    calls = []

    @capability
    def add(a: int, b: int) -> int:
        calls.append((a, b))
        return a + b

    timeline, _ = run([add], {2: ask("add", a="three", b=4), 3: ask("nope", x=1)}, seconds=6)
    rejected = timeline.events(DelegationRejected)
    assert [r.category for r in rejected] == [ErrorCategory.INVALID_ARGUMENTS,
                                              ErrorCategory.UNKNOWN_CAPABILITY]
    assert "'add'" in rejected[0].reason and "a:" in rejected[0].reason
    assert "registered: add" in rejected[1].reason
    assert timeline.events(WorkItemCreated) == [] and calls == []


def test_retryable_failures_back_off_then_succeed():
    attempts = []

    @capability(timeout=5, retry=RetryPolicy(attempts=3, backoff=1.0, multiplier=2.0))
    async def flaky(context: CapabilityContext) -> str:
        attempts.append(context.clock.now())
        if len(attempts) < 3:
            raise CapabilityFailure("service busy", retryable=True)
        return "finally"

    timeline, speech = run([flaky], {2: ask("flaky")})
    assert attempts == [3.0, 4.0, 6.0]
    assert states(timeline)[-1] is WorkState.DELIVERED
    assert speech.heard == ["finally"]


def test_side_effects_run_once_per_idempotency_key_even_on_retry():
    sent = []

    @capability(side_effects=True, timeout=5, retry=RetryPolicy(attempts=3))
    def send_note(text: str, context: CapabilityContext) -> str:
        sent.append(context.idempotency_key)
        raise CapabilityFailure("the server hung up after sending", retryable=True)

    def retry_failures(chunk, view):
        return Decision(delegations=tuple(DelegationRequest.retry(r.item_id)
                                          for r in view.results if not r.result.ok))

    run([send_note], {2: ask("send_note", text="hi")}, seconds=20)
    assert len(sent) == 1  # the retry policy did not re-run it
    sent.clear()
    timeline, _ = run([send_note], {2: ask("send_note", text="hi"), 3: retry_failures})
    assert len(sent) == 1  # nor did the frontend's retry
    results = [r.result.error.category for r in timeline.events(ResultReady)]
    assert results == [ErrorCategory.RAISED, ErrorCategory.ALREADY_ATTEMPTED]


def test_side_effects_reuse_the_result_for_the_same_key():
    sent = []

    @capability(side_effects=True, timeout=5, idempotency_key=lambda args: args["to"])
    def send_note(to: str, text: str) -> str:
        sent.append(to)
        return f"sent to {to}"

    _, speech = run([send_note], {2: ask("send_note", to="ana", text="hi"),
                                         12: ask("send_note", to="ana", text="hello")})
    assert sent == ["ana"]
    assert speech.heard == ["sent to ana", "sent to ana"]


def test_duplicate_in_flight_requests_are_detected():
    timeline, _ = run([slow], {2: ask("slow", seconds=20), 4: ask("slow", seconds=20.0),
                               5: ask("slow", seconds=5)})
    rejected = timeline.events(DelegationRejected)
    assert [(r.category, r.existing) for r in rejected] == [(ErrorCategory.DUPLICATE, "s1/w1")]
    assert len(timeline.events(WorkItemCreated)) == 2


def test_the_concurrency_limit_holds():
    jobs = {i: ask("slow", seconds=10 + i) for i in range(5)}
    clock = SimulatedClock()
    harness = Harness([slow], clock, HarnessOptions(concurrency=2))
    session = Session(FakeFrontend(jobs), FakeVideoSource(60), clock=clock, harness=harness,
                      session_id="s1")
    session.run()
    running, peak = 0, 0
    for change in session.timeline.events(WorkItemStateChanged):
        if change.state is WorkState.RUNNING:
            running += 1
        elif change.previous is WorkState.RUNNING:
            running -= 1
        peak = max(peak, running)
    assert peak == 2
    assert session.timeline.events(ResultDelivered) and len(
        session.timeline.events(ResultDelivered)) == 5


def test_results_never_reach_another_session():
    @capability(timeout=None)
    async def whoami(tag: str, context: CapabilityContext) -> str:
        await context.clock.sleep(len(tag) % 7)
        return f"{context.session_id}:{tag}"

    clock = SimulatedClock()
    harness = Harness([whoami], clock, HarnessOptions(concurrency=8))
    sessions = []
    for n in range(20):
        script = {i: ask("whoami", tag=f"s{n}-q{i}") for i in range(0, 12, 3)}
        sessions.append(Session(FakeFrontend(script), FakeVideoSource(30), clock=clock,
                                harness=harness, speech=FakeSpeechOutput(),
                                session_id=f"s{n}"))

    async def main():
        await asyncio.gather(*(s.arun() for s in sessions))

    clock.run(main())
    for s in sessions:
        delivered = s.timeline.events(ResultDelivered)
        assert len(delivered) == 4
        assert all(d.item_id.startswith(f"{s.session_id}/") for d in delivered)
        assert all(text.startswith(f"{s.session_id}:{s.session_id}-") for text in s.speech.heard)


def test_the_foreground_keeps_its_cadence_during_a_30_second_capability():
    timeline, speech = run([slow], {1: ask("slow", seconds=30)}, seconds=45)
    assert_cadence(timeline, 45)
    delivered = [t.time for t in timeline if isinstance(t.event, ResultDelivered)]
    assert delivered and delivered[0] >= 32.0
    assert speech.heard == ["slept 30s"]


def test_session_drains_background_work_after_the_source_ends():
    timeline, speech = run([slow], {1: ask("slow", seconds=20)}, seconds=5,
                           options=SessionOptions(drain_s=60))
    assert speech.heard == ["slept 20s"]
    assert states(timeline)[-1] is WorkState.DELIVERED


def test_unfinished_work_is_cancelled_when_the_session_ends():
    timeline, speech = run([slow], {1: ask("slow", seconds=500)}, seconds=5,
                           options=SessionOptions(drain_s=10))
    assert states(timeline)[-1] is WorkState.CANCELLED
    assert speech.heard == []


def test_a_bug_in_our_code_is_raised_not_recorded():
    harness_clock = SimulatedClock()
    harness = Harness([slow], harness_clock)

    class BrokenChannelFrontend(FakeFrontend):
        def decide(self, frame, view):
            if frame.index == 3:
                item = next(iter(harness.channels["s1"].items.values()))
                item.session_id = "someone-else"  # corrupt our own state
            return super().decide(frame, view)

    session = Session(BrokenChannelFrontend({1: ask("slow", seconds=5)}), FakeVideoSource(20),
                      clock=harness_clock, harness=harness, session_id="s1")
    with pytest.raises(Exception, match="reached the channel of session"):
        session.run()
