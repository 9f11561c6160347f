"""``venus sample lecture``: make the narrated synthetic lecture used by the demo and tests."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("sample", help="generate sample media locally")
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    p = kinds.add_parser("lecture", help="a narrated synthetic lecture (MP4 + ground-truth JSON)",
                         description="Slides with a title and bullets change every 20-90 s; "
                         "the embedded TTS narrates them; the result is an H.264/AAC MP4 and "
                         "a JSON with every slide's span and every sentence's times.")
    p.add_argument("--minutes", type=float, default=3.0, help="length in minutes (default 3)")
    p.add_argument("--seed", type=int, default=0, help="content seed (default 0)")
    p.add_argument("--out", default=None,
                   help="output folder (default samples/lecture-<N>min[-subtitles])")
    p.add_argument("--subtitles", action="store_true",
                   help="also write lecture.srt (every sentence, timed exactly) beside the "
                   "video; memories built from it use the subtitles as the transcript")
    p.add_argument("--narrator", choices=("auto", "piper", "espeak"), default="auto",
                   help="who reads it: auto (default) is Piper en_US-joe-medium when the voices "
                   "extra is installed, else eSpeak NG")
    p.set_defaults(func=_lecture)


def _lecture(args: argparse.Namespace) -> int:
    from memory.samples import make_lecture

    out = args.out or f"samples/lecture-{args.minutes:g}min" + ("-subtitles" if args.subtitles
                                                                 else "")
    files = make_lecture(args.minutes, args.seed, out, progress=True, subtitles=args.subtitles,
                         narrator=args.narrator)
    truth = files.truth
    print(f"{files.video}  ({truth['duration']:.0f} s, {len(truth['slides'])} slides, "
          f"{len(truth['sentences'])} sentences)")
    print(f"{files.truth_path}  (ground truth)")
    if args.subtitles:
        print(f"{files.video.with_suffix('.srt')}  (subtitles)")
    return 0
