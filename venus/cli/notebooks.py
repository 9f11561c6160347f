"""``venus notebooks PATH``: copy the teaching notebooks out of the installed package.

The wheel installs the notebooks as data files (``share/realtime-venus/notebooks`` under
the environment's prefix); a source checkout has them in ``notebooks/`` beside the
packages. ``--executed`` copies the executed previews instead (``docs/notebooks/``, made by
``scripts/notebook_previews.py``: outputs, widget state and media inside, so they read
without running anything). Existing files in PATH are never overwritten unless
``--force`` is given.
"""

from __future__ import annotations

import argparse
import shutil
from importlib import metadata
from pathlib import Path

__all__ = ["notebook_files", "register"]

_SHARE = "share/realtime-venus/notebooks"
_SHARE_EXECUTED = "share/realtime-venus/notebooks-executed"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("notebooks", help="copy the teaching notebooks into a folder",
                       description=__doc__.split("\n\n")[1])
    p.add_argument("path", help="folder to copy them into (created if missing)")
    p.add_argument("--force", action="store_true", help="overwrite notebooks already there")
    p.add_argument("--executed", action="store_true",
                   help="copy the executed previews (outputs included) instead")
    p.set_defaults(func=run)


def notebook_files(executed: bool = False) -> list[Path]:
    """The installed notebooks (wheel install), else the source checkout's; ``executed``:
    the executed previews."""
    share = _SHARE_EXECUTED if executed else _SHARE
    try:
        files = metadata.distribution("realtime-venus").files or []
    except metadata.PackageNotFoundError:
        files = []
    found = [Path(str(f.locate())) for f in files
             if f.suffix == ".ipynb" and f.parent.as_posix().endswith(share)]
    found = [f for f in found if f.is_file()]
    if not found:
        root = Path(__file__).resolve().parents[2]
        checkout = root / "docs" / "notebooks" if executed else root / "notebooks"
        found = sorted(checkout.glob("*.ipynb"))
    return sorted(found, key=lambda f: f.name)


def run(args: argparse.Namespace) -> int:
    from venus.errors import ConfigError

    files = notebook_files(args.executed)
    if not files:
        raise ConfigError("no notebooks are installed with this copy of realtime-venus; "
                          "reinstall it from the wheel or the sdist (pip install realtime-venus)")
    dest = Path(args.path).expanduser()
    if dest.exists() and not dest.is_dir():
        raise ConfigError(f"{dest} is a file; give a folder to copy the notebooks into")
    clashes = [f.name for f in files if (dest / f.name).exists()]
    if clashes and not args.force:
        raise ConfigError(f"{dest} already has {', '.join(clashes)}; pass --force to overwrite "
                          f"or choose another folder")
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.copyfile(f, dest / f.name)
        print(dest / f.name)
    print(f"\n{len(files)} notebooks copied; open them with: jupyter lab {dest}")
    return 0
