"""``venus bench ingest``: what each ingest stage costs per hour of video, and the whole.

On two lectures (the sample lecture, and one in another voice and topic order) it runs
the memory's ingest twice, each in a fresh child process (so peak RSS is the run's own):

* **alone**: every stage on one thread, one after another (``StoreOptions(workers=False)``),
  so each stage's CPU seconds (``time.process_time``: every thread, library pools too) and
  wall seconds are its own;
* **overlapped**: the real pipeline (decode and key frames on the caller, OCR, VAD and
  ASR on workers), giving wall time, x real time, the process's CPU time and peak RSS.

Figures are per hour of video. The *critical path* is the larger of the longest worker
chain (the caller's decode + key frames + embedding + writing, or ASR, OCR, VAD alone)
and the total CPU divided by the cores: the wall time the overlapped run could reach.
Runs alternate between the two modes (``--repeat``); timing figures are medians.
``--compare`` also runs the ASR paths side by side on each lecture's audio
(`venus.bench.asr_paths`). The load average is printed before and after: figures taken
on a busy machine say so.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from pathlib import Path
from typing import Any

from venus.bench.report import BenchReport, peak_rss_mb

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = ("ingest cost per stage (CPU and wall seconds per hour of video, alone and "
               "overlapped), critical path, peak RSS, x real time; --compare: ASR paths")

OTHER_VOICE = "en-gb-x-rp+f3"
"""The second lecture's eSpeak voice: another accent and register than the sample's."""

# Which thread does each stage in the overlapped pipeline (memory.store.pipeline).
CHAINS = {"caller": ("decode", "keyframes", "embed", "jpeg", "index"), "asr": ("asr",),
          "ocr": ("ocr", "caption"), "vad": ("vad",)}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--minutes", type=float, default=10.0,
                   help="length of each lecture (default 10)")
    p.add_argument("--lectures", default="sample,voice",
                   help="which lectures: 'sample' (the sample lecture), 'voice' (another "
                        "voice, seed+1), comma-separated (default both)")
    p.add_argument("--voice", default=OTHER_VOICE,
                   help=f"eSpeak voice of the second lecture (default {OTHER_VOICE})")
    p.add_argument("--modes", default="alone,overlapped",
                   help="ingest modes to run, comma-separated (default alone,overlapped)")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs per mode, interleaved; timing figures are medians (default 1)")
    p.add_argument("--compare", action="store_true",
                   help="also run the ASR paths side by side on each lecture's audio")
    p.add_argument("--work", default=".cache/bench-ingest",
                   help="where the lectures are rendered (default .cache/bench-ingest)")


def run(args: argparse.Namespace) -> BenchReport:
    if args.repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {args.repeat}")
    modes = _choices(args.modes, ("alone", "overlapped"), "--modes")
    lectures = _choices(args.lectures, ("sample", "voice"), "--lectures")
    load_start = _load()
    print(f"load average at start: {load_start}")
    videos = {name: _lecture(name, args) for name in lectures}
    figures: dict[str, Any] = {"lectures": {}, "load_average_start": load_start}
    rows: list[list[Any]] = []
    for name, (video, truth) in videos.items():
        per_mode = _measure(video, modes, args.repeat)
        summary = _summarise(per_mode, os.cpu_count() or 1)
        figures["lectures"][name] = {"video": str(video), "voice": truth.get("voice"),
                                     **summary}
        rows += _rows(name, summary)
    compare = None
    if args.compare:
        from venus.bench import asr_paths

        compare = asr_paths.compare({n: v for n, v in videos.items()}, args.repeat)
        figures["asr_compare"] = compare.figures
        rows += [[""] * len(_HEADER)] + compare.rows_as(len(_HEADER))
    figures["load_average_end"] = _load()
    figures.update(_headline(figures["lectures"]))
    return BenchReport("ingest", _HEADER, rows, _summary_line(figures, compare), figures)


_HEADER = ["lecture", "stage", "cpu s/h alone", "wall s/h alone", "busy s/h overlapped",
           "calls/h"]


def _choices(text: str, allowed: tuple[str, ...], flag: str) -> list[str]:
    picked = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in picked if x not in allowed]
    if bad or not picked:
        raise ValueError(f"{flag} takes {', '.join(allowed)} (comma-separated), got {text!r}")
    return picked


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):  # no load average on this system
        return "unknown"


def _lecture(name: str, args: argparse.Namespace) -> tuple[Path, dict]:
    """Render (or reuse) the lecture: the sample one, or another voice and topic order."""
    from memory.samples import lecture_script, make_lecture, render_lecture

    out = Path(args.work) / f"{name}-{args.minutes:g}m-seed{args.seed}"
    if name == "sample":
        files = make_lecture(args.minutes, args.seed, out, progress=True)
        return files.video, {**files.truth, "voice": "en-us"}
    plan = {"minutes": args.minutes, "seed": args.seed + 1, "voice": args.voice}
    video, truth_path = out / "lecture.mp4", out / "lecture.json"
    if video.is_file() and truth_path.is_file():
        import json

        truth = json.loads(truth_path.read_text())
        if truth.get("plan") == plan:
            return video, {**truth, "voice": args.voice}
    script = lecture_script(args.minutes, args.seed + 1)
    script.voice = args.voice
    files = render_lecture(script, out, extra={"plan": plan}, progress=True)
    return files.video, {**files.truth, "voice": args.voice}


def _measure(video: Path, modes: list[str], repeat: int) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = {m: [] for m in modes}
    for r in range(repeat):
        for mode in modes if r % 2 == 0 else modes[::-1]:
            result = _in_child(str(video), mode)
            print(f"  {video.parent.name} {mode}: {result['x_realtime']:.1f}x real time, "
                  f"wall {result['wall_s']:.1f} s, CPU {result['cpu_s']:.1f} s, "
                  f"load {result['load']}")
            runs[mode].append(result)
    return runs


def _in_child(video: str, mode: str) -> dict[str, Any]:
    """One ingest in a fresh process (spawned: nothing inherited from this heap)."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        return pool.apply(ingest_once, (video, mode))


