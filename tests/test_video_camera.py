"""CameraSource: the real capture thread, dropping queue and chunking, driven by a fake
device and a fake clock (there is no camera here, and tests never sleep)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from memory.errors import CameraError
from memory.video import CameraSource, FrameReader, VideoSource


class FakeCamera:
    """A `FrameReader` at 30 fps on its own clock: frame n (from 0) is at n/30 s and its
    pixels hold n % 256. After ``frames`` frames it fails (like an unplugged camera)."""

    rate = 30

    def __init__(self, frames: int | None = None) -> None:
        self.frames = frames
        self.count = 0
        self.exhausted = threading.Event()
        self.closed = False

    def clock(self) -> float:
        return (self.count - 1) / self.rate

    def read(self) -> np.ndarray | None:
        if self.frames is not None and self.count >= self.frames:
            self.exhausted.set()
            return None
        self.count += 1
        return np.full((12, 16, 3), (self.count - 1) % 256, np.uint8)

    def close(self) -> None:
        self.closed = True


def test_fake_camera_is_a_frame_reader_and_the_source_a_video_source():
    cam = FakeCamera(1)
    source = CameraSource(reader=cam, clock=cam.clock)
    assert isinstance(cam, FrameReader) and isinstance(source, VideoSource)
    assert (source.info.duration, source.info.has_audio) == (None, False)


def test_chunks_hold_the_frames_nearest_each_sample_time():
    cam = FakeCamera(frames=5 * FakeCamera.rate)  # 5 s of video
    chunks = []
    with pytest.raises(CameraError, match="stopped delivering frames"):
        with CameraSource(fps=2.0, queue_size=100, reader=cam, clock=cam.clock) as source:
            chunks.extend(source)
    assert [(c.index, c.start, c.end) for c in chunks] == [(i, i, i + 1.0) for i in range(5)]
    for c in chunks:
        assert [f.time for f in c.frames] == [c.start, c.start + 0.5]
        for f in c.frames:
            assert int(f.image[0, 0, 0]) == round(f.time * FakeCamera.rate) % 256
        assert not c.has_audio and c.audio.size == 16_000 and not c.audio.any()
    assert source.dropped_frames == 0
    assert source.info.width == 16 and source.info.height == 12
    assert cam.closed and not source.running


def test_a_slow_consumer_loses_the_oldest_frames_not_the_camera():
    cam = FakeCamera(frames=10 * FakeCamera.rate)  # 10 samples at 1 fps
    source = CameraSource(fps=1.0, queue_size=3, reader=cam, clock=cam.clock)
    source.start()
    assert cam.exhausted.wait(timeout=10)  # the camera ran on while nobody consumed
    chunks = []
    with pytest.raises(CameraError):
        chunks.extend(source)
    source.close()
    assert source.dropped_frames == 7
    assert [c.index for c in chunks] == list(range(10))  # one chunk per second still
    assert [f.time for c in chunks for f in c.frames] == [7.0, 8.0, 9.0]
    assert all(not c.frames for c in chunks[:7])


def test_close_stops_the_capture_thread_and_releases_the_device():
    cam = FakeCamera()  # never ends
    with CameraSource(fps=4.0, queue_size=4, reader=cam, clock=cam.clock) as source:
        stream = iter(source)
        first, second = next(stream), next(stream)
        assert source.running
    assert not source.running and cam.closed
    assert (first.index, second.index) == (0, 1)
    rest = list(stream)  # after close the stream ends (what was queued), without an error
    assert [c.index for c in rest] == list(range(2, 2 + len(rest)))


def test_a_reader_that_raises_becomes_one_camera_error():
    class Broken:
        def read(self):
            raise OSError("device unplugged")

    with CameraSource(reader=Broken(), clock=lambda: 0.0) as source:
        with pytest.raises(CameraError, match="failed while reading: device unplugged"):
            list(source)


def test_opening_a_missing_device_is_a_camera_error():
    with pytest.raises(CameraError, match="cannot open camera '/dev/no-such-camera'") as err:
        CameraSource(device="/dev/no-such-camera")
    assert "check that it is connected" in str(err.value)
