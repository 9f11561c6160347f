"""``venus bench delegation``: does the assistant delegate the right requests, keep the
conversation going while work runs, and speak results at the right moment?

Scripted sessions (`venus.scenario`, real eSpeak voices, real VAD/ASR, the embedded
frontend and the built-in capabilities, in simulated time) mix requests that need the
harness (summaries of a range, quizzes, searches over the whole session, timers) with
ones that do not (a quick factual question about what was just shown). Voices and
phrasings are drawn from ``--seed`` (``--held-out``: 2027). Per request (turns labelled
``request`` need a delegation, ``question`` must be answered directly):

* ``missed``: a ``request`` turn after which no work item was created before the next
  turn; ``unnecessary``: a ``question`` turn after which one was;
* ``request_to_result_s``: from the end of the request to the moment its result first
  starts playing (timers: from the moment the timer was due);
* ``max_silence_s``: the longest stretch in which nobody speaks between the work item
  starting and its result playing (the acknowledgement and other answers fill the wait;
  the conversation must not stall while work runs); a timer's wait is left out, it is
  the silence the user asked for. ``reply_s`` (turn end to the assistant's first words,
  end-of-turn detection and ASR included) is reported beside it;
* ``stale_spoken``: results spoken as they were (verdict ``deliver``) although the user
  corrected the request ("actually, never mind that, ...") before they were spoken (must
  be 0: such a result must be revised, replaced or dropped); timers never go stale;
* ``delivered_while_user_speaking``: spoken results whose playback overlaps a user's
  turn (must be 0).
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from typing import Any

from venus.bench.report import BenchReport, percentile

__all__ = ["DESCRIPTION", "SCRIPTS", "RequestOutcome", "add_arguments", "run", "score_run",
           "script_doc"]

DESCRIPTION = ("delegation decisions, request-to-result time, silence while work runs, stale "
               "and badly timed results, over scripted sessions with real voices")

NOTES = [
    {"start": 0, "end": 30, "text": "Leaves make sugar from sunlight in a process called photosynthesis."},
    {"start": 30, "end": 60, "text": "Roots take up water and minerals from the soil."},
    {"start": 60, "end": 90, "text": "Bees carry pollen from flower to flower, which lets plants make seeds."},
]
PHRASES = {
    "summary": ("Can you summarize the last minute?", "Can you give me a recap of the lecture so far?",
                "Please sum up what we covered."),
    "quiz": ("Give me a quick quiz on this.", "Can you quiz me on the lecture?",
             "Test me on what we just saw."),
    "search": ("How many times did they mention roots in the whole video?",
               "Find every time the video talks about leaves.",
               "Search the whole video for bees."),
    "timer": ("Remind me in ten seconds to check the oven.", "Set a timer for twelve seconds.",
              "Remind me in fifteen seconds to stretch."),
    "quick": ("What do leaves make from sunlight?", "What do roots take up?",
              "How do plants make seeds?"),
    "correction": ("Actually, never mind that, just quiz me instead.",),
}
CORRECTIONS = frozenset(PHRASES["correction"])
# Each script: (kind, seconds after the previous turn began); "long" is a long user turn
# timed to cover the moment an earlier timer falls due.
SCRIPTS: dict[str, list[tuple[str, float]]] = {
    "summary-then-quick": [("summary", 1.0), ("quick", 14.0)],
    "quiz-then-quick": [("quiz", 1.0), ("quick", 16.0)],
    "search-then-quick": [("search", 1.0), ("quick", 12.0)],
    "quick-then-summary": [("quick", 1.0), ("summary", 10.0)],
    "timer-over-user": [("timer", 1.0), ("long", 8.0)],
    "quick-quick": [("quick", 1.0), ("quick", 9.0)],
    "search-then-quiz": [("search", 1.0), ("quiz", 12.0)],
    "back-to-back": [("summary", 1.0), ("quick", 5.0)],
    "summary-corrected": [("summary", 1.0), ("correction", 4.5)],
}
LONG_TURN = ("I was thinking about the garden this morning, and how the tomatoes grew so "
             "much taller than last year, maybe because of all the rain we had in the spring.")
VOICES = ("en-us", "en-us+f2", "en-us+f4", "en", "en+m7", "en-gb-x-rp+f3")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scripts", default=",".join(SCRIPTS),
                        help=f"comma-separated scripts ({','.join(SCRIPTS)})")
    parser.add_argument("--held-out", action="store_true",
                        help="voices and phrasings from the held-out seed 2027")


def script_doc(name: str, rng: random.Random) -> dict[str, Any]:
    """One scripted session: the script's turns in one seeded voice and phrasing."""
    voice = rng.choice(VOICES)
    turns, at = [], 0.0
    for kind, delay in SCRIPTS[name]:
        at += delay
        text = LONG_TURN if kind == "long" else rng.choice(PHRASES[kind])
        label = "question" if kind in ("quick", "long") else "request"
        turns.append({"at": round(at, 2), "text": text, "voice": voice, "label": label})
    return {"name": name, "notes": NOTES, "tail_s": 20, "turns": turns}