def warm_models(models) -> None:
    """Load and run every model once, so what is timed is steady-state work."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    silence = np.zeros(16000, np.float32)
    models.embedder.embed(["warm up"])
    models.vad.detect(silence)
    models.asr.transcribe(silence)
    page = Image.new("RGB", (640, 360), "white")  # with text, so recognition loads too
    ImageDraw.Draw(page).text((40, 60), "Warm up", fill="black",
                              font=ImageFont.load_default(size=32))
    models.ocr.read(np.asarray(page))


def ingest_once(video: str, mode: str) -> dict[str, Any]:
    """Ingest ``video`` into a temporary memory; return its timing figures."""
    import tempfile

    import torch

    from memory.store import MemoryModels, StoreOptions, VideoMemory

    # One torch thread, as in `venus bench memory`: on two shared cores a second thread
    # made the MiniLM embedding slower, and the other stages need the core.
    torch.set_num_threads(1)
    models = MemoryModels()
    warm_models(models)
    options = StoreOptions(workers=mode == "overlapped")
    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        mem = VideoMemory.create(Path(tmp) / "mem", models=models, options=options)
        c0, w0 = time.process_time(), time.perf_counter()
        mem.ingest(video)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        stats = mem.stats()
        reads = ocr_reads(mem.db.all_chunks())
        mem.close()
    return {"mode": mode, "video_seconds": stats["duration"], "wall_s": wall, "cpu_s": cpu,
            "x_realtime": stats["duration"] / wall, "peak_rss_mb": peak_rss_mb(),
            "stage_wall": dict(mem.timers), "stage_cpu": dict(mem.timers.cpu),
            "stage_calls": dict(mem.timers.calls), "keyframes": stats["keyframes"],
            "ocr_reads": reads, "load": _load()}


def ocr_reads(chunks) -> dict[str, int]:
    """What the key frames' OCR read: frames, lines and characters, frames with no text,
    and frames whose text equals the previous key frame's (a read that found nothing new)."""
    out = {"frames": 0, "lines": 0, "chars": 0, "empty": 0, "same_as_previous": 0}
    previous = None
    for c in chunks:
        if c.keyframe_id != c.index:  # only the chunk where a key frame appeared
            continue
        lines = [line for line in c.ocr_text.splitlines() if line.strip()]
        out["frames"] += 1
        out["lines"] += len(lines)
        out["chars"] += sum(len(line) for line in lines)
        out["empty"] += not lines
        out["same_as_previous"] += previous is not None and c.ocr_text == previous
        previous = c.ocr_text
    return out


def _per_hour(seconds: float, video_seconds: float) -> float:
    return 3600.0 * seconds / video_seconds if video_seconds else float("nan")


def _median_stage(runs: list[dict], key: str) -> dict[str, float]:
    stages = sorted({s for r in runs for s in r[key]})
    return {s: statistics.median(_per_hour(r[key].get(s, 0.0), r["video_seconds"])
                                 for r in runs) for s in stages}


