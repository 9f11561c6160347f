"""``venus bench library --ingest N``: a real batch ingest of N generated lectures with 1
worker and with 2 (or ``--workers``), each into a fresh library, and the speed-up.

The lectures (`memory.samples.make_lecture`, seeds 0..N-1, ``--minutes`` each) are
ingested by `memory.library.batch.ingest_videos` exactly as ``venus library ingest`` does
(Ray when installed, else a process pool; ``--no-ray`` forces the pool), speech through
Whisper unless ``--subtitles`` puts each lecture's side-car subtitles beside it. Wall time
is the whole call: the runner's start (Ray or the pool), each worker loading its models,
ingest and merge. Each run splits the machine's cores among its workers (Whisper's
threads = cores // workers), as the command does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from pathlib import Path

from venus.bench.report import BenchReport


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ingest", type=int, default=0, metavar="N",
                   help="instead of the simulated library: ingest N generated lectures for "
                   "real with each worker count and print the speed-up")
    p.add_argument("--minutes", type=float, default=1.5,
                   help="length of each generated lecture for --ingest (default 1.5)")
    p.add_argument("--workers", default="1,2",
                   help="worker counts for --ingest, comma-separated (default 1,2)")
    p.add_argument("--subtitles", action="store_true",
                   help="--ingest with side-car subtitles instead of Whisper")
    p.add_argument("--no-ray", action="store_true", help="--ingest in a local process pool")


def _lectures(args: argparse.Namespace, work: Path) -> tuple[Path, float]:
    from memory.samples import make_lecture

    folder = work / f"lectures-{args.ingest}x{args.minutes:g}m{'-srt' if args.subtitles else ''}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    seconds = 0.0
    for seed in range(args.ingest):
        files = make_lecture(args.minutes, seed, work / f"render-{args.minutes:g}m-{seed}",
                             subtitles=args.subtitles)
        shutil.copy(files.video, folder / f"lecture-{seed}.mp4")
        if args.subtitles:
            shutil.copy(files.video.with_suffix(".srt"), folder / f"lecture-{seed}.srt")
        seconds += float(files.truth["duration"])
    return folder, seconds


def run(args: argparse.Namespace) -> BenchReport:
    from memory.library import VideoLibrary
    from memory.library.batch import ingest_videos

    work = Path(args.work)
    folder, seconds = _lectures(args, work)
    counts = [int(w) for w in str(args.workers).split(",") if w.strip()]
    runs, rows, segments = {}, [], {}
    for workers in counts:
        target = work / f"ingest-library-{workers}w"
        shutil.rmtree(target, ignore_errors=True)
        lib = VideoLibrary.create(target)
        t0 = time.perf_counter()
        result = ingest_videos(lib, folder, workers=workers,
                               use_ray=False if args.no_ray else None)
        wall = time.perf_counter() - t0
        stats = lib.stats()
        lib.close()
        if result.failed:
            raise RuntimeError(f"ingest with {workers} workers failed: {result.failed}")
        segments[workers] = stats["segments"]
        runs[str(workers)] = {"wall_s": wall, "ingest_s": result.wall_s,
                              "x_realtime": seconds / wall, "runner": result.runner,
                              "videos": len(result.done), "segments": stats["segments"]}
        rows.append([workers, result.runner, f"{wall:.1f}", f"{seconds / wall:.2f}",
                     len(result.done), stats["segments"]])
        if not args.keep:
            shutil.rmtree(target, ignore_errors=True)
    base = runs[str(counts[0])]["wall_s"]
    speedup = {w: base / r["wall_s"] for w, r in runs.items()}
    figures = {"ingest_videos": args.ingest, "ingest_video_s": seconds,
               "ingest_speech": "subtitles" if args.subtitles else "whisper",
               "ingest_runs": runs, "ingest_speedup": speedup, "cores": os.cpu_count(),
               "ingest_same_segments": len(set(segments.values())) == 1}
    summary = (f"library ingest: {args.ingest} lectures, {seconds / 60:.1f} min of video, "
               + ", ".join(f"{w} worker{'s' if w != 1 else ''} {runs[str(w)]['wall_s']:.1f} s"
                           for w in counts)
               + f"; speed-up {counts[-1]} vs {counts[0]}: {speedup[str(counts[-1])]:.2f}x "
               f"on {os.cpu_count()} cores ({runs[str(counts[-1])]['runner']})")
    return BenchReport("library", ["workers", "runner", "wall s", "x realtime", "videos",
                                   "segments"], rows, summary, figures)
