"""The decord backend gives the same chunks as PyAV (skipped when decord is missing)."""

from __future__ import annotations

import numpy as np
import pytest

from memory.errors import NotAVideoError, NoVideoStreamError, TruncatedVideoError
from memory.media import SAMPLE_RATE
from memory.video import open_video, write_video

pytest.importorskip("decord")


def _frames(n: int):
    for i in range(n):
        yield np.full((36, 64, 3), 3 * i, np.uint8)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    t = np.arange(int(7.4 * SAMPLE_RATE)) / SAMPLE_RATE
    audio = np.where((t >= 3) & (t < 4), 0.5 * np.sin(2 * np.pi * 440 * t), 0).astype(np.float32)
    return write_video(tmp_path_factory.mktemp("decord") / "clip.mp4", _frames(74), 10, audio)


def _chunks(path, **kw):
    with open_video(path, **kw) as source:
        return source.info, list(source)


@pytest.mark.parametrize("fps", [1.0, 2.0, 3.0])
def test_decord_and_pyav_give_the_same_chunks(clip, fps):
    info_a, pyav = _chunks(clip, fps=fps)
    info_b, decord = _chunks(clip, fps=fps, decoder="decord")
    assert info_b.decoder == "decord"
    assert (info_a.duration, info_a.width, info_a.height) == (info_b.duration, info_b.width,
                                                              info_b.height)
    assert len(pyav) == len(decord) == 8
    for a, b in zip(pyav, decord):
        assert (a.index, a.start, a.end, a.has_audio) == (b.index, b.start, b.end, b.has_audio)
        assert [f.time for f in a.frames] == [f.time for f in b.frames]
        for fa, fb in zip(a.frames, b.frames):
            np.testing.assert_array_equal(fa.image, fb.image)
        np.testing.assert_allclose(a.audio, b.audio, atol=1e-4)


def test_decord_resumes_at_a_second(clip):
    _, chunks = _chunks(clip, fps=2.0, start=5, decoder="decord")
    assert [c.index for c in chunks] == [5, 6, 7]
    assert [f.time for f in chunks[-1].frames] == [7.0]


def test_decord_reports_bad_input_with_the_same_errors(clip, tmp_path):
    text = tmp_path / "notes.mp4"
    text.write_text("not a video\n" * 20)
    with pytest.raises(NotAVideoError, match="is not a video file"):
        open_video(text, decoder="decord")
    voice = write_video(tmp_path / "voice.mp4", [], 10, np.zeros(SAMPLE_RATE, np.float32),
                        video=False)
    with pytest.raises(NoVideoStreamError, match="no video stream"):
        open_video(voice, decoder="decord")


def test_decord_on_a_truncated_file_points_to_pyav(tmp_path):
    import av

    rng = np.random.default_rng(0)
    plain = write_video(tmp_path / "plain.mp4",
                        (rng.integers(0, 256, (90, 160, 3), dtype=np.uint8) for _ in range(60)), 10)
    fast = tmp_path / "fast.mp4"
    with av.open(str(plain)) as inp, av.open(str(fast), "w", format="mp4",
                                             options={"movflags": "faststart"}) as out:
        stream = out.add_stream_from_template(inp.streams.video[0])
        for packet in inp.demux():
            if packet.dts is not None:
                packet.stream = stream
                out.mux(packet)
    data = fast.read_bytes()
    fast.write_bytes(data[: len(data) // 2])
    with pytest.raises(TruncatedVideoError, match="truncated") as err:
        open_video(fast, decoder="decord")
    assert "decoder='pyav'" in str(err.value)
