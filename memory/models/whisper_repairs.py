"""Repairs of a Whisper decode, all deterministic: runs of a repeated n-gram (a decoding
loop) cut to one, Whisper's stock sign-off hallucinations ("Thank you for watching", ...)
dropped, and how repetitive a decode is (the score `memory.models.asr` compares a beam
search against, for a window whose output still loops).

Model layer, beside `memory.models.asr` (which decodes and calls these on its segments).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Piece", "loops", "repaired", "repetition"]

_LOOP_RATIO = 2.4                             # gzip compression ratio of a looping text
_LOOP_RUN = 3                                 # an n-gram (n >= 2) said 3 times running loops
_LOOP_RUN_1 = 4                               # a single word, 4 times running
_MAX_NGRAM = 12
_HALLUCINATIONS = tuple(tuple(p.split()) for p in (
    "thank you for watching", "thanks for watching", "thank you so much for watching",
    "see you in the next video", "see you next time", "please subscribe",
    "like and subscribe", "subscribe to my channel", "subtitles by the amara org community",
))
"""Whisper's stock sign-offs (learnt from video subtitles), dropped wherever they occur."""


@dataclass(frozen=True)
class Piece:
    """A Whisper segment as `memory.models.asr` reads it (text, times, words, scores)."""

    text: str
    start: float
    end: float
    words: list[Any]
    compression_ratio: float = 1.0


def _key(word: Any) -> str:
    return "".join(ch for ch in word.word.lower() if ch.isalnum())


def _runs(keys: list[str]) -> list[tuple[int, int, int]]:
    """(start, n, repeats) of every maximal run of an n-gram said `_LOOP_RUN`+ times running
    (a single word: `_LOOP_RUN_1` times), longest spans first, not overlapping."""
    found: list[tuple[int, int, int]] = []
    taken = [False] * len(keys)
    for n in range(1, min(_MAX_NGRAM, len(keys) // 2) + 1):
        need = _LOOP_RUN_1 if n == 1 else _LOOP_RUN
        i = 0
        while i + n * need <= len(keys):
            r = 1
            while keys[i + r * n:i + (r + 1) * n] == keys[i:i + n]:
                r += 1
            if r >= need and any(keys[i:i + n]) and not any(taken[i:i + r * n]):
                found.append((i, n, r))
                taken[i:i + r * n] = [True] * (r * n)
                i += r * n
            else:
                i += 1
    return found


def loops(segment: Any) -> bool:
    return segment.compression_ratio > _LOOP_RATIO or bool(
        _runs([_key(w) for w in (segment.words or [])]))


def repetition(segments: list[Any]) -> float:
    """How much of the words a decode repeated (after repairs): the looping score."""
    words = [_key(w) for s in segments for w in (s.words or [])]
    if not words:
        return 0.0
    return 1.0 - len(set(words)) / len(words)


def repaired(segment: Any) -> Any:
    """``segment`` with loops cut to one occurrence and stock hallucinations dropped."""
    words = list(segment.words or [])
    if not words:
        text = segment.text
        return segment if not _hallucination(text.lower().split()) else \
            Piece("", segment.start, segment.end, [])
    keys = [_key(w) for w in words]
    drop = [False] * len(words)
    for start, n, repeats in _runs(keys):
        drop[start + n:start + n * repeats] = [True] * (n * (repeats - 1))
    for i in range(len(words)):
        for phrase in _HALLUCINATIONS:
            if tuple(keys[i:i + len(phrase)]) == phrase:
                drop[i:i + len(phrase)] = [True] * len(phrase)
    if not any(drop):
        return segment
    kept = [w for w, d in zip(words, drop) if not d]
    return Piece("".join(w.word for w in kept), segment.start, segment.end, kept)


def _hallucination(tokens: list[str]) -> bool:
    keys = tuple("".join(ch for ch in t if ch.isalnum()) for t in tokens)
    return any(keys[i:i + len(p)] == p for p in _HALLUCINATIONS for i in range(len(keys)))
