"""The PyAV file source on real H.264/AAC files made with `write_video`.

Each clip's frame ``i`` is a flat grey of value ``3 * i`` (10 native fps), so a sampled
frame's pixels say which decoded frame was picked; the audio is silent except a
440 Hz tone burst during second 3.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest

from memory.media import SAMPLE_RATE, VideoChunk
from memory.video import VideoSource, open_video, write_video

NATIVE_FPS = 10


def _frames(n: int):
    for i in range(n):
        yield np.full((36, 64, 3), 3 * i, np.uint8)


def _audio(seconds: float) -> np.ndarray:
    t = np.arange(int(round(seconds * SAMPLE_RATE))) / SAMPLE_RATE
    tone = (t >= 3.0) & (t < 4.0)
    return np.where(tone, 0.5 * np.sin(2 * np.pi * 440 * t), 0.0).astype(np.float32)


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    root = tmp_path_factory.mktemp("clips")
    out = {}
    for seconds in (3.0, 7.4):
        n = round(seconds * NATIVE_FPS)
        out[seconds] = write_video(root / f"clip{seconds}.mp4", _frames(n), NATIVE_FPS,
                                   _audio(seconds))
    out["silent"] = write_video(root / "noaudio.mp4", _frames(30), NATIVE_FPS)
    return out


def _chunks(path, **kw) -> list[VideoChunk]:
    with open_video(path, **kw) as source:
        return list(source)


@pytest.mark.parametrize("seconds", [3.0, 7.4])
@pytest.mark.parametrize("fps", [1.0, 2.0])
def test_exact_chunk_count_times_and_frame_timestamps(clips, seconds, fps):
    chunks = _chunks(clips[seconds], fps=fps)
    assert len(chunks) == math.ceil(seconds)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert [c.start for c in chunks] == [float(i) for i in range(len(chunks))]
    assert [c.end for c in chunks] == [min(i + 1.0, seconds) for i in range(len(chunks))]
    for c in chunks:
        expected = [j / fps for j in range(int(seconds * fps) + 1) if c.start <= j / fps < c.end]
        assert [f.time for f in c.frames] == pytest.approx(expected)


def test_the_last_partial_second_is_a_short_chunk(clips):
    last = _chunks(clips[7.4], fps=2.0)[-1]
    assert (last.index, last.start, last.end) == (7, 7.0, 7.4)
    assert last.duration == pytest.approx(0.4)
    assert [f.time for f in last.frames] == [7.0]  # 7.5 is past the end


def test_each_sample_holds_the_decoded_frame_nearest_its_time(clips):
    for chunk in _chunks(clips[7.4], fps=3.0):
        for frame in chunk.frames:
            assert frame.image.dtype == np.uint8 and frame.image.shape == (36, 64, 3)
            nearest = min(int(round(frame.time * NATIVE_FPS)), 73)
            assert abs(int(frame.image.mean()) - 3 * nearest) <= 1, frame.time


def test_audio_slices_are_exact_and_add_up_to_the_file(clips):
    chunks = _chunks(clips[7.4])
    for c in chunks:
        assert c.has_audio and c.audio.dtype == np.float32
        assert c.audio.size == round(c.end * SAMPLE_RATE) - round(c.start * SAMPLE_RATE)
    assert sum(c.audio.size for c in chunks) == round(7.4 * SAMPLE_RATE)


def test_the_tone_burst_lands_in_its_own_second(clips):
    rms = [float(np.sqrt(np.mean(c.audio.astype(np.float64) ** 2))) for c in _chunks(clips[7.4])]
    assert int(np.argmax(rms)) == 3
    assert rms[3] == pytest.approx(0.5 / math.sqrt(2), rel=0.1)
    assert max(rms[:3] + rms[4:]) < 0.01


def test_fps_below_one_samples_every_other_second(clips):
    chunks = _chunks(clips[7.4], fps=0.5)
    assert len(chunks) == 8
    assert [[f.time for f in c.frames] for c in chunks] == [
        [0.0], [], [2.0], [], [4.0], [], [6.0], []]


def test_start_resumes_at_a_whole_second_with_the_same_chunks(clips):
    full = _chunks(clips[7.4], fps=2.0)
    resumed = _chunks(clips[7.4], fps=2.0, start=5.3)
    assert [c.index for c in resumed] == [5, 6, 7]
    for a, b in zip(full[5:], resumed):
        assert (a.start, a.end) == (b.start, b.end)
        assert [f.time for f in a.frames] == [f.time for f in b.frames]
        for fa, fb in zip(a.frames, b.frames):
            np.testing.assert_array_equal(fa.image, fb.image)
        np.testing.assert_allclose(a.audio, b.audio, atol=1e-3)


def test_info_describes_the_file_before_decoding(clips):
    with open_video(clips[7.4]) as source:
        assert isinstance(source, VideoSource)
        info = source.info
    assert (info.duration, info.width, info.height) == (7.4, 64, 36)
    assert (info.native_fps, info.has_audio, info.decoder) == (10.0, True, "pyav")


def test_a_file_without_audio_gives_flagged_silence_and_warns_once(clips, caplog):
    with caplog.at_level(logging.WARNING, logger="memory.video"):
        chunks = _chunks(clips["silent"])
    assert len(chunks) == 3
    assert all(not c.has_audio and c.audio.size == SAMPLE_RATE and not c.audio.any()
               for c in chunks)
    warnings = [r for r in caplog.records if "no audio stream" in r.getMessage()]
    assert len(warnings) == 1


def test_a_source_is_iterated_once(clips):
    with open_video(clips[3.0]) as source:
        list(source)
        with pytest.raises(RuntimeError, match="iterated once"):
            iter(source)


def test_bad_arguments_are_named(clips):
    with pytest.raises(ValueError, match="unknown decoder 'ffmpeg'"):
        open_video(clips[3.0], decoder="ffmpeg")
    with pytest.raises(ValueError, match="fps must be positive"):
        open_video(clips[3.0], fps=0)


@pytest.mark.parametrize("fps", [0.5, 1.0, 3.0])
def test_skipping_unneeded_gops_changes_nothing(clips, fps):
    # The clips have a keyframe every 2 s, so at 1 fps half of each GOP is skipped.
    from memory.video.file import PyAVVideoSource

    with PyAVVideoSource(clips[7.4], fps=fps) as fast, \
            PyAVVideoSource(clips[7.4], fps=fps, skip_gops=False) as full:
        pairs = list(zip(fast, full, strict=True))
    for a, b in pairs:
        assert (a.index, a.end, [f.time for f in a.frames]) == (b.index, b.end,
                                                                 [f.time for f in b.frames])
        for fa, fb in zip(a.frames, b.frames):
            np.testing.assert_array_equal(fa.image, fb.image)
        np.testing.assert_array_equal(a.audio, b.audio)
