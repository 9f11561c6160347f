"""Inputs a new user throws at the decoder, each made here and read by the real decoder.

One test (or a few) per row of issue 13's table that lives in `memory.video`: an image
renamed .mp4, a raw .h264 stream, a last partial second, URLs (a real HTTP server on
127.0.0.1), rotation side data, stereo in antiphase, decoder overshoot from corrupt
audio, ``bytes`` / ``os.PathLike`` paths, and 4K frames.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from memory.errors import NetworkVideoError, NotAVideoError, VideoNotFoundError
from memory.media import SAMPLE_RATE
from memory.video import MAX_SIDE, open_video, probe, write_video
from media_server import serve


def _drain(source):
    with source:
        return list(source)


def _noise_clip(path, seconds=3.0, fps=10, size=(90, 160)):
    rng = np.random.default_rng(1)
    frames = (rng.integers(0, 256, (*size, 3), dtype=np.uint8) for _ in range(int(seconds * fps)))
    audio = (0.1 * rng.standard_normal(int(seconds * SAMPLE_RATE))).astype(np.float32)
    return write_video(path, frames, fps, audio)


# -- an image renamed .mp4 --------------------------------------------------------------

def test_a_png_renamed_mp4_is_refused_at_open_with_one_sentence(tmp_path):
    from PIL import Image

    path = tmp_path / "holiday.mp4"
    Image.new("RGB", (64, 48), (200, 30, 30)).save(path, format="PNG")
    for check in (probe, open_video):
        with pytest.raises(NotAVideoError) as err:
            check(path)
        message = str(err.value)
        assert message.startswith(f"{path} is a PNG image, not a video")
        assert "MP4" in message and message.count(". ") == 0


def test_probe_says_what_a_real_video_holds(tmp_path):
    path = _noise_clip(tmp_path / "clip.mp4")
    info = probe(path)
    assert (info.width, info.height, info.has_audio, info.rotation) == (160, 90, True, 0)
    assert info.duration == pytest.approx(3.0, abs=0.05)
    assert info.native_fps == pytest.approx(10.0)


# -- a raw .h264 stream -----------------------------------------------------------------

def _raw_h264(path, seconds=30, fps=10):
    import av

    with av.open(str(path), "w", format="h264") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = 160, 90, "yuv420p"
        for i in range(seconds * fps):
            image = np.full((90, 160, 3), (i * 7) % 256, np.uint8)
            container.mux(stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")))
        container.mux(stream.encode(None))
    return path


def test_a_raw_h264_stream_reads_its_true_length_from_the_bitstream(tmp_path):
    path = _raw_h264(tmp_path / "cam.h264")
    source = open_video(path, fps=1.0)
    assert source.info.duration is None  # the container does not say
    assert source.info.native_fps == pytest.approx(10.0)  # not the demuxer's 25 fps guess
    chunks = _drain(source)
    assert [c.index for c in chunks] == list(range(30))
    assert chunks[-1].end == pytest.approx(30.0)
    # Sample j (at j seconds) is frame 10 j: its grey level says which frame was taken.
    greys = [int(c.frames[0].image.mean()) for c in chunks]
    expected = [(10 * j * 7) % 256 for j in range(30)]
    assert max(abs(g - e) for g, e in zip(greys, expected)) <= 3


# -- the last partial second ------------------------------------------------------------

def test_a_last_partial_second_is_its_own_chunk(tmp_path):
    frames = (np.full((90, 160, 3), i % 250, np.uint8) for i in range(301))
    audio = np.zeros(int(301 / 30 * SAMPLE_RATE), np.float32)
    path = write_video(tmp_path / "301.mp4", frames, 30, audio)
    chunks = _drain(open_video(path))
    assert len(chunks) == 11
    last = chunks[-1]
    assert (last.index, last.start) == (10, 10.0) and last.end == pytest.approx(10.0 + 1 / 30,
                                                                                abs=2e-3)
    assert len(last.frames) == 1 and last.audio.size == round(last.duration * SAMPLE_RATE)


# -- paths given as bytes or os.PathLike ------------------------------------------------

class _Upload:
    """An os.PathLike that is not a pathlib.Path (as web frameworks hand out)."""

    def __init__(self, path: pathlib.Path) -> None:
        self._path = path

    def __fspath__(self) -> str:
        return str(self._path)


def test_bytes_and_pathlike_paths_open_like_strings(tmp_path):
    path = _noise_clip(tmp_path / "clip.mp4")
    reference = _drain(open_video(str(path)))
    for form in (bytes(path), _Upload(path), path):
        chunks = _drain(open_video(form))
        assert [c.index for c in chunks] == [c.index for c in reference]
        np.testing.assert_array_equal(chunks[-1].audio, reference[-1].audio)
        assert probe(form).path == str(path)


def test_a_file_url_is_its_local_path(tmp_path):
    path = _noise_clip(tmp_path / "my clip.mp4")
    chunks = _drain(open_video(path.as_uri()))
    assert len(chunks) == 3 and probe(path.as_uri()).path == str(path)
    with pytest.raises(VideoNotFoundError, match="no video file at"):
        open_video((tmp_path / "gone.mp4").as_uri())


# -- URLs through a real local HTTP server ----------------------------------------------

def test_an_http_url_streams_the_same_chunks_as_the_file(tmp_path):
    path = _noise_clip(tmp_path / "lecture.mp4")
    (tmp_path / "page.mp4").write_text("<html><body>Sign in to continue</body></html>")
    local = _drain(open_video(path, fps=2.0))
    with serve(tmp_path) as base:
        url = f"{base}/lecture.mp4"
        assert probe(url).duration == pytest.approx(3.0, abs=0.05)
        remote = _drain(open_video(url, fps=2.0))
        assert [c.index for c in remote] == [c.index for c in local]
        for a, b in zip(remote, local):
            np.testing.assert_array_equal(a.audio, b.audio)
            np.testing.assert_array_equal(a.frames[0].image, b.frames[0].image)
        resumed = _drain(open_video(url, fps=2.0, start=1.0))
        assert [c.index for c in resumed] == [1, 2]
        with pytest.raises(NetworkVideoError, match="404 Not Found; check the address") as err:
            open_video(f"{base}/missing.mp4")
        assert f"{base}/missing.mp4" in str(err.value)
        with pytest.raises(NotAVideoError, match="the server sent something that is not a video"):
            open_video(f"{base}/page.mp4")


def test_an_unreachable_server_is_one_network_error(tmp_path):
    with serve(tmp_path) as base:
        dead = base  # the port is free again once the server is stopped
    with pytest.raises(NetworkVideoError, match="could not reach .* check the address and the "
                                                "network"):
        open_video(f"{dead}/x.mp4")


# -- rotation side data -----------------------------------------------------------------

def _slide(text: str, size=(640, 360)) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", size, (250, 250, 245))
    ImageDraw.Draw(img).text((40, 140), text, fill=(10, 10, 10),
                             font=ImageFont.load_default(size=44))
    return np.asarray(img)


def test_a_phone_video_with_rotation_metadata_comes_out_upright(tmp_path):
    upright_slide = _slide("Evaporation and rain")
    # A phone stores the sensor's picture and asks players to turn it 90 degrees.
    stored = np.ascontiguousarray(np.rot90(upright_slide, k=-1))
    path = write_video(tmp_path / "phone.mp4", [stored] * 10, 5, rotation=90, crf=18)
    info = probe(path)
    assert (info.rotation, info.width, info.height) == (90, 640, 360)
    chunks = _drain(open_video(path))
    image = chunks[0].frames[0].image
    assert image.shape == upright_slide.shape
    assert np.abs(image.astype(int) - upright_slide).mean() < 6


@pytest.mark.slow
def test_the_upright_frame_is_read_by_ocr(tmp_path):
    from memory.models import RapidOCRReader
    from memory.store.pipeline import ocr_text

    stored = np.ascontiguousarray(np.rot90(_slide("Evaporation and rain"), k=-1))
    path = write_video(tmp_path / "phone.mp4", [stored] * 5, 5, rotation=90, crf=18)
    image = _drain(open_video(path))[0].frames[0].image
    assert ocr_text(RapidOCRReader().read(image)) == "Evaporation and rain"


# -- stereo in antiphase ----------------------------------------------------------------

def _tone_bursts(seconds=3.0):
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    return (0.3 * np.sin(2 * np.pi * 440 * t) * (np.sin(2 * np.pi * 1.5 * t) > 0)).astype(
        np.float32)


def test_stereo_in_antiphase_keeps_the_sound(tmp_path):
    signal = _tone_bursts()
    frames = [np.zeros((90, 160, 3), np.uint8)] * 30
    path = write_video(tmp_path / "flipped.mp4", frames, 10, np.stack([signal, -signal]))
    heard = np.concatenate([c.audio for c in _drain(open_video(path))])
    n = min(len(heard), len(signal))
    corr = np.corrcoef(heard[:n], signal[:n])[0, 1]
    assert abs(corr) > 0.95
    assert np.sqrt(np.mean(heard**2)) > 0.5 * np.sqrt(np.mean(signal**2))


def test_ordinary_stereo_is_the_average_of_its_channels(tmp_path):
    left, right = _tone_bursts(), 0.5 * _tone_bursts()[::-1].copy()
    frames = [np.zeros((90, 160, 3), np.uint8)] * 30
    path = write_video(tmp_path / "stereo.mp4", frames, 10, np.stack([left, right]))
    heard = np.concatenate([c.audio for c in _drain(open_video(path))])
    n = min(len(heard), len(left))
    assert np.corrcoef(heard[:n], 0.5 * (left + right)[:n])[0, 1] > 0.95


# -- decoder overshoot on corrupt audio -------------------------------------------------

def corrupt(path, out, seed=0, stretch=100_000, hits=200, at=0.5):
    """Scatter ``hits`` random bytes over ``stretch`` bytes from fraction ``at`` of the file:
    FFmpeg's AAC decoder then emits frames of garbage far outside [-1, 1] instead of failing."""
    rng = np.random.default_rng(seed)
    data = np.frombuffer(path.read_bytes(), np.uint8).copy()
    middle = int(len(data) * at)
    where = middle + rng.integers(0, stretch, hits)
    data[where] = rng.integers(0, 256, hits, dtype=np.uint8)
    out.write_bytes(data.tobytes())
    return out


