"""`VectorStore`: the vectors of an index in RAM, sorted by id, growing in place.

The store is what exact search scans and what approximate search re-scores its
candidates with. Ids are kept sorted, so an id range (a time window, one video of a
library) is a contiguous slice of rows, found by binary search and scanned without
copying. Appends in id order (the common case: the store hands out ids in time order)
cost amortised O(1); anything else is merged in.
"""

from __future__ import annotations

import numpy as np

__all__ = ["VectorStore"]


class VectorStore:
    """Id-sorted ``(ids, vectors)`` with spare capacity at the end."""

    def __init__(self, dim: int, dtype=np.float32) -> None:
        self.dim = int(dim)
        self._ids = np.zeros(0, np.int64)
        self._vectors = np.zeros((0, self.dim), dtype)
        self._n = 0

    def __len__(self) -> int:
        return self._n

    @property
    def dtype(self):
        return self._vectors.dtype

    @property
    def ids(self) -> np.ndarray:
        return self._ids[:self._n]

    @property
    def vectors(self) -> np.ndarray:
        return self._vectors[:self._n]

    @property
    def nbytes(self) -> int:
        return int(self.ids.nbytes + self.vectors.nbytes)

    def astype(self, dtype) -> None:
        """Keep the vectors at another precision (float16 halves the RAM)."""
        self._vectors = self.vectors.astype(dtype)
        self._ids = self.ids.copy()

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        order = np.argsort(ids, kind="stable")
        ids, vectors = ids[order], vectors[order]
        if self._n and ids[0] <= self._ids[self._n - 1]:
            self._merge(ids, vectors)
            return
        self._reserve(self._n + len(ids))
        self._ids[self._n:self._n + len(ids)] = ids
        self._vectors[self._n:self._n + len(ids)] = vectors
        self._n += len(ids)

    def _reserve(self, n: int) -> None:
        if n <= len(self._ids):
            return
        cap = max(n, 2 * len(self._ids), 1024)
        ids = np.zeros(cap, np.int64)
        vectors = np.zeros((cap, self.dim), self._vectors.dtype)
        ids[:self._n], vectors[:self._n] = self.ids, self.vectors
        self._ids, self._vectors = ids, vectors

    def _merge(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        all_ids = np.concatenate([self.ids, ids])
        order = np.argsort(all_ids, kind="stable")
        self._ids = all_ids[order]
        self._vectors = np.concatenate([self.vectors, vectors.astype(self.dtype)])[order]
        self._n = len(self._ids)

    def remove(self, ids: np.ndarray) -> np.ndarray:
        """Drop ``ids`` (absent ones are ignored); returns the ids that were present."""
        present = np.intersect1d(ids, self.ids)
        if present.size:
            keep = ~np.isin(self.ids, present)
            self._ids, self._vectors = self.ids[keep], self.vectors[keep]
            self._n = len(self._ids)
        return present

    def contains(self, ids: np.ndarray) -> np.ndarray:
        pos = np.searchsorted(self.ids, ids)
        ok = pos < self._n
        ok[ok] = self.ids[pos[ok]] == ids[ok]
        return ok

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """Row positions of ``ids`` (all must be present)."""
        return np.searchsorted(self.ids, ids)

    def spans(self, ranges: list[tuple[int, int]] | None) -> list[tuple[int, int]]:
        """Row spans ``[p0, p1)`` holding the ids inside each ``[lo, hi)`` range."""
        if ranges is None:
            return [(0, self._n)] if self._n else []
        ids = self.ids
        out = []
        for lo, hi in ranges:
            p0, p1 = int(np.searchsorted(ids, lo)), int(np.searchsorted(ids, hi))
            if p1 > p0:
                out.append((p0, p1))
        return out
