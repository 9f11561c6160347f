"""``venus eval synth|run|score``: Full-Duplex-Bench-format evaluation, step by step.

Maps flags onto `venus.eval`: ``synth ROOT --n N [--seed S | --held-out]`` writes FDB
v1.5 sample folders (and the v1 pause / turn-taking sets with ``--v1``); ``run ROOT
[--notes FILE]`` streams every ``input.wav`` through the embedded frontend in simulated
time, answering from the notes (a JSON list of ``{"start", "end", "text"}``), and writes
``output.wav``, ``clean_output.wav``, ``output.json`` and ``timeline.jsonl``; ``score
ROOT`` prints the offline scores per subset in the paper's layout: the strict listener
rule from ``output.wav`` first, the decision-log proxy beside it (offline, not the
official judge). ``venus bench duplex`` does all three in one command.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help="Full-Duplex-Bench-format duplex evaluation (synth, run, score)",
                       description=__doc__.split("\n\n")[1])
    steps = p.add_subparsers(dest="step", metavar="STEP", required=True)
    s = steps.add_parser("synth", help="write FDB v1.5-format sample folders")
    s.add_argument("root")
    s.add_argument("--n", type=int, default=50, help="samples per subset (50)")
    s.add_argument("--seed", type=int, default=0, help="tuning seed (default 0)")
    s.add_argument("--held-out", action="store_true",
                   help="the held-out split: seed 2027 in the held-out voice family (Flite)")
    s.add_argument("--v1", action="store_true", help="also the v1 pause / turn-taking sets")
    s.add_argument("--subsets", default=None,
                   help="comma-separated subsets instead (e.g. pause_handling,smooth_turn_taking)")
    s.set_defaults(func=_synth)
    r = steps.add_parser("run", help="run the embedded frontend over every sample folder")
    r.add_argument("root")
    r.add_argument("--video", default=None, help="a video track to stream beside the audio")
    r.add_argument("--notes", default=None,
                   help='what the assistant knows: a JSON list of {"start", "end", "text"} notes '
                        "(default: ROOT/notes.json when there, else the built-in notes)")
    r.set_defaults(func=_run)
    c = steps.add_parser("score", help="score the folders offline and print the tables")
    c.add_argument("root")
    c.add_argument("--json", metavar="PATH", help="also write the scores per subset as JSON")
    c.set_defaults(func=_score)


def _subsets(root: Path) -> tuple[str, ...]:
    from venus.eval.fdb import SUBSETS

    return tuple(s for s in SUBSETS if (root / s).is_dir())


def _synth(args: argparse.Namespace) -> int:
    from venus.errors import ConfigError
    from venus.eval.fdb import OVERLAP_SUBSETS, SUBSETS
    from venus.eval.synth import HELD_OUT_SEED, synthesize

    seed = HELD_OUT_SEED if args.held_out else args.seed
    subsets = SUBSETS if args.v1 else OVERLAP_SUBSETS
    if args.subsets:
        subsets = tuple(x.strip() for x in args.subsets.split(",") if x.strip())
        unknown = sorted(set(subsets) - set(SUBSETS))
        if unknown:
            raise ConfigError(f"unknown subset(s) {', '.join(unknown)}; choose from {', '.join(SUBSETS)}")
    folders = synthesize(Path(args.root), args.n, seed, subsets=subsets, held_out=args.held_out,
                         progress=lambda d, n: print(f"  sample {d}/{n}", flush=True))
    print(f"wrote {len(folders)} sample folders under {args.root} (seed {seed})")
    return 0


def _run(args: argparse.Namespace) -> int:
    from venus.eval.fdb import sample_dirs
    from venus.eval.notes import load_notes
    from venus.eval.runner import run_sample

    root = Path(args.root)
    given = args.notes or (root / "notes.json" if (root / "notes.json").is_file() else None)
    notes = load_notes(given) if given else None
    folders = [f for s in _subsets(root) for f in sample_dirs(root, s)]
    for k, folder in enumerate(folders, 1):
        run_sample(folder, video=args.video, notes=notes)
        print(f"  {k}/{len(folders)} {folder}", flush=True)
    return 0


def _score(args: argparse.Namespace) -> int:
    from venus.bench.report import format_table
    from venus.eval.score import (
        SUBSET_COLUMNS,
        paper_table_by_family,
        score_root,
        subset_figures,
        subset_table,
    )

    root = Path(args.root)
    scores = score_root(root, _subsets(root))
    per = {s: subset_figures(v) for s, v in scores.items()}
    header, rows = paper_table_by_family(scores)
    print(format_table(header, rows))
    print()
    print(format_table(SUBSET_COLUMNS, subset_table(per)))
    print("\nstrict = what a listener hears in output.wav (venus.eval.listener); proxy = the "
          "decision log (venus.eval.score); offline, not the official judge")
    if args.json:
        import json

        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"subsets": per}, indent=2, default=str))
    return 0
