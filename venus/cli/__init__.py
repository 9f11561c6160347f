"""The ``venus`` command line. It only maps flags onto library objects.

Each subcommand lives in its own module exposing ``register(subparsers)``; the module
list below is the whole command surface, imported lazily so ``venus --help`` is fast and
never needs a POSIX-only module.

Exit codes (the same for every command; errors go to stderr, results to stdout):

====  ==========================================================================
0     success
1     failure: the work ran and failed (a model backend or server failed, or a bug:
      then with its traceback)
2     usage: the command line itself is wrong (unknown flag, missing argument)
3     bad input: a file, argument or model the user supplied cannot be used; the one
      line on stderr names the fix
130   interrupted (Ctrl-C)
====  ==========================================================================
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILURE", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3
EXIT_INTERRUPTED = 130

_COMMAND_MODULES = (
    "venus.cli.demo",
    "venus.cli.sample",
    "venus.cli.bench",
    "venus.cli.talk",
    "venus.cli.simulate",
    "venus.cli.app",
    "venus.cli.eval",
    "venus.cli.doctor",
    "venus.cli.notebooks",
    "venus.cli.library",
    "venus.cli.watch",
)

_EPILOG = ("exit codes: 0 ok, 1 failure, 2 usage error, 3 bad input (a file, argument or "
           "model that cannot be used; stderr names the fix), 130 interrupted")


def _version() -> str:
    from venus import __version__

    return f"realtime-venus {__version__}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="venus",
        description="realtime-venus: a full-duplex, video-aware assistant with hour-scale memory.",
        epilog=_EPILOG,
    )
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more log output (-v info, -vv debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from memory.errors import MemoryToolkitError
    from venus.errors import BackendError, VenusError

    parser = build_parser()
    args = parser.parse_args(argv)  # usage errors exit 2 here (argparse)
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except BackendError as exc:
        # The work ran and a backend failed: one sentence, no traceback.
        print(f"venus: error: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except (MemoryToolkitError, VenusError) as exc:
        # A user error (bad file, bad argument, missing model): one sentence, no traceback.
        print(f"venus: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
