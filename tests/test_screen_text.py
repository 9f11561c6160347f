"""OCR boxes to screen lines: a bullet wrapped over two rows is one line of the slide."""

from memory.models.base import TextBox
from memory.store.screen_text import ocr_text


def box(text, x0, y0, height=20.0, width=300.0, confidence=0.9):
    return TextBox(text, (x0, y0, x0 + width, y0 + height), confidence)


def test_a_wrapped_bullet_is_one_line():
    # the violin slide of the benchmark's dev4 lecture, as rapidocr boxed it
    boxes = [box("The Violin", 25, 22, height=30),
             box("- Four strings and a bow", 38, 110),
             box("- Niccolo Paganini played so fast that people said he had sold", 38, 236),
             box("his soul", 46, 268, width=60),
             box("Inventions, Trade and the Arts | slide 13", 25, 330, height=16)]
    assert ocr_text(boxes).splitlines() == [
        "The Violin", "- Four strings and a bow",
        "- Niccolo Paganini played so fast that people said he had sold his soul",
        "Inventions, Trade and the Arts | slide 13"]


def test_a_bullet_wrapped_over_three_rows_is_one_line():
    boxes = [box("- A single bulb was offered for", 38, 100),
             box("10000 guilders, more than a", 46, 130),
             box("house in Amsterdam", 46, 160)]
    assert ocr_text(boxes) == \
        "- A single bulb was offered for 10000 guilders, more than a house in Amsterdam"


def test_separate_lines_stay_apart():
    # bullets and list rows that start upper case, a sentence that ended, a title above
    # smaller text, a row far to the right, a row a paragraph below
    cases = [
        [box("- Under the sea", 38, 100), box("- three tunnels", 38, 130)],
        [box("Under the sea", 38, 100), box("Three tunnels", 38, 130)],
        [box("The wall was finished.", 38, 100), box("later it was rebuilt", 38, 130)],
        [box("Opera", 25, 20, height=40), box("born in Italy", 25, 64)],
        [box("Chapter one of", 38, 100), box("page 4", 420, 130)],
        [box("Chapter one of", 38, 100), box("the story", 38, 170)],
        [box("Chapter one of", 38, 100), box("1. the story", 38, 130)],
    ]
    for boxes in cases:
        assert len(ocr_text(boxes).splitlines()) == 2, boxes


def test_unsure_and_empty_boxes_are_dropped():
    boxes = [box("Kept", 10, 10), box("noise", 10, 40, confidence=0.2), box("  ", 10, 70)]
    assert ocr_text(boxes) == "Kept"
