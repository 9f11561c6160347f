"""``venus bench frontend``: decision latency and stop latency of the embedded frontend.

Runs seeded overlap scenarios (`venus.scenario`) in simulated time with the real models
(Silero VAD, Whisper tiny.en, MiniLM, eSpeak): a user question, the assistant's answer,
and one overlap while it speaks (interruption, backchannel, other-directed remark,
background speech 15-25 dB down), in voices, phrasings and delays drawn from ``--seed``.

* ``decision_ms_p50/p95``: wall time of the session's step per 0.1 s hop (the frontend
  decides on every hop) as it runs live: echo cancellation, perception (VAD, embeddings, faces, submitting ASR
  jobs) and the policy. Whisper runs on perception's background worker and a live step
  never waits for it; these runs are deterministic (simulated time), where a step waits
  at the chunk a result is due, and that wait is left out here
  (``decision_wall_ms_p95`` keeps it in; ``asr_wait_ms_p95`` is the wait alone, for the
  ASR worker's words and the word probe's);
* ``stop_latency_s_p50/p95``: session time from the interrupting user's first sample to
  the first 0.2 s of silence in ``output.wav`` (interruption scenarios);
* per kind, the share classified right *and* acted on right (``interruption_response``:
  stopped and answered; ``continuation_*``: the answer played to its end, and the
  overlap got no reply).

The models are loaded before the first run. ``asr_ms_p50/p95`` time the worker's Whisper
calls (final words of every region, partial words while an overlap is undecided);
``final_lag_s_p50/p95`` is how far final words lag the end of speech in these runs
(session time: transcribed once the user has been quiet 0.1 s, then the fitted Whisper
latency ``asr_latency_s`` + ``asr_latency_per_s`` per second of audio, seen at a hop end),
and ``final_lag_live_s_p50/p95`` what a live run would see: from the end of speech to the
chunk end the job was submitted at, plus the worker's queueing and call (wall).
``end_of_turn_ms_p50/p95``: Smart Turn v3.2 (`venus.perception.SmartTurn`, one thread)
on a spoken question, ``--turn-runs`` times: log-mel features and the ONNX call (wall).
"""

from __future__ import annotations

import argparse
import os
import random
from typing import Any

from venus.bench.report import BenchReport, peak_rss_mb, percentile

__all__ = ["DESCRIPTION", "add_arguments", "run", "scenario_doc"]

DESCRIPTION = ("per-chunk decision latency (p50/p95, wall) and stop latency (session time) of "
               "the embedded frontend over seeded overlap scenarios with real models")

KINDS = ("interruption", "backchannel", "other_directed", "background")
NOTES = [
    {"start": 0, "end": 30, "text": "Leaves make sugar from sunlight in a process called photosynthesis."},
    {"start": 30, "end": 60, "text": "Roots take up water and minerals from the soil."},
]
# Questions every voice below says so that Whisper tiny.en hears them (checked: "What is
# photosynthesis?" came back as "Thank you for watching" or a loop in 4 of the 6 voices);
# this benchmark measures floor control, `venus bench asr` measures hearing.
QUESTIONS = ("What do leaves make from sunlight?", "How do leaves make sugar?",
             "How do leaves make food from light?")
OVERLAP_TEXTS = {
    "interruption": ("Wait, what do the roots do?", "Hold on, what about the roots?",
                     "Sorry, how do roots take up water?", "Stop, can you explain the soil part?"),
    "backchannel": ("Mm-hmm.", "Yeah.", "Right.", "Okay.", "I see."),
    "other_directed": ("John, can you pass me the salt?", "Sarah, close the door please.",
                       "Mike, the pizza is here."),
    "background": ("And now the weather for the weekend, sunny with light winds.",
                   "The match ended two all after extra time.",
                   "Traffic is heavy on the northern bypass this evening."),
}
VOICES = ("en-us", "en-us+f2", "en-us+m3", "en-us+f4", "en+m7", "en-gb-x-rp+f3")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=int, default=3, help="scenarios per overlap kind (3)")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help=f"comma-separated overlap kinds ({','.join(KINDS)})")
    parser.add_argument("--turn-runs", type=int, default=50,
                        help="Smart Turn predictions timed for end_of_turn_ms (50)")


