"""Bad video input: one clear `memory.errors` error each, naming the problem.

Truncated files are real: a noisy clip written with `write_video`, remuxed to
'faststart' (index first) or fragmented MP4 with PyAV, then cut in the middle of its
media data. A plain MP4 keeps its index at the end, so cutting it loses the index.
"""

from __future__ import annotations

import numpy as np
import pytest

from memory.errors import (
    EmptyVideoError,
    NotAVideoError,
    NoVideoStreamError,
    TruncatedVideoError,
    VideoError,
    VideoNotFoundError,
)
from memory.media import SAMPLE_RATE
from memory.video import open_video, write_video


def _noisy_clip(path, seconds=6.0, fps=10):
    rng = np.random.default_rng(0)
    frames = (rng.integers(0, 256, (90, 160, 3), dtype=np.uint8) for _ in range(int(seconds * fps)))
    audio = (0.1 * rng.standard_normal(int(seconds * SAMPLE_RATE))).astype(np.float32)
    return write_video(path, frames, fps, audio)


def _remux(src, dst, movflags: str):
    import av

    with av.open(str(src)) as inp, av.open(str(dst), "w", format="mp4",
                                            options={"movflags": movflags}) as out:
        streams = {s.index: out.add_stream_from_template(s) for s in inp.streams}
        for packet in inp.demux():
            if packet.dts is None:
                continue
            packet.stream = streams[packet.stream.index]
            out.mux(packet)
    return dst


def _cut(src, dst, fraction=0.5):
    data = src.read_bytes()
    dst.write_bytes(data[: int(len(data) * fraction)])
    return dst


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad")
    plain = _noisy_clip(root / "plain.mp4")
    return {
        "root": root,
        "plain": plain,
        "faststart": _remux(plain, root / "faststart.mp4", "faststart"),
        "fragmented": _remux(plain, root / "frag.mp4", "frag_keyframe+empty_moov+default_base_moof"),
    }


def _drain(path, **kw):
    got = []
    with open_video(path, **kw) as source:
        for chunk in source:
            got.append(chunk)
    return got


def test_missing_file(tmp_path):
    path = tmp_path / "nope.mp4"
    with pytest.raises(VideoNotFoundError, match="no video file at") as err:
        open_video(path)
    assert str(path) in str(err.value) and err.value.path == str(path)


def test_zero_byte_file(tmp_path):
    path = tmp_path / "empty.mp4"
    path.touch()
    with pytest.raises(EmptyVideoError, match=r"is empty \(0 bytes\)") as err:
        open_video(path)
    assert str(path) in str(err.value)


def test_text_renamed_to_mp4(tmp_path):
    path = tmp_path / "notes.mp4"
    path.write_text("these are lecture notes, not a video\n" * 50)
    with pytest.raises(NotAVideoError, match="is not a video file") as err:
        open_video(path)
    assert str(path) in str(err.value)
    assert err.value.__cause__ is None and err.value.__suppress_context__


def test_a_directory_is_not_a_video(tmp_path):
    with pytest.raises(NotAVideoError, match="is a directory"):
        open_video(tmp_path)


def test_audio_only_file_has_no_video_stream(tmp_path):
    audio = np.zeros(2 * SAMPLE_RATE, np.float32)
    path = write_video(tmp_path / "voice.mp4", [], 10, audio, video=False)
    with pytest.raises(NoVideoStreamError, match="no video stream") as err:
        open_video(path)
    assert "audio" in str(err.value)


def test_unknown_codec_is_named(media, tmp_path):
    # Rename the H.264 sample entry ('avc1') to a codec no decoder knows.
    path = tmp_path / "odd.mp4"
    path.write_bytes(media["plain"].read_bytes().replace(b"avc1", b"zzzz"))
    with pytest.raises(NotAVideoError, match="codec this FFmpeg build cannot decode") as err:
        open_video(path)
    assert "zzzz" in str(err.value)


def test_cut_plain_mp4_lost_its_index(media, tmp_path):
    path = _cut(media["plain"], tmp_path / "cut.mp4")
    with pytest.raises(NotAVideoError, match="looks truncated or incomplete") as err:
        open_video(path)
    assert "moov" in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("kind", ["faststart", "fragmented"])
def test_truncated_file_yields_the_readable_seconds_then_says_so(media, tmp_path, kind):
    path = _cut(media[kind], tmp_path / f"cut-{kind}.mp4")
    got = []
    with pytest.raises(TruncatedVideoError, match="is truncated") as err:
        with open_video(path, fps=2.0) as source:
            for chunk in source:
                got.append(chunk)
    assert str(path) in str(err.value)
    assert 1 <= len(got) < 6
    assert [c.index for c in got] == list(range(len(got)))
    assert all(len(c.frames) == 2 and c.audio.size == SAMPLE_RATE for c in got)
    assert err.value.seconds_decoded == float(len(got))
    # What was yielded is what an intact file gives for those seconds.
    intact = _drain(media[kind], fps=2.0)[: len(got)]
    for a, b in zip(got, intact):
        for fa, fb in zip(a.frames, b.frames):
            np.testing.assert_array_equal(fa.image, fb.image)


def test_every_video_error_is_one_family(media, tmp_path):
    # One except clause catches them all, as the CLI does.
    for path in (tmp_path / "missing.mp4", _cut(media["plain"], tmp_path / "c.mp4")):
        with pytest.raises(VideoError):
            open_video(path)
