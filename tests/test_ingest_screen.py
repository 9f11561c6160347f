"""Key frames: only the lines whose pixels changed are recognised, and the text is the same.

The reference is brute force: every frame read whole. A line reader that needs no model
(each dark line's text is a digest of its own pixels, wherever it sits) makes "the same
text" exact in the fast tests; the slow test uses the real OCR on drawn slides.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from memory.models.base import TextBox
from memory.store.screen import ScreenOptions, ScreenReader
from memory.store.timing import StageTimes

W, H = 640, 360


class _LineReader:
    """A `TextReader` fake with both steps: a line is a run of rows holding dark pixels
    (detection); its text is a digest of its own ink (recognition), so a line reads the
    same wherever it is read. Counts the lines it recognises."""

    def __init__(self):
        self.recognized = 0

    def detect(self, image):
        ink = image.mean(axis=2) < 128
        rows = ink.any(axis=1)
        quads, y = [], 0
        while y < len(rows):
            if not rows[y]:
                y += 1
                continue
            y0 = y
            while y < len(rows) and rows[y]:
                y += 1
            cols = np.flatnonzero(ink[y0:y].any(axis=0))
            x0, x1 = float(cols[0]), float(cols[-1] + 1)
            quads.append(np.array([[x0, y0], [x1, y0], [x1, y], [x0, y]], np.float32))
        return quads

    def recognize(self, image, quads):
        self.recognized += len(quads)
        ink = image.mean(axis=2) < 128
        out = []
        for q in quads:
            x0, y0, x1, y1 = int(q[:, 0].min()), int(q[:, 1].min()), int(q[:, 0].max()), \
                int(q[:, 1].max())
            line = ink[y0:y1, x0:x1]
            digest = zlib.crc32(np.packbits(line).tobytes() + np.array(line.shape).tobytes())
            out.append(TextBox(f"{digest:08x}", (x0, y0, x1, y1), 0.99))
        return out

    def read(self, image):
        return self.recognize(image, self.detect(image))


class _WholeReader:
    """Only the `TextReader` Protocol: no separate steps."""

    def __init__(self):
        self.inner = _LineReader()

    def read(self, image):
        return self.inner.read(image)


def _slide(lines: list[str], number: int, inset: int | None = None) -> np.ndarray:
    img = Image.new("RGB", (W, H), (250, 248, 240))
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=22)
    for i, line in enumerate(lines):
        d.text((30, 30 + 40 * i), line, font=font, fill=(20, 20, 30))
    d.text((30, H - 30), f"Natural sciences  |  slide {number}", font=font, fill=(60, 60, 60))
    if inset is not None:  # a speaker moving in a camera inset: no text, lots of change
        d.rectangle([480, 150, 620, 300], fill=(90, 140, 90))
        d.ellipse([500 + inset, 170, 560 + inset, 230], fill=(210, 170, 140))
    return np.asarray(img)


def _deck() -> list[np.ndarray]:
    """Bullets appearing one by one, the inset moving, the slide number moving on, then
    a new slide: what a lecture's key frames look like."""
    title = "Photosynthesis"
    bullets = ["- light is absorbed by chlorophyll", "- water is split, oxygen released",
               "- carbon dioxide becomes sugar"]
    frames = [_slide([title, *bullets[:k]], 3, inset=0) for k in range(len(bullets) + 1)]
    frames += [_slide([title, *bullets], 3, inset=dx) for dx in (20, 40)]
    frames += [_slide([title, *bullets], 4, inset=40)]
    frames += [_slide(["The water cycle", "- evaporation", "- rain"], 5, inset=40)]
    return frames


def _read_all(frames, reader, options=None):
    times = StageTimes()
    screen = ScreenReader(reader, options, times)
    return [screen.read(f) for f in frames], times


def _texts(boxes):
    return [(b.text, round(b.box[1])) for b in boxes]


def test_only_changed_lines_are_recognised_and_the_text_is_the_whole_frames():
    frames = _deck()
    whole = [_LineReader().read(f) for f in frames]
    reader = _LineReader()
    read, times = _read_all(frames, reader)
    for got, expected in zip(read, whole):
        assert _texts(got) == _texts(expected)
    every = sum(len(w) for w in whole)
    assert times.counts["ocr_lines_recognized"] == reader.recognized < 0.5 * every
    assert times.counts["ocr_lines_kept"] == every - reader.recognized
    assert times.counts["ocr_frames"] == len(frames)


def test_a_changed_digit_is_read_again():
    frames = [_slide(["Title", "- one"], 3), _slide(["Title", "- one"], 4)]
    reader = _LineReader()
    read, times = _read_all(frames, reader)
    assert _texts(read[1]) == _texts(_LineReader().read(frames[1])) != _texts(read[0])
    assert times.counts["ocr_lines_recognized"] == 3 + 1  # the footer only, the second time


def test_a_frame_whose_lines_all_match_is_not_recognised():
    frame = _slide(["Title", "- one"], 1)
    reader = _LineReader()
    read, times = _read_all([frame, frame.copy()], reader)
    assert read[1] == read[0] and reader.recognized == 3
    assert times.counts["ocr_frames_unchanged"] == 1


def test_a_reader_with_one_step_reads_every_frame_whole():
    frames = _deck()[:3]
    reader = _WholeReader()
    read, times = _read_all(frames, reader)
    assert [_texts(r) for r in read] == [_texts(_LineReader().read(f)) for f in frames]
    assert times.counts["ocr_whole_frames"] == 3


def test_large_frames_are_read_at_the_capped_size_in_frame_pixels():
    frame = np.asarray(Image.fromarray(_deck()[3]).resize((1920, 1080)))
    boxes, _ = _read_all([frame], _LineReader(), ScreenOptions(max_side=960))
    import cv2

    small = _LineReader().read(cv2.resize(frame, (960, 540), interpolation=cv2.INTER_AREA))
    assert [b.box[1] for b in boxes[0]] == pytest.approx([2 * b.box[1] for b in small])
    assert [b.text for b in boxes[0]] == [b.text for b in small]


@pytest.mark.slow
def test_real_ocr_reads_changed_lines_only_and_the_same_text():
    import difflib

    from memory.models import RapidOCRReader
    from memory.store.pipeline import ocr_text

    frames = _deck()
    ocr = RapidOCRReader()
    whole = [ocr_text(ocr.read(f)) for f in frames]
    read, times = _read_all(frames, ocr)
    for got, expected in zip([ocr_text(r) for r in read], whole):
        assert len(got.splitlines()) == len(expected.splitlines()), (got, expected)
        assert difflib.SequenceMatcher(None, got, expected).ratio() > 0.97, (got, expected)
    assert "slide 4" in ocr_text(read[-2]) and "carbon dioxide becomes sugar" in whole[-2]
    assert times.counts["ocr_lines_kept"] > times.counts["ocr_lines_recognized"] / 2
