"""``venus demo``: the main job on the embedded defaults.

Makes the sample lecture if it is missing, streams it in one-second chunks through
`venus.demo.StreamWatcher`, prints a per-chunk log, then answers questions about what was
seen and heard, with timestamps.
"""

from __future__ import annotations

import argparse
import sys
import time


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="stream the sample lecture (or a video) and answer questions",
                       description="Stream a video in one-second chunks, transcribe and read it "
                       "with the embedded models, then answer questions about it.")
    p.add_argument("video", nargs="?", help="a video file (default: the sample lecture)")
    p.add_argument("--minutes", type=float, default=3.0,
                   help="length of the sample lecture to make if missing (default 3)")
    p.add_argument("--samples", default="samples", help="folder for sample media (default samples/)")
    p.add_argument("-q", "--question", action="append", default=[],
                   help="a question to ask at the end (repeatable; default: three about the lecture)")
    p.add_argument("--quiet", action="store_true", help="no per-chunk log, only the answers")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memory.samples import make_lecture
    from memory.samples.topics import QUESTIONS
    from memory.video import open_video
    from venus.demo import StreamWatcher

    questions = list(args.question)
    path = args.video
    if path is None:
        print(f"Preparing the {args.minutes:g}-minute sample lecture ...", flush=True)
        files = make_lecture(args.minutes, 0, f"{args.samples}/lecture-{args.minutes:g}min",
                             progress=not args.quiet)
        path = str(files.video)
        if not questions:
            slides = files.truth["slides"]
            picks = [slides[0], slides[len(slides) // 2], slides[-1]]
            questions = [QUESTIONS[s["title"].split(" (review")[0]] for s in picks]
    print("Loading the embedded models (VAD, Whisper tiny.en, OCR, MiniLM) ...", flush=True)
    watcher = StreamWatcher()
    started = time.perf_counter()
    with open_video(path, fps=1.0) as source:
        print(f"Streaming {path} ({source.info.duration:.0f} s) in one-second chunks\n", flush=True)
        for chunk in source:
            report = watcher.add(chunk)
            if not args.quiet:
                _print_chunk(report)
    for note in watcher.finish():
        if not args.quiet:
            print(f"          heard {_clock(note.start)}-{_clock(note.end)}: {note.text}")
    elapsed = time.perf_counter() - started
    print(f"\nWatched {_clock(watcher.now)} of video in {elapsed:.0f} s "
          f"({watcher.now / max(elapsed, 1e-9):.1f}x real time); {len(watcher.notes)} notes.\n")
    for q in questions or ["What was this video about?"]:
        _print_answer(q, watcher)
    return 0


def _clock(t: float) -> str:
    return f"{int(t) // 60:02d}:{int(t) % 60:02d}"


def _print_chunk(report) -> None:
    c = report.chunk
    bar = "#" * int(round(report.speech_s * 10))
    line = f"[{_clock(c.start)}] speech {bar:<10}"
    if report.key_frame:
        line += "  new frame"
    print(line)
    for note in report.notes:
        verb = "heard" if note.kind == "said" else "read "
        span = _clock(note.start) if note.kind == "shown" else f"{_clock(note.start)}-{_clock(note.end)}"
        print(f"          {verb} {span}: {note.text}")
    sys.stdout.flush()


def _print_answer(question: str, watcher) -> None:
    print(f"Q: {question}  (asked at {_clock(watcher.now)})")
    hits = watcher.ask(question, k=3)
    if not hits:
        print("A: nothing seen or heard yet.\n")
        return
    for rank, (score, note) in enumerate(hits, 1):
        where = "said" if note.kind == "said" else "on screen"
        print(f"   {rank}. [{_clock(note.start)}] ({where}, score {score:.2f}) {note.text}")
    print()
