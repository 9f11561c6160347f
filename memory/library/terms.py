"""BM25 over a whole library's rows, in RAM: the lexical half of a library search.

FTS5 scores every row that holds any query term before it can sort them; over a library
of a thousand hours one common term is tens of thousands of rows, and a search spent most
of its time there (p95 over 100 ms at 1000 h). `TermIndex` holds the same terms
(`memory.lexical.index_terms` of each row's summary, exactly what the library's FTS5 table
stores) as numpy postings and computes FTS5's own ``bm25()`` (k1 1.2, b 0.75, FTS5's idf
with its 1e-6 floor, over every row of the level) with a few vector operations, so its
ranking is FTS5's: same rows, same order (ties by id), same scores to float rounding.
Id ranges (the videos asked about, each up to its cutoff) are applied to the postings
before scoring. The library keeps FTS5 as the store the index is rebuilt from.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from memory.index.faiss_index import normalize_ranges
from memory.lexical import tokenize
from memory.store.faults import discard

__all__ = ["TermIndex"]

K1, B = 1.2, 0.75
_FORMAT = 1
_COMPACT = 200_000  # pending postings turned into arrays at once past this many


class TermIndex:
    """Postings of one level: per term, the positions of the rows holding it and how
    often; per row, its id and length in terms. Rows are added in any id order."""

    def __init__(self) -> None:
        self._ids: list[np.ndarray] = []
        self._lengths: list[np.ndarray] = []
        self._n = 0
        self._tokens = 0
        # term -> (positions int32, counts uint16), plus rows added since (lists)
        self._post: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._pending: dict[str, tuple[list[int], list[int]]] = {}
        self._waiting = 0  # postings in _pending (Python lists: compacted past _COMPACT)
        self._flat: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return self._n

    @property
    def nbytes(self) -> int:
        """RAM of the postings and row arrays (pending rows not counted)."""
        return sum(p.nbytes + c.nbytes for p, c in self._post.values()) + \
            sum(a.nbytes for a in self._ids) + sum(a.nbytes for a in self._lengths)

    # -- building -----------------------------------------------------------------------
    def add(self, rows: Iterable[tuple[int, str]]) -> None:
        """Index ``(id, terms)`` rows (``terms``: the space-separated terms FTS5 stores)."""
        ids, lengths = [], []
        for row_id, terms in rows:
            words = terms.split()
            pos = self._n + len(ids)
            counts: dict[str, int] = {}
            for w in words:
                counts[w] = counts.get(w, 0) + 1
            self._waiting += len(counts)
            for w, c in counts.items():
                p = self._pending.get(w)
                if p is None:
                    p = self._pending[w] = ([], [])
                p[0].append(pos)
                p[1].append(c)
            ids.append(row_id)
            lengths.append(len(words))
        if ids:
            self._ids.append(np.asarray(ids, np.int64))
            self._lengths.append(np.asarray(lengths, np.int32))
            self._n += len(ids)
            self._tokens += int(sum(lengths))
            self._flat = None
        if self._waiting > _COMPACT:
            for term in list(self._pending):
                self._postings(term)
            self._waiting = 0

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, str]]) -> TermIndex:
        index, it = cls(), iter(rows)
        while batch := list(itertools.islice(it, 20_000)):
            index.add(batch)
        return index

    def _postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        pending = self._pending.pop(term, None)
        have = self._post.get(term)
        if pending is not None:
            pos, cnt = np.asarray(pending[0], np.int32), np.asarray(pending[1], np.uint16)
            have = (pos, cnt) if have is None else (np.concatenate([have[0], pos]),
                                                   np.concatenate([have[1], cnt]))
            self._post[term] = have
        return have

    def _rows(self) -> tuple[np.ndarray, np.ndarray]:
        if self._flat is None:
            ids = np.concatenate(self._ids) if self._ids else np.zeros(0, np.int64)
            lengths = np.concatenate(self._lengths) if self._lengths else np.zeros(0, np.int32)
            self._ids, self._lengths = [ids], [lengths]
            self._flat = (ids, lengths.astype(np.float64))
        return self._flat

    # -- searching ----------------------------------------------------------------------
    def search(self, query: str, k: int,
               id_range: tuple[int, int] | Sequence[tuple[int, int]] | None = None
               ) -> list[tuple[int, float]]:
        """The ``k`` best ``(id, bm25)`` rows in ``id_range`` (one ``[lo, hi)`` or a list
        of them; None: all), best first, ties by id: `TextIndex.search`'s answer."""
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms or not self._n or k <= 0:
            return []
        ids, lengths = self._rows()
        ranges = _ranges(id_range)
        avg = self._tokens / self._n
        positions, scores = [], []
        for term in terms:
            post = self._postings(term)
            if post is None:
                continue
            pos, tf = post[0], post[1].astype(np.float64)
            hits = len(pos)
            idf = math.log((self._n - hits + 0.5) / (hits + 0.5))
            idf = idf if idf > 0 else 1e-6
            if ranges is not None:
                keep = _inside(ids[pos], ranges)
                pos, tf = pos[keep], tf[keep]
            if not len(pos):
                continue
            norm = K1 * (1.0 - B + B * lengths[pos] / avg)
            positions.append(pos)
            scores.append(idf * (tf * (K1 + 1.0)) / (tf + norm))
        if not positions:
            return []
        pos = np.concatenate(positions)
        rows, inverse = np.unique(pos, return_inverse=True)
        total = np.bincount(inverse, weights=np.concatenate(scores), minlength=len(rows))
        row_ids = ids[rows]
        if len(rows) > k:  # a superset of the k best (ties at the border kept), then sort
            border = np.partition(-total, k - 1)[k - 1]
            keep = -total <= border
            total, row_ids = total[keep], row_ids[keep]
        order = np.lexsort((row_ids, -total))[:k]
        return [(int(row_ids[i]), float(total[i])) for i in order]

    # -- saving -------------------------------------------------------------------------
    def save(self, path: str | Path, version: str) -> None:
        """Write the index (atomically) with the store ``version`` it holds."""
        ids, lengths = self._rows()
        terms = sorted(set(self._post) | set(self._pending))
        parts = [self._postings(t) for t in terms]
        offsets = np.cumsum([0] + [len(p[0]) for p in parts]).astype(np.int64)
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        try:
            with open(tmp, "wb") as f:
                np.savez(f, format=np.int64(_FORMAT), version=np.str_(version), ids=ids,
                         lengths=lengths.astype(np.int32), terms=np.asarray(terms, dtype=str),
                         offsets=offsets,
                         positions=np.concatenate([p[0] for p in parts]) if parts else
                         np.zeros(0, np.int32),
                         counts=np.concatenate([p[1] for p in parts]) if parts else
                         np.zeros(0, np.uint16))
            tmp.replace(path)
        except BaseException:
            discard(tmp)  # a full disk leaves no half-written checkpoint behind
            raise

    @classmethod
    def load(cls, path: str | Path, version: str) -> TermIndex | None:
        """The index saved at ``path`` if it holds store ``version``, else None."""
        try:
            with np.load(path, allow_pickle=False) as z:
                if int(z["format"]) != _FORMAT or str(z["version"]) != version:
                    return None
                ids, lengths, terms = z["ids"], z["lengths"], z["terms"]
                offsets, positions, counts = z["offsets"], z["positions"], z["counts"]
        except (OSError, ValueError, KeyError):
            return None
        index = cls()
        index._ids, index._lengths = [ids], [lengths]
        index._n, index._tokens = len(ids), int(lengths.sum())
        index._post = {str(t): (positions[a:b], counts[a:b])
                       for t, a, b in zip(terms.tolist(), offsets[:-1], offsets[1:])}
        return index


def _ranges(id_range) -> tuple[np.ndarray, np.ndarray] | None:
    pairs = normalize_ranges(id_range)
    if pairs is None:
        return None
    return np.asarray([a for a, _ in pairs], np.int64), np.asarray([b for _, b in pairs],
                                                                   np.int64)


def _inside(ids: np.ndarray, ranges: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Which ``ids`` fall in one of the sorted, disjoint ``[lo, hi)`` ranges."""
    los, his = ranges
    at = np.searchsorted(los, ids, side="right") - 1
    return (at >= 0) & (ids < his[np.maximum(at, 0)])
