"""Splitting an utterance into short speakable pieces (sentences, then clauses).

Bottom of `venus.speech`: pure text functions. The speech output synthesizes one piece at
a time, before it plays, so a stop never wastes synthesis of text nobody will hear and the
first audio of a long answer is ready after one short piece, not the whole text; live, the
first piece is cut shorter still (``first_words``) so its audio is ready within ~0.2 s.
"""

from __future__ import annotations

import re

__all__ = ["split_pieces"]

_SENTENCE = re.compile(r"(?<=[.!?;:])\s+")
_CLAUSE = re.compile(r"(?<=,)\s+")


def split_pieces(text: str, max_words: int = 14, first_words: int | None = None) -> list[str]:
    """Sentences of ``text``; a sentence longer than ``max_words`` is cut at its commas,
    and a clause still longer than that into runs of ``max_words`` words. With
    ``first_words``, a first piece longer than that is cut at its first comma within that
    many words, else after them."""
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
    pieces = [p for p in pieces if p.strip()]
    return _short_first(pieces, first_words) if pieces and first_words else pieces


def _short_first(pieces: list[str], n: int) -> list[str]:
    words = pieces[0].split()
    if len(words) <= n:
        return pieces
    cut = next((i + 1 for i, w in enumerate(words[:n]) if w.endswith(",")), n)
    return [" ".join(words[:cut]), " ".join(words[cut:]), *pieces[1:]]
