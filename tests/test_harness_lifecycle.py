"""Lifecycle invariants under random interleavings (hypothesis).

Random sessions share one harness; each asks for jobs that succeed, raise, hang past
their timeout, return malformed output, fail once, or have side effects, while the user
talks, barges in, cancels, revises and retries at random moments. Whatever happens:
every item ends in exactly one terminal state through legal moves, nothing is delivered
after a cancel, nothing is DELIVERED without a playback acknowledgement, no result
reaches another session, and no side effect runs twice with the same idempotency key.
"""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from venus.clock import SimulatedClock
from venus.errors import CapabilityFailure
from venus.events import (
    DeliveryPolicy,
    FloorAction,
    PlaybackAcknowledged,
    ResultDelivered,
    SpeechDetected,
    SpeechQueued,
    WorkItemCreated,
    WorkItemStateChanged,
    WorkState,
)
from venus.frontend import Decision, DelegationRequest
from venus.harness import (
    TRANSITIONS,
    CapabilityContext,
    Harness,
    HarnessOptions,
    RetryPolicy,
    capability,
)
from venus.runtime import Session, SessionOptions
from venus.testing import FakeFrontend, FakeSpeechOutput, FakeVideoSource

KINDS = ["ok", "raise", "hang", "malformed", "flaky", "side"]

job_spec = st.fixed_dictionaries({
    "at": st.integers(0, 15),
    "kind": st.sampled_from(KINDS),
    "seconds": st.integers(0, 12),
    "cancel_after": st.none() | st.integers(0, 12),
    "revise_after": st.none() | st.integers(0, 12),
    "retry_after": st.none() | st.integers(1, 14),
    "policy": st.sampled_from(list(DeliveryPolicy)),
})
session_spec = st.fixed_dictionaries({
    "jobs": st.lists(job_spec, max_size=5),
    "talk": st.sets(st.integers(0, 40), max_size=15),
    "barge": st.sets(st.integers(0, 40), max_size=5),
})


def make_capabilities(side_calls: list[tuple[str, str]]):
    @capability(timeout=8, retry=RetryPolicy(attempts=2, backoff=1.0))
    async def job(tag: str, kind: str, seconds: int, context: CapabilityContext) -> str:
        await context.clock.sleep(seconds)
        if kind == "raise":
            raise RuntimeError("boom")
        if kind == "hang":
            await context.clock.sleep(1000)
        if kind == "malformed":
            return 5  # type: ignore[return-value]
        if kind == "flaky" and context.attempt == 1:
            raise CapabilityFailure("busy", retryable=True)
        return f"{context.session_id}|{tag}"

    @capability(side_effects=True, timeout=8, retry=RetryPolicy(attempts=3))
    async def side(tag: str, seconds: int, context: CapabilityContext) -> str:
        side_calls.append((context.session_id, context.idempotency_key))
        await context.clock.sleep(seconds)
        if seconds % 2:
            raise CapabilityFailure("flaky after the effect", retryable=True)
        return f"{context.session_id}|{tag}"

    return [job, side]


def request_for(sid: str, n: int, job: dict) -> DelegationRequest:
    tag = f"{sid}-{n}"
    if job["kind"] == "side":
        return DelegationRequest.new("side", {"tag": tag, "seconds": job["seconds"]},
                                     policy=job["policy"])
    return DelegationRequest.new("job", {"tag": tag, "kind": job["kind"],
                                         "seconds": job["seconds"]}, policy=job["policy"])


def find(view, tag: str) -> str | None:
    for entry in (*view.work, *view.results):
        arguments = entry.arguments if hasattr(entry, "arguments") else None
        if arguments is None:
            continue
        if str(arguments.get("tag", "")).startswith(tag):
            return entry.item_id
    for offer in view.results:
        if offer.result.ok and str(offer.result.data).split("|")[-1].startswith(tag):
            return offer.item_id
    return None


def scripted(sid: str, spec: dict):
    def step(chunk, view) -> Decision:
        i = chunk.index
        delegations = []
        for n, job in enumerate(spec["jobs"]):
            tag, at = f"{sid}-{n}", job["at"]
            if i == at:
                delegations.append(request_for(sid, n, job))
            for key, make in (("cancel_after", DelegationRequest.cancel),
                              ("retry_after", DelegationRequest.retry)):
                if job[key] is not None and i == at + job[key] and (target := find(view, tag)):
                    delegations.append(make(target))
            if (job["revise_after"] is not None and i == at + job["revise_after"]
                    and (target := find(view, tag))):
                delegations.append(DelegationRequest.revise(target, {"tag": f"{tag}-rev"}))
        perceived = (SpeechDetected(chunk.start, chunk.end),) if i in spec["talk"] else ()
        floor = FloorAction.YIELD_FLOOR if i in spec["barge"] else None
        return Decision(floor=floor, delegations=tuple(delegations), perceived=perceived)
    return step


def check_invariants(session: Session) -> None:
    sid, timeline = session.session_id, session.timeline
    created = {e.item_id for e in timeline.events(WorkItemCreated)}
    assert all(item.startswith(f"{sid}/") for item in created)
    history: dict[str, list[WorkState]] = {item: [] for item in created}
    cancelled_at: dict[str, int] = {}
    acked: set[str] = set()
    for entry in timeline:
        event = entry.event
        if isinstance(event, WorkItemStateChanged):
            assert event.item_id in created  # no foreign items on this timeline
            history[event.item_id].append(event.state)
            if event.state is WorkState.CANCELLED:
                cancelled_at[event.item_id] = entry.seq
            if event.state is WorkState.DELIVERED:
                assert event.item_id in acked, "DELIVERED without a playback acknowledgement"
        elif isinstance(event, PlaybackAcknowledged) and event.item_id:
            acked.add(event.item_id)
        elif isinstance(event, (ResultDelivered, SpeechQueued)) and getattr(event, "item_id", None):
            assert event.item_id in created
            assert event.item_id not in cancelled_at, "delivered after cancel"
    for item, states in history.items():
        assert states[0] is WorkState.QUEUED
        for before, after in zip(states, states[1:]):
            assert after in TRANSITIONS[before], f"{item}: {before} -> {after}"
        assert sum(s.terminal for s in states) == 1 and states[-1].terminal, (item, states)
    for text in session.speech.heard:
        if "|" in text:
            assert text.split("|")[0].split()[-1] == sid, "a result reached another session"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs=st.lists(session_spec, min_size=1, max_size=3), concurrency=st.integers(1, 4))
def test_lifecycle_invariants_hold_under_random_interleavings(specs, concurrency):
    side_calls: list[tuple[str, str]] = []
    clock = SimulatedClock()
    harness = Harness(make_capabilities(side_calls), clock, HarnessOptions(concurrency=concurrency))
    sessions = [
        Session(FakeFrontend(default=scripted(f"s{n}", spec)), FakeVideoSource(40), clock=clock,
                harness=harness, speech=FakeSpeechOutput(), session_id=f"s{n}",
                options=SessionOptions(drain_s=30))
        for n, spec in enumerate(specs)
    ]

    async def main() -> None:
        await asyncio.gather(*(s.arun() for s in sessions))

    clock.run(main())
    for session in sessions:
        check_invariants(session)
    assert len(side_calls) == len(set(side_calls)), "a side effect ran twice with one key"
