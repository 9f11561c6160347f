"""A question, read once: what it is about, what it asks for, the names and time it holds.

The bottom of `memory.answering`: every ranker, the pipeline and the reply writer read
the same `Question` instead of parsing the text again for each unit they score. The
word-level tests it is made from live in `memory.answering.words` (what a question asks
for) and `memory.timeparse` (its time phrase); what each part is for is in
``docs/answers.md`` ("How a question is answered").
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.answering.words import (
    asked_kind,
    clause_terms,
    content_terms,
    counted_term,
    question_names,
    question_type,
)
from memory.timeparse import TimeFilter, parse_time

__all__ = ["Question"]


@dataclass(frozen=True)
class Question:
    """``text`` parsed: ``terms`` (its content terms, stemmed, each once, in order),
    ``wanted`` (what it asks for: "number", "person", ... or None), ``kind`` (whether it
    asks what was said or shown, or None), ``clause`` (the terms of a relative clause that
    ends it), ``names`` (its names, each as its terms), ``counted`` (what a "how many"
    counts) and, when parsed with the time it is asked at, ``time`` (its time phrase) and
    ``asks_more`` (whether it asks about anything besides that time)."""

    text: str
    terms: tuple[str, ...]
    wanted: str | None
    kind: str | None
    clause: frozenset[str]
    names: tuple[tuple[str, ...], ...]
    counted: str | None
    time: TimeFilter | None = None
    asks_more: bool = True

    @classmethod
    def parse(cls, text: str, now: float | None = None, recent: float = 60.0) -> Question:
        """Read ``text``; with ``now`` (the media time it is asked at) also its time
        phrase, relative phrases ("just now") read against ``now`` and ``recent``."""
        time = asks_more = None
        if now is not None:
            time = parse_time(text, now=now, recent=recent)
            asks_more = bool(content_terms(time.query or text))
        return cls(text, tuple(dict.fromkeys(content_terms(text))), question_type(text),
                   asked_kind(text), frozenset(clause_terms(text)),
                   tuple(question_names(text)), counted_term(text), time,
                   True if asks_more is None else asks_more)

    @classmethod
    def of(cls, question: str | Question) -> Question:
        """``question`` as a `Question` (parsed when it is still text)."""
        return question if isinstance(question, Question) else cls.parse(question)

    @property
    def query(self) -> str:
        """What is left to search for once the time phrase is taken out."""
        return (self.time.query if self.time is not None else "") or self.text