def scenario_doc(kind: str, rng: random.Random, name: str) -> dict[str, Any]:
    """One seeded scenario: a question, then a ``kind`` overlap while the answer plays."""
    voice = rng.choice(VOICES)
    overlap: dict[str, Any] = {"text": rng.choice(OVERLAP_TEXTS[kind]), "label": kind,
                               "after_assistant": round(rng.uniform(1.2, 2.5), 2)}
    if kind == "background":
        overlap.update(voice=rng.choice([v for v in VOICES if v != voice]), speaker="background",
                       gain_db=-rng.uniform(15, 25))
    elif kind == "other_directed":
        overlap.update(voice=voice, speaker="user")
    else:
        overlap.update(voice=voice)
    return {"name": name, "notes": NOTES, "tail_s": 6,
            "turns": [{"at": 1.0, "text": rng.choice(QUESTIONS), "voice": voice}, overlap]}


class _TimedTranscriber:
    """The real transcriber, with the wall time of each call kept (where p95 goes)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.seconds: list[float] = []

    def transcribe(self, audio, offset: float = 0.0):
        from venus.clock import perf_seconds

        began = perf_seconds()
        try:
            return self.inner.transcribe(audio, offset)
        finally:
            self.seconds.append(perf_seconds() - began)


def _lags(jobs, lags: list[float], live_lags: list[float]) -> None:
    """How far each region's final words came after its end of speech (see the docstring)."""
    for job in jobs:
        if job.kind != "final" or job.speech_end is None or job.visible_at is None:
            continue
        lags.append(job.visible_at - job.speech_end)
        if job.wall_s is not None:
            live_lags.append(job.submitted - job.speech_end + job.wall_s)


def _end_of_turn_ms(tts, runs: int) -> list[float]:
    """Wall ms of each Smart Turn prediction on a spoken question and a 0.2 s pause."""
    import numpy as np

    from venus.perception import SmartTurn

    speech = tts.synthesize(QUESTIONS[0]).audio
    audio = np.concatenate([speech, np.zeros(3200, np.float32)])
    turn = SmartTurn().load()
    turn.predict(audio)  # onnxruntime's first run allocates: not a live call
    return [turn.predict(audio).seconds * 1000 for _ in range(runs)]


def _p(values: list[float], q: float) -> float | None:
    return round(percentile(values, q), 3) if values else None


