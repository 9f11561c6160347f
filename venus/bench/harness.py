"""``venus bench harness``: many sessions, many work items, injected faults, simulated time.

``--sessions`` sessions share one `Harness` on one `SimulatedClock`; each session's
scripted frontend delegates ``--items / --sessions`` jobs, one every ``--interval``
seconds. A seeded draw gives every job its fate: ``--fail`` of them raise, ``--timeout``
hang past the capability's timeout, ``--cancel`` are cancelled by the frontend while
running, the rest succeed after 1-15 simulated seconds. Every session then drains until
its results are spoken and acknowledged. The figures are read back from the timelines:

* ``lost``: requests that neither ended in a terminal state nor were rejected (must be 0);
* ``double_delivered``: items delivered more than once (must be 0);
* ``cross_session``: deliveries that reached a session other than the requester's (0);
* ``dispatch_ms_p50/p99``: wall-clock cost of capture + dispatch (``Harness.submit``),
  i.e. how long delegating blocks the foreground loop;
* ``items_per_s``: work items through their whole lifecycle per wall-clock second.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections import Counter
from typing import Any

from venus.bench.report import BenchReport, peak_rss_mb, percentile
from venus.clock import SimulatedClock, perf_seconds
from venus.events import (
    DelegationRejected,
    DelegationRequested,
    ResultDelivered,
    SpeechQueued,
    WorkItemCreated,
    WorkItemStateChanged,
    WorkState,
)
from venus.frontend import Decision, DelegationRequest
from venus.harness import CapabilityContext, Harness, HarnessOptions, capability
from venus.runtime import Session, SessionOptions, TimedTextOutput
from venus.testing import FakeFrontend, FakeVideoSource

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = ("work items across concurrent sessions with injected failures, timeouts and "
               "cancels in simulated time: lost/double/cross-session deliveries, dispatch cost")

TIMEOUT_S = 30.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--items", type=int, default=10_000, help="work items in all (10000)")
    parser.add_argument("--sessions", type=int, default=100, help="concurrent sessions (100)")
    parser.add_argument("--fail", type=float, default=0.10, help="share that raise (0.10)")
    parser.add_argument("--timeout", type=float, default=0.05,
                        help="share that hang past the timeout (0.05)")
    parser.add_argument("--cancel", type=float, default=0.05,
                        help="share the frontend cancels while running (0.05)")
    parser.add_argument("--interval", type=float, default=2.0,
                        help="seconds between one session's requests (2)")
    parser.add_argument("--concurrency", type=int, default=512,
                        help="attempts running at once over all sessions (512)")


@capability(timeout=TIMEOUT_S)
async def bench_job(tag: str, fate: str, seconds: float, context: CapabilityContext) -> str:
    """A job whose outcome the benchmark decided in advance."""
    if fate == "timeout":
        await context.clock.sleep(TIMEOUT_S * 10)
    await context.clock.sleep(seconds)
    if fate == "fail":
        raise RuntimeError("injected failure")
    return f"{context.session_id} {tag}"


class _TimedHarness(Harness):
    """The real harness, with a stopwatch around capture + dispatch."""

    dispatch_s: list[float]

    def submit(self, channel, request):
        start = perf_seconds()
        item_id = super().submit(channel, request)
        self.dispatch_s.append(perf_seconds() - start)
        return item_id


def run(args: argparse.Namespace) -> BenchReport:
    if args.items < 1 or args.sessions < 1 or args.items < args.sessions:
        raise ValueError("--items and --sessions must be positive and items >= sessions")
    rng = random.Random(args.seed)
    clock = SimulatedClock()
    harness = _TimedHarness([bench_job], clock, HarnessOptions(concurrency=args.concurrency))
    harness.dispatch_s = []
    plans = _plans(args, rng)
    sessions = [_session(f"s{n}", plan, args, clock, harness) for n, plan in enumerate(plans)]

    async def main() -> None:
        await asyncio.gather(*(s.arun() for s in sessions))

    start = perf_seconds()
    clock.run(main())
    wall = perf_seconds() - start
    figures = _figures(sessions, plans, harness, wall, clock.now())
    return _report(args, figures)


def _plans(args: argparse.Namespace, rng: random.Random) -> list[list[tuple[str, str, float]]]:
    """Per session: (tag, fate, seconds) of each job, in request order."""
    plans: list[list[tuple[str, str, float]]] = [[] for _ in range(args.sessions)]
    for i in range(args.items):
        draw = rng.random()
        fate = ("fail" if draw < args.fail else
                "timeout" if draw < args.fail + args.timeout else
                "cancel" if draw < args.fail + args.timeout + args.cancel else "ok")
        seconds = 20.0 if fate == "cancel" else float(rng.randint(1, 15))
        plans[i % args.sessions].append((f"j{i}", fate, seconds))
    return plans


def _session(sid: str, plan: list[tuple[str, str, float]], args: argparse.Namespace,
             clock: SimulatedClock, harness: Harness) -> Session:
    every = max(1, round(args.interval))
    script: dict[int, Any] = {}
    for n, (tag, fate, seconds) in enumerate(plan):
        at = n * every
        request = DelegationRequest.new("bench_job", {"tag": tag, "fate": fate, "seconds": seconds})
        script[at] = Decision(delegations=(request,))
        if fate == "cancel":
            script[at + 3] = _canceller(tag)
    seconds = len(plan) * every + 5
    return Session(FakeFrontend(script), FakeVideoSource(seconds, size=(2, 2)), clock=clock,
                   harness=harness, speech=TimedTextOutput(words_per_second=4.0),
                   session_id=sid, options=SessionOptions(drain_s=600.0))


def _canceller(tag: str):
    def step(chunk, view) -> Decision:
        targets = [w.item_id for w in view.work if w.arguments.get("tag") == tag]
        return Decision(delegations=tuple(DelegationRequest.cancel(t) for t in targets))
    return step


def _figures(sessions: list[Session], plans, harness: _TimedHarness, wall: float,
             simulated: float) -> dict[str, Any]:
    count: Counter[str] = Counter()
    for session in sessions:
        count.update(_audit(session))
    items = count["created"]
    waits = count_waits(sessions)
    dispatch_ms = [s * 1000 for s in harness.dispatch_s]
    return {
        "items": items, "sessions": len(sessions), "lost": count["lost"],
        "double_delivered": count["double_delivered"], "cross_session": count["cross_session"],
        "dispatch_ms_p50": percentile(dispatch_ms, 50), "dispatch_ms_p99": percentile(dispatch_ms, 99),
        "items_per_s": items / wall if wall else float("nan"),
        "delivered": count["delivered"], "cancelled": count["cancelled"],
        "failed_then_delivered": count["failed_delivered"], "rejected": count["rejected"],
        "requested": sum(len(p) for p in plans), "queue_wait_s_p50": percentile(waits, 50),
        "queue_wait_s_p99": percentile(waits, 99),
        "wall_seconds": wall, "simulated_seconds": simulated,
        "x_realtime": simulated / wall if wall else float("nan"), "peak_rss_mb": peak_rss_mb(),
    }


def _audit(session: Session) -> Counter[str]:
    """Count outcomes of one session from its timeline alone."""
    sid, out = session.session_id, Counter()
    created = {e.item_id for e in session.timeline.events(WorkItemCreated)}
    out["created"] = len(created)
    requests = [e for e in session.timeline.events(DelegationRequested) if e.action.value == "request"]
    rejected = len(session.timeline.events(DelegationRejected))
    out["rejected"] = rejected
    last: dict[str, WorkState] = {}
    failed: set[str] = set()
    for change in session.timeline.events(WorkItemStateChanged):
        last[change.item_id] = change.state
        if change.state is WorkState.FAILED:
            failed.add(change.item_id)
    delivered = Counter(e.item_id for e in session.timeline.events(ResultDelivered))
    out["double_delivered"] = sum(1 for n in delivered.values() if n > 1)
    out["delivered"] = sum(1 for s in last.values() if s is WorkState.DELIVERED)
    out["cancelled"] = sum(1 for s in last.values() if s is WorkState.CANCELLED)
    out["failed_delivered"] = sum(1 for i in failed if last.get(i) is WorkState.DELIVERED)
    unfinished = sum(1 for i in created if not last.get(i, WorkState.QUEUED).terminal)
    unanswered = max(0, len(requests) - len(created) - rejected)
    out["lost"] = unfinished + unanswered
    foreign = [i for i in delivered if i not in created or not i.startswith(f"{sid}/")]
    spoken = [e.text for e in session.timeline.events(SpeechQueued)
              if e.item_id and " j" in e.text and not e.text.split(" j")[0].endswith(sid)]
    out["cross_session"] = len(foreign) + len(spoken)
    return out


def count_waits(sessions: list[Session]) -> list[float]:
    """Simulated seconds from request to first run, per item."""
    waits = []
    for session in sessions:
        queued: dict[str, float] = {}
        for entry in session.timeline:
            event = entry.event
            if isinstance(event, WorkItemStateChanged):
                if event.state is WorkState.QUEUED and event.previous is None:
                    queued[event.item_id] = entry.time
                elif event.state is WorkState.RUNNING and event.item_id in queued:
                    waits.append(entry.time - queued.pop(event.item_id))
    return waits


def _report(args: argparse.Namespace, f: dict[str, Any]) -> BenchReport:
    rows = [[key, f[key]] for key in (
        "items", "sessions", "lost", "double_delivered", "cross_session", "delivered",
        "cancelled", "failed_then_delivered", "rejected", "dispatch_ms_p50", "dispatch_ms_p99",
        "queue_wait_s_p50", "queue_wait_s_p99", "items_per_s", "simulated_seconds",
        "wall_seconds", "x_realtime", "peak_rss_mb")]
    ok = f["lost"] == 0 and f["double_delivered"] == 0 and f["cross_session"] == 0
    summary = (f"harness: {f['items']} items over {f['sessions']} sessions, "
               f"lost {f['lost']}, double {f['double_delivered']}, cross-session "
               f"{f['cross_session']} ({'OK' if ok else 'FAILED'}); dispatch p50 "
               f"{f['dispatch_ms_p50']:.3f} ms, p99 {f['dispatch_ms_p99']:.3f} ms; "
               f"{f['items_per_s']:.0f} items/s ({f['x_realtime']:.0f}x real time)")
    return BenchReport("harness", ["figure", "value"], rows, summary, f)