def _summarise(per_mode: dict[str, list[dict]], cores: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode, runs in per_mode.items():
        out[mode] = {
            "x_realtime": statistics.median(r["x_realtime"] for r in runs),
            "wall_s_per_h": statistics.median(_per_hour(r["wall_s"], r["video_seconds"])
                                              for r in runs),
            "cpu_s_per_h": statistics.median(_per_hour(r["cpu_s"], r["video_seconds"])
                                             for r in runs),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
            "stage_wall_s_per_h": _median_stage(runs, "stage_wall"),
            "stage_cpu_s_per_h": _median_stage(runs, "stage_cpu"),
            "stage_calls_per_h": _median_stage(runs, "stage_calls"),
            "ocr_reads_per_h": {k: _per_hour(v, runs[0]["video_seconds"])
                                for k, v in runs[0]["ocr_reads"].items()},
            "video_seconds": runs[0]["video_seconds"], "runs": len(runs),
            "load": [r["load"] for r in runs]}
    if "alone" in out:
        out["critical_path"] = critical_path(out["alone"]["stage_cpu_s_per_h"], cores)
    return out


def critical_path(stage_cpu: dict[str, float], cores: int) -> dict[str, Any]:
    """The wall time per hour the overlapped pipeline could reach, and what bounds it:
    the busiest thread (its stages' CPU) or all the CPU spread over ``cores``."""
    chains = {name: sum(stage_cpu.get(s, 0.0) for s in stages)
              for name, stages in CHAINS.items()}
    busiest = max(chains, key=chains.get)
    spread = sum(stage_cpu.values()) / max(cores, 1)
    bound = "cpu" if spread > chains[busiest] else busiest
    return {"bound": bound, "seconds_per_h": max(spread, chains[busiest]),
            "chains_s_per_h": chains, "cpu_over_cores_s_per_h": spread, "cores": cores}


def _rows(name: str, summary: dict[str, Any]) -> list[list[Any]]:
    alone, over = summary.get("alone", {}), summary.get("overlapped", {})
    stages = sorted(set(alone.get("stage_cpu_s_per_h", {})) |
                    set(over.get("stage_wall_s_per_h", {})))
    rows = []
    for s in stages:
        rows.append([name, s, alone.get("stage_cpu_s_per_h", {}).get(s, "-"),
                     alone.get("stage_wall_s_per_h", {}).get(s, "-"),
                     over.get("stage_wall_s_per_h", {}).get(s, "-"),
                     round((alone or over).get("stage_calls_per_h", {}).get(s, 0))])
    for mode, figures in (("alone", alone), ("overlapped", over)):
        if figures:
            rows.append([name, f"TOTAL {mode}", figures["cpu_s_per_h"],
                         figures["wall_s_per_h"] if mode == "alone" else "-",
                         figures["wall_s_per_h"] if mode == "overlapped" else "-",
                         f"{figures['x_realtime']:.1f}x, {figures['peak_rss_mb']:.0f} MB"])
    reads = (alone or over).get("ocr_reads_per_h")
    if reads:
        rows.append([name, "OCR reads per hour", "-", "-", "-",
                     ", ".join(f"{k} {v:.0f}" for k, v in reads.items())])
    if "critical_path" in summary:
        cp = summary["critical_path"]
        rows.append([name, f"critical path ({cp['bound']})", "-", "-", cp["seconds_per_h"],
                     f"{3600.0 / cp['seconds_per_h']:.1f}x at best"])
    return rows


def _headline(lectures: dict[str, Any]) -> dict[str, Any]:
    """The stable top-level keys (`BENCHMARKS.md`): per lecture, from the overlapped run."""
    mode = lambda f: f.get("overlapped") or f.get("alone") or {}
    return {"x_realtime": {n: mode(f).get("x_realtime") for n, f in lectures.items()},
            "stage_seconds": {n: mode(f).get("stage_wall_s_per_h") for n, f in lectures.items()},
            "stage_cpu_seconds": {n: f.get("alone", {}).get("stage_cpu_s_per_h")
                                  for n, f in lectures.items()},
            "peak_rss_mb": {n: mode(f).get("peak_rss_mb") for n, f in lectures.items()},
            "critical_path": {n: f.get("critical_path") for n, f in lectures.items()}}


def _summary_line(figures: dict[str, Any], compare) -> str:
    parts = []
    for name, f in figures["lectures"].items():
        over = f.get("overlapped") or f.get("alone")
        cp = f.get("critical_path")
        parts.append(f"{name} {over['x_realtime']:.1f}x real time "
                     f"({over['wall_s_per_h']:.0f} s wall, {over['cpu_s_per_h']:.0f} s CPU "
                     f"per hour, peak RSS {over['peak_rss_mb']:.0f} MB"
                     + (f", critical path {cp['bound']} {cp['seconds_per_h']:.0f} s/h" if cp
                        else "") + ")")
    line = "ingest: " + "; ".join(parts)
    if compare is not None:
        line += "; ASR " + compare.summary
    return line + (f"; load {figures['load_average_start']} -> "
                   f"{figures['load_average_end']}")
