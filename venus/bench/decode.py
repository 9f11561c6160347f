"""``venus bench decode FILE``: how fast a file becomes one-second chunks, per decoder.

Each run decodes the whole file through the real source (`memory.video.open_video`:
frames sampled at ``--fps`` and converted to RGB, audio resampled to 16 kHz mono) in a
fresh child process, so its peak RSS is the decoder's own and the two decoders never
share a heap. With ``--decoder both`` runs alternate between decoders (the machine is
shared and noisy) and the summary gives their ratio. Figures are medians over
``--repeat`` runs; ``peak_rss_mb`` is the largest child peak and ``baseline_rss_mb``
the child's size after its imports, before decoding (the difference is the decoder's).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from pathlib import Path
from typing import Any

from venus.bench.report import BenchReport

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = ("seconds to turn a video file into one-second chunks (frames at --fps, "
               "16 kHz audio), per decoder, and the multiple of real time")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="video file to decode")
    parser.add_argument("--decoder", choices=("pyav", "decord", "both"), default="pyav",
                        help="decoder to measure; 'both' interleaves their runs (default pyav)")
    parser.add_argument("--fps", type=float, default=1.0,
                        help="frames sampled per second of video (default 1)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per decoder; figures are medians (default 1)")


def run(args: argparse.Namespace) -> BenchReport:
    from memory.video import open_video

    decoders = ["pyav", "decord"] if args.decoder == "both" else [args.decoder]
    if args.repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {args.repeat}")
    for decoder in decoders:  # bad file or missing extra: one clear error, before any child
        open_video(args.file, fps=args.fps, decoder=decoder).close()
    runs: dict[str, list[dict[str, Any]]] = {d: [] for d in decoders}
    for r in range(args.repeat):
        order = decoders if r % 2 == 0 else decoders[::-1]
        for decoder in order:
            runs[decoder].append(_measure(args.file, decoder, args.fps))
    per = {d: _summarise(d, rs) for d, rs in runs.items()}
    return _report(args, per)


def _measure(path: str, decoder: str, fps: float) -> dict[str, Any]:
    """One full decode in a fresh process (spawned: nothing inherited from this heap)."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        return pool.apply(_decode_once, (str(path), decoder, fps))


def _decode_once(path: str, decoder: str, fps: float) -> dict[str, Any]:
    from memory.video import open_video

    baseline = _peak_rss_mb()
    chunks = frames = 0
    video_seconds = 0.0
    start = time.perf_counter()
    with open_video(path, fps=fps, decoder=decoder) as source:
        for chunk in source:
            chunks += 1
            frames += len(chunk.frames)
            video_seconds = chunk.end
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "video_seconds": video_seconds, "chunks": chunks,
            "frames": frames, "peak_rss_mb": _peak_rss_mb(), "baseline_rss_mb": baseline}


def _peak_rss_mb() -> float:
    """This process's own peak RSS (VmHWM on Linux: ``ru_maxrss`` survives exec, so a
    spawned child would report its parent's size)."""
    from venus.bench.report import peak_rss_mb

    return peak_rss_mb()


def _summarise(decoder: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = statistics.median(r["seconds"] for r in runs)
    video_seconds = runs[0]["video_seconds"]
    return {
        "decoder": decoder,
        "video_seconds": round(video_seconds, 3),
        "seconds": round(seconds, 3),
        "x_realtime": round(video_seconds / seconds, 1) if seconds > 0 else float("inf"),
        "peak_rss_mb": round(max(r["peak_rss_mb"] for r in runs), 1),
        "baseline_rss_mb": round(max(r["baseline_rss_mb"] for r in runs), 1),
        "chunks": runs[0]["chunks"],
        "frames": runs[0]["frames"],
        "runs": len(runs),
        "seconds_runs": [round(r["seconds"], 3) for r in runs],
    }


def _report(args: argparse.Namespace, per: dict[str, dict[str, Any]]) -> BenchReport:
    header = ["decoder", "runs", "video_s", "seconds", "x_realtime", "peak_rss_mb",
              "baseline_mb", "chunks", "frames"]
    rows = [[p["decoder"], p["runs"], p["video_seconds"], p["seconds"], p["x_realtime"],
             p["peak_rss_mb"], p["baseline_rss_mb"], p["chunks"], p["frames"]]
            for p in per.values()]
    main = per.get("pyav") or next(iter(per.values()))
    figures: dict[str, Any] = {**main, "file": str(Path(args.file)), "fps": args.fps,
                               "repeat": args.repeat, "decoders": per}
    runs = "run" if args.repeat == 1 else f"median of {args.repeat} runs"
    summary = (f"{main['decoder']}: {main['video_seconds']:.0f} s of video at {args.fps:g} fps "
               f"in {main['seconds']:.1f} s ({main['x_realtime']:.0f}x real time), "
               f"peak RSS {main['peak_rss_mb']:.0f} MB ({runs})")
    if len(per) == 2:
        ratio = per["decord"]["seconds"] / per["pyav"]["seconds"]
        figures["ratio_decord_to_pyav"] = round(ratio, 2)
        summary += (f"; decord {per['decord']['seconds']:.1f} s, {ratio:.2f}x pyav's time, "
                    f"peak RSS {per['decord']['peak_rss_mb']:.0f} MB (runs interleaved)")
    return BenchReport(name="decode", header=header, rows=rows, summary=summary,
                       figures=figures)
