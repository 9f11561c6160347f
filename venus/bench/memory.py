"""``venus bench memory --minutes N``: the needle-in-a-haystack benchmark of the memory.

Renders (or reuses) a lecture haystack with slide-text, spoken and visual needles at
depths 0%..100%, ingests it with the embedded models (warmed up first, so load time is
not counted), asks every needle's question at the end and just before the needle, and
prints recall@1/@5, MRR, leakage, ingest speed per stage, query latency (also on a
memory replicated to ``--hours-synthetic`` hours), RAM growth and disk per hour.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import numpy as np

from venus.bench.report import BenchReport, peak_rss_mb, percentile

DESCRIPTION = "needle-in-a-haystack benchmark of the video memory (recall, leakage, speed, RAM)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--minutes", type=float, default=5.0, help="haystack length (default 5)")
    p.add_argument("--depths", default="0,0.25,0.5,0.75,1",
                   help="needle depths as fractions, comma-separated (default 0,0.25,0.5,0.75,1)")
    p.add_argument("--k", type=int, default=5, help="moments retrieved per question")
    p.add_argument("--work", default=".cache/bench-memory",
                   help="where the haystack and the memory are kept (default .cache/bench-memory)")
    p.add_argument("--hours-synthetic", type=float, default=10.0,
                   help="also time queries on a memory replicated to this many hours (0: skip)")


def _rss_mb() -> float:
    """Resident set size. Where `memory._heap` keeps freed memory for reuse (glibc) it is
    read as is: that heap is what the process holds, and trimming it at each sample made
    the next Whisper call fault it back in, timed as ingest. Elsewhere freed heap pages
    are handed back first (``malloc_trim``): per-thread malloc arenas of the OCR worker
    read as growth that is only allocator slack."""
    import ctypes
    import ctypes.util
    import os

    from memory import _heap

    libc = ctypes.util.find_library("c")
    if libc and not _heap.applied:
        try:
            ctypes.CDLL(libc).malloc_trim(0)
        except (OSError, AttributeError):  # not glibc: measure as is
            pass
    try:  # Linux: resident pages are the second field of /proc/self/statm
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return peak_rss_mb()  # elsewhere the peak is the best figure at hand


def _warm(models) -> None:
    """Load and run every model once so ingest timing is steady-state work."""
    from venus.bench.ingest import warm_models

    warm_models(models)
    _ = models.answerer  # loaded on first use: load it before the clock starts


def _sampled(chunks, samples: list[tuple[float, float]], every: int = 30):
    for chunk in chunks:
        yield chunk
        if chunk.index % every == 0:
            samples.append((chunk.end, _rss_mb()))


# RAM growth per hour is only said from runs at least this long: a few minutes' slope
# multiplied by 20 was allocator noise read as +1000-2000 MB/h (issue 30)
MIN_RAM_MINUTES = 30.0


def _growth_per_hour(samples: list[tuple[float, float]]) -> float:
    """Slope of RSS against media time after the first 20% (past warm-up allocations);
    NaN for a run shorter than `MIN_RAM_MINUTES`."""
    if len(samples) < 4 or samples[-1][0] < 60.0 * MIN_RAM_MINUTES:
        return float("nan")
    t = np.array([s[0] for s in samples])
    keep = t >= 0.2 * t[-1]
    slope = np.polyfit(t[keep], np.array([s[1] for s in samples])[keep], 1)[0]
    return float(slope * 3600.0)


def _latency_p95(mem, questions: list[tuple[str, float]], rounds: int = 3) -> tuple[float, float]:
    """Median over ``rounds`` of the p50 and p95 of search latency (ms) for the
    (question, asked-at) pairs: a shared machine makes a single pass noisy."""
    p50s, p95s = [], []
    for _ in range(rounds):
        times = []
        for question, at in questions:
            t0 = time.perf_counter()
            mem.search(question, k=5, before=at)
            times.append(1000.0 * (time.perf_counter() - t0))
        p50s.append(percentile(times, 50))
        p95s.append(percentile(times, 95))
    return float(np.median(p50s)), float(np.median(p95s))


def _synthetic_latency(mem, work: Path, hours: float, questions: list[str]) -> float:
    from memory.benchmarks.synthetic import replicate_memory

    target = work / f"mem-{hours:g}h"
    shutil.rmtree(target, ignore_errors=True)
    big = replicate_memory(mem.db, target, hours, models=mem.models)
    _, p95 = _latency_p95(big, [(q, big.duration) for q in questions])
    big.close()
    shutil.rmtree(target, ignore_errors=True)
    return p95


def run(args: argparse.Namespace) -> BenchReport:
    from memory.benchmarks import build_haystack, score_needles, summarize
    from memory.store import MemoryModels, VideoMemory
    from memory.video import open_video

    work = Path(args.work)
    depths = [float(x) for x in args.depths.split(",")]
    haystack = work / f"haystack-{args.minutes:g}m-seed{args.seed}"
    print(f"haystack: {args.minutes:g} min, needles at depths {depths} -> {haystack}")
    video, needles, _truth = build_haystack(args.minutes, haystack, depths, args.seed,
                                           progress=True)
    import torch

    # One torch thread: on this shared 2-core machine a second thread made the MiniLM
    # query embedding 10x slower under load (measured 660 ms vs 63 ms per query).
    torch.set_num_threads(1)
    models = MemoryModels()
    _warm(models)
    mem_dir = work / "mem"
    shutil.rmtree(mem_dir, ignore_errors=True)
    mem = VideoMemory.create(mem_dir, models=models)
    samples: list[tuple[float, float]] = [(0.0, _rss_mb())]
    t0 = time.perf_counter()
    with open_video(video) as source:
        mem.ingest(_sampled(source, samples), progress=True)
    ingest_s = time.perf_counter() - t0
    stats = mem.stats()
    results = score_needles(mem, needles, k=args.k)
    figures = summarize(results)
    asks = [(n.question, mem.duration) for n in needles] + \
        [(n.question, n.start - 2.0) for n in needles if n.start > 3.0]
    p50, p95 = _latency_p95(mem, asks)
    hours = mem.duration / 3600.0
    p95_10h = float("nan")
    if args.hours_synthetic > 0:
        p95_10h = _synthetic_latency(mem, work, args.hours_synthetic,
                                     [n.question for n in needles])
    figures.update({
        "video_seconds": mem.duration,
        "ingest_seconds": ingest_s,
        "x_realtime": mem.duration / ingest_s,
        "stage_seconds": stats["stage_seconds"],
        "query_ms_p50": p50,
        "query_ms_p95": p95,
        "query_timing": "median of 3 rounds over every needle question, at the end and "
                        "just before each needle; includes embedding the question",
        "query_ms_p95_10h": p95_10h,
        "synthetic_hours": args.hours_synthetic,
        "rss_growth_mb_per_hour": _growth_per_hour(samples),
        "peak_rss_mb": peak_rss_mb(),
        "disk_mb_per_hour": stats["disk_mb"] / hours if hours else float("nan"),
        "memory": {k: stats[k] for k in ("chunks", "keyframes", "segments", "chapters")},
    })
    mem.close()
    rows = [[r.needle.kind, f"{r.needle.depth:g}", f"{r.needle.start:.0f}s",
             r.rank or "-", "-" if r.leaked is None else ("LEAK" if r.leaked else "no")]
            for r in results]
    synthetic = f" ({p95_10h:.1f} ms at {args.hours_synthetic:g} h synthetic)" \
        if np.isfinite(p95_10h) else ""
    growth = figures["rss_growth_mb_per_hour"]
    ram = f"RAM +{growth:.1f} MB/h" if np.isfinite(growth) else \
        f"RAM per hour not said (needs a run of {MIN_RAM_MINUTES:g} min or more)"
    summary = (f"memory: recall@5 min {figures['recall_at_5_min']:.2f} (slide+spoken), "
               f"leakage {figures['leakage']}, ingest {figures['x_realtime']:.1f}x real time, "
               f"query p95 {figures['query_ms_p95']:.1f} ms{synthetic}, {ram}, "
               f"peak RAM {figures['peak_rss_mb']:.0f} MB, "
               f"disk {figures['disk_mb_per_hour']:.1f} MB/h; stages "
               + ", ".join(f"{k} {v:.1f}s" for k, v in stats["stage_seconds"].items()))
    return BenchReport("memory", ["kind", "depth", "at", "rank", "leak (asked before)"], rows,
                       summary, figures)
