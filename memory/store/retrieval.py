"""Hybrid retrieval over one level of the hierarchy (segments or chapters).

`LevelIndex` keeps, for every indexed row, its vector (FAISS) and its start/end times
(numpy); the row's text is in the level's FTS5 index on disk (`memory.store.db.TextIndex`).
Rows are added in time order, so a time window - and the causal cutoff, which every
search carries - is a contiguous id range that both indexes enforce themselves; nothing
after the cutoff is ever scored. Dense and lexical rankings are fused with reciprocal
rank fusion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory.index.faiss_index import FaissIndex, IndexOptions
from memory.lexical import reciprocal_rank_fusion
from memory.store.db import TextIndex

__all__ = ["Candidate", "LevelIndex", "id_range_of"]


def id_range_of(ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, before: float | None,
                start: float | None = None, end: float | None = None) -> tuple[int, int] | None:
    """The ``[lo, hi)`` ids of the rows (in time order, ends non-decreasing) that end by
    ``before`` and overlap ``[start, end]``; None if none does."""
    hi = len(ids)
    if before is not None:
        hi = int(np.searchsorted(ends, before + 1e-6, side="right"))
    if end is not None:
        hi = min(hi, int(np.searchsorted(starts, end, side="left")))
    lo = 0 if start is None else int(np.searchsorted(ends, start, side="right"))
    if lo >= hi:
        return None
    return int(ids[lo]), int(ids[hi - 1]) + 1


@dataclass(frozen=True)
class Candidate:
    """An id with its fused score (``id`` -1 is the open window outside the index)."""

    id: int
    score: float
    dense: float


class LevelIndex:
    """Vectors and times of one level (its texts are in ``lexical``), searchable under a
    time window."""

    def __init__(self, dim: int, lexical: TextIndex, options: IndexOptions | None = None,
                 vectors: FaissIndex | None = None) -> None:
        self.vectors = vectors or FaissIndex(dim, options)
        self.lexical = lexical
        self._ids: list[int] = []
        self._starts: list[float] = []
        self._ends: list[float] = []
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, row_id: int, start: float, end: float, vector: np.ndarray | None,
            in_faiss: bool = False) -> None:
        """Index one row (``in_faiss``: its vector is already in a loaded checkpoint; its
        text was written to the lexical index with the row)."""
        if self._ids and row_id <= self._ids[-1]:
            raise ValueError(f"row {row_id} is out of order; rows are added in time order")
        self._ids.append(row_id)
        self._starts.append(start)
        self._ends.append(end)
        self._arrays = None
        if vector is not None and not in_faiss:
            self.vectors.add(np.array([row_id]), vector[None, :])

    def _times(self):
        if self._arrays is None:
            self._arrays = (np.asarray(self._ids, np.int64), np.asarray(self._starts),
                            np.asarray(self._ends))
        return self._arrays

    def id_range(self, before: float | None, start: float | None = None,
                 end: float | None = None) -> tuple[int, int] | None:
        """Ids of rows that end by ``before`` and overlap ``[start, end]``; None if none."""
        return id_range_of(*self._times(), before, start, end)

    def search(self, query: str, vector: np.ndarray, id_range: tuple[int, int] | None,
               candidates: int, extra: tuple[str, np.ndarray] | None = None,
               rankings: Sequence[Sequence[int]] = ()) -> list[Candidate]:
        """Fused ranking of rows in ``id_range`` (None: no indexed row qualifies), plus an
        optional unindexed ``extra`` text with its vector, reported as id -1. ``rankings``
        are further ranked id lists to fuse (the key frames' ranking by the image model),
        already inside the window and the cutoff."""
        dense: list[tuple[int, float]] = []
        lexical: list[tuple[int, float]] = []
        if id_range is not None:
            scores, ids = self.vectors.search(vector[None, :], candidates, id_range)
            dense = [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]
            lexical = self.lexical.search(query, candidates, id_range)
        if extra is not None:
            text, extra_vec = extra
            dense = sorted(dense + [(-1, float(extra_vec @ vector))], key=lambda p: -p[1])
            bm25 = self.lexical.score_text(query, text)
            if bm25 > 0:
                lexical = sorted(lexical + [(-1, bm25)], key=lambda p: -p[1])
        dense_of = dict(dense)
        fused = reciprocal_rank_fusion([[i for i, _ in dense], [i for i, _ in lexical],
                                        *rankings])
        return [Candidate(i, s, dense_of.get(i, float("nan"))) for i, s in fused]

    def ends(self) -> np.ndarray:
        """End times of the indexed rows, in id order (non-decreasing)."""
        return self._times()[2]
