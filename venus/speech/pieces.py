"""Splitting an utterance into short speakable pieces (sentences, then clauses).

Bottom of `venus.speech`: pure text functions. The speech output synthesizes one piece at
a time, just before it plays, so a stop never wastes synthesis of text nobody will hear
and the first audio of a long answer is ready after one short piece, not the whole text.
"""

from __future__ import annotations

import re

__all__ = ["split_pieces"]

_SENTENCE = re.compile(r"(?<=[.!?;:])\s+")
_CLAUSE = re.compile(r"(?<=,)\s+")


def split_pieces(text: str, max_words: int = 14) -> list[str]:
    """Sentences of ``text``; a sentence longer than ``max_words`` is cut at its commas,
    and a clause still longer than that into runs of ``max_words`` words."""
    pieces: list[str] = []
    for sentence in _SENTENCE.split(" ".join(text.split())):
        if not sentence:
            continue
        if len(sentence.split()) <= max_words:
            pieces.append(sentence)
            continue
        for clause in _CLAUSE.split(sentence):
            words = clause.split()
            pieces.extend(" ".join(words[i:i + max_words]) for i in range(0, len(words), max_words))
    return [p for p in pieces if p.strip()]
