"""``venus demo``: the main job on the embedded defaults.

Makes the sample lecture if it is missing, streams it in one-second chunks into a
`memory.VideoMemory` (VAD + Whisper on speech, OCR on changed frames, MiniLM + FAISS),
prints a line per chunk and each stretch of video as it is committed, then answers
questions about what was seen and heard, with timestamps and key frames.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="stream the sample lecture (or a video) and answer questions",
                       description="Stream a video in one-second chunks into the video memory "
                       "with the embedded models, then answer questions about it.")
    p.add_argument("video", nargs="?",
                   help="a video file or http(s):// URL (default: the sample lecture)")
    p.add_argument("--minutes", type=float, default=3.0,
                   help="length of the sample lecture to make if missing (default 3)")
    p.add_argument("--samples", default="samples", help="folder for sample media (default samples/)")
    p.add_argument("--memory", metavar="DIR",
                   help="keep the memory in DIR (reopened and resumed if it exists; "
                   "default: a temporary folder)")
    p.add_argument("-q", "--question", action="append", default=[],
                   help="a question to ask at the end (repeatable; default: three about the lecture)")
    p.add_argument("--quiet", action="store_true", help="no per-chunk log, only the answers")
    p.add_argument("--asr", default=None, metavar="MODEL",
                   help="embedded Whisper: tiny.en or base (multilingual; the asr-base extra); "
                   "default: the toolkit's default model")
    p.add_argument("--language", default="en",
                   help="spoken language for Whisper (a code such as en or de; 'auto' detects "
                   "it; base only for languages other than English)")
    p.add_argument("--subtitles", metavar="FILE",
                   help="a subtitle file (.srt/.vtt) to use as the transcript (default: a "
                   "side-car next to the video, else the video's own text track)")
    p.add_argument("--json", metavar="PATH",
                   help="also write the figures and the answers (with citations) as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memory.video import probe

    _require_faiss()
    path, questions = _input(args)
    probe(path)  # a bad input is refused before any memory is made or model loaded
    with tempfile.TemporaryDirectory(prefix="venus-demo-") as tmp, \
            _told_with_flags(kept=args.memory is not None):
        mem = _memory(args.memory or str(Path(tmp) / "memory"), _models(args))
        try:
            return _run(args, mem, path, questions)
        finally:
            mem.close()


@contextlib.contextmanager
def _told_with_flags(kept: bool):
    """A full or read-only memory disk, told in this command's words: pass --memory
    elsewhere; a kept memory resumes with the same command, a temporary one is gone."""
    from memory.errors import StoreWriteError

    try:
        yield
    except StoreWriteError as exc:
        if kept:  # (nothing resumes when the memory could not even be made)
            resume = "the same command resumes" if exc.resume else ""
            raise exc.retold(flag="--memory DIR", resume=resume) from exc.__cause__
        raise exc.retold(flag="--memory DIR", resume="", place="temporary memory directory") \
            from exc.__cause__


def _require_faiss() -> None:
    """Refuse before a sample is made or a model loaded: the memory searches with FAISS,
    which comes with the [cpu] (or [gpu]) extra, not with a plain install."""
    import importlib.util

    from memory.errors import MissingExtraError

    if importlib.util.find_spec("faiss") is None:
        raise MissingExtraError("faiss", "cpu", "venus demo's memory search (FAISS; "
                                "'realtime-venus[gpu]' on a CUDA machine)")


def _run(args: argparse.Namespace, mem, path: str, questions: list[str]) -> int:
    """Stream the video into ``mem``, then print the answers."""
    started = time.perf_counter()
    _stream(mem, path, quiet=args.quiet, subtitles=args.subtitles)
    elapsed = time.perf_counter() - started
    stats = mem.stats()
    print(f"\nWatched {_clock(mem.duration)} of video in {elapsed:.0f} s "
          f"({mem.duration / max(elapsed, 1e-9):.1f}x real time): "
          f"{stats.get('segments', 0)} segments, {stats.get('keyframes', 0)} key frames.\n")
    # Key frames in the temporary folder are deleted on exit: only name kept ones.
    keep_frames = args.memory is not None
    answers = [mem.answer(q, at=mem.duration) for q in questions or ["What was this video about?"]]
    for answer in answers:
        _print_answer(answer, keep_frames)
    if not keep_frames:
        print("(Key frames are not kept: pass --memory DIR to keep the memory and its "
              "key frames.)")
    if args.json:
        _write_json(args.json, path, mem.duration, elapsed, stats, answers, keep_frames)
    return 0


def _write_json(target: str, video: str, duration: float, elapsed: float, stats: dict,
                answers: list, keep_frames: bool = True) -> None:
    import json

    doc = {"video": video, "video_seconds": duration, "seconds": elapsed,
           "x_realtime": duration / max(elapsed, 1e-9), "segments": stats.get("segments", 0),
           "keyframes": stats.get("keyframes", 0),
           "answers": [{"question": a.question, "asked_at": a.asked_at, "text": a.text,
                        "found": getattr(a, "found", True),
                        "citations": [{"start": m.start, "end": m.end, "text": m.text,
                                       "keyframe": m.keyframe if keep_frames else None}
                                      for m in a.citations]}
                       for a in answers]}
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(json.dumps(doc, indent=2))


def _input(args: argparse.Namespace) -> tuple[str, list[str]]:
    questions = list(args.question)
    if args.video is not None:
        return args.video, questions
    from memory.samples import make_lecture
    from memory.samples.topics import QUESTIONS

    print(f"Preparing the {args.minutes:g}-minute sample lecture ...", flush=True)
    files = make_lecture(args.minutes, 0, f"{args.samples}/lecture-{args.minutes:g}min",
                         progress=not args.quiet, narrator="auto")
    if not questions:
        slides = files.truth["slides"]
        picks = [slides[0], slides[len(slides) // 2], slides[-1]]
        questions = [QUESTIONS[s["title"].split(" (review")[0]] for s in picks]
    return str(files.video), questions


def _models(args: argparse.Namespace):
    from memory import MemoryModels

    if args.asr is None and args.language == "en":
        return None
    from memory.models import WhisperTranscriber

    language = None if args.language == "auto" else args.language
    return MemoryModels(asr=WhisperTranscriber(model=args.asr, language=language))


def _memory(directory: str, models=None):
    from memory import VideoMemory

    if (Path(directory) / "VERSION").exists():
        return VideoMemory.open(directory, models)
    return VideoMemory.create(directory, models)


def _stream(mem, path: str, quiet: bool, subtitles: str | None = None) -> None:
    from memory.errors import TruncatedVideoError
    from memory.models.asr import DEFAULT_MODEL
    from memory.video import open_video

    asr = getattr(mem.models.asr, "model", None) or DEFAULT_MODEL
    print(f"Loading the embedded models (VAD, Whisper {asr}, OCR, MiniLM) ...", flush=True)
    shown_until = mem.duration
    try:
        with open_video(path, fps=1.0, start=float(mem.resume_index),
                        subtitles=subtitles) as source:
            length = source.info.duration
            known = f"{length:.0f} s" if length is not None else "length unknown"
            print(f"Streaming {path} ({known}) in one-second chunks\n", flush=True)
            for chunk in source:
                shown_until = _add(mem, chunk, shown_until, quiet)
    except TruncatedVideoError as exc:
        # Keep and answer from everything readable before the cut (committed below).
        print(f"\nWarning: {exc}; answering from the {_clock(mem.duration)} that were read.",
              flush=True)
    mem.finish()
    if not quiet:
        _print_segments(mem, shown_until)
    sys.stdout.flush()


def _add(mem, chunk, shown_until: float, quiet: bool) -> float:
    from memory.audio import rms_db

    committed = mem.add(chunk)
    if quiet:
        return shown_until
    level = rms_db(chunk.audio) if chunk.has_audio else -100.0
    bar = "#" * max(0, min(10, int((level + 60) / 5)))
    print(f"[{_clock(chunk.start)}] audio {bar:<10} {level:6.1f} dB"
          + (f"   committed {committed} s" if committed else ""))
    return _print_segments(mem, shown_until) if committed else shown_until


def _print_segments(mem, since: float) -> float:
    """Print the segments closed since ``since``; return the new high-water mark."""
    for m in mem.moments(since, mem.duration, committed_only=True):
        if m.level != "segment":
            continue
        print(f"          {m.span()}  heard: {_short(m.transcript)}")
        if m.ocr_text:
            print(f"          {' ' * len(m.span())}  read:  {_short(m.ocr_text)}")
        since = max(since, m.end)
    return since


_WHERE = {"said": "said", "shown": "on screen", "seen": "seen"}


def _print_answer(answer, keep_frames: bool = True) -> None:
    """The short answer, then where it comes from (the moment and its key frame)."""
    print(f"Q: {answer.question}  (asked at {_clock(answer.asked_at or 0)})")
    print(f"A: {answer.text}")
    if getattr(answer, "found", True) and answer.citations:
        m = answer.citations[0]
        frame = f", key frame {m.keyframe}" if m.keyframe and keep_frames else ""
        more = len(answer.citations) - 1
        also = f"; {more} more moment{'s' * (more != 1)} in the citations" if more > 0 else ""
        lead = answer.evidence[0] if getattr(answer, "evidence", ()) else None
        where = (f"{_WHERE.get(lead.kind, 'from')} {lead.span()}, in the moment " if lead
                 else "from ")
        print(f"   ({where}{m.span()}{frame}{also})")
    print()


def _short(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _clock(t: float) -> str:
    return f"{int(t) // 60:02d}:{int(t) % 60:02d}"
