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
import itertools
import multiprocessing
import os
import statistics
import time
from dataclasses import dataclass
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
    p.add_argument("--asr-threads", default="",
                   help="CTranslate2 threads for Whisper, comma-separated to compare them "
                        "(each mode runs with each, interleaved; default: the memory's own)")
    p.add_argument("--batch-seconds", default="",
                   help="file speech batch lengths to compare, comma-separated (default: "
                        "the memory's own, SpeechOptions.file_batch_seconds)")
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default="cpu",
                   help="where Whisper (CTranslate2) and OCR (onnxruntime-gpu) run (default cpu)")
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
    runs_of = variants(modes, args.asr_threads, args.batch_seconds, args.device)
    figures: dict[str, Any] = {"lectures": {}, "load_average_start": load_start}
    rows: list[list[Any]] = []
    labels: list[str] = []
    for name, (video, truth) in videos.items():
        per_label = _measure(video, runs_of, args.repeat)
        labels = list(per_label)
        summary = _summarise(per_label, os.cpu_count() or 1)
        figures["lectures"][name] = {"video": str(video), "voice": truth.get("voice"),
                                     **summary}
        rows += _rows(name, summary)
    header = _header(labels)
    compare = None
    if args.compare:
        from venus.bench import asr_paths

        compare = asr_paths.compare(videos, args.repeat, args.device)
        figures["asr_compare"] = compare.figures
        rows += [[""] * len(header)] + compare.rows_as(len(header))
    figures["load_average_end"] = _load()
    figures.update(_headline(figures["lectures"]))
    return BenchReport("ingest", header, rows, _summary_line(figures, compare), figures)


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


@dataclass(frozen=True)
class Variant:
    """One way to run the ingest: the mode, Whisper's threads (None: the memory's own),
    the speech batch in seconds (None: the memory's own) and the device."""

    mode: str
    asr_threads: int | None = None
    batch_seconds: float | None = None
    device: str = "cpu"


def variants(modes: list[str], asr_threads: str, batch_seconds: str,
             device: str) -> dict[str, Variant]:
    """Every combination of the choices, by a label naming only what varies."""
    threads = [int(t) for t in asr_threads.split(",") if t.strip()] or [None]
    batches = [float(b) for b in batch_seconds.split(",") if b.strip()] or [None]
    out = {}
    for m, t, b in itertools.product(modes, threads, batches):
        label = m + (f"/asr{t}" if len(threads) > 1 else "") \
            + (f"/batch{b:g}" if len(batches) > 1 else "")
        out[label] = Variant(m, t, b, device)
    return out


def _measure(video: Path, runs_of: dict[str, Variant], repeat: int) -> dict[str, list[dict]]:
    """Runs of every variant, interleaved (the order reverses each round)."""
    runs: dict[str, list[dict]] = {label: [] for label in runs_of}
    order = list(runs_of)
    for r in range(repeat):
        for label in order if r % 2 == 0 else order[::-1]:
            result = _in_child(str(video), runs_of[label])
            print(f"  {video.parent.name} {label}: {result['x_realtime']:.1f}x real time, "
                  f"wall {result['wall_s']:.1f} s, CPU {result['cpu_s']:.1f} s, "
                  f"load {result['load']}", flush=True)
            runs[label].append(result)
    return runs


def _in_child(video: str, variant: Variant) -> dict[str, Any]:
    """One ingest in a fresh process (spawned: nothing inherited from this heap)."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        return pool.apply(ingest_once, (video, variant))


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


def ingest_once(video: str, variant: Variant) -> dict[str, Any]:
    """Ingest ``video`` into a temporary memory; return its timing figures."""
    import tempfile

    import torch

    from memory.store import MemoryModels, SpeechOptions, StoreOptions, VideoMemory

    # One torch thread, as in `venus bench memory`: on two shared cores a second thread
    # made the MiniLM embedding slower, and the other stages need the core.
    torch.set_num_threads(1)
    from memory.models import RapidOCRReader, WhisperTranscriber

    models = MemoryModels()
    if variant.asr_threads is not None or variant.device != "cpu":
        models.asr = WhisperTranscriber(cpu_threads=variant.asr_threads or 0,
                                        device=variant.device)
    if variant.device != "cpu":
        models.ocr = RapidOCRReader(device=variant.device)
    warm_models(models)
    options = StoreOptions(workers=variant.mode == "overlapped")
    if variant.batch_seconds is not None:
        b = variant.batch_seconds  # what the file ingest below batches by
        options.speech = SpeechOptions(file_batch_seconds=b, file_max_batch_seconds=1.5 * b)
    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        mem = VideoMemory.create(Path(tmp) / "mem", models=models, options=options)
        c0, w0 = time.process_time(), time.perf_counter()
        mem.ingest(video)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        stats = mem.stats()
        reads = ocr_reads(mem.db.all_chunks())
        mem.close()
    return {"mode": variant.mode, "video_seconds": stats["duration"], "wall_s": wall, "cpu_s": cpu,
            "x_realtime": stats["duration"] / wall, "peak_rss_mb": peak_rss_mb(),
            "stage_wall": dict(mem.timers), "stage_cpu": dict(mem.timers.cpu),
            "stage_calls": dict(mem.timers.calls), "keyframes": stats["keyframes"],
            "ocr_reads": {**reads, **_counts(mem.timers.counts)}, "load": _load()}


def _counts(counts: dict[str, int]) -> dict[str, float]:
    """The pipeline's event counts, pixels as megapixels."""
    return {(k.replace("pixels", "megapixels") if "pixels" in k else k):
            (v / 1e6 if "pixels" in k else v) for k, v in counts.items()}


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


