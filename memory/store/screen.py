"""What text is on screen: each key frame's lines found afresh, only changed lines read.

A key frame (`memory.store.keyframes`) is a frame that differs from the previous key
frame, yet often most of its text did not change (a speaker moving in a camera inset, a
bullet appearing under the others, the slide number moving on). OCR is two steps, and
recognition is most of the cost (83% on the sample lecture's slides: 8.4 s for 13 frames
read whole, 1.4 s of it detection). So `ScreenReader` runs detection on every key frame
(new lines are always found, none is kept by mistake), compares each line's pixels with
the line at the same place on the last key frame, and runs recognition only on lines
whose pixels changed (a changed digit moves some pixels by far more than the video
codec's noise); the others keep the text read before. A frame whose lines all match is
not recognised at all. Frames longer than ``max_side`` are scaled down first (OCR's
cost grows with the pixels; slide text is legible at 1280 px).

A reader without ``detect``/``recognize`` (any `TextReader`) is asked for the whole
frame each time. After a restart the first key frame is recognised whole (the pixels
of the last one are not stored); a line recognised from the same pixels reads the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memory.models.base import TextBox, TextReader
from memory.store.timing import StageTimes

__all__ = ["ScreenOptions", "ScreenReader"]


@dataclass
class ScreenOptions:
    """``max_side``: frames longer than this (pixels) are scaled down before OCR (0:
    never); a line keeps its text when its box moved by at most ``shift_px`` and no
    pixel of it changed by more than ``pixel_delta`` grey levels (codec noise stays well
    under it; a changed glyph does not)."""

    max_side: int = 1280
    shift_px: int = 2
    pixel_delta: int = 40


@dataclass
class _Line:
    box: TextBox
    pixels: np.ndarray  # grey, the line's box on its frame


class ScreenReader:
    """Streaming state: the lines read on the last key frame, with their pixels."""

    def __init__(self, reader: TextReader, options: ScreenOptions | None = None,
                 timers: StageTimes | None = None) -> None:
        self.reader = reader
        self.options = options or ScreenOptions()
        self.timers = timers if timers is not None else StageTimes()
        self._last: list[_Line] = []

    def read(self, image: np.ndarray) -> list[TextBox]:
        """The text boxes of ``image`` (an RGB key frame), in its own pixels."""
        scale = _scale(image.shape, self.options.max_side)
        small = _resized(image, scale)
        self.timers.count("ocr_frames")
        if not (callable(getattr(self.reader, "detect", None))
                and callable(getattr(self.reader, "recognize", None))):
            self.timers.count("ocr_whole_frames")
            return [_unscaled(b, scale) for b in self.reader.read(small)]
        lines = self._read_changed(small)
        self._last = lines
        return [_unscaled(line.box, scale) for line in lines if line.box.text]

    def _read_changed(self, image: np.ndarray) -> list[_Line]:
        import cv2

        grey = cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2GRAY)
        quads = self.reader.detect(image)
        boxes = [_box_of(q, grey.shape) for q in quads]
        kept = [self._unchanged(b, grey) for b in boxes]
        todo = [i for i, k in enumerate(kept) if k is None]
        read = self.reader.recognize(image, [quads[i] for i in todo]) if todo else []
        for i, box in zip(todo, read):
            kept[i] = TextBox(box.text, boxes[i], box.confidence)
        self.timers.count("ocr_lines_recognized", len(todo))
        self.timers.count("ocr_lines_kept", len(quads) - len(todo))
        if not todo:
            self.timers.count("ocr_frames_unchanged")
        from memory.models.ocr import reading_order

        lines = [_Line(box, _pixels(grey, box.box)) for box in kept]
        order = {id(b): i for i, b in enumerate(reading_order([line.box for line in lines]))}
        return sorted(lines, key=lambda line: order[id(line.box)])

    def _unchanged(self, box: tuple[float, float, float, float],
                   grey: np.ndarray) -> TextBox | None:
        """The last frame's reading of this line, when the line's pixels are the same."""
        here = _pixels(grey, box)
        for line in self._last:
            if max(abs(a - b) for a, b in zip(line.box.box, box)) > self.options.shift_px:
                continue
            h, w = min(here.shape[0], line.pixels.shape[0]), min(here.shape[1],
                                                                 line.pixels.shape[1])
            if h == 0 or w == 0:
                continue
            diff = np.abs(here[:h, :w].astype(np.int16) - line.pixels[:h, :w].astype(np.int16))
            if int(diff.max()) <= self.options.pixel_delta:
                return TextBox(line.box.text, box, line.box.confidence)
        return None


def _box_of(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[float, float, float, float]:
    q = np.asarray(quad, np.float64).reshape(-1, 2)
    return (float(max(0.0, q[:, 0].min())), float(max(0.0, q[:, 1].min())),
            float(min(shape[1], q[:, 0].max())), float(min(shape[0], q[:, 1].max())))


def _pixels(grey: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    x0, y0, x1, y1 = (round(v) for v in box)
    return grey[y0:y1, x0:x1].copy()


def _scale(shape: tuple[int, ...], max_side: int) -> float:
    longest = max(shape[0], shape[1])
    return max_side / longest if max_side and longest > max_side else 1.0


def _resized(image: np.ndarray, scale: float) -> np.ndarray:
    if scale >= 1.0:
        return image
    import cv2

    size = (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale)))
    return cv2.resize(np.ascontiguousarray(image), size, interpolation=cv2.INTER_AREA)


def _unscaled(box: TextBox, scale: float) -> TextBox:
    if scale >= 1.0:
        return box
    return TextBox(box.text, tuple(v / scale for v in box.box), box.confidence)