@dataclass(frozen=True)
class RequestOutcome:
    script: str
    text: str
    needed: bool
    delegated: bool
    silence_s: float | None  # longest silence between the work starting and its result
    to_result_s: float | None
    reply_s: float | None  # from the end of the turn to the assistant's first words


def _spans(result) -> dict[str, tuple[float, float]]:
    """Utterance id -> [start, end] as played: the start from the output's own record (to
    the sample), the end where the voiced stretch that holds it ends in ``output.wav``."""
    from venus.eval.synth import speech_regions

    regions = speech_regions(result.output_audio, gap_s=0.3)
    spans = {}
    for uid, start in result.output.started:
        end = next((e for s, e in regions if s - 0.05 <= start < e), start)
        spans.setdefault(uid, (start, end))
    return spans


def score_run(name: str, result) -> tuple[list[RequestOutcome], int, int]:
    """Per-turn outcomes, stale results spoken unrevised, results spoken over the user."""
    from venus.eval.synth import speech_regions
    from venus.events import ReintegrationDecided, ResultDelivered, SpeechQueued, WorkItemCreated

    entries = list(result.timeline)
    spans = _spans(result)
    turns = result.turns
    created = [(e.time, e.event) for e in entries if isinstance(e.event, WorkItemCreated)]
    first_play = {}  # item id -> when its result first started playing
    for e in entries:
        if isinstance(e.event, SpeechQueued) and e.event.item_id and e.event.item_id not in first_play:
            first_play[e.event.item_id] = spans.get(e.event.utterance_id, (None,))[0]
    voiced = speech_regions(result.output_audio, gap_s=0.3)
    busy = voiced + [(p.start, p.end) for p in turns]
    outcomes = []
    for k, t in enumerate(turns):
        nxt = turns[k + 1].start if k + 1 < len(turns) else float("inf")
        mine = [(time, ev) for time, ev in created
                if t.end <= time + 1.0 and time < nxt and not ev.supersedes]
        starts = [s for s, _ in voiced if t.end <= s < nxt + 30]
        reply = round(min(starts) - t.end, 3) if starts else None
        silence, to_result = None, None
        for time, ev in mine:
            played = first_play.get(ev.item_id)
            if played is None:
                continue
            timer = ev.capability == "set_timer"
            base = ev.snapshot.time + float(ev.arguments.get("seconds", 0)) if timer else t.end
            to_result = round(played - base, 3)
            if not timer:  # a timer's wait is a silence the user asked for
                silence = _longest_gap(busy, time, played)
        outcomes.append(RequestOutcome(name, t.turn.text, t.turn.label == "request", bool(mine),
                                       silence, to_result, reply))
    verdicts = {e.event.item_id: e.event.verdict.value for e in entries
                if isinstance(e.event, ReintegrationDecided)}
    stale = over_user = 0
    for e in entries:
        if not isinstance(e.event, ResultDelivered) or e.event.utterance_id is None:
            continue
        span = spans.get(e.event.utterance_id, (e.time, e.time))
        over_user += any(p.start < span[1] and p.end > span[0] for p in turns)
        item = next((ev for _, ev in created if ev.item_id == e.event.item_id), None)
        if item is None or item.capability == "set_timer":
            continue
        corrected = [p for p in turns if p.turn.text in CORRECTIONS
                     and item.snapshot.time < p.start < span[0]]
        stale += bool(corrected) and verdicts.get(item.item_id) == "deliver"
    return outcomes, stale, over_user


