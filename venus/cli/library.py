"""``venus library``: a library of many videos (`memory.library.VideoLibrary`).

``add`` ingests one video, ``ingest`` a folder of them (fanned out on Ray when the
``[scale]`` extra is installed - local, or an existing cluster by ``--address`` - else in a
local process pool), ``list`` / ``search`` / ``answer`` / ``remove`` read and edit it.
"""

from __future__ import annotations

import argparse
import contextlib
import json

DEFAULT_LIBRARY = "library"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("library", help="a library of many videos: add, ingest, search, "
                            "answer, list, remove")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    def _lib(p: argparse.ArgumentParser) -> None:
        p.add_argument("--library", "-L", default=DEFAULT_LIBRARY, metavar="DIR",
                       help=f"the library directory (default ./{DEFAULT_LIBRARY})")

    p = actions.add_parser("add", help="ingest one video into the library")
    p.add_argument("video", help="a video file or URL")
    p.add_argument("--id", dest="video_id", default=None,
                   help="its id (default: made from the file name)")
    p.add_argument("--title", default=None, help="its title (default: the file name)")
    _lib(p)
    p.set_defaults(func=_add)

    p = actions.add_parser(
        "ingest", help="ingest every video of a folder, several at a time",
        description="Each video is ingested into its own memory by a worker (a Ray task, or a "
        "local process without ray) and merged into the library as it finishes. Videos "
        "already in the library are skipped; a video whose ingest was cut short resumes "
        "from its last committed chunk. On a cluster the library directory must be at the "
        "same path on every node (a shared file system).")
    p.add_argument("folder", help="a folder of video files")
    p.add_argument("--workers", type=int, default=2, help="videos at a time (default 2)")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="an existing Ray cluster (ray://head:10001, or 'auto'); default: a "
                   "local Ray started for the run")
    p.add_argument("--num-gpus", type=float, default=None,
                   help="GPUs per task (default: 1 when the cluster has GPUs, else 0)")
    p.add_argument("--no-ray", action="store_true",
                   help="a local process pool even when ray is installed")
    _lib(p)
    p.set_defaults(func=_ingest)

    p = actions.add_parser("list", help="the videos of the library")
    p.add_argument("--json", action="store_true", help="as JSON")
    _lib(p)
    p.set_defaults(func=_list)

    for name, helptext in (("search", "the moments best matching a query, across videos"),
                           ("answer", "answer a question from the library, with citations")):
        p = actions.add_parser(name, help=helptext)
        p.add_argument("query", help="the query or question")
        p.add_argument("--video", action="append", default=None, metavar="ID",
                       help="only this video (repeat for several; default: all)")
        p.add_argument("--before", default=None, metavar="TIME",
                       help="causal cutoff in each video: seconds or m:ss / h:mm:ss")
        if name == "search":
            p.add_argument("-k", type=int, default=5, help="moments (default 5)")
        _lib(p)
        p.set_defaults(func=_search if name == "search" else _answer)

    p = actions.add_parser("remove", help="remove a video (its rows, vectors and key frames)")
    p.add_argument("video_id")
    _lib(p)
    p.set_defaults(func=_remove)


def _cutoff(text: str | None) -> float | None:
    from memory.errors import StoreError
    from memory.timeparse import clock_seconds

    if text is None:
        return None
    try:
        return clock_seconds(text) if ":" in text else float(text)
    except ValueError:
        raise StoreError(f"--before {text!r} is not a time; give seconds (90) or m:ss "
                         f"(1:30)") from None


def _open(args: argparse.Namespace, create: bool = False):
    from memory.library import VideoLibrary

    return VideoLibrary.open_or_create(args.library) if create else \
        VideoLibrary.open(args.library)


def _add(args: argparse.Namespace) -> int:
    with _told_with_flags(args), _open(args, create=True) as lib:
        rec = lib.add(args.video, video_id=args.video_id, title=args.title, progress=True)
        print(f"{rec.video_id}: {rec.duration:.0f} s ingested into {args.library}")
    return 0


def _ingest(args: argparse.Namespace) -> int:
    from memory.library.batch import find_videos, ingest_videos

    paths = find_videos(args.folder)  # before the library is made: a wrong folder makes none
    with _told_with_flags(args), _open(args, create=True) as lib:
        result = ingest_videos(lib, paths, workers=args.workers, address=args.address,
                               num_gpus=args.num_gpus, use_ray=False if args.no_ray else None,
                               progress=True)
    print(f"{len(result.done)} videos ingested ({result.hours * 60:.1f} min of video) in "
          f"{result.wall_s:.1f} s on {result.runner}; {len(result.skipped)} already there"
          + (f"; {len(result.failed)} failed" if result.failed else ""))
    for vid, why in result.failed.items():
        print(f"  failed: {vid}: {why}")
    return 1 if result.failed else 0


@contextlib.contextmanager
def _told_with_flags(args: argparse.Namespace):
    """A full or read-only disk under the library (or one of its videos' memories), told
    as one sentence about the library directory, in this command's flag."""
    from memory.errors import StoreWriteError

    try:
        yield
    except StoreWriteError as exc:
        resume = "the same command resumes" if exc.resume else ""
        raise exc.retold(directory=args.library, place="library directory",
                         flag="--library DIR", resume=resume) from exc.__cause__


def _list(args: argparse.Namespace) -> int:
    with _open(args) as lib:
        videos = lib.videos()
        if args.json:
            print(json.dumps([{"video_id": v.video_id, "title": v.title, "source": v.source,
                               "state": v.state, "duration": v.duration} for v in videos],
                             indent=2))
            return 0
        for v in videos:
            print(f"{v.video_id:<30} {v.state:<10} {_clock(v.duration):>8}  {v.title}")
        stats = lib.stats()
        print(f"{len(videos)} videos, {stats['hours']:.2f} h, {stats['segments']} segments")
    return 0


def _search(args: argparse.Namespace) -> int:
    with _open(args) as lib:
        for m in lib.search(args.query, k=args.k, videos=args.video,
                            before=_cutoff(args.before)):
            print(f"{m.video_id} [{m.span()}] {m.score:.4f}  {_short(m.transcript or m.text)}")
    return 0


def _answer(args: argparse.Namespace) -> int:
    with _open(args) as lib:
        ans = lib.answer(args.query, videos=args.video, at=_cutoff(args.before))
    print(f"A: {ans.text}")
    for m in ans.citations:
        print(f"   - {m.video_id} [{m.span()}] {_short(m.transcript or m.text, 90)}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    with _open(args) as lib:
        lib.remove(args.video_id)
    print(f"removed {args.video_id} from {args.library}")
    return 0


def _short(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _clock(t: float) -> str:
    t = int(t)
    return f"{t // 3600}:{t % 3600 // 60:02d}:{t % 60:02d}"
