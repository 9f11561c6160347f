"""``venus bench NAME``: benchmarks that print a table, a summary line and optional JSON.

Each benchmark is a module in `venus.bench` exposing ``DESCRIPTION``,
``add_arguments(parser)`` and ``run(args) -> BenchReport``; the table below names them.
"""

from __future__ import annotations

import argparse
import importlib

BENCHMARKS = {
    "app": "demos.bench",
    "asr": "venus.bench.asr",
    "dataset": "venus.bench.dataset",
    "decode": "venus.bench.decode",
    "delegation": "venus.bench.delegation",
    "duplex": "venus.bench.duplex",
    "frontend": "venus.bench.frontend",
    "harness": "venus.bench.harness",
    "ingest": "venus.bench.ingest",
    "library": "venus.bench.library",
    "memory": "venus.bench.memory",
    "server": "venus.bench.server",
    "proactive": "venus.bench.proactive",
    "qa": "venus.bench.qa",
    "turns": "demos.turns",
    "live": "demos.live_bench",
    "voice": "venus.bench.voice",
}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("bench", help="run a benchmark and print its figures")
    benches = parser.add_subparsers(dest="bench", metavar="NAME", required=True)
    for name, module_name in BENCHMARKS.items():
        module = importlib.import_module(module_name)
        p = benches.add_parser(name, help=module.DESCRIPTION, description=module.DESCRIPTION)
        module.add_arguments(p)
        p.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
        p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        p.set_defaults(func=_runner(module))


def _runner(module):
    def run(args: argparse.Namespace) -> int:
        from venus.bench.report import emit

        report = module.run(args)
        emit(report, json_path=args.json, seed=args.seed)
        return 0

    return run
