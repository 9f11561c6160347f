"""Lexical retrieval: an incremental BM25 index and reciprocal rank fusion.

Dense embeddings blur names, numbers and rare terms ("Zanzibar", "42 kelvin"); BM25 over
transcript and slide text catches them. Written here in numpy rather than taken from
``bm25s``/``rank-bm25`` because those build a frozen index over a whole corpus, while a
live memory adds a document every few seconds: this index appends postings in O(terms)
and scores a query from the postings of its terms only. Ids follow the store's
time-ordered ids, so ``id_range`` gives the same causal filter as the vector index.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["BM25Index", "BM25Options", "reciprocal_rank_fusion", "tokenize"]

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them", "then", "there", "these", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your", "about", "after", "before", "said", "say", "says", "tell", "told"]
)


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric terms without stop words, with plural 's' folded."""
    out = []
    for word in _WORD.findall(text.lower()):
        if word in _STOP:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


@dataclass
class BM25Options:
    k1: float = 1.2
    b: float = 0.75


class BM25Index:
    """Okapi BM25 over documents added one at a time under caller-chosen int ids."""

    def __init__(self, options: BM25Options | None = None) -> None:
        self.options = options or BM25Options()
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self._ids: list[int] = []
        self._lengths: list[int] = []
        self._alive = np.zeros(0, dtype=bool)  # grown by doubling: cheap appends, O(1) reads
        self._row_of: dict[int, int] = {}
        self._total = 0

    def __len__(self) -> int:
        return len(self._row_of)

    def add(self, doc_id: int, text: str) -> None:
        """Index ``text`` under ``doc_id`` (ids must be new)."""
        if doc_id in self._row_of:
            raise ValueError(f"document {doc_id} is already indexed; remove it first")
        row = len(self._ids)
        terms = tokenize(text)
        counts: dict[str, int] = defaultdict(int)
        for t in terms:
            counts[t] += 1
        for term, tf in counts.items():
            self._postings[term].append((row, tf))
        self._ids.append(int(doc_id))
        self._lengths.append(len(terms))
        if row >= len(self._alive):
            self._alive = np.concatenate([self._alive, np.zeros(max(64, row), dtype=bool)])
        self._alive[row] = True
        self._row_of[int(doc_id)] = row
        self._total += len(terms)

    def remove(self, doc_ids: Iterable[int]) -> int:
        removed = 0
        for doc_id in doc_ids:
            row = self._row_of.pop(int(doc_id), None)
            if row is not None:
                self._alive[row] = False
                self._total -= self._lengths[row]
                removed += 1
        return removed

    def search(self, query: str, k: int,
               id_range: tuple[int, int] | None = None) -> list[tuple[int, float]]:
        """The ``k`` best ``(id, score)`` pairs with a positive score, best first."""
        scores = self.scores(query, id_range)
        if not scores:
            return []
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return ranked[:k]

    def score_text(self, query: str, text: str) -> float:
        """BM25 of a document that is not indexed (the open window), with this corpus's
        statistics, so it ranks on the same scale as indexed documents."""
        n = max(len(self), 1)
        avg = max(self._total / n, 1e-9) if len(self) else 1.0
        terms = tokenize(text)
        k1, b = self.options.k1, self.options.b
        score = 0.0
        for term in set(tokenize(query)):
            tf = terms.count(term)
            if not tf:
                continue
            df = sum(self._alive[r] for r, _ in self._postings.get(term, ()))
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            score += idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len(terms) / avg))
        return score

    def scores(self, query: str, id_range: tuple[int, int] | None = None) -> dict[int, float]:
        n = len(self)
        if n == 0:
            return {}
        avg = max(self._total / n, 1e-9)
        k1, b = self.options.k1, self.options.b
        lengths = np.asarray(self._lengths, dtype=np.float64)
        total = np.zeros(len(self._ids))
        lengths = lengths[: len(self._ids)]
        for term in set(tokenize(query)):
            posting = self._postings.get(term)
            if not posting:
                continue
            rows, tfs = np.asarray(posting, dtype=np.int64).T
            alive = self._alive[rows]
            rows, tfs = rows[alive], tfs[alive].astype(np.float64)
            if rows.size == 0:
                continue
            idf = math.log(1.0 + (n - rows.size + 0.5) / (rows.size + 0.5))
            norm = tfs + k1 * (1.0 - b + b * lengths[rows] / avg)
            total[rows] += idf * tfs * (k1 + 1.0) / norm
        hit = np.flatnonzero(total > 0)
        ids = np.asarray(self._ids)[hit]
        if id_range is not None:
            keep = (ids >= id_range[0]) & (ids < id_range[1])
            hit, ids = hit[keep], ids[keep]
        return dict(zip(ids.tolist(), total[hit].tolist()))


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = 60,
                           weights: Sequence[float] | None = None) -> list[tuple[int, float]]:
    """Fuse ranked id lists: score(id) = sum of weight / (k + rank); best first.

    RRF needs no score calibration between BM25 and cosine similarity, which is why it is
    the standard way to combine them (Cormack et al., 2009).
    """
    weights = weights or [1.0] * len(rankings)
    fused: dict[int, float] = defaultdict(float)
    for ranking, weight in zip(rankings, weights):
        for rank, doc_id in enumerate(ranking):
            fused[int(doc_id)] += weight / (k + rank + 1)
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
