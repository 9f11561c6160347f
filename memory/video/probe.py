"""Where a video comes from and whether it is one: paths, URLs, and the checks at open.

Every file source (PyAV, decord) opens its input here, so bad input gets the same
`memory.errors` error whichever decoder reads it. A location may be a ``str``, ``bytes``
or ``os.PathLike`` path, a ``file://`` URL (read as the local path it names) or an
``http(s)://`` URL, which FFmpeg streams (range requests let it reach an MP4's index).

`probe` is the public content check for uploads and command-line input: it opens the
input, refuses anything that is not a decodable video with one sentence (an image
renamed ``.mp4``, text, audio only, an unknown codec, a cut-off MP4), reads what the
container says (duration, displayed size, rotation, audio), and closes it again.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from memory.errors import (
    EmptyVideoError,
    NetworkVideoError,
    NotAVideoError,
    NoVideoStreamError,
    VideoNotFoundError,
)
from memory.media import VideoInfo
from memory.video.streams import stream_duration

__all__ = ["VideoLocation", "av_open", "location", "open_input", "probe", "reason",
           "stream_rotation", "untimed"]

logger = logging.getLogger(__name__)

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# (seconds to connect, seconds without data) for network inputs.
NETWORK_TIMEOUT = (15.0, 30.0)
# FFmpeg opens single pictures with these demuxers: a PNG renamed .mp4 is one of them.
_IMAGE_DEMUXERS = ("image2", "image2pipe")
_AVFMT_NOTIMESTAMPS = 0x0080


class VideoLocation(str):
    """A video's location as FFmpeg takes it: a local path, or a URL (``is_url``)."""

    is_url: bool = False


def location(source: str | bytes | os.PathLike) -> VideoLocation:
    """Normalise a path or URL; ``file://`` URLs become the local path they name."""
    if isinstance(source, bytes):
        source = os.fsdecode(source)
    elif not isinstance(source, str):
        try:
            source = os.fspath(source)
        except TypeError:
            raise TypeError(f"a video location is a path or URL, not "
                            f"{type(source).__name__}") from None
        source = os.fsdecode(source)
    if source.lower().startswith("file://"):
        parsed = urlparse(source)
        if parsed.netloc not in ("", "localhost"):
            raise VideoNotFoundError(
                f"{source} names a file on another machine ({parsed.netloc}); copy it here "
                f"or use its local path", source)
        return VideoLocation(unquote(parsed.path))
    loc = VideoLocation(source)
    loc.is_url = bool(_URL.match(source))
    return loc


def open_input(source: str | bytes | os.PathLike) -> tuple[Any, Any, Any, VideoLocation]:
    """Open ``source`` with PyAV: ``(container, video_stream, audio_stream|None, location)``.

    Raises the `memory.errors` error that names what is wrong with the input.
    """
    loc = location(source)
    if not loc.is_url:
        _check_file(loc)
    container = _open_container(loc)
    try:
        _refuse_images(container, loc)
        video = _video_stream(container, loc)
    except BaseException:
        container.close()
        raise
    audio = container.streams.audio[0] if container.streams.audio else None
    if audio is not None and audio.codec_context is None:
        logger.warning("%s: its audio codec cannot be decoded; using silence", loc)
        audio = None
    return container, video, audio, loc


def probe(source: str | bytes | os.PathLike) -> VideoInfo:
    """Check that ``source`` is a video this toolkit can read and say what it holds.

    Raises a `memory.errors.VideoError` whose message is one sentence naming the problem
    and the fix (for example "upload.mp4 is a PNG image, not a video ..."). The returned
    `VideoInfo` has ``duration`` None when the container does not say (a raw stream).
    """
    container, video, audio, loc = open_input(source)
    try:
        rotation = stream_rotation(loc)
        ctx = video.codec_context
        width, height = (ctx.height, ctx.width) if rotation % 180 else (ctx.width, ctx.height)
        rate = ctx.framerate if untimed(container) else (video.average_rate
                                                          or video.guessed_rate)
        return VideoInfo(path=str(loc), duration=stream_duration(container, video),
                         width=width, height=height, native_fps=float(rate) if rate else None,
                         has_audio=audio is not None, decoder="pyav", rotation=rotation)
    finally:
        container.close()


def untimed(container: Any) -> bool:
    """Raw elementary streams (.h264, .hevc, .m4v) carry no timestamps (AVFMT_NOTIMESTAMPS);
    their frame rate is the codec's (from the bitstream), not the demuxer's 25 fps guess."""
    return bool(container.format.flags & _AVFMT_NOTIMESTAMPS)


def stream_rotation(loc: VideoLocation) -> int:
    """Counter-clockwise degrees the first frame asks to be turned (display matrix), 0-359.

    Read from a separate short-lived open so the decoding pass is untouched; 0 when the
    first frame cannot be read.
    """
    import av

    try:
        with av_open(loc) as container:
            for frame in container.decode(container.streams.video[0]):
                return int(round(frame.rotation or 0)) % 360
    except (av.error.FFmpegError, IndexError, StopIteration):
        return 0
    return 0


