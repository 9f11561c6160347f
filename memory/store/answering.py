"""From a question to an `Answer`: time phrase, retrieval, evidence, reply.

Runs inside one locked read of a `MemoryReader` on its internals, so the question is
embedded once and the store is passed through once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory.evidence import Answer
from memory.timeparse import parse_time

if TYPE_CHECKING:
    from memory.store.reader import MemoryReader

__all__ = ["answer_question"]


def answer_question(reader: MemoryReader, question: str, now: float, k: int) -> Answer:
    """Answer ``question`` asked at media time ``now`` from what ``reader`` holds by then."""
    window = parse_time(question, now=now, recent=reader.options.recent_s)
    start, end = window.start, window.end
    for topic, after in ((window.after_topic, True), (window.before_topic, False)):
        if topic:
            anchor = reader._search(topic, reader._embed([topic])[0], 1, now)
            if anchor:
                a = anchor[0]
                start, end = (a.end - 1.0, a.end + 180.0) if after else (a.start - 180.0,
                                                                          a.start)
    query = window.query or question
    vector = reader._embed([query])[0]
    hits = reader._search(query, vector, k, now, start, end)
    if not hits and (start is not None or end is not None):
        hits = reader._search(query, vector, k, now)
    if window.order is not None:  # "at the start" / "just now": the window's edge first
        hits.sort(key=lambda m: m.start, reverse=window.order == "latest")
    hits = [reader._captioned(m) for m in hits]
    recent = reader._recent(now)
    text = reader.models.answerer.answer(question, hits, recent)
    return Answer(question, text, tuple(hits), now, recent, (start, end))
