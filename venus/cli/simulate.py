"""``venus simulate SCENARIO.json``: a scripted conversation in simulated time.

Maps flags onto `venus.scenario.run_scenario`: loads and validates the scenario file
(schema in `venus.scenario.schema`), runs the embedded frontend over it and writes
``output.wav`` (sample-aligned with the input), ``input.wav`` and ``timeline.jsonl``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="run a scripted conversation (JSON) in simulated time",
                       description=__doc__.split("\n\n")[1])
    p.add_argument("scenario", nargs="?", help="scenario JSON file (see venus.scenario.schema)")
    p.add_argument("--schema", action="store_true", help="print the scenario JSON schema and exit")
    p.add_argument("--out", default=None,
                   help="output folder (default: ./simulate-<scenario name>)")
    p.add_argument("--quiet", action="store_true", help="do not print the timeline")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from venus.cli.talk import format_entry
    from venus.errors import ConfigError
    from venus.scenario import Scenario, load_scenario, run_scenario

    if args.schema:
        print(json.dumps(Scenario.model_json_schema(), indent=2))
        return 0
    if not args.scenario:
        raise ConfigError("give a scenario file: venus simulate SCENARIO.json (or --schema)")

    scenario = load_scenario(args.scenario)
    out = Path(args.out or f"simulate-{scenario.name}")

    def show(entry) -> None:
        line = None if args.quiet else format_entry(entry)
        if line:
            print(line, flush=True)

    result = run_scenario(scenario, out, on_entry=show)
    s = result.summary
    print(f"{scenario.name}: {s.chunks} chunks ({s.reason}), {s.delivered} results delivered; "
          f"wrote {out / 'input.wav'}, {out / 'output.wav'}, {out / 'timeline.jsonl'}")
    return 0
