"""The `VectorIndex` seam: a small Protocol every vector index in the memory implements.

Vectors are L2-normalised float32 rows, scores are inner products (cosine similarity),
ids are the caller's non-negative int64 keys. ``id_range`` restricts a search to ids in
``[lo, hi)``, or in any of a list of such ranges: the store assigns ids in time order, so
a time window (and the causal cutoff) becomes an id range, and a video library gives each
video its own block of ids, so a scope of videos, each with its own cutoff, is a list of
ranges; the index enforces them itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["VectorIndex"]


@runtime_checkable
class VectorIndex(Protocol):
    """Inner-product search over id-keyed vectors, with removal and persistence."""

    dim: int

    def __len__(self) -> int: ...

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None: ...

    def remove(self, ids: np.ndarray) -> int: ...

    def search(self, queries: np.ndarray, k: int,
               id_range: tuple[int, int] | Sequence[tuple[int, int]] | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(scores, ids)`` of shape (n, k); missing results have id -1."""
        ...

    def save(self, path: str) -> None: ...
