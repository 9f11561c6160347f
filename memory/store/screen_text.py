"""From OCR boxes to the lines a screen means: one line per bullet, however it wrapped.

OCR reads rows of pixels: a bullet too long for the slide comes back as two or three
boxes, the second one "his soul" under "- Niccolo Paganini played so fast that people
said he had sold". As separate lines neither half answers "Which violinist was said to
have sold his soul?" (the name is in one, the fact in the other), and the tail is
quoted alone. A row continues the line above it when it looks set as one paragraph with
it (the same text size, the next row down, starting under the line's text) and reads as
the rest of a sentence: it starts in lower case, or the line above stops on a word that
cannot end one ("for", "the", a comma), and neither the line above ends a sentence nor
the row starts a bullet or a numbered item of its own.
"""

from __future__ import annotations

import re

from memory.models.base import TextBox

__all__ = ["ocr_text"]

_OPEN_END = frozenset({"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of",
                       "on", "or", "than", "that", "the", "to", "with"})
_MARKER = re.compile(r"^\s*(?:[-\u2013\u2014\u2022\u00b7*>o]\s|\d+[.)]\s|[a-z][.)]\s)")
_CLOSED = re.compile(r"[.!?:;]['\")\u201d]?\s*$")

SAME_SIZE = 1.35
"""Two rows of one paragraph: their heights differ by at most this factor."""
ROW_GAP = 0.9
"""... the next row starts at most this many line heights below the last one's bottom."""


def ocr_text(boxes: list[TextBox], min_confidence: float = 0.5) -> str:
    """The screen's lines in reading order (top to bottom, then left to right), one per
    line of text, a bullet wrapped over several rows joined into one line."""
    kept = [b for b in boxes if b.confidence >= min_confidence and b.text.strip()]
    kept.sort(key=lambda b: (round(b.box[1] / 12), b.box[0]))
    lines: list[tuple[str, TextBox, TextBox]] = []  # (text, its first row, its last row)
    for b in kept:
        text = b.text.strip()
        if lines and _continues(*lines[-1], text, b):
            joined, first, _ = lines[-1]
            lines[-1] = (f"{joined} {text}", first, b)
        else:
            lines.append((text, b, b))
    return "\n".join(text for text, _, _ in lines)


def _continues(line: str, first: TextBox, last: TextBox, text: str, row: TextBox) -> bool:
    """Is ``row`` (reading ``text``) the next row of ``line`` (first and last rows given)?"""
    x0, _, _, _ = first.box
    _, ly0, _, ly1 = last.box
    rx0, ry0, _, ry1 = row.box
    height, row_height = ly1 - ly0, ry1 - ry0
    if height <= 0 or row_height <= 0 or max(height, row_height) > \
            SAME_SIZE * min(height, row_height):
        return False
    if not (ry0 > ly0 + 0.5 * height and ry0 - ly1 <= ROW_GAP * height):
        return False  # not the next row down
    if not (x0 - 0.5 * height <= rx0 <= x0 + 2.0 * height):
        return False  # not under the line's text
    if _CLOSED.search(line) or _MARKER.match(text):
        return False
    last_word = line.rsplit(None, 1)[-1].lower()
    return text[:1].islower() or last_word.endswith(",") or last_word in _OPEN_END
