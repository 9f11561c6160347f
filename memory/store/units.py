"""Evidence units: the sentences said and the lines shown in a run of chunks.

A segment is too coarse to quote (20-30 s of speech and a whole slide); its units are
what an answer quotes. Sentences come from the words Whisper timed (cut at sentence
punctuation, a long pause, or a length limit), lines from the OCR of each key frame on
screen during the segment, each with the stretch that key frame was up. Pure functions
over `ChunkRecord`s, used when a segment closes and for the open stretch at question time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.evidence import SAID, SEEN, SHOWN, Evidence
from memory.models.base import Word
from memory.store.records import ChunkRecord, UnitRecord

__all__ = ["build_units", "sentences", "template", "to_evidence"]

_END = re.compile(r"[.!?]['\")\]]*$")
MAX_WORDS = 40
PAUSE_S = 1.5


def template(text: str) -> str:
    """Lower case, digits masked, spaces collapsed: 'Slide 3 | Tour' -> 'slide # | tour'."""
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def sentences(words: Sequence[Word]) -> list[tuple[str, float, float]]:
    """(text, start, end) of each sentence in ``words`` (time order)."""
    out, current = [], []
    for w in words:
        token = w.text.strip()
        if not token:
            continue
        if current and (w.start - current[-1].end > PAUSE_S or len(current) >= MAX_WORDS):
            out.append(_sentence(current))
            current = []
        current.append(w)
        if _END.search(token):
            out.append(_sentence(current))
            current = []
    if current:
        out.append(_sentence(current))
    return [s for s in out if s[0]]


def _sentence(words: list[Word]) -> tuple[str, float, float]:
    text = " ".join(w.text.strip() for w in words)
    return re.sub(r"\s+([,.;:!?])", r"\1", text), words[0].start, words[-1].end


def _screens(chunks: Sequence[ChunkRecord]):
    """Runs of chunks showing one key frame: (keyframe_id, ocr_text, caption, start, end)."""
    runs: list[list] = []
    for c in chunks:
        if runs and runs[-1][0] == c.keyframe_id:
            runs[-1][4] = c.end
        else:
            runs.append([c.keyframe_id, c.ocr_text, c.caption, c.start, c.end])
    return runs


def build_units(chunks: Sequence[ChunkRecord], segment_id: int | None = None) -> list[UnitRecord]:
    """Every sentence said in ``chunks``, and every line shown (or caption) for as long
    as it stays on screen."""
    words = [w for c in chunks for w in c.words]
    units = [UnitRecord(SAID, text, start, end, template(text), None, segment_id)
             for text, start, end in sentences(words)]
    showing: dict[tuple[str, str], UnitRecord] = {}  # lines of the previous key frame
    for keyframe_id, ocr, caption, start, end in _screens(chunks):
        lines = [(SHOWN, line.strip()) for line in ocr.splitlines() if line.strip()]
        if caption.strip():
            lines.append((SEEN, caption.strip()))
        now: dict[tuple[str, str], UnitRecord] = {}
        for kind, line in dict.fromkeys(lines):
            unit = showing.get((kind, line))
            if unit is not None:  # still on screen under a new key frame: one unit
                unit.end = end
            else:
                unit = UnitRecord(kind, line, start, end, template(line), keyframe_id,
                                  segment_id)
                units.append(unit)
            now[(kind, line)] = unit
        showing = now
    return units


def to_evidence(unit: UnitRecord, score: float = 0.0, boilerplate: bool = False) -> Evidence:
    return Evidence(unit.kind, unit.text, unit.start, unit.end, unit.segment_id, score,
                    boilerplate)
