"""`FaissIndex`: the embedded `VectorIndex`, built on FAISS.

Exact inner-product search (``IndexFlatIP``) while the index is small, switched once to
HNSW when it passes ``hnsw_threshold`` vectors: exact search over a few thousand
segment vectors takes well under a millisecond, and HNSW only pays off far beyond what an
hour of video produces. Ids are the caller's (``IndexIDMap2``), so results map straight
back to store rows. When faiss-gpu is installed and a GPU is present, searches run on a
GPU replica of the index automatically; the CPU index stays the one that is saved.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

import numpy as np

from memory.errors import MissingExtraError, StoreError

__all__ = ["FaissIndex", "IndexOptions"]

logger = logging.getLogger(__name__)


@dataclass
class IndexOptions:
    """How a `FaissIndex` is built.

    ``hnsw_threshold``: size at which exact search gives way to HNSW.
    ``hnsw_m`` / ``ef_construction`` / ``ef_search``: the usual HNSW knobs.
    ``exact_range_fraction``: with HNSW, a search restricted to an id range that holds
    less than this share of the index is answered exactly (a filtered graph walk loses
    recall when few vectors pass the filter).
    ``use_gpu``: "auto" (a GPU when faiss-gpu sees one), True or False.
    """

    hnsw_threshold: int = 50_000
    hnsw_m: int = 32
    ef_construction: int = 80
    ef_search: int = 128
    exact_range_fraction: float = 0.2
    use_gpu: bool | str = "auto"


def _faiss():
    try:
        import faiss
    except ImportError:  # FAISS is the [cpu] or the [gpu] extra, never both
        raise MissingExtraError("faiss", "cpu", "The vector index (FAISS; or [gpu] on a CUDA "
                                "machine)") from None
    return faiss


class FaissIndex:
    """Id-keyed inner-product index; see the module docstring for the strategy."""

    def __init__(self, dim: int, options: IndexOptions | None = None) -> None:
        self.dim = int(dim)
        self.options = options or IndexOptions()
        self._index = self._flat()
        self._ids = np.zeros(0, dtype=np.int64)  # sorted ids present
        self._gpu = None
        self._gpu_dirty = True

    # -- building -------------------------------------------------------------------
    def _flat(self):
        faiss = _faiss()
        return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))

    def _hnsw(self):
        faiss = _faiss()
        inner = faiss.IndexHNSWFlat(self.dim, self.options.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        inner.hnsw.efConstruction = self.options.ef_construction
        inner.hnsw.efSearch = self.options.ef_search
        return faiss.IndexIDMap2(inner)

    @property
    def kind(self) -> str:
        """"exact" or "hnsw"."""
        return "hnsw" if "HNSW" in type(_faiss().downcast_index(self._index.index)).__name__ \
            else "exact"

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def ids(self) -> np.ndarray:
        """The ids present, sorted."""
        return self._ids.copy()

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add ``vectors`` (n, dim) under ``ids`` (n,); an id already present is an error."""
        ids = np.ascontiguousarray(ids, dtype=np.int64).reshape(-1)
        vectors = self._check(vectors)
        if len(ids) != len(vectors):
            raise ValueError(f"{len(ids)} ids for {len(vectors)} vectors; pass one id per row")
        if len(ids) == 0:
            return
        if np.intersect1d(ids, self._ids).size or len(np.unique(ids)) != len(ids):
            raise ValueError("an id is already in the index; remove it before adding it again")
        if self.kind == "exact" and len(self) + len(ids) > self.options.hnsw_threshold:
            self._rebuild(self._hnsw(), self._ids, self._vectors(self._ids))
        self._index.add_with_ids(vectors, ids)
        self._ids = np.sort(np.concatenate([self._ids, ids]))
        self._gpu_dirty = True

    def remove(self, ids: np.ndarray) -> int:
        """Remove ``ids`` (absent ids are ignored); returns how many were removed."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        present = np.intersect1d(ids, self._ids)
        if present.size == 0:
            return 0
        keep = np.setdiff1d(self._ids, present)
        if self.kind == "exact":
            self._index.remove_ids(_faiss().IDSelectorBatch(present))
            self._ids = keep
        else:  # HNSW graphs cannot drop nodes: rebuild from the kept vectors
            self._rebuild(self._hnsw(), keep, self._vectors(keep))
        self._gpu_dirty = True
        return int(present.size)

    def _rebuild(self, index, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids):
            index.add_with_ids(vectors, ids)
        self._index, self._ids = index, np.sort(ids)

    def _vectors(self, ids: np.ndarray) -> np.ndarray:
        if len(ids) == 0:
            return np.zeros((0, self.dim), np.float32)
        return np.vstack([self._index.reconstruct(int(i)) for i in ids]).astype(np.float32)

    def _check(self, vectors: np.ndarray) -> np.ndarray:
        arr = np.ascontiguousarray(vectors, dtype=np.float32)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[1] != self.dim:
            raise ValueError(f"vectors have shape {arr.shape}; this index holds dim {self.dim}")
        return arr

    # -- searching ------------------------------------------------------------------
    def search(self, queries: np.ndarray, k: int,
               id_range: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` by inner product, optionally only ids in ``[lo, hi)``."""
        queries = self._check(queries)
        n = len(queries)
        empty = (np.full((n, k), -np.inf, np.float32), np.full((n, k), -1, np.int64))
        if k <= 0 or len(self) == 0:
            return empty
        if id_range is not None:
            lo, hi = int(id_range[0]), int(id_range[1])
            inside = self._ids[np.searchsorted(self._ids, lo):np.searchsorted(self._ids, hi)]
            if inside.size == 0:
                return empty
            if self.kind == "hnsw" and inside.size < self.options.exact_range_fraction * len(self):
                return self._exact_over(queries, k, inside)
        if self._gpu_index() is not None:
            return self._search_gpu(queries, k, id_range)
        return self._search_cpu(queries, k, id_range)

    def _search_cpu(self, queries, k, id_range):
        faiss = _faiss()
        params = None
        if id_range is not None:
            sel = faiss.IDSelectorRange(int(id_range[0]), int(id_range[1]))
            if self.kind == "hnsw":
                params = faiss.SearchParametersHNSW(sel=sel, efSearch=self.options.ef_search)
            else:
                params = faiss.SearchParameters(sel=sel)
        elif self.kind == "hnsw":
            params = faiss.SearchParametersHNSW(efSearch=max(self.options.ef_search, k))
        scores, ids = self._index.search(queries, k, params=params)
        return _clean(scores, ids)

    def _exact_over(self, queries, k, ids):
        vectors = self._vectors(ids)
        sims = queries @ vectors.T
        order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        scores = np.take_along_axis(sims, order, axis=1).astype(np.float32)
        out_ids = ids[order]
        return _pad(scores, out_ids, k)

    # -- GPU ------------------------------------------------------------------------
    def _gpu_index(self):
        if self.options.use_gpu is False or self.kind != "exact":
            return None
        faiss = _faiss()
        if not hasattr(faiss, "StandardGpuResources") or faiss.get_num_gpus() == 0:
            if self.options.use_gpu is True:
                raise StoreError("use_gpu=True but faiss sees no GPU; install "
                                 "'realtime-venus[gpu]' on a CUDA machine or pass use_gpu='auto'")
            return None
        if self._gpu_dirty:
            self._gpu = faiss.index_cpu_to_all_gpus(self._index)
            self._gpu_dirty = False
            logger.info("searching %d vectors on the GPU", len(self))
        return self._gpu

    def _search_gpu(self, queries, k, id_range):
        # GPU search takes no id selector: over-fetch, then keep ids inside the range.
        fetch = k if id_range is None else min(len(self), max(4 * k, 64))
        scores, ids = self._gpu.search(queries, fetch)
        if id_range is None:
            return _clean(scores, ids)
        ok = (ids >= id_range[0]) & (ids < id_range[1])
        if ok.sum(axis=1).min() < min(k, len(self)) and fetch < len(self):
            return self._search_cpu(queries, k, id_range)
        rows = [(s[m][:k], i[m][:k]) for s, i, m in zip(scores, ids, ok)]
        return _pad(np.array([_padrow(s, k, -np.inf) for s, _ in rows], np.float32),
                    np.array([_padrow(i, k, -1) for _, i in rows], np.int64), k)

    # -- persistence ----------------------------------------------------------------
    def save(self, path: str) -> None:
        """Write the index atomically (a temporary file renamed over ``path``)."""
        tmp = f"{path}.tmp"
        _faiss().write_index(self._index, tmp)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str, options: IndexOptions | None = None) -> FaissIndex:
        """Read an index written by `save`."""
        faiss = _faiss()
        try:
            index = faiss.read_index(path)
        except RuntimeError as exc:
            raise StoreError(f"cannot read the vector index {path} ({exc}); delete it to "
                             f"have it rebuilt from the store's metadata") from exc
        self = cls(index.d, options)
        if not isinstance(index, faiss.IndexIDMap2):
            raise StoreError(f"{path} is not an index written by FaissIndex.save; delete it "
                             f"to have it rebuilt from the store's metadata")
        self._index = index
        self._ids = np.sort(faiss.vector_to_array(self._index.id_map).astype(np.int64))
        return self


def _clean(scores: np.ndarray, ids: np.ndarray):
    scores = scores.astype(np.float32, copy=True)
    scores[ids < 0] = -np.inf
    return scores, ids.astype(np.int64)


def _padrow(row: np.ndarray, k: int, fill) -> np.ndarray:
    return np.concatenate([row, np.full(k - len(row), fill)]) if len(row) < k else row


def _pad(scores: np.ndarray, ids: np.ndarray, k: int):
    if scores.shape[1] >= k:
        return scores, ids
    n, extra = scores.shape[0], k - scores.shape[1]
    return (np.hstack([scores, np.full((n, extra), -np.inf, np.float32)]),
            np.hstack([ids, np.full((n, extra), -1, np.int64)]))