def raw_peak(path) -> float:
    import av

    peak = 0.0
    with av.open(str(path)) as container:
        for packet in container.demux(container.streams.audio[0]):
            try:
                for frame in packet.decode():
                    peak = max(peak, float(np.abs(frame.to_ndarray()).max()))
            except av.error.FFmpegError:
                pass
    return peak


def test_corrupt_audio_overshoot_is_clipped_and_the_intact_seconds_are_kept(tmp_path):
    rng = np.random.default_rng(3)
    seconds = 40
    frames = (np.full((90, 160, 3), (i // 10) % 256, np.uint8) for i in range(seconds * 10))
    audio = (0.05 * rng.standard_normal(seconds * SAMPLE_RATE)).astype(np.float32)
    path = write_video(tmp_path / "clip.mp4", frames, 10, audio)
    broken = corrupt(path, tmp_path / "broken.mp4", seed=6)
    assert raw_peak(broken) > 100  # the decoder really overshoots on this file
    intact = _drain(open_video(path))
    chunks = _drain(open_video(broken))
    assert len(chunks) == seconds
    assert max(float(np.abs(c.audio).max()) for c in chunks) <= 1.0
    # The first seconds, before the damage, are untouched.
    for a, b in zip(chunks[:5], intact[:5]):
        np.testing.assert_array_equal(a.audio, b.audio)


# -- 4K ---------------------------------------------------------------------------------

def test_4k_frames_are_bounded_as_they_are_converted(tmp_path):
    big = np.zeros((2160, 3840, 3), np.uint8)
    big[:, :1920] = 255
    path = write_video(tmp_path / "uhd.mp4", [big] * 4, 2)
    source = open_video(path)
    assert (source.info.width, source.info.height) == (MAX_SIDE, 1080)
    image = _drain(source)[0].frames[0].image
    assert image.shape == (1080, 1920, 3)
    assert image[:, :900].mean() > 250 and image[:, 1020:].mean() < 5  # the same picture
    full = _drain(open_video(path, max_side=None))[0].frames[0].image
    assert full.shape == (2160, 3840, 3)
