"""``venus bench duplex --n N``: the four FDB v1.5 overlap subsets, scored as a listener hears them.

Synthesizes ``--n`` samples per subset in the Full-Duplex-Bench folder format
(`venus.eval.synth`: the overlap lands while the assistant speaks), runs each through
the embedded frontend in simulated time (`venus.eval.runner`) and scores it offline
(`venus.eval.score`). The headline is the **strict listener rule** read from
``output.wav`` (`venus.eval.listener`: RESUME fails on any output silence over 0.8 s in
the overlap's window, RESPOND needs a stop within 1.5 s and speech again within 3 s of
the overlap's end); the decision-log proxy is the second row, labelled. Beside them: TOR,
the longest silence and the stop / response latencies per subset, and the same rows per
voice family where a run has more than one. Offline, not the official judge.
``--seed`` is the tuning seed (default 0; voices from the tuning families); ``--held-out``
uses seed 2027 and only the held-out voice family (`venus.eval.voices`), the test set
nobody tuned on. ``--workers`` processes share the samples (2 on a 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from venus.bench.report import BenchReport, peak_rss_mb

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = ("Full-Duplex-Bench v1.5-format overlap subsets (interruption, backchannel, "
               "other-directed, background), run in simulated time and scored offline")

KEYS = {"user_interruption": ("interruption_response", "respond"),
        "user_backchannel": ("continuation_backchannel", "resume"),
        "talking_to_other": ("continuation_other", "resume"),
        "background_speech": ("continuation_background", "resume")}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", type=int, default=50, help="samples per subset (50)")
    parser.add_argument("--held-out", action="store_true",
                        help="the held-out split: seed 2027, every voice from the held-out family "
                             "(Flite; report on it, never tune on it)")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                        help="processes sharing the samples (default: 2 or the core count)")
    parser.add_argument("--out", default=None,
                        help="keep the FDB folders here (default: a temporary folder)")


def run(args: argparse.Namespace) -> BenchReport:
    from venus.eval.pipeline import evaluate
    from venus.eval.score import interruption_misses
    from venus.eval.synth import HELD_OUT_SEED

    if args.held_out:
        args.seed = HELD_OUT_SEED  # so the JSON records the seed really used
    root = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="venus-fdb-"))
    began = time.perf_counter()
    scores = evaluate(root, args.n, args.seed, workers=args.workers, held_out=args.held_out,
                      progress=lambda d, n: print(f"  sample {d}/{n}", flush=True))
    seconds = time.perf_counter() - began
    figures, header, rows = _figures(scores)
    figures.update({"n": args.n, "held_out": bool(args.held_out), "root": str(root)})
    # a sample whose clean question the system never answered has no overlap to place
    figures["unanswered_clean"] = args.n - min(f["n"] for f in figures["subsets"].values())
    figures["seconds"] = round(seconds, 1)
    figures["seconds_per_sample"] = round(seconds / max(1, args.n * len(KEYS)), 2)
    figures["workers"] = args.workers
    figures["peak_rss_mb"] = round(peak_rss_mb(), 1)
    figures.update(_answer_onsets(root))
    inter = scores.get("user_interruption", [])
    figures.update(interruption_misses(inter))
    proxy = figures["proxy"]
    summary = (f"strict listener rule from output.wav (offline, not the official judge): seed "
               f"{args.seed}{' (held out)' if args.held_out else ' (tuning)'}, n={args.n} per "
               f"subset; interruption respond {figures['interruption_response']} (proxy "
               f"{proxy['interruption_response']}), continuation {figures['continuation_backchannel']}"
               f" / {figures['continuation_other']} / {figures['continuation_background']} (proxy "
               f"{proxy['continuation_backchannel']} / {proxy['continuation_other']} / "
               f"{proxy['continuation_background']}); longest silence on a backchannel "
               f"{figures['max_silence_s']['user_backchannel']} s; stop latency p50 "
               f"{figures['stop_latency_s_p50']} s; reply onset after a question p50 "
               f"{figures['answer_onset_s_p50']} s / p95 {figures['answer_onset_s_p95']} s, "
               f"after an interruption p50 {figures['response_latency_s_p50']} s; "
               f"{figures['talked_through']} interruptions talked through, "
               f"{figures['stopped_late']} stopped late (> 1.5 s), "
               f"{figures['stopped_unanswered']} stopped and never answered, "
               f"{figures['interruptions_clarified']} answered "
               f"\"didn't catch that\"; {figures['unanswered_clean']} clean questions "
               f"unanswered (no overlap placed); {seconds:.0f} s with {args.workers} workers")
    return BenchReport("duplex", header, rows, summary, figures)


def _answer_onsets(root: Path) -> dict:
    """The reply's onset after the end of the question, from each sample's clean run
    (``output.wav``: where the assistant's first speech after the question begins)."""
    import json

    import numpy as np

    onsets = []
    for meta in sorted(root.glob("user_interruption/*/metadata.json")):
        extra = json.loads(meta.read_text(encoding="utf-8")).get("venus", {})
        span, speech = extra.get("question_span"), extra.get("assistant_speech")
        if span and speech:
            onsets.append(float(speech[0]) - float(span[1]))
    p = (lambda q: round(float(np.percentile(onsets, q)), 3)) if onsets else (lambda q: None)
    return {"answer_onset_s_p50": p(50), "answer_onset_s_p95": p(95),
            "answer_onset_s_max": p(100), "answer_onsets": len(onsets)}


def _figures(scores: dict[str, list]) -> tuple[dict, list[str], list[list]]:
    """The stable keys, the per-subset and per-voice-family figures, and the table."""
    from venus.eval.score import (
        SUBSET_COLUMNS,
        by_family,
        paper_table_by_family,
        subset_figures,
        subset_table,
    )

    per = {s: subset_figures(v) for s, v in scores.items()}
    figures: dict = {"subsets": per, "proxy": {}}
    for subset, (key, label) in KEYS.items():
        figures[key] = per[subset][label]
        figures["proxy"][key] = per[subset]["proxy"][label]
    figures["tor"] = {s: f["tor"] for s, f in per.items()}
    figures["max_silence_s"] = {s: f["max_silence_s"] for s, f in per.items()}
    inter = per["user_interruption"]
    figures["stop_latency_s_p50"] = inter["stop_latency_s_p50"]
    figures["stop_latency_s_p95"] = inter["stop_latency_s_p95"]
    figures["response_latency_s_p50"] = inter["response_latency_s_p50"]
    figures["interruptions_unanswered"] = inter["never_spoke_after"]
    figures["interruptions_clarified"] = inter["clarified"]  # replied "didn't catch that"
    families = by_family(scores)
    figures["voice_family"] = next(iter(families)) if len(families) == 1 else sorted(families)
    if len(families) > 1:
        figures["voice_families"] = families
    header, rows = paper_table_by_family(scores)
    width = max(len(header), len(SUBSET_COLUMNS))
    pad = lambda row: [*row, *[""] * (width - len(row))]
    rows = [pad(r) for r in rows]
    rows += [pad([]), pad(SUBSET_COLUMNS), *[pad(r) for r in subset_table(per)]]
    header = pad(header)
    return figures, header, rows
