"""``venus bench dataset NAME``: a published benchmark run over a folder of videos.

Runs the video memory over the benchmark's questions causally (each asked at its own
media time; the memory sees nothing after it), writes the authors' result/submission
files into ``--out`` and prints the authors' metric, per task and overall. The formats
and the exact files each reads are in `memory.benchmarks` and the README.
"""

from __future__ import annotations

import argparse

from venus.bench.report import BenchReport

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = ("a published benchmark (StreamingBench, OVO-Bench, MLVU, VNBench, V-NIAH) run "
               "causally over its videos, scored by the authors' rule")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from memory.benchmarks import DATASETS

    parser.add_argument("name", choices=sorted(DATASETS), help="the benchmark")
    parser.add_argument("--annotations", required=True, metavar="FILE",
                        help="the benchmark's annotation file as released (MLVU: a file or "
                        "its folder of JSON files)")
    parser.add_argument("--videos", required=True, metavar="DIR",
                        help="folder holding the benchmark's videos (V-NIAH: the haystack)")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="only the first N questions (groups scored together are kept whole)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="write the authors' result/submission files here")
    parser.add_argument("--k", type=int, default=5, help="moments retrieved per question (5)")


def run(args: argparse.Namespace) -> BenchReport:
    from memory.benchmarks import run_dataset
    from venus.errors import ConfigError

    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be at least 1, got {args.limit}")
    done = run_dataset(args.name, args.annotations, args.videos, out=args.out,
                       limit=args.limit, k=args.k, progress=True)
    fig = done.figures
    rows = [[task, value] for task, value in fig["per_task"].items()]
    for name, value in fig.get("per_split", {}).items():
        rows.append([f"[{name}]", value])
    score = fig["score"]
    shown = "not computed offline" if score is None else f"{score:.4f}"
    summary = (f"{args.name}: {fig['metric']} = {shown} over {len(done.results)} questions "
               f"(leakage {done.leakage})")
    if fig.get("not_scored_offline"):
        summary += f"; not scored offline: {', '.join(fig['not_scored_offline'])}"
    if done.files:
        summary += "\nwrote " + ", ".join(str(f) for f in done.files)
    figures = {"dataset": args.name, "n": len(done.results), "metric": fig["metric"],
               "score": score, "per_task": fig["per_task"], "leakage": done.leakage,
               **{k: v for k, v in fig.items() if k not in ("metric", "score", "per_task")},
               "files": [str(f) for f in done.files]}
    return BenchReport("dataset", ["task", "score"], rows, summary, figures)