def _check_file(path: str) -> None:
    p = Path(path)
    if not p.exists():
        raise VideoNotFoundError(f"no video file at {path}: check the path", path)
    if p.is_dir():
        raise NotAVideoError(f"{path} is a directory, not a video file", path)
    if p.stat().st_size == 0:
        raise EmptyVideoError(
            f"{path} is empty (0 bytes): the recording or copy did not finish; "
            f"record or copy it again", path)


def av_open(loc: VideoLocation) -> Any:
    """Open ``loc`` with PyAV, unchecked (a network input gets `NETWORK_TIMEOUT`)."""
    import av

    if loc.is_url:
        return av.open(str(loc), metadata_errors="ignore", timeout=NETWORK_TIMEOUT)
    return av.open(str(loc), metadata_errors="ignore")


def _open_container(loc: VideoLocation) -> Any:
    import av

    try:
        return av_open(loc)
    except (av.error.FFmpegError, UnicodeDecodeError) as exc:
        if loc.is_url and not isinstance(exc, av.error.InvalidDataError):
            raise _network_error(loc, exc) from None
        if not loc.is_url and _mp4_without_index(Path(loc)):
            raise NotAVideoError(
                f"{loc} looks truncated or incomplete: it is an MP4 whose index (the "
                f"'moov' box written when recording stops) is missing, so nothing can be "
                f"decoded; copy or export the file again (recorders that write fragmented "
                f"or 'faststart' MP4 survive being cut short)", str(loc)) from None
        what = "the server sent something that is not a video" if loc.is_url else \
            "is not a video file FFmpeg can read"
        raise NotAVideoError(
            f"{loc} {what} ({reason(exc)}); pass a video such as MP4, MKV, WebM or AVI",
            str(loc)) from None


def _network_error(loc: VideoLocation, exc: BaseException) -> NetworkVideoError:
    import av

    if isinstance(exc, (av.error.HTTPClientError, av.error.HTTPServerError)):
        fix = "check the address" if isinstance(exc, av.error.HTTPClientError) else \
            "the server failed: try again later"
        return NetworkVideoError(f"could not fetch {loc}: {reason(exc)}; {fix}", str(loc))
    if isinstance(exc, (ConnectionError, TimeoutError)) or "timed out" in reason(exc).lower():
        return NetworkVideoError(
            f"could not reach {loc} ({reason(exc)}); check the address and the network",
            str(loc))
    return NetworkVideoError(
        f"could not read a video from {loc} ({reason(exc)}); check the address, and that "
        f"the server answers byte-range requests (an MP4 whose index is at its end needs "
        f"them)", str(loc))


def reason(exc: BaseException) -> str:
    """FFmpeg's own words for an error, without PyAV's errno prefix and file name."""
    return getattr(exc, "strerror", None) or str(exc)


def _refuse_images(container: Any, loc: VideoLocation) -> None:
    name = container.format.name
    if name in _IMAGE_DEMUXERS or name.endswith("_pipe"):
        kind = name[: -len("_pipe")].upper() if name.endswith("_pipe") else ""
        what = f"a {kind} image" if kind else "an image"
        raise NotAVideoError(
            f"{loc} is {what}, not a video (a single picture, whatever its file name says); "
            f"pass a video file such as MP4, MKV, WebM or AVI", str(loc))


def _mp4_without_index(path: Path) -> bool:
    """True for an ISO-BMFF file (ftyp first) whose top-level boxes hold no moov."""
    boxes = []
    with path.open("rb") as fh:
        size = path.stat().st_size
        pos = 0
        while pos + 8 <= size and len(boxes) < 10_000:
            fh.seek(pos)
            head = fh.read(16)
            box_size, kind = int.from_bytes(head[:4], "big"), head[4:8]
            if box_size == 1 and len(head) == 16:
                box_size = int.from_bytes(head[8:16], "big")
            elif box_size == 0:
                box_size = size - pos
            boxes.append(kind)
            if box_size < 8:
                break
            pos += box_size
    return bool(boxes) and boxes[0] == b"ftyp" and b"moov" not in boxes


def _video_stream(container: Any, loc: VideoLocation) -> Any:
    if not container.streams.video:
        kinds = sorted({s.type for s in container.streams}) or ["no streams"]
        raise NoVideoStreamError(
            f"{loc} has no video stream (it holds {', '.join(kinds)}); "
            f"pass a file with a picture track", str(loc))
    stream = container.streams.video[0]
    if stream.codec_context is None:
        raise NotAVideoError(
            f"{loc} uses a video codec this FFmpeg build cannot decode "
            f"({_codec_name(loc)}); convert it, for example to H.264 with "
            f"`ffmpeg -i IN -c:v libx264 OUT.mp4`", str(loc))
    return stream


def _codec_name(loc: VideoLocation) -> str:
    """Name the undecodable codec from FFmpeg's own probe message (PyAV hides codecpar)."""
    import av.logging

    level = av.logging.get_level()
    try:
        av.logging.set_level(av.logging.VERBOSE)
        with av.logging.Capture(True) as logs:
            av_open(loc).close()
    except Exception:  # naming the codec is best effort; the error is raised anyway
        logs = []
    finally:
        av.logging.set_level(level)
    for _level, _name, message in logs:
        found = re.search(r"Video: ([^,]+)", message)
        if found:
            return f"codec {found.group(1).strip()}"
    return "unknown codec"
