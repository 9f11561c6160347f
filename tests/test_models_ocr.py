"""The embedded rapidocr reader, for real, on frames rendered with PIL."""

import difflib
import logging

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from memory.models import RapidOCRReader, TextBox, TextReader
from memory.models.ocr import reading_order

TITLE = "Photosynthesis and the Calvin cycle"
BULLET = "Light reactions make ATP and NADPH"


@pytest.fixture(scope="module")
def reader():
    return RapidOCRReader()


def _frame(lines, background=(255, 255, 255)):
    """A 640x360 RGB frame with each (text, (x, y), size, colour) drawn on it."""
    image = Image.new("RGB", (640, 360), background)
    draw = ImageDraw.Draw(image)
    for text, xy, size, colour in lines:
        draw.text(xy, text, font=ImageFont.load_default(size=size), fill=colour)
    return np.asarray(image)


def _matches(expected: str, found: str) -> bool:
    words = found.lower().split()
    return all(difflib.get_close_matches(w.lower(), words, n=1, cutoff=0.75)
               for w in expected.split())


def test_reads_a_slide_title_and_bullet_in_order(reader):
    frame = _frame([(TITLE, (40, 40), 32, (0, 0, 0)),
                    ("\u2022 " + BULLET, (60, 150), 24, (20, 20, 120))])
    boxes = reader.read(frame)
    assert isinstance(reader, TextReader)
    assert len(boxes) == 2
    assert _matches(TITLE, boxes[0].text) and _matches(BULLET, boxes[1].text)
    for box in boxes:
        x0, y0, x1, y1 = box.box
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 360 and 0.5 <= box.confidence <= 1
    assert boxes[0].box[1] < 80 < boxes[1].box[1]


def test_reads_light_text_on_a_dark_coloured_background(reader):
    frame = _frame([("Quiz on Friday", (60, 160), 36, (255, 230, 0))], background=(20, 40, 160))
    boxes = reader.read(frame)
    assert len(boxes) == 1 and _matches("Quiz on Friday", boxes[0].text)


def test_blank_frame_gives_nothing_and_prints_nothing(reader, capfd, caplog):
    with caplog.at_level(logging.DEBUG):
        assert reader.read(np.full((360, 640, 3), 255, np.uint8)) == []
    out, err = capfd.readouterr()  # file descriptors: rapidocr's handler holds the real stderr
    assert out == "" and err == ""
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_rejects_images_that_are_not_rgb_uint8(reader):
    with pytest.raises(ValueError, match="RGB uint8"):
        reader.read(np.zeros((360, 640), np.uint8))
    with pytest.raises(ValueError, match="RGB uint8"):
        reader.read(np.zeros((360, 640, 3), np.float32))


def test_reading_order_is_top_to_bottom_then_left_to_right():
    right = TextBox("right", (300, 102, 400, 122), 0.9)
    left = TextBox("left", (10, 100, 100, 120), 0.9)
    top = TextBox("top", (200, 10, 300, 40), 0.9)
    below = TextBox("below", (10, 140, 100, 160), 0.9)
    assert [b.text for b in reading_order([below, right, left, top])] == [
        "top", "left", "right", "below"]
