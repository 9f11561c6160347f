"""Checking what a user uploads, and the shared sample lecture.

Bottom of ``demos`` (no Gradio): `check_upload` refuses a file of the wrong type, over the
size limit or that the decoder cannot read, each with one sentence the UI shows as is;
the decoder's own errors (`memory.errors.VideoError`: not a video, empty, no video
stream, truncated) are passed through because they already say what is wrong.
`sample_lecture` renders the sample once per process and shares it read-only.
"""

from __future__ import annotations

import threading
from pathlib import Path

from demos.errors import UploadError
from memory.errors import VideoError
from memory.media import VideoInfo

__all__ = ["VIDEO_EXTENSIONS", "UploadError", "check_upload", "sample_lecture"]

VIDEO_EXTENSIONS = (".mp4", ".m4v", ".mov", ".mkv", ".webm", ".avi")

_SAMPLE_LOCK = threading.Lock()


def check_upload(path: str | Path | None, max_mb: float) -> VideoInfo:
    """Validate an upload before anything is ingested; returns what the decoder sees."""
    if path is None or not str(path).strip():
        raise UploadError("no file was uploaded; choose a video file first")
    p = Path(path)
    if not p.is_file():
        raise UploadError(f"the upload {p.name} did not arrive; upload it again")
    if p.suffix.lower() not in VIDEO_EXTENSIONS:
        raise UploadError(f"{p.name} is not a video file this app reads; upload one of "
                          f"{', '.join(VIDEO_EXTENSIONS)}")
    size_mb = p.stat().st_size / 2**20
    if size_mb > max_mb:
        raise UploadError(f"{p.name} is {size_mb:.0f} MB, over this app's {max_mb:g} MB "
                          f"limit; upload a shorter or smaller video")
    return _decodable(p)


def _decodable(p: Path) -> VideoInfo:
    from memory.video import open_video

    try:
        with open_video(p) as source:
            info = source.info
            next(iter(source), None)  # the first second must decode, not just the header
    except VideoError:
        raise
    except Exception as exc:  # a decoder failure we have no name for: still one sentence
        raise UploadError(f"{p.name} could not be decoded ({type(exc).__name__}); "
                          f"re-encode it as H.264 MP4 and upload again") from exc
    return info


def sample_lecture(minutes: float, directory: str | Path) -> Path:
    """The sample lecture MP4 (rendered on first use, then reused by every session)."""
    from memory.samples import make_lecture

    with _SAMPLE_LOCK:
        return Path(make_lecture(minutes, 0, Path(directory) / f"lecture-{minutes:g}min",
                                 narrator="auto").video)
