"""Evidence units: the sentences said and the lines shown in a run of chunks.

A segment is too coarse to quote (20-30 s of speech and a whole slide); its units are
what an answer quotes. Sentences come from the words Whisper timed (cut at sentence
punctuation, a pause, a capitalised opener, or a length limit; a sentence a segment
boundary cuts is said whole by the next segment), lines from the OCR of each key frame on
screen during the segment, each with the stretch that key frame was up. Pure functions
over `ChunkRecord`s, used when a segment closes and for the open stretch at question time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.evidence import SAID, SEEN, SHOWN, Evidence
from memory.models.base import Word
from memory.store.records import ChunkRecord, UnitRecord

__all__ = ["build_units", "sentences", "stitched", "template", "to_evidence",
           "trailing_fragment"]

_END = re.compile(r"[.!?]['\")\]]*$")
_BULLET = re.compile(r"^\s*(?:[-*•·–—>]|\d+[.)])\s+")
MAX_WORDS = 30
LONG_RUN = 20
MIN_CLAUSE = 4
PAUSE_S = 1.0
_OPENERS = frozenset(
    "the a an it its in on at this these those they there their he she we our as when where "
    "while some most many only every each all today then so but if after before one two "
    "three".split())


def template(text: str) -> str:
    """Lower case, digits masked, spaces collapsed: 'Slide 3 | Tour' -> 'slide # | tour'."""
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def _groups(words: Sequence[Word]) -> list[list[Word]]:
    """Words grouped into sentences.

    Whisper tiny often leaves sentences unpunctuated, so besides ``.!?`` a sentence also
    ends before an unpunctuated capitalised opener ("... in air It moves ..."), at a pause
    of ``PAUSE_S`` or more, and after ``MAX_WORDS`` words. Shorter pauses say nothing:
    Whisper's word times run words together across sentence gaps, and the gaps after
    commas inside and between sentences were alike (median 0.33 s vs 0.47 s, measured).
    """
    out: list[list[Word]] = []
    current: list[Word] = []
    for w in words:
        token = w.text.strip()
        if not token:
            continue
        if current:
            prev = current[-1].text.strip()
            opener = token[:1].isupper() and token.lower() in _OPENERS and \
                not prev.endswith((",", ";", ":"))
            if w.start - current[-1].end >= PAUSE_S or opener or len(current) >= MAX_WORDS:
                out.append(current)
                current = []
        current.append(w)
        if _END.search(token):
            out.append(current)
            current = []
    if current:
        out.append(current)
    return [piece for g in out for piece in _clauses(g)]


def _clauses(group: list[Word]) -> list[list[Word]]:
    """A long run joined by commas ("..., the sun heats oceans, and ..., as it cools and
    condenses into clouds,") is cut at its commas, clauses of under ``MIN_CLAUSE`` words
    kept with the next: Whisper tiny writes some sentence ends as commas."""
    if len(group) <= LONG_RUN:
        return [group]
    out: list[list[Word]] = []
    current: list[Word] = []
    for w in group:
        current.append(w)
        if w.text.strip().endswith(",") and len(current) >= MIN_CLAUSE:
            out.append(current)
            current = []
    if current:
        if out and len(current) < MIN_CLAUSE:
            out[-1] += current
        else:
            out.append(current)
    return out


def sentences(words: Sequence[Word]) -> list[tuple[str, float, float]]:
    """(text, start, end) of each sentence in ``words`` (time order)."""
    return [s for s in (_sentence(g) for g in _groups(words)) if s[0]]


def trailing_fragment(words: Sequence[Word]) -> tuple[Word, ...]:
    """The words of a last sentence that ``words`` leave unfinished (no ``.!?``): a
    segment cut inside a sentence hands them to the next segment, which says them whole
    (and the fragment is dropped from the first; see `stitched`)."""
    groups = _groups(words)
    if not groups or _END.search(groups[-1][-1].text.strip()):
        return ()
    return tuple(groups[-1])


def stitched(units: Sequence[UnitRecord], carry: Sequence[Word]) -> float | None:
    """The start of the previous segment's fragment when ``units`` (cut with ``carry``)
    begin with it said whole; None when the fragment stayed a sentence of its own."""
    if not carry or not units or units[0].kind != SAID:
        return None
    return carry[0].start if abs(units[0].start - carry[0].start) < 1e-6 else None


def _sentence(words: list[Word]) -> tuple[str, float, float]:
    text = " ".join(w.text.strip() for w in words).rstrip(",;: ")
    return re.sub(r"\s+([,.;:!?%])", r"\1", text), words[0].start, words[-1].end


def _screens(chunks: Sequence[ChunkRecord]):
    """Runs of chunks showing one key frame: (keyframe_id, ocr_text, caption, start, end)."""
    runs: list[list] = []
    for c in chunks:
        if runs and runs[-1][0] == c.keyframe_id:
            runs[-1][4] = c.end
        else:
            runs.append([c.keyframe_id, c.ocr_text, c.caption, c.start, c.end])
    return runs


def build_units(chunks: Sequence[ChunkRecord], segment_id: int | None = None,
                carry: Sequence[Word] = ()) -> list[UnitRecord]:
    """Every sentence said in ``chunks`` (the first completed with ``carry``, the previous
    segment's unfinished sentence), and every line shown (or caption) for as long as it
    stays on screen (bullet marks dropped)."""
    words = [*carry, *(w for c in chunks for w in c.words)]
    carried_to = carry[-1].end if carry else float("-inf")
    units = [UnitRecord(SAID, text, start, end, template(text), None, segment_id)
             for text, start, end in sentences(words) if end > carried_to]
    showing: dict[tuple[str, str], UnitRecord] = {}  # lines of the previous key frame
    for keyframe_id, ocr, caption, start, end in _screens(chunks):
        lines = [(SHOWN, _BULLET.sub("", line).strip()) for line in ocr.splitlines()
                 if _BULLET.sub("", line).strip()]
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
