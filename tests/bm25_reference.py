"""Reference rankers for the lexical index tests (not a test module).

`OldBM25` is the hand-written incremental BM25 the memory used before its lexical index
moved to SQLite FTS5 (Lucene's idf, ``log(1 + (N - n + 0.5) / (n + 0.5))``), kept to
check that FTS5 ranks like it did. `fts5_reference` is FTS5's ``bm25()`` written out in
numpy over a whole corpus, the brute-force reference for the index itself.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from memory.lexical import tokenize


class OldBM25:
    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs: dict[int, list[str]] = {}

    def add(self, doc_id: int, text: str) -> None:
        self.docs[doc_id] = tokenize(text)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        n = len(self.docs)
        avg = sum(map(len, self.docs.values())) / max(n, 1)
        scores: dict[int, float] = {}
        for term in set(tokenize(query)):
            df = sum(term in d for d in self.docs.values())
            if not df:
                continue
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            for doc_id, terms in self.docs.items():
                tf = terms.count(term)
                if tf:
                    norm = tf + self.k1 * (1.0 - self.b + self.b * len(terms) / avg)
                    scores[doc_id] = scores.get(doc_id, 0.0) + idf * tf * (self.k1 + 1) / norm
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def fts5_reference(docs: dict[int, str], query: str, k1: float = 1.2,
                   b: float = 0.75) -> dict[int, float]:
    """FTS5's bm25 (negated: higher is better) of every document matching ``query``."""
    ids = sorted(docs)
    terms = [Counter(tokenize(docs[i])) for i in ids]
    lengths = np.array([sum(t.values()) for t in terms], dtype=float)
    avg = lengths.sum() / len(ids)
    total = np.zeros(len(ids))
    matched = np.zeros(len(ids), dtype=bool)
    for term in dict.fromkeys(tokenize(query)):
        tf = np.array([t.get(term, 0) for t in terms], dtype=float)
        hits = int((tf > 0).sum())
        if not hits:
            continue
        matched |= tf > 0
        idf = math.log((len(ids) - hits + 0.5) / (hits + 0.5))
        idf = idf if idf > 0 else 1e-6
        total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths / avg))
    return {i: float(s) for i, s, m in zip(ids, total, matched) if m}
