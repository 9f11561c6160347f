"""``venus bench turns``: spoken questions pushed in real time through the app's session,
timed on the wall clock.

A live trace of the path a person meets (the companion of the simulated ``venus bench
duplex``): an `AppSession` (the app's own: `LiveSource` -> `Session` -> `DuplexIO` ->
`EmbeddedFrontend` -> `AudioSpeechOutput`) on a `WallClock`, fed like the browser feeds
it: microphone audio pushed in ``--batch-s`` batches as it would be captured (silence,
then a question in a voice held out of tuning, then silence), each batch when its last
sample is due. For every question it reads the timeline: the end of the user's speech
(from the audio pushed), when the reply was decided (``SpeechQueued``) and when it began
to play on the server's output (``SpeechPlayed``); and for every second, how far the
schedule ran behind the clock (the lag, which must not grow). Server side only: the
browser's transport and playback are ``venus bench live``'s (issue 31).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from venus.bench.report import BenchReport, peak_rss_mb

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = ("spoken questions pushed in real time through the app's session: reply start "
               "after the end of speech and the schedule's lag, on the wall clock")

INTERRUPTIONS = (
    "Wait, what about the roots?", "Stop, I have another question.",
    "No, no, tell me about the heart.", "Hold on, what is a catalyst?",
    "Sorry, can you explain the nucleus?",
)

QUESTIONS = (
    "What is the pH scale?", "How many chambers does the heart have?",
    "What do plants need to make sugar?", "Why is the sky blue?",
    "What was on the first slide?", "Who discovered the nucleus?",
    "How long is the Nile?", "What does a catalyst do?",
    "When did the lecture talk about magnets?", "What is the boiling point of water?",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--questions", type=int, default=10, help="questions asked (10)")
    parser.add_argument("--gap-s", type=float, default=8.0,
                        help="seconds from one question's end to the next one's start (8)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="keep asking for this long instead (the lag must not grow)")
    parser.add_argument("--batch-s", type=float, default=0.02,
                        help="microphone batch (0.02: the page's 20 ms frames, "
                             "demos/static/voice.js; 0.5: Gradio's stream_every)")
    parser.add_argument("--voice", default="flite",
                        help="voice family of the questions (flite: held out of tuning)")
    parser.add_argument("--interrupt", action="store_true",
                        help="cut into each reply 1 s after it began (an interruption in the "
                             "same voice): how soon the server's output stops")


def run(args: argparse.Namespace) -> BenchReport:
    from demos.state import AppOptions, AppSession
    from memory import MemoryModels
    from venus.clock import WallClock
    from venus.eval.voices import family_synthesizer

    voice = family_synthesizer(args.voice)
    clock = WallClock()
    root = Path(tempfile.mkdtemp(prefix="venus-turns-"))
    app = AppSession("turns", AppOptions(root=root, drain_s=0.0), models=MemoryModels(),
                     clock=lambda: clock)
    pusher = _Pusher(app, clock, args.batch_s)
    count = args.questions if args.minutes is None else 10_000
    deadline = None if args.minutes is None else time.monotonic() + 60 * args.minutes
    ends: list[float] = []
    onsets: list[float | None] = []  # of the interruption of each reply (--interrupt)
    try:
        runner = app.start()
        pusher.silence(2.0)  # the schedule and the models warm up
        delta = clock.now() - runner.session.now()  # clock time -> session time
        for i in range(count):
            if deadline is not None and time.monotonic() > deadline:
                break
            audio = voice.synthesize(QUESTIONS[i % len(QUESTIONS)]).audio
            ends.append(pusher.speech(audio)[1] - delta)
            print(f"  question {i + 1}: {QUESTIONS[i % len(QUESTIONS)]!r}", flush=True)
            if args.interrupt:
                onsets.append(_interrupt(app, pusher, voice, ends[-1], delta, i))
            pusher.silence(args.gap_s)
        entries = app.entries()
        jobs = [j for j in runner.session.duplex.perception.asr.finished if j.kind == "final"]
        played = runner.session.speech.waveform()  # what the server's output played
    finally:
        app.close()
    report = _report(args, ends, entries, onsets, played)
    report.figures.update(_stages(jobs))
    report.summary += "; " + ", ".join(f"{k} {v}" for k, v in _stages(jobs).items())
    return report


class _Pusher:
    """Pushes microphone audio into the app in batches, each when its last sample is due
    on the wall clock (as a browser does), and knows when each sample was captured."""

    def __init__(self, app, clock, batch_s: float) -> None:
        self.app, self.clock, self.batch = app, clock, max(0.02, batch_s)
        self.at = None  # clock time the next sample is captured

    def _push(self, audio: np.ndarray) -> None:
        from memory.media import SAMPLE_RATE

        if self.at is None:
            self.at = self.clock.now()
        step = round(self.batch * SAMPLE_RATE)
        for a in range(0, len(audio), step):
            part = audio[a:a + step]
            self.at += len(part) / SAMPLE_RATE
            wait = self.at - self.clock.now()
            if wait > 0:
                time.sleep(wait)
            self.app.push_audio(SAMPLE_RATE, part)

    def silence(self, seconds: float) -> None:
        from memory.media import SAMPLE_RATE

        self._push(np.zeros(round(seconds * SAMPLE_RATE), np.float32))

    def speech(self, audio: np.ndarray) -> tuple[float, float]:
        """Push ``audio``; return the clock times its first and last voiced samples were
        captured."""
        from memory.media import SAMPLE_RATE

        voiced = np.flatnonzero(np.abs(audio) > 0.01)
        start = self.at if self.at is not None else self.clock.now()
        self._push(np.asarray(audio, np.float32))
        first, last = (voiced[0], voiced[-1]) if len(voiced) else (0, len(audio))
        return start + first / SAMPLE_RATE, start + last / SAMPLE_RATE


def _interrupt(app, pusher: _Pusher, voice, end: float, delta: float, i: int) -> float | None:
    """Wait (pushing silence) for the reply to the question that ended at session time
    ``end`` to begin, let it play 1 s, then cut in; the interruption's onset (session
    time), or None when no reply began within 3 s."""
    from venus.events import SpeechPlayed

    for _ in range(30):
        if any(isinstance(e.event, SpeechPlayed) and e.time > end for e in app.entries()):
            break
        pusher.silence(0.1)
    else:
        return None
    pusher.silence(1.0)
    text = INTERRUPTIONS[i % len(INTERRUPTIONS)]
    print(f"    interrupted: {text!r}", flush=True)
    return pusher.speech(voice.synthesize(text).audio)[0] - delta


def _report(args, ends: list[float], entries, onsets: list[float | None],
            output: np.ndarray) -> BenchReport:
    from venus.events import ChunkReceived, OverlapClassified, SpeechPlayed, SpeechQueued

    queued = [e.time for e in entries if isinstance(e.event, SpeechQueued)]
    played = [e.time for e in entries if isinstance(e.event, SpeechPlayed)]
    verdicts = [(e.time, e.event.kind.value) for e in entries
                if isinstance(e.event, OverlapClassified)]
    rows, decide, start, stops, through = [], [], [], [], 0
    for i, end in enumerate(ends):
        nxt = ends[i + 1] if i + 1 < len(ends) else float("inf")
        q = next((t for t in queued if end <= t < nxt), None)
        p = next((t for t in played if end <= t < nxt), None)
        decide.append(None if q is None else q - end)
        start.append(None if p is None else p - end)
        rows.append([i + 1, QUESTIONS[i % len(QUESTIONS)], _s(decide[-1]), _s(start[-1])])
        if args.interrupt:
            onset = onsets[i] if i < len(onsets) else None
            silent = None if onset is None else _silent_from(output, onset)
            kind = next((k for t, k in verdicts if onset is not None and onset <= t < nxt), "-")
            stops.append(None if silent is None else silent - onset)
            through += onset is not None and kind != "interruption"
            rows[-1] += [_s(stops[-1]), kind]
    lags = [e.time - e.event.end for e in entries if isinstance(e.event, ChunkReceived)]
    drift = _drift(lags)
    answered = [s for s in start if s is not None]
    figures = {
        "questions": len(ends), "answered": len(answered),
        "reply_start_s_p50": _p(answered, 50), "reply_start_s_p95": _p(answered, 95),
        "decision_s_p50": _p([d for d in decide if d is not None], 50),
        "lag_s_p50": _p(lags, 50), "lag_s_p95": _p(lags, 95), "lag_drift_s": drift,
        "batch_s": args.batch_s, "voice_family": args.voice,
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
    summary = (f"wall clock, {args.voice} voice, {args.batch_s} s microphone batches: "
               f"{len(answered)}/{len(ends)} questions answered; the reply began to play "
               f"p50 {figures['reply_start_s_p50']} s / p95 {figures['reply_start_s_p95']} s "
               f"after the end of speech (decided p50 {figures['decision_s_p50']} s); the "
               f"schedule's lag p50 {figures['lag_s_p50']} s / p95 {figures['lag_s_p95']} s, "
               f"drift {drift} s from the first to the last minute (server side)")
    header = ["#", "question", "decided s", "reply plays s"]
    if args.interrupt:
        done = [s for s in stops if s is not None]
        figures.update({"interruptions": len(stops), "silenced": len(done),
                        "not_taken_as_interruption": through,
                        "stop_s_p50": _p(done, 50), "stop_s_p95": _p(done, 95)})
        summary += (f"; an interruption 1 s into the reply silenced the server's output in "
                    f"{len(done)}/{len(stops)}, p50 {figures['stop_s_p50']} s / p95 "
                    f"{figures['stop_s_p95']} s after its onset, {through} not taken as one")
        header += ["silent after s", "verdict"]
    return BenchReport("turns", header, rows, summary, figures)


def _stages(jobs) -> dict:
    """Where the seconds go, per question (medians): from the end of speech (the VAD's
    offset time) to the final words' job being submitted, Whisper's own time on it, and
    from the end of speech to the words being seen by the loop."""
    done = [j for j in jobs if j.speech_end is not None and j.visible_at is not None]
    return {"stage_submit_after_end_s_p50": _p([j.submitted - j.speech_end for j in done], 50),
            "stage_whisper_s_p50": _p([j.run_s for j in done], 50),
            "stage_words_seen_after_end_s_p50": _p([j.visible_at - j.speech_end for j in done],
                                                   50),
            "stage_short_pass_share": round(sum(j.short for j in done) / len(done), 2)
            if done else None}


def _silent_from(output: np.ndarray, onset: float, hold_s: float = 0.3,
                 within_s: float = 3.0) -> float | None:
    """When the output fell silent (for ``hold_s``) after ``onset``, in session time: what
    a listener hears of a stop or a pause; None when it never did within ``within_s``."""
    from memory.media import SAMPLE_RATE

    a = max(0, round(onset * SAMPLE_RATE))
    loud = np.abs(output[a:a + round((within_s + hold_s) * SAMPLE_RATE)]) > 1e-4
    hold, step = round(hold_s * SAMPLE_RATE), SAMPLE_RATE // 100  # 10 ms steps
    for i in range(0, max(0, len(loud) - hold), step):
        if not loud[i:i + hold].any():
            return onset + i / SAMPLE_RATE
    return None


def _drift(lags: list[float]) -> float | None:
    """The median lag of the last 60 seconds minus that of the first 60."""
    if len(lags) < 20:
        return None
    n = min(60, len(lags) // 2)
    return round(float(np.median(lags[-n:]) - np.median(lags[:n])), 3)


def _p(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"

