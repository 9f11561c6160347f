"""``venus bench proactive``: do "tell me when ..." requests alert on the event, and only then?

The lecture and its memory are those of ``venus bench qa`` (the same split, seed, voice and
kept memory under ``--work``); the requests are `memory.benchmarks.proactive.requests`,
worded as people word them, some about things that never come, some set halfway through.
Each request goes through the frontend's phrasing rules (`venus.frontend.intents`) to the
``watch`` capability in a real `venus.runtime.Session` over the memory, in simulated time,
while a scripted user speaks now and then (every 40-80 s, for 2-4 s): an alert is spoken
only when the floor is free.

Keys: ``recall`` (events alerted), ``precision`` (alerts that were events), ``delay_s_p50``
and ``delay_s_p95`` (video seconds from the event's first mention or showing to the
alert's start in the output), ``over_user`` (alerts begun while the user was speaking: after the onset of a
turn and before its end),
``x_realtime`` (video seconds per wall second of the session), ``split``; a missed
event is ``unheard`` when no sentence or line in the memory holds its subject's words
(Whisper misheard a name: no threshold could alert), else ``heard``.

The matcher's threshold (`memory.watch.DEFAULT_MIN_SCORE`) was chosen on the tuning split
with the table this prints (the matcher alone over the memory at each threshold: the
highest recall with precision >= 0.95, the middle of the plateau on a tie); ``--held-out``
prints the same table for reading and chooses nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import time
from pathlib import Path

from venus.bench.report import BenchReport, percentile

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = ("standing 'tell me when ...' requests over a generated lecture: recall, "
               "precision, alert delay, alerts over the user (tuning or --held-out split)")
THRESHOLDS = (0.34, 0.5, 0.6, 0.67, 0.75, 0.8, 1.0)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--held-out", action="store_true",
                   help="the held-out split (other topics, another voice): report only")
    p.add_argument("--work", default=".cache/bench-qa",
                   help="where the lectures and memories are kept (shared with bench qa)")
    p.add_argument("--fresh", action="store_true", help="re-ingest even if a memory is kept")
    p.add_argument("--show", action="store_true", help="print every request and its alert")


def _memory(split, work: Path, fresh: bool):
    """The split's lecture and memory, kept under ``work`` with the stamp bench qa uses."""
    from memory.benchmarks.qa import build_lecture
    from memory.store import MemoryModels, VideoMemory
    from venus.bench.qa import ingest_fingerprint

    video, truth = build_lecture(split, work / f"lecture-{split.name}", progress=True)
    mem_dir = work / f"mem-{split.name}"
    stamp = mem_dir / "bench-plan.json"
    plan = json.dumps({**truth.get("plan", {}), "asr": None, "ingest": ingest_fingerprint()})
    if not fresh and stamp.is_file() and stamp.read_text() == plan:
        return VideoMemory.open(mem_dir, models=MemoryModels()), truth
    shutil.rmtree(mem_dir, ignore_errors=True)
    mem = VideoMemory.create(mem_dir, models=MemoryModels())
    mem.ingest(video, progress=True)
    stamp.write_text(plan)
    return mem, truth


def parsed(reqs) -> list[tuple[str, bool] | None]:
    """Each request as the frontend's phrasing rules read it (None: not a watch)."""
    from venus.frontend.intents import watch_request

    return [watch_request(r.text) for r in reqs]


def sweep(mem, truth, reqs, conditions) -> list[tuple[float, object]]:
    """The matcher alone over the memory at each threshold (alerts when known)."""
    from memory.benchmarks.proactive import Alert, score
    from memory.watch import WatchCondition, Watcher, WatchOptions, watch_memory

    table = []
    for threshold in THRESHOLDS:
        watchers = {}
        for i, (r, c) in enumerate(zip(reqs, conditions)):
            if c is not None:
                watchers[i] = Watcher(WatchCondition.parse(c[0]), c[1], r.set_at,
                                      WatchOptions(min_score=threshold))
        watch_memory(mem, list(watchers.values()))
        alerts = [Alert(i, m.start, m.end, m.at, m.text)
                  for i, w in watchers.items() for m in w.fired]
        table.append((threshold, score(truth, reqs, alerts)))
    return table


