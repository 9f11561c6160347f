"""The ``venus`` command line. It only maps flags onto library objects.

Each subcommand lives in its own module exposing ``register(subparsers)``; the module
list below is the whole command surface, imported lazily so ``venus --help`` is fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

__all__ = ["main"]

_COMMAND_MODULES = (
    "venus.cli.demo",
    "venus.cli.sample",
    "venus.cli.bench",
    "venus.cli.talk",
    "venus.cli.simulate",
    "venus.cli.app",
    "venus.cli.eval",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="venus",
        description="realtime-venus: a full-duplex, video-aware assistant with hour-scale memory.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more log output (-v info, -vv debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from memory.errors import MemoryToolkitError
    from venus.errors import VenusError

    parser = build_parser()
    args = parser.parse_args(argv)
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except (MemoryToolkitError, VenusError) as exc:
        # A user error (bad file, missing model): one sentence, no traceback.
        print(f"venus: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
