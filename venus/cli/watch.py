"""``venus watch VIDEO --when TEXT``: standing requests over a video file, for scripts.

Maps flags onto `memory.store.watching.watch_video`: each ``--when`` is read by the
frontend's phrasing rules (`venus.frontend.intents.watch_request`), so "tell me every
time he mentions chess" and plain "chess" both work; each alert is printed as it happens
with its video time and evidence; ``--json`` writes ``{"video_seconds", "alerts":
[{"request", "video_time", "evidence": {"start", "end", "text"}}]}`` in firing order
(``request`` is the ``--when`` text as given; a request that never fired has no entry).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("watch", help="alert when a video says or shows something",
                       description="Ingest VIDEO (or reuse a kept memory with --memory) and "
                       "print an alert, with its video time and the evidence, the first "
                       "time each --when condition is said or shown (every time, if the "
                       "condition says 'every time').")
    p.add_argument("video", nargs="?", help="the video file or URL (optional with a "
                   "finished --memory)")
    p.add_argument("--when", action="append", required=True, metavar="TEXT",
                   help="what to watch for, e.g. 'the exam' or 'tell me when the slide "
                        "about photosynthesis comes up' (repeatable)")
    p.add_argument("--json", metavar="PATH", help="also write the alerts as JSON")
    p.add_argument("--memory", metavar="DIR",
                   help="keep the memory here (reused, and finished, when it exists)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_watch)


def request(text: str) -> tuple[str, bool]:
    """``(condition, every_time)`` of one ``--when``, by the frontend's phrasing rules."""
    from venus.frontend.intents import watch_request

    return watch_request(text) or watch_request(f"tell me when {text}") or (text.strip(), False)


def _watch(args: argparse.Namespace) -> int:
    from memory.store.watching import watch_video
    from venus.errors import ConfigError

    if args.video is None and (args.memory is None or not _holds_memory(args.memory)):
        raise ConfigError("give a VIDEO to watch, or --memory DIR with a finished memory")
    if args.memory is None and args.video is not None and not _is_url(args.video) \
            and not Path(args.video).exists():
        raise ConfigError(f"no video at {args.video}; give the path of a video file")
    requests = [request(t) for t in args.when]

    def show(alert) -> None:
        m = alert.match
        print(f"[{_clock(m.at)}] {args.when[alert.index]}: {m.sentence()}", flush=True)

    report = watch_video(args.video, requests, memory_dir=args.memory, on_alert=show,
                         progress=not args.quiet and sys.stderr.isatty())
    report.alerts = [replace(a, request=args.when[a.index]) for a in report.alerts]
    fired = {a.index for a in report.alerts}
    for i, text in enumerate(args.when):
        if i not in fired:
            print(f"(never) {text}")
    speed = report.video_seconds / report.seconds if report.seconds else float("inf")
    print(f"{len(report.alerts)} alert(s) over {_clock(report.video_seconds)} of video in "
          f"{report.seconds:.1f} s ({speed:.0f}x real time)")
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_json(), indent=2))
    return 0


def _holds_memory(directory: str) -> bool:
    from memory.store.db import VERSION_FILE

    return (Path(directory) / VERSION_FILE).is_file()


def _is_url(text: str) -> bool:
    return "://" in text


def _clock(seconds: float) -> str:
    from memory.evidence import format_time

    return format_time(seconds)