def choose(table) -> float:
    """The highest recall with precision >= 0.95; on a plateau, its middle threshold
    (the farthest from both edges, where a new wording moves a score least)."""
    ok = [(s.recall, t) for t, s in table if s.precision >= 0.95] or \
        [(s.precision, t) for t, s in table]
    best = max(r for r, _ in ok)
    plateau = sorted(t for r, t in ok if r == best)
    return plateau[(len(plateau) - 1) // 2]


def user_turns(duration: float, seed: int) -> list[tuple[int, int]]:
    """[start, end) chunks in which the scripted user speaks: every 40-80 s, for 2-4 s."""
    rng = random.Random(seed)
    turns, t = [], rng.uniform(20, 60)
    while t < duration:
        start = int(t)
        turns.append((start, start + rng.randint(2, 4)))
        t += rng.uniform(40, 80)
    return turns


def session_run(mem, truth, reqs, conditions, seed: int):
    """Every request through the real session; returns (alerts, over_user, wall seconds)."""
    from memory.benchmarks.proactive import Alert
    from venus.capabilities import builtin_capabilities
    from venus.clock import SimulatedClock
    from venus.events import (
        ControlToken,
        ResultReady,
        SpeechDetected,
        UserWordsTranscribed,
        WorkItemCreated,
        WorkItemStateChanged,
        WorkState,
    )
    from venus.frontend import Decision, DelegationRequest
    from venus.harness import Harness, HarnessOptions
    from venus.runtime import Session, SessionOptions
    from venus.testing import FakeFrontend, FakeSpeechOutput, FakeVideoSource

    duration = int(truth["duration"])
    script: dict[int, list] = {}
    for i, (r, c) in enumerate(zip(reqs, conditions)):
        if c is not None:
            request = DelegationRequest.new("watch", {"condition": c[0], "every_time": c[1]})
            script.setdefault(int(r.set_at), []).append(request)
    turns = user_turns(duration, seed)
    speaking = {k for a, b in turns for k in range(a, b)}
    decisions = {}
    for k in sorted(set(script) | speaking):
        perceived = (SpeechDetected(k, k + 1.0), UserWordsTranscribed("and so on", k, k + 1.0)) \
            if k in speaking else ()
        decisions[k] = Decision(ControlToken.LISTEN, perceived=perceived,
                                delegations=tuple(script.get(k, ())))
    clock = SimulatedClock()
    harness = Harness(builtin_capabilities(), clock, HarnessOptions(concurrency=512))
    session = Session(FakeFrontend(decisions), FakeVideoSource(duration), clock=clock,
                      harness=harness, memory=mem, speech=FakeSpeechOutput(),
                      session_id="proactive", options=SessionOptions(drain_s=30.0))
    t0 = time.perf_counter()
    session.run()
    wall = time.perf_counter() - t0
    by_condition = {c[0]: i for i, c in enumerate(conditions) if c is not None}
    request_of, spoken = {}, {}
    for entry in session.timeline:
        e = entry.event
        if isinstance(e, WorkItemCreated) and e.capability == "watch":
            request_of[e.item_id] = by_condition[e.arguments["condition"]]
        elif isinstance(e, WorkItemStateChanged) and e.state is WorkState.DELIVERING:
            spoken.setdefault(e.item_id, entry.time)
    alerts, over = [], 0
    for e in session.timeline.events(ResultReady):
        if e.item_id not in request_of or not e.result.ok or e.item_id not in spoken:
            continue
        ev = e.result.data["evidence"]
        at = spoken[e.item_id]
        # begun while the user was already speaking (an alert begun at the very instant
        # the user starts is an overlap the duplex handles as an interruption)
        over += any(a < at < b for a, b in turns)
        alerts.append(Alert(request_of[e.item_id], ev["start"], ev["end"], at, ev["text"]))
    return alerts, over, wall


def run(args: argparse.Namespace) -> BenchReport:
    from memory.benchmarks.proactive import requests, score
    from memory.benchmarks.qa import SPLITS
    from memory.watch import DEFAULT_MIN_SCORE

    split = SPLITS["held-out" if args.held_out else "tuning"]
    mem, truth = _memory(split, Path(args.work), args.fresh)
    reqs = requests(split, truth)
    conditions = parsed(reqs)
    table = sweep(mem, truth, reqs, conditions)
    alerts, over_user, wall = session_run(mem, truth, reqs, conditions, args.seed + split.seed)
    s = score(truth, reqs, alerts)
    heard = _heard(mem, reqs)
    mem.close()
    kinds = sorted({r.kind for r in reqs})
    rows = [[k, sum(r.kind == k for r in reqs),
             sum(1 for a in alerts if reqs[a.request].kind == k)] for k in kinds]
    _print_table(table, split.name, None if args.held_out else choose(table))
    if args.show:
        _show(reqs, conditions, alerts)
    for text, quoted in s.false_alerts:
        print(f"  false alert: {text!r} -> {quoted!r}")
    for text in s.missed:
        print(f"  missed ({'heard' if heard[text] else 'unheard'}): {text!r}")
    figures = {
        "recall": s.recall, "precision": s.precision,
        "delay_s_p50": percentile(list(s.delays), 50) if s.delays else float("nan"),
        "delay_s_p95": percentile(list(s.delays), 95) if s.delays else float("nan"),
        "over_user": over_user, "x_realtime": truth["duration"] / wall if wall else None,
        "split": split.name, "voice": split.voice, "lecture_s": truth["duration"],
        "requests": len(reqs), "events": s.events, "alerts": s.alerts,
        "threshold": DEFAULT_MIN_SCORE, "parsed": sum(c is not None for c in conditions),
        "missed_unheard": sum(not heard[t] for t in s.missed),
        "missed_heard": sum(heard[t] for t in s.missed),
        "sweep": [{"threshold": t, "recall": v.recall, "precision": v.precision}
                  for t, v in table],
    }
    summary = (f"proactive {split.name}: recall {s.recall:.2f}, precision {s.precision:.2f}, "
               f"delay p50 {figures['delay_s_p50']:.1f} s, p95 {figures['delay_s_p95']:.1f} s, "
               f"over the user {over_user}, {figures['x_realtime']:.0f}x real time "
               f"({len(reqs)} requests, {s.events} events, threshold {DEFAULT_MIN_SCORE:g})")
    return BenchReport("proactive", ["kind", "requests", "alerts"], rows, summary, figures)


def _heard(mem, reqs) -> dict[str, bool]:
    """Whether any sentence or line the memory holds has every term of the request's
    subject (if none does, the words were misheard or misread: no rule could alert)."""
    from memory.lexical import tokenize

    units = [set(tokenize(u.text)) for u in mem.evidence(0.0, mem.duration)]
    return {r.text: any(set(tokenize(r.subject)) <= u for u in units) for r in reqs}


def _print_table(table, split: str, chosen: float | None) -> None:
    print(f"\nthe matcher alone at each threshold ({split} split"
          + (f"; the rule picks {chosen:g}" if chosen is not None else "; report only") + "):")
    for t, s in table:
        print(f"  {t:4.2f}  recall {s.recall:.2f}  precision {s.precision:.2f}  "
              f"alerts {s.alerts}")


def _show(reqs, conditions, alerts) -> None:
    first = {}
    for a in alerts:
        first.setdefault(a.request, a)
    for i, (r, c) in enumerate(zip(reqs, conditions)):
        a = first.get(i)
        got = f"{a.spoken_at:.0f}s {a.text!r}" if a else "-"
        event = "never" if r.event is None else f"{r.event:.0f}s"
        print(f"  [{r.kind}] {r.text!r} (set {r.set_at:.0f}s, event {event}) -> {got}")
