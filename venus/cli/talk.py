"""``venus talk VIDEO``: a session on a video file with the embedded frontend, live timeline.

Maps flags onto `venus.scenario` objects and prints each timeline entry as it happens
(`format_entry`). The user's voice comes from ``--say T:TEXT`` (synthesized and spoken
into the simulated microphone at second T) and/or, with ``--video-audio-db``, from the
video's own soundtrack; a real microphone and camera are not wired here (no audio I/O
package is a dependency), so the session always runs over the file. ``--simulated``
runs in simulated time (seconds instead of the video's length). The video memory grows
live from the chunks watched, so answers only know the video up to the question.
"""

from __future__ import annotations

import argparse
import sys

from venus.events import (
    ChunkReceived,
    ControlTokenEmitted,
    DelegationRequested,
    ErrorRecorded,
    FloorActionTaken,
    OverlapClassified,
    PlaybackAcknowledged,
    ReintegrationDecided,
    ResultDelivered,
    SpeechQueued,
    SpeechStopped,
    UserWordsTranscribed,
    WorkItemStateChanged,
)
from venus.timeline import TimelineEntry

__all__ = ["format_entry", "register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("talk", help="run the assistant on a video file and print the live timeline",
                       description=__doc__.split("\n\n")[1])
    p.add_argument("video", help="video file (MP4, MKV, ...)")
    p.add_argument("--say", action="append", default=[], metavar="T:TEXT",
                   help="the user says TEXT at second T (repeatable)")
    p.add_argument("--voice", default="en-us", help="the user's eSpeak voice (en-us)")
    p.add_argument("--mode", choices=("omni", "audio"), default="omni",
                   help="omni (audio + frames) or audio (the Audio frontend)")
    p.add_argument("--video-audio-db", type=float, default=None, metavar="DB",
                   help="also hear the video's soundtrack as microphone input at this gain")
    p.add_argument("--simulated", action="store_true", help="simulated time (fast)")
    p.add_argument("--out", default=None, help="write input.wav, output.wav, timeline.jsonl here")
    p.add_argument("--all", action="store_true", help="also print chunks and control tokens")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from venus.clock import SimulatedClock, WallClock
    from venus.scenario import parse_scenario, run_scenario, shared_models

    turns = [_turn(s, args.voice) for s in args.say]
    scenario = parse_scenario({"name": "talk", "video": args.video, "mode": args.mode,
                               "video_audio_db": args.video_audio_db, "turns": turns},
                              "command line")
    clock = SimulatedClock() if args.simulated else WallClock()
    voice = shared_models().voice
    print(f"venus talk: {args.video} ({'simulated' if args.simulated else 'wall'} clock, "
          f"{args.mode} frontend, the assistant's voice {voice.name}); Ctrl-C stops",
          file=sys.stderr)
    result = _told_with_flags(args.out is not None, lambda: run_scenario(
        scenario, args.out, clock=clock, on_entry=lambda e: _print(e, args.all)))
    s = result.summary
    print(f"ended: {s.reason}; {s.chunks} chunks, {s.delivered} results delivered", file=sys.stderr)
    return 0


def _told_with_flags(kept: bool, run):
    """A full or read-only memory disk, told in this command's flag. The live memory is
    made afresh by each run (``--out DIR/memory``, else a temporary folder), so nothing
    resumes: the sentence says where else to put it."""
    from memory.errors import StoreWriteError

    try:
        return run()
    except StoreWriteError as exc:
        place = exc.place if kept else "temporary memory directory"
        raise exc.retold(flag="--out DIR", resume="", place=place) from exc.__cause__


def _turn(spec: str, voice: str) -> dict:
    from venus.errors import ConfigError

    at, sep, text = spec.partition(":")
    try:
        seconds = float(at)
    except ValueError:
        seconds = -1.0
    if not sep or seconds < 0 or not text.strip():
        raise ConfigError(f"--say {spec!r} is not T:TEXT (e.g. --say '5:What is on the slide?')")
    return {"at": seconds, "text": text.strip(), "voice": voice}


def _print(entry: TimelineEntry, everything: bool) -> None:
    line = format_entry(entry, everything)
    if line:
        print(line, flush=True)


def format_entry(entry: TimelineEntry, everything: bool = False) -> str | None:
    """One readable line for a timeline entry (None for the routine ones)."""
    e = entry.event
    who, text = _describe(e)
    if who is None:
        if not everything:
            return None
        who, text = type(e).__name__, ""
        if isinstance(e, ChunkReceived):
            text = f"chunk {e.index} [{e.start:.0f}, {e.end:.0f})"
        elif isinstance(e, ControlTokenEmitted):
            text = e.token.value
    return f"{entry.time:8.2f}s  {who:<10} {text}"


def _describe(e) -> tuple[str | None, str]:
    if isinstance(e, UserWordsTranscribed):
        return "user", e.text
    if isinstance(e, OverlapClassified):
        return "overlap", f"{e.kind.value}: {e.text}"
    if isinstance(e, FloorActionTaken):
        return "floor", e.action.value
    if isinstance(e, SpeechQueued):
        return "assistant", e.text + (f"  [result {e.item_id}]" if e.item_id else "")
    if isinstance(e, SpeechStopped):
        return "stopped", f"{e.utterance_id} after {e.heard_fraction:.0%} ({e.reason})"
    if isinstance(e, PlaybackAcknowledged) and e.via == "speech":
        return "heard", e.utterance_id
    if isinstance(e, DelegationRequested):
        return "delegate", f"{e.action.value} {e.capability or ''} {e.arguments or ''}".strip()
    if isinstance(e, WorkItemStateChanged):
        return "work", f"{e.item_id} {e.state.value}"
    if isinstance(e, ReintegrationDecided):
        return "reinteg.", f"{e.item_id} {e.verdict.value}: {e.reason}"
    if isinstance(e, ResultDelivered):
        return "delivered", e.item_id
    if isinstance(e, ErrorRecorded):
        return "error", f"{e.source}: {e.message}"
    return None, ""
