"""Subtitles: side-car ``.srt`` / ``.vtt`` files and text subtitle tracks inside a video.

Both are read by FFmpeg through PyAV (its SubRip and WebVTT demuxers for side-cars, the
container's own track otherwise), so one decoder covers every format FFmpeg knows
(SubRip, WebVTT, ASS/SSA, MP4 ``mov_text``, Matroska text). Picture-based tracks (DVD,
Blu-ray PGS) carry no text and are skipped. A file source hands each `memory.media.Cue`
to the chunk it starts in; the memory then uses the cue text as the transcript of the
stretch it covers and runs speech recognition on the rest.

`find_subtitles` picks the side-car next to a video: ``talk.srt`` / ``talk.vtt``, or a
language-tagged ``talk.en.srt`` (English first, then the first in name order).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from memory.errors import SubtitleError
from memory.media import Cue

__all__ = ["SUFFIXES", "embedded_cues", "find_subtitles", "read_subtitles", "subtitle_track",
           "write_srt"]

logger = logging.getLogger(__name__)

SUFFIXES = (".srt", ".vtt")
_PICTURE_CODECS = {"dvd_subtitle", "hdmv_pgs_subtitle", "dvb_subtitle", "xsub"}
_ASS_TAG = re.compile(r"\{\\[^}]*\}")
_HTML_TAG = re.compile(r"</?[a-zA-Z][^>]*>")


def find_subtitles(video: str) -> Path | None:
    """The side-car subtitle file next to a local ``video``, or None."""
    path = Path(video)
    for suffix in SUFFIXES:
        if path.with_suffix(suffix).is_file():
            return path.with_suffix(suffix)
    if not path.parent.is_dir():
        return None
    tagged = sorted(p for p in path.parent.glob(f"{glob_escape(path.stem)}.*")
                    if p.suffix in SUFFIXES and p.is_file())
    english = [p for p in tagged if p.name.lower().endswith((".en.srt", ".en.vtt"))]
    return (english or tagged or [None])[0]


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def read_subtitles(path: str | Path) -> tuple[Cue, ...]:
    """Every cue of a side-car ``.srt`` / ``.vtt`` (or any subtitle file FFmpeg reads)."""
    import av

    path = Path(path)
    if not path.is_file():
        raise SubtitleError(f"no subtitle file at {path}: check the path", str(path))
    try:
        with av.open(str(path)) as container:
            if not container.streams.subtitles:
                raise SubtitleError(f"{path} holds no subtitles; pass an .srt or .vtt file",
                                    str(path))
            return _cues(container, container.streams.subtitles[0])
    except (av.error.FFmpegError, UnicodeDecodeError) as exc:
        raise SubtitleError(f"{path} is not a subtitle file FFmpeg can read ({exc}); pass "
                            f"an .srt or .vtt file", str(path)) from None


def subtitle_track(container: Any) -> Any | None:
    """The first text subtitle stream of an open container, or None."""
    for stream in container.streams.subtitles:
        ctx = stream.codec_context
        name = getattr(ctx, "name", "") if ctx is not None else ""
        if ctx is not None and name not in _PICTURE_CODECS:
            return stream
        logger.info("skipping subtitle track %d (%s): pictures, not text", stream.index, name)
    return None


def embedded_cues(open_container, origin: float = 0.0) -> tuple[Cue, ...]:
    """The cues of a video's own text track, read in a separate pass (None: no track).

    ``open_container`` opens the video again, so the decoding pass is untouched.
    """
    import av

    try:
        with open_container() as container:
            stream = subtitle_track(container)
            if stream is None:
                return ()
            cues = _cues(container, stream)
    except av.error.FFmpegError as exc:
        logger.warning("could not read the subtitle track (%s); using speech recognition",
                       exc)
        return ()
    return tuple(Cue(c.start - origin, c.end - origin, c.text) for c in cues)


def _cues(container: Any, stream: Any) -> tuple[Cue, ...]:
    base = stream.time_base
    out = []
    for packet in container.demux(stream):
        if packet.pts is None or packet.size == 0:
            continue
        start = float(packet.pts * base)
        end = start + float((packet.duration or 0) * base)
        text = " ".join(t for t in (_text(s) for s in packet.decode()) if t)
        if text:
            out.append(Cue(round(start, 3), round(max(end, start), 3), text))
    return tuple(sorted(out, key=lambda c: c.start))


def _text(subtitle: Any) -> str:
    raw = getattr(subtitle, "dialogue", None) or getattr(subtitle, "text", None) or b""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    text = _ASS_TAG.sub("", text).replace("\\N", " ").replace("\\n", " ")
    return " ".join(_HTML_TAG.sub("", text).split())


def write_srt(path: str | Path, cues: list[Cue]) -> Path:
    """Write cues as a SubRip file (the sample lecture's side-car)."""
    def stamp(t: float) -> str:
        ms = int(round(t * 1000))
        return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"

    blocks = [f"{i}\n{stamp(c.start)} --> {stamp(c.end)}\n{c.text}\n"
              for i, c in enumerate(cues, start=1)]
    path = Path(path)
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path
