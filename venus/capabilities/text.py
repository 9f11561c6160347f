"""Extractive text helpers for the built-in capabilities: sentences, salience, time labels.

Plain Python on purpose: summaries and quizzes are *extractive* (sentences taken from the
memory's own chunk summaries and transcripts, with their times), so they are fast,
deterministic, cite their sources and never invent content.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from venus.harness.context import MemoryMoment

__all__ = ["Sentence", "clock_label", "content_words", "rank_sentences", "sentences_of"]

_STOPWORDS = frozenset("""
a about above after again all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers him his how i if in into is it its itself just let me
more most my no nor not now of off on once only or other our out over own same she should so
some such than that the their them then there these they this those through to too under
until up us very was we were what when where which while who whom why will with would you
your yours yes okay ok um uh like really thing things going get got one two
""".split())


@dataclass(frozen=True)
class Sentence:
    text: str
    start: float
    end: float
    keyframe: str | None = None


def content_words(text: str) -> list[str]:
    """Lower-case words of three or more letters that carry meaning (not stopwords)."""
    return [w for w in re.findall(r"[a-z0-9][a-z0-9'-]*", text.lower())
            if len(w) > 2 and w not in _STOPWORDS]


def sentences_of(moments: Iterable[MemoryMoment]) -> list[Sentence]:
    """Every distinct sentence of the moments' summaries and transcripts, in time order."""
    seen: set[str] = set()
    out: list[Sentence] = []
    for m in moments:
        for source in (m.text, m.transcript):
            for piece in re.split(r"(?<=[.!?])\s+|\n+", source or ""):
                piece = piece.strip()
                key = piece.lower()
                if len(content_words(piece)) >= 2 and key not in seen:
                    seen.add(key)
                    out.append(Sentence(piece, m.start, m.end, m.keyframe))
    return out


def rank_sentences(sentences: Sequence[Sentence], n: int) -> list[Sentence]:
    """The ``n`` most central sentences (word-frequency score, near-duplicates skipped),
    returned in time order."""
    freq = Counter(w for s in sentences for w in set(content_words(s.text)))
    scored = sorted(range(len(sentences)), key=lambda i: (-_score(sentences[i], freq), i))
    chosen: list[int] = []
    for i in scored:
        words = set(content_words(sentences[i].text))
        if all(_jaccard(words, set(content_words(sentences[j].text))) < 0.6 for j in chosen):
            chosen.append(i)
        if len(chosen) == n:
            break
    return [sentences[i] for i in sorted(chosen)]


def clock_label(seconds: float) -> str:
    """``83.0 -> "1:23"``, ``3725 -> "1:02:05"``."""
    total = int(seconds)
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _score(sentence: Sentence, freq: Counter) -> float:
    words = content_words(sentence.text)
    return sum(freq[w] for w in set(words)) / math.sqrt(len(words)) if words else 0.0


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0