def _longest_gap(busy: list[tuple[float, float]], start: float, end: float) -> float:
    """The longest stretch of [start, end) in which nobody is speaking."""
    t, gap = start, 0.0
    for s, e in sorted(busy):
        if e <= t or s >= end:
            continue
        gap = max(gap, s - t)
        t = max(t, e)
    return round(max(gap, end - t if t < end else 0.0), 3)


def run(args: argparse.Namespace) -> BenchReport:
    from venus.eval.synth import HELD_OUT_SEED
    from venus.scenario import parse_scenario, run_scenario, shared_models
    from venus.speech.synthesis import espeak_voice

    models = shared_models().with_voice(espeak_voice())  # the evaluation's: `venus.eval.runner`
    if getattr(args, "held_out", False):
        args.seed = HELD_OUT_SEED  # so the JSON records the seed really used
    rng = random.Random(args.seed)
    names = [s.strip() for s in args.scripts.split(",") if s.strip()]
    outcomes: list[RequestOutcome] = []
    stale = over_user = 0
    for name in names:
        result = run_scenario(parse_scenario(script_doc(name, rng)), models=models)
        got, s, o = score_run(name, result)
        outcomes += got
        stale += s
        over_user += o
    return _report(outcomes, stale, over_user, len(names))


def _report(outcomes: list[RequestOutcome], stale: int, over_user: int, sessions: int) -> BenchReport:
    missed = sum(o.needed and not o.delegated for o in outcomes)
    unnecessary = sum(o.delegated and not o.needed for o in outcomes)
    silences = [o.silence_s for o in outcomes if o.silence_s is not None]
    replies = [o.reply_s for o in outcomes if o.reply_s is not None]
    results = [o.to_result_s for o in outcomes if o.to_result_s is not None]
    n = len(outcomes)
    figures = {"n": n, "sessions": sessions, "missed": missed, "unnecessary": unnecessary,
               "wrong_rate": round((missed + unnecessary) / n, 3) if n else None,
               "stale_spoken": stale, "delivered_while_user_speaking": over_user,
               "max_silence_s": round(max(silences), 3) if silences else None,
               "request_to_result_s_p50": round(percentile(results, 50), 3) if results else None,
               "request_to_result_s_max": round(max(results), 3) if results else None,
               "reply_s_p50": round(percentile(replies, 50), 3) if replies else None,
               "reply_s_max": round(max(replies), 3) if replies else None}
    rows = [[o.script, o.text[:40], "yes" if o.needed else "no", "yes" if o.delegated else "no",
             "-" if o.silence_s is None else f"{o.silence_s:.2f}",
             "-" if o.to_result_s is None else f"{o.to_result_s:.2f}",
             "-" if o.reply_s is None else f"{o.reply_s:.2f}"] for o in outcomes]
    summary = (f"{n} requests in {sessions} sessions: missed {missed}, unnecessary {unnecessary} "
               f"({figures['wrong_rate']}, target <= 0.10); stale spoken {stale} (0); spoken over the "
               f"user {over_user} (0); longest silence while work runs {figures['max_silence_s']} s (<= 2); "
               f"request to result p50 {figures['request_to_result_s_p50']} s; turn end to first "
               f"words p50 {figures['reply_s_p50']} s, max {figures['reply_s_max']} s")
    return BenchReport("delegation", ["script", "turn", "needs", "delegated", "silence_s", "to_result_s", "reply_s"],
                       rows, summary, figures)
