"""A live camera as one-second chunks, behind the same `VideoSource` interface as files.

A capture thread owned by the source reads the device as fast as it delivers (so the
driver's buffer never goes stale), keeps only the frames nearest the sample times and
puts them on a bounded queue. When the consumer falls behind, the queue drops its
OLDEST frame instead of blocking the camera, and `dropped_frames` counts them; the
chunks stay one per second of wall time (a chunk whose frames were dropped has none).
Audio is silence with ``has_audio=False``: the microphone is a separate input.

The device reader is a tiny `FrameReader` Protocol (OpenCV by default) and the clock
is injectable, so tests drive the real thread, queue and chunking with a fake reader
and fake time, never sleeping.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Protocol, runtime_checkable

import numpy as np

from memory.errors import CameraError
from memory.media import Frame, VideoChunk, VideoInfo
from memory.video.base import FrameSampler, silence

__all__ = ["CameraSource", "FrameReader", "OpenCVReader"]

logger = logging.getLogger(__name__)

_EPS = 1e-6
_END = object()


@runtime_checkable
class FrameReader(Protocol):
    """A camera device: ``read()`` returns the next RGB uint8 frame, or None on failure."""

    def read(self) -> np.ndarray | None: ...


class OpenCVReader:
    """A `FrameReader` over ``cv2.VideoCapture`` (a device index or a path/URL)."""

    def __init__(self, device: int | str = 0) -> None:
        import cv2

        self._cv2 = cv2
        self.device = device
        self._capture = cv2.VideoCapture(device)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(
                f"cannot open camera {device!r}: no such device, or it is busy or not "
                f"permitted; check that it is connected and pass its index or path "
                f"(for example 0 or /dev/video0)", str(device))

    @property
    def size(self) -> tuple[int, int]:
        get = self._capture.get
        return int(get(self._cv2.CAP_PROP_FRAME_WIDTH)), int(get(self._cv2.CAP_PROP_FRAME_HEIGHT))

    def read(self) -> np.ndarray | None:
        ok, bgr = self._capture.read()
        if not ok or bgr is None:
            return None
        return self._cv2.cvtColor(bgr, self._cv2.COLOR_BGR2RGB)

    def close(self) -> None:
        self._capture.release()


class _DroppingQueue:
    """A bounded FIFO whose `put` never blocks: when full it discards the oldest item."""

    def __init__(self, size: int) -> None:
        self._items: deque[Any] = deque()
        self._size = size
        self._ready = threading.Condition()
        self.dropped = 0

    def put(self, item: Any, droppable: bool = True) -> None:
        with self._ready:
            if droppable and len(self._items) >= self._size:
                self._items.popleft()
                self.dropped += 1
            self._items.append(item)
            self._ready.notify()

    def get(self, timeout: float) -> Any:
        """The oldest item, or None when nothing arrived within ``timeout`` seconds."""
        with self._ready:
            if not self._items:
                self._ready.wait(timeout)
            return self._items.popleft() if self._items else None


class CameraSource:
    """A live camera yielding one-second `VideoChunk`s sampled at ``fps``.

    ``reader`` replaces the OpenCV device (any `FrameReader`); ``clock`` returns
    seconds (default `time.monotonic`). Capture starts on ``with``/iteration and stops
    at `close`. The stream ends when the camera stops delivering frames
    (``max_failed_reads`` failures in a row): the chunks already captured are yielded,
    then `CameraError` says so.
    """

    decoder = "opencv"

    def __init__(self, device: int | str = 0, fps: float = 1.0, queue_size: int = 4,
                 reader: FrameReader | None = None,
                 clock: Callable[[], float] | None = None, *,
                 max_failed_reads: int = 30) -> None:
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps}")
        if queue_size < 1:
            raise ValueError(f"queue_size must be at least 1, got {queue_size}")
        self.device = device
        self.fps = fps
        self._reader = reader if reader is not None else OpenCVReader(device)
        self._clock = clock or time.monotonic
        self._queue = _DroppingQueue(queue_size)
        self._max_failed = max_failed_reads
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._size = getattr(self._reader, "size", (0, 0))
        self._failure: str | None = None

    # -- the VideoSource interface -----------------------------------------------------

    @property
    def info(self) -> VideoInfo:
        width, height = self._size
        return VideoInfo(path=str(self.device), duration=None, width=width, height=height,
                         native_fps=None, has_audio=False, decoder=self.decoder)

    @property
    def dropped_frames(self) -> int:
        """Sampled frames discarded because the consumer fell behind."""
        return self._queue.dropped

    @property
    def running(self) -> bool:
        """True while the capture thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start the capture thread (iteration and ``with`` call this)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._capture, daemon=True,
                                            name=f"camera-{self.device}")
            self._thread.start()

    def __iter__(self) -> Iterator[VideoChunk]:
        self.start()
        return self._chunks()

    def close(self) -> None:
        """Stop capturing and release the device; safe to call twice."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
            if self._thread.is_alive():
                logger.warning("camera %r: capture thread did not stop within 5 s", self.device)
        closer = getattr(self._reader, "close", None)
        if closer is not None:
            closer()

    def __enter__(self) -> CameraSource:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- capture thread ----------------------------------------------------------------

    def _capture(self) -> None:
        sampler: FrameSampler[np.ndarray] = FrameSampler(self.fps)
        t0: float | None = None
        failed = 0
        try:
            while not self._stop.is_set():
                image = self._reader.read()
                now = self._clock()
                if image is None:
                    failed += 1
                    if failed >= self._max_failed:
                        self._failure = f"camera {self.device!r} stopped delivering frames"
                        return
                    continue
                failed = 0
                t0 = now if t0 is None else t0
                self._size = (int(image.shape[1]), int(image.shape[0]))
                for sample_time, picked in sampler.offer(now - t0, image):
                    self._queue.put(Frame(sample_time, np.asarray(picked, np.uint8)))
        except Exception as exc:  # a driver error ends the stream with one clear error
            self._failure = f"camera {self.device!r} failed while reading: {exc}"
        finally:
            self._queue.put(_END, droppable=False)

    # -- consumer ----------------------------------------------------------------------

    def _chunks(self) -> Iterator[VideoChunk]:
        index, frames = 0, []
        while True:
            item = self._queue.get(timeout=0.1)
            if item is None:
                if self._stop.is_set():
                    return
                continue
            if item is _END:
                break
            chunk_of = math.floor(item.time + _EPS)
            while chunk_of > index:  # frames of a later second: this one is complete
                yield self._chunk(index, frames)
                index, frames = index + 1, []
            frames.append(item)
        if frames:
            yield self._chunk(index, frames)
        if self._failure and not self._stop.is_set():
            raise CameraError(f"{self._failure}; {index + 1 if frames else index} seconds "
                              f"were captured. Check the cable or that no other program "
                              f"took the camera", str(self.device))

    def _chunk(self, index: int, frames: list[Frame]) -> VideoChunk:
        return VideoChunk(index, float(index), index + 1.0, tuple(frames),
                          silence(index, index + 1.0), has_audio=False)
