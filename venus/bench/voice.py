"""``venus bench voice``: the assistant's voice on this CPU: real-time factor, first audio.

Each reply is queued on an `AudioSpeechOutput` that synthesizes ahead on its worker, as
a live session's output does (`venus.assistant` on a wall clock), and polled on the wall
clock every ``--poll-ms`` until it starts playing. ``first_audio_ms``: from the queueing
(the decision to speak) to the reply's first piece synthesized (its first samples
ready), measured on the worker; ``start_ms``: queueing to the output's STARTED as the
polls see it (the first plus up to one poll period); ``caller_ms_max``: the longest a
`queue` or `poll` call took (the caller must never wait for the TTS); ``tts_rtf``: the
seconds of synthesis per second of speech over every piece. Replies are queued one at a
time, after the previous one's synthesis ended (each is a fresh decision, not queued
behind another). The machine is shared: ``load_avg_1m`` says how
busy it was.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from typing import Any

from venus.bench.report import BenchReport, percentile

__all__ = ["DESCRIPTION", "REPLIES", "add_arguments", "run"]

DESCRIPTION = ("the assistant's voice (Piper, or eSpeak NG): real-time factor and ms from "
               "the decision to speak to the first samples ready, synthesizing ahead")

REPLIES = (  # the embedded frontend's kind of answer: a cited sentence or two
    "At 0:00, The French Revolution began in 1789 with the storming of the Bastille in Paris.",
    "Leaves make sugar from sunlight in a process called photosynthesis.",
    "Roots take up water and minerals from the soil, and the stem carries them up to the leaves.",
    "Sure.",
    "At 2:14, the speaker says that chlorophyll absorbs red and blue light and reflects green.",
    "I do not know that from the video so far.",
    "The Reign of Terror from 1793 to 1794 saw thousands executed by the guillotine.",
    "Yes, at 5:40 the slide shows the Calvin cycle, which fixes carbon dioxide into sugar.",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--voice", choices=("auto", "piper", "espeak"), default="auto",
                        help="auto: the assistant's own (Piper when installed, else eSpeak NG)")
    parser.add_argument("--rounds", type=int, default=3,
                        help=f"times through the {len(REPLIES)} replies (default 3)")
    parser.add_argument("--first-words", type=int, default=None, metavar="N",
                        help="cut the first piece after N words (default: the output's, 5)")
    parser.add_argument("--poll-ms", type=float, default=10.0,
                        help="how often the output is polled, as a session's hops (default 10)")


def run(args: argparse.Namespace) -> BenchReport:
    from venus.speech import AudioSpeechOutput, SpeechOutputOptions, Utterance
    from venus.speech.synthesis import choose_voice, espeak_voice, piper_voice

    voice = {"auto": choose_voice, "piper": piper_voice, "espeak": espeak_voice}[args.voice]()
    load = [os.getloadavg()[0]]
    options = SpeechOutputOptions() if args.first_words is None else \
        SpeechOutputOptions(first_piece_words=args.first_words)
    out = AudioSpeechOutput(options, synthesizer=voice.synthesizer, ahead=True)
    try:
        out.synthesis.wait(120)  # the warm-up: loading the voice is not a reply
        start = time.perf_counter()
        rows, starts, callers = [], [], []
        for i in range(args.rounds * len(REPLIES)):
            begun = len(out.synthesis.jobs)
            started_ms, caller_ms = _speak(out, Utterance(f"u{i}", REPLIES[i % len(REPLIES)]),
                                           start, args.poll_ms / 1000)
            out.synthesis.wait(120)  # the whole reply, for the real-time factor
            out.stop(time.perf_counter() - start)
            jobs = list(out.synthesis.jobs)[begun:]
            rows.append(_row(i, jobs, started_ms))
            starts.append(started_ms)
            callers.append(caller_ms)
        load.append(os.getloadavg()[0])
        jobs = list(out.synthesis.jobs)[1:]
    finally:
        out.close()
    return _report(voice, options, rows, starts, callers, jobs, load)


_TICK = threading.Event()


def _speak(out, utterance, start: float, poll_s: float) -> tuple[float, float]:
    """Queue and poll until STARTED: (queue -> STARTED ms, the longest call in ms)."""
    from venus.speech import PlaybackStatus

    def now() -> float:
        return time.perf_counter() - start

    t = time.perf_counter()
    queued = now()
    out.queue(utterance, queued)
    longest = time.perf_counter() - t
    while True:
        _TICK.wait(poll_s)  # the wall clock's pace, as a live loop polls (never set)
        t = time.perf_counter()
        reports = out.poll(now())
        longest = max(longest, time.perf_counter() - t)
        started = [r for r in reports if r.status is PlaybackStatus.STARTED]
        if started:
            return (started[0].time - queued) * 1000, longest * 1000
        if now() - queued > 60:
            raise RuntimeError(f"{utterance.utterance_id} never started in 60 s")


def _row(i: int, jobs, started_ms: float) -> list[Any]:
    first = jobs[0]
    audio = sum(j.audio_s for j in jobs if j.audio_s)
    synth = sum(j.synth_s for j in jobs if j.audio_s)
    return [f"r{i}", len(" ".join(j.text for j in jobs).split()), len(jobs),
            len(first.text.split()), round(first.ready_s * 1000, 1), round(started_ms, 1),
            round(audio, 2), round(synth / audio, 3) if audio else None]


def _report(voice, options, rows, starts, callers, jobs, load) -> BenchReport:
    first = [r[4] for r in rows]
    done = [j for j in jobs if j.audio_s]  # pieces synthesized (not dropped by a stop)
    rtf = sum(j.synth_s for j in done) / sum(j.audio_s for j in done)
    figures = {
        "voice": voice.name,
        "tts_rtf": round(rtf, 3),
        "first_audio_ms_p50": round(percentile(first, 50), 1),
        "first_audio_ms_p95": round(percentile(first, 95), 1),
        "first_audio_ms_max": round(max(first), 1),
        "start_ms_p50": round(percentile(starts, 50), 1),
        "start_ms_p95": round(percentile(starts, 95), 1),
        "caller_ms_max": round(max(callers), 2),
        "first_piece_words": options.first_piece_words,
        "replies": len(rows),
        "pieces": len(done),
        "load_avg_1m": round(max(load), 2),  # the machine is shared: say how busy
    }
    summary = (f"{voice.name}: real-time factor {figures['tts_rtf']}, first audio "
               f"{figures['first_audio_ms_p50']:.0f} ms p50 / {figures['first_audio_ms_p95']:.0f} "
               f"ms p95 after the decision, STARTED at {figures['start_ms_p50']:.0f} ms p50; "
               f"the caller waited at most {figures['caller_ms_max']:.1f} ms "
               f"({len(rows)} replies, load {figures['load_avg_1m']})")
    header = ["reply", "words", "pieces", "first words", "first audio ms", "started ms",
              "audio s", "rtf"]
    return BenchReport("voice", header, rows, summary, figures)