def _summarise(per_label: dict[str, list[dict]], cores: int) -> dict[str, Any]:
    runs_out: dict[str, Any] = {}
    for label, runs in per_label.items():
        runs_out[label] = {
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
    out: dict[str, Any] = {"runs": runs_out}
    alone = next((f for label, f in runs_out.items() if label.startswith("alone")), None)
    if alone is not None:
        out["critical_path"] = critical_path(alone["stage_cpu_s_per_h"], cores)
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


def _header(labels: list[str]) -> list[str]:
    return ["lecture", "stage"] + [f"{label} {kind} s/h" for label in labels
                                   for kind in ("cpu", "wall")] + ["calls/h"]


def _rows(name: str, summary: dict[str, Any]) -> list[list[Any]]:
    """Per stage: CPU and wall seconds per hour in each run; then totals, OCR, the bound."""
    runs = summary["runs"]
    first = next(iter(runs.values()))
    stages = sorted({s for f in runs.values() for s in f["stage_wall_s_per_h"]})
    rows = [[name, s] + [f[k].get(s, "-") for f in runs.values()
                         for k in ("stage_cpu_s_per_h", "stage_wall_s_per_h")]
            + [round(first["stage_calls_per_h"].get(s, 0))] for s in stages]
    rows.append([name, "TOTAL"] + [x for f in runs.values()
                                   for x in (f["cpu_s_per_h"], f["wall_s_per_h"])]
                + ["; ".join(f"{label} {f['x_realtime']:.1f}x, {f['peak_rss_mb']:.0f} MB"
                             for label, f in runs.items())])
    blank = ["-"] * (2 * len(runs))
    rows.append([name, "OCR reads per hour"] + blank + [", ".join(
        f"{k} {v:.0f}" for k, v in first["ocr_reads_per_h"].items())])
    if "critical_path" in summary:
        cp = summary["critical_path"]
        rows.append([name, f"critical path ({cp['bound']})"] + blank
                    + [f"{cp['seconds_per_h']:.0f} s/h: {3600 / cp['seconds_per_h']:.1f}x at best"])
    return rows


def _best(lecture: dict[str, Any]) -> dict[str, Any]:
    """The run a lecture's headline comes from: the fastest overlapped one."""
    runs = lecture["runs"]
    over = [f for label, f in runs.items() if label.startswith("overlapped")] or \
        list(runs.values())
    return max(over, key=lambda f: f["x_realtime"])


def _headline(lectures: dict[str, Any]) -> dict[str, Any]:
    """The stable top-level keys (`BENCHMARKS.md`): per lecture, from its fastest
    overlapped run (per-stage CPU from the run with every stage alone)."""
    alone = lambda f: next((r for k, r in f["runs"].items() if k.startswith("alone")), {})
    return {"x_realtime": {n: _best(f)["x_realtime"] for n, f in lectures.items()},
            "stage_seconds": {n: _best(f)["stage_wall_s_per_h"] for n, f in lectures.items()},
            "stage_cpu_seconds": {n: alone(f).get("stage_cpu_s_per_h")
                                  for n, f in lectures.items()},
            "peak_rss_mb": {n: _best(f)["peak_rss_mb"] for n, f in lectures.items()},
            "critical_path": {n: f.get("critical_path") for n, f in lectures.items()}}


def _summary_line(figures: dict[str, Any], compare) -> str:
    parts = []
    for name, f in figures["lectures"].items():
        over = _best(f)
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