def run(args: argparse.Namespace) -> BenchReport:
    from venus.events import OverlapClassified, SpeechQueued, SpeechStopped
    from venus.scenario import ScenarioModels, parse_scenario, run_scenario, shared_models
    from venus.speech.synthesis import espeak_voice

    base = shared_models()
    asr = _TimedTranscriber(base.transcriber)
    models = ScenarioModels({"tts": base.tts, "vad": base.detector, "asr": asr,
                             "embedder": base.embedder,
                             "voice": espeak_voice()})  # the evaluation's: `venus.eval.runner`
    rng = random.Random(args.seed)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    steps: list[float] = []
    waits: list[float] = []
    lags: list[float] = []
    live_lags: list[float] = []
    stops: list[float] = []
    probes: list[float] = []  # wall ms of each word-probe read (the gate's early words)
    right: dict[str, list[bool]] = {k: [] for k in kinds}
    rows: list[list[Any]] = []
    for i in range(args.runs):
        for kind in kinds:
            result = run_scenario(parse_scenario(scenario_doc(kind, rng, f"{kind}-{i}")),
                                  models=models)
            steps.extend(result.session.step_seconds)
            waits.extend(result.session.asr_wait_seconds)
            _lags(result.duplex.perception.asr.finished, lags, live_lags)
            probes.extend(j.run_s * 1000 for j in result.duplex.perception.probed
                          if j.run_s is not None)
            if len(result.turns) < 2:  # the assistant never answered: no overlap happened
                right[kind].append(False)
                rows.append([f"{kind}-{i}", "(never placed: no answer)", "-", "WRONG", ""])
                continue
            over = result.turns[1]
            stopped = [e for e in result.timeline.events(SpeechStopped) if e.reason != "session ended"]
            seen = [e.kind.value for e in result.timeline.events(OverlapClassified)]
            if kind == "interruption":
                silent = result.silent_after(over.start)
                latency = (silent - over.start) if silent is not None else float("nan")
                stops.append(latency)
                answered = len(result.timeline.events(SpeechQueued)) >= 2
                ok = bool(stopped) and answered
            else:
                latency = None  # kept speaking, and did not answer the overlap
                ok = not stopped and len(result.timeline.events(SpeechQueued)) == 1
            ok = ok and seen[:1] == [kind]
            right[kind].append(ok)
            rows.append([f"{kind}-{i}", over.turn.text[:34], ",".join(seen) or "-",
                         "ok" if ok else "WRONG",
                         "" if latency is None else f"{latency:.2f}"])
    turn_ms = _end_of_turn_ms(base.tts, args.turn_runs)
    ms = [s * 1000 for s in steps]
    wall = [(s + w) * 1000 for s, w in zip(steps, waits)]
    figures = {
        "decision_ms_p50": round(percentile(ms, 50), 1),
        "decision_ms_p95": round(percentile(ms, 95), 1),
        "decision_ms_max": round(max(ms), 1),
        "decision_wall_ms_p95": round(percentile(wall, 95), 1),
        "asr_wait_ms_p95": round(percentile([w * 1000 for w in waits], 95), 1),
        "chunks": len(ms),
        "stop_latency_s_p50": round(percentile(stops, 50), 3) if stops else None,
        "stop_latency_s_p95": round(percentile(stops, 95), 3) if stops else None,
        "runs_per_kind": args.runs,
        "asr_calls": len(asr.seconds),
        "asr_ms_p50": round(percentile([x * 1000 for x in asr.seconds], 50), 1) if asr.seconds else None,
        "asr_ms_p95": round(percentile([x * 1000 for x in asr.seconds], 95), 1) if asr.seconds else None,
        "probe_calls": len(probes),
        "probe_ms_p50": round(percentile(probes, 50), 1) if probes else None,
        "probe_ms_p95": round(percentile(probes, 95), 1) if probes else None,
        "final_lag_s_p50": _p(lags, 50),
        "final_lag_s_p95": _p(lags, 95),
        "final_lag_live_s_p50": _p(live_lags, 50),
        "final_lag_live_s_p95": _p(live_lags, 95),
        "end_of_turn_ms_p50": round(percentile(turn_ms, 50), 1) if turn_ms else None,
        "end_of_turn_ms_p95": round(percentile(turn_ms, 95), 1) if turn_ms else None,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "load_avg_1m": round(os.getloadavg()[0], 2),  # the machine is shared: say how busy
    }
    for kind, oks in right.items():
        key = "interruption_response" if kind == "interruption" else f"continuation_{kind}"
        figures[key] = round(sum(oks) / len(oks), 3) if oks else None
    summary = (f"decision p50 {figures['decision_ms_p50']} ms, p95 {figures['decision_ms_p95']} ms "
               f"per hop over {len(ms)} hops (target p95 <= 30); stop latency p50 "
               f"{figures['stop_latency_s_p50']} s (target <= 0.6); Whisper (background worker) "
               f"{len(asr.seconds)} calls, p50 {figures['asr_ms_p50']} ms, p95 "
               f"{figures['asr_ms_p95']} ms; word probe {len(probes)} reads, p50 "
               f"{figures['probe_ms_p50']} ms, p95 {figures['probe_ms_p95']} ms; final words "
               f"{figures['final_lag_s_p50']} s after "
               f"the speech (live estimate {figures['final_lag_live_s_p50']} s)"
               f"\nend of turn (Smart Turn v3.2, one thread): p50 "
               f"{figures['end_of_turn_ms_p50']} ms, p95 {figures['end_of_turn_ms_p95']} ms "
               f"over {len(turn_ms)} predictions of a {len(QUESTIONS[0].split())}-word question")
    return BenchReport("frontend", ["scenario", "overlap", "classified", "action", "stop_s"],
                       rows, summary, figures)
