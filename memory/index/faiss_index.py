"""`FaissIndex`: the embedded `VectorIndex`, built on FAISS, exact or IVF-PQ by size.

Below ``approximate_at`` vectors every search is exact (FAISS's BLAS inner products over
the stored vectors): one video's memory never gets past that. A video library does; once
it holds that many vectors the index trains an IVF-PQ engine on them
(`memory.index.ivfpq`), checks its recall@10 against exact search on its own vectors and
widens its search until the target is met, and retrains when it has grown
``retrain_growth`` times since. Its RAM is the vectors kept for re-scoring (float16 by
default: 768 bytes at 384-d) plus the codes (48 bytes), about 0.25 MB per hour of video
at ~300 segment and chapter vectors an hour.

Ids are the caller's (non-negative int64, kept sorted), so results map straight back to
store rows, and filters are id ranges: the store numbers rows in time order (the causal
cutoff is a range) and a library gives each video its own id block (a scope of videos is
a list of ranges). Scopes small enough (``exact_scope`` vectors, or a share under
``exact_range_fraction``) are always answered exactly; larger ones are enforced by FAISS
while it scans. When faiss-gpu is installed and a GPU is present, searches run on a GPU
replica (a GPU takes no id filter: it over-fetches and the filter is applied here, with
an exact CPU search when too few candidates pass); the CPU index is the one saved.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory.errors import MissingExtraError, StoreError
from memory.index.ivfpq import IVFPQ, exact_topk, recall_at, refine
from memory.index.store import VectorStore

__all__ = ["FaissIndex", "IdRanges", "IndexOptions"]

logger = logging.getLogger(__name__)

IdRanges = tuple[int, int] | Sequence[tuple[int, int]]
"""One id range ``(lo, hi)`` (``lo`` included, ``hi`` not) or a list of them."""

_OR_RANGES = 16
_FORMAT = 2  # checkpoint layout (1: a bare FAISS IndexIDMap2 file; still read)


@dataclass
class IndexOptions:
    """How a `FaissIndex` is built and searched.

    ``approximate_at``: vectors at which exact search gives way to IVF-PQ (None: always
    exact). ``nlist`` / ``pq_bytes``: IVF cells and PQ code bytes (None: sized for the
    data, ~sqrt(n) cells and dim/8 bytes). ``nprobe``: cells visited at first; raised at
    training until recall@10 on the index's own vectors reaches ``target_recall``.
    ``refine_factor``: candidates per result re-scored with the kept vectors, kept at
    ``store_dtype`` once approximate. ``retrain_growth``: retrain after growing that many
    times. ``exact_scope`` / ``exact_range_fraction``: a filtered search whose scope holds
    at most that many vectors, or under that share of the index, is answered exactly.
    ``use_gpu``: "auto" (a GPU when faiss-gpu sees one), True or False.
    """

    approximate_at: int | None = 50_000
    nlist: int | None = None
    pq_bytes: int | None = None
    nprobe: int = 8
    refine_factor: int = 10
    target_recall: float = 0.97
    retrain_growth: float = 4.0
    store_dtype: str = "float16"
    exact_scope: int = 20_000
    exact_range_fraction: float = 0.05
    train_points_per_list: int = 40
    train_iterations: int = 10
    calibration_queries: int = 256
    use_gpu: bool | str = "auto"


def _faiss():
    try:
        import faiss
    except ImportError:  # FAISS is the [cpu] or the [gpu] extra, never both
        raise MissingExtraError("faiss", "cpu", "The vector index (FAISS; or [gpu] on a CUDA "
                                "machine)") from None
    return faiss


def normalize_ranges(id_range: IdRanges | None) -> list[tuple[int, int]] | None:
    """``id_range`` as sorted, merged, non-empty ``[lo, hi)`` pairs (None: everything)."""
    if id_range is None:
        return None
    pairs = [id_range] if len(id_range) == 2 and np.isscalar(id_range[0]) else id_range
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted((int(a), int(b)) for a, b in pairs if int(b) > int(a)):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


class FaissIndex:
    """Id-keyed inner-product index; see the module docstring for the strategy."""

    def __init__(self, dim: int, options: IndexOptions | None = None) -> None:
        self.dim = int(dim)
        self.options = options or IndexOptions()
        self._store = VectorStore(self.dim)
        self._ivf: IVFPQ | None = None
        self._gpu = None
        self._gpu_dirty = True

    @property
    def kind(self) -> str:
        """"exact" or "ivfpq"."""
        return "exact" if self._ivf is None else "ivfpq"

    @property
    def recall(self) -> float | None:
        """Recall@10 against exact search measured when the IVF-PQ engine was trained."""
        return None if self._ivf is None else self._ivf.recall

    @property
    def nbytes(self) -> int:
        """RAM held by the index: kept vectors and ids, plus the IVF-PQ codes and cells."""
        extra = 0
        if self._ivf is not None:
            ivf = self._ivf.index
            extra = ivf.ntotal * (ivf.code_size + 8) + ivf.nlist * self.dim * 4 \
                + ivf.pq.M * ivf.pq.ksub * ivf.pq.dsub * 4
        return self._store.nbytes + extra

    def __len__(self) -> int:
        return len(self._store)

    def ids(self) -> np.ndarray:
        """The ids present, sorted."""
        return self._store.ids.copy()

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The kept vectors of ``ids`` (all present), as float32."""
        ids = np.asarray(ids, np.int64).reshape(-1)
        if not self._store.contains(ids).all():
            raise KeyError("an id asked for is not in the index")
        return self._store.vectors[self._store.rows(ids)].astype(np.float32)

    # -- building -------------------------------------------------------------------
    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add ``vectors`` (n, dim) under ``ids`` (n,); an id already present is an error."""
        ids = np.ascontiguousarray(ids, dtype=np.int64).reshape(-1)
        vectors = self._check(vectors)
        if len(ids) != len(vectors):
            raise ValueError(f"{len(ids)} ids for {len(vectors)} vectors; pass one id per row")
        if len(ids) == 0:
            return
        if (ids < 0).any():
            raise ValueError("ids must be non-negative")
        if len(np.unique(ids)) != len(ids) or self._store.contains(ids).any():
            raise ValueError("an id is already in the index; remove it before adding it again")
        self._store.add(ids, vectors)
        self._gpu_dirty = True
        if self._ivf is not None:
            self._ivf.add(ids, vectors)
            if len(self) >= self.options.retrain_growth * self._ivf.trained_n:
                self._train()
        elif self.options.approximate_at is not None and len(self) >= self.options.approximate_at:
            self._train()

    def _train(self) -> None:
        faiss = _faiss()
        self._store.astype(np.dtype(self.options.store_dtype))
        vectors = self._store.vectors
        self._ivf = IVFPQ.train(faiss, vectors, self.options)
        for p in range(0, len(vectors), 65_536):
            self._ivf.add(self._store.ids[p:p + 65_536], vectors[p:p + 65_536])
        self._ivf.calibrate(self._store, self.options)
        self._gpu_dirty = True

    def remove(self, ids: np.ndarray) -> int:
        """Remove ``ids`` (absent ids are ignored); returns how many were removed."""
        present = self._store.remove(np.asarray(ids, dtype=np.int64).reshape(-1))
        if present.size and self._ivf is not None:
            self._ivf.remove(present)
        self._gpu_dirty = self._gpu_dirty or bool(present.size)
        return int(present.size)

    def remove_range(self, lo: int, hi: int) -> int:
        """Remove every id in ``[lo, hi)`` (a video of a library)."""
        spans = self._store.spans([(lo, hi)])
        if not spans:
            return 0
        return self.remove(self._store.ids[spans[0][0]:spans[0][1]].copy())

    def _check(self, vectors: np.ndarray) -> np.ndarray:
        arr = np.ascontiguousarray(vectors, dtype=np.float32)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[1] != self.dim:
            raise ValueError(f"vectors have shape {arr.shape}; this index holds dim {self.dim}")
        return arr

    # -- searching ------------------------------------------------------------------
    def search(self, queries: np.ndarray, k: int,
               id_range: IdRanges | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` ``(scores, ids)`` by inner product, optionally only ids inside
        ``id_range`` (one ``(lo, hi)`` or a list); missing results have id -1."""
        queries = self._check(queries)
        ranges = normalize_ranges(id_range)
        spans = self._store.spans(ranges)
        inside = sum(b - a for a, b in spans)
        if k <= 0 or inside == 0:
            n = len(queries)
            return np.full((n, max(k, 0)), -np.inf, np.float32), np.full((n, max(k, 0)), -1,
                                                                            np.int64)
        whole = inside == len(self)
        small = inside <= self.options.exact_scope or \
            inside < self.options.exact_range_fraction * len(self)
        if self._ivf is None or (small and not whole):
            if self._gpu_index() is not None and whole:
                return self._search_gpu(queries, k, None, spans, 1.0)
            return self._exact(queries, k, spans)
        fraction = inside / len(self)
        if self._gpu_index() is not None:
            return self._search_gpu(queries, k, ranges, spans, fraction)
        return self._search_cpu_ivf(queries, k, None if whole else ranges, fraction)

    def _exact(self, queries, k, spans):
        faiss = _faiss()
        if len(spans) > 8:  # many small spans: gather them once, one scan
            rows = np.concatenate([np.arange(a, b) for a, b in spans])
            s, pos = exact_topk(faiss, queries, self._store.vectors[rows], k)
            return s, np.where(pos >= 0, self._store.ids[rows[np.maximum(pos, 0)]], -1)
        best_s = np.full((len(queries), 0), -np.inf, np.float32)
        best_i = np.full((len(queries), 0), -1, np.int64)
        for a, b in spans:
            s, rows = exact_topk(faiss, queries, self._store.vectors[a:b], k)
            ids = np.where(rows >= 0, self._store.ids[a:b][np.maximum(rows, 0)], -1)
            best_s, best_i = np.hstack([best_s, s]), np.hstack([best_i, ids])
        order = np.argsort(-best_s, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(best_s, order, 1), np.take_along_axis(best_i, order, 1)

    def check_recall(self, queries: np.ndarray, k: int = 10,
                     id_range: IdRanges | None = None) -> float:
        """Recall@``k`` of this index's search against exact search over the same kept
        vectors, for ``queries`` (1.0 while the index is exact)."""
        queries = self._check(queries)
        _, got = self.search(queries, k, id_range)
        _, truth = self._exact(queries, k, self._store.spans(normalize_ranges(id_range)))
        return recall_at(got, truth, k)

    # -- GPU ------------------------------------------------------------------------
    def _gpu_index(self):
        if self.options.use_gpu is False:
            return None
        faiss = _faiss()
        if not hasattr(faiss, "StandardGpuResources") or faiss.get_num_gpus() == 0:
            if self.options.use_gpu is True:
                raise StoreError("use_gpu=True but faiss sees no GPU; install "
                                 "'realtime-venus[gpu]' on a CUDA machine or pass use_gpu='auto'")
            return None
        if self._gpu_dirty:
            self._gpu = self._to_gpu(faiss)
            self._gpu_dirty = False
            logger.info("searching %d vectors on the GPU (%s)", len(self), self.kind)
        return self._gpu

    def _to_gpu(self, faiss):
        options = faiss.GpuMultipleClonerOptions()
        options.useFloat16 = True  # IVF-PQ lookup tables in half precision: fits any code size
        if self._ivf is not None:
            return faiss.index_cpu_to_all_gpus(self._ivf.index, co=options)
        flat = faiss.IndexFlatIP(self.dim)  # rows in store order: results are row positions
        flat.add(np.ascontiguousarray(self._store.vectors, dtype=np.float32))
        return faiss.index_cpu_to_all_gpus(flat)

    def _search_gpu(self, queries, k, ranges, spans, fraction):
        """Over-fetch on the GPU, keep ids inside ``ranges``, re-score with the kept
        vectors; fall back to the CPU when fewer than ``k`` candidates pass."""
        faiss = _faiss()
        fetch = min(len(self), max(k * self.options.refine_factor,
                                   math.ceil(k * self.options.refine_factor / fraction)))
        fetch = min(fetch, 2048)  # the GPU's k limit
        if self._ivf is not None:
            nprobe = min(self._ivf.nlist, math.ceil(self._ivf.nprobe / fraction))
            _, cand = self._gpu.search(queries, fetch,
                                       params=faiss.SearchParametersIVF(nprobe=nprobe))
        else:
            _, rows = self._gpu.search(queries, fetch)
            cand = np.where(rows >= 0, self._store.ids[np.maximum(rows, 0)], -1)
        inside = _inside(cand, ranges)
        if (inside.sum(axis=1) < min(k, sum(b - a for a, b in spans))).any():
            return self._exact(queries, k, spans) if self._ivf is None else \
                self._search_cpu_ivf(queries, k, ranges, fraction)
        out_s = np.full((len(queries), k), -np.inf, np.float32)
        out_i = np.full((len(queries), k), -1, np.int64)
        for i, (q, c, ok) in enumerate(zip(queries, cand, inside)):
            c = c[ok]
            s = self._store.vectors[self._store.rows(c)].astype(np.float32) @ q
            top = np.argsort(-s, kind="stable")[:k]
            out_s[i, :len(top)], out_i[i, :len(top)] = s[top], c[top]
        return out_s, out_i

    def _search_cpu_ivf(self, queries, k, ranges, fraction):
        sel = _Selector(ranges, self._store)  # alive until the search returns
        return refine(self._ivf, self._store, queries, k, self.options.refine_factor,
                      sel.selector, fraction)

    # -- persistence ----------------------------------------------------------------
    def save(self, path: str) -> None:
        """Write the index atomically (a temporary file renamed over ``path``)."""
        state = {"format": np.array(_FORMAT), "dim": np.array(self.dim),
                 "ids": self._store.ids, "vectors": self._store.vectors}
        if self._ivf is not None:
            state.update(self._ivf.state())
        tmp = f"{path}.tmp"
        try:
            with open(tmp, "wb") as f:
                np.savez(f, **state)
            os.replace(tmp, path)
        except BaseException:
            _discard(tmp)  # a full disk leaves no half-written checkpoint behind
            raise

    @classmethod
    def load(cls, path: str, options: IndexOptions | None = None) -> FaissIndex:
        """Read an index written by `save` (or by an older version: a FAISS file)."""
        try:
            with open(path, "rb") as f:
                zipped = f.read(4) == b"PK\x03\x04"
            return cls._load_npz(path, options) if zipped else cls._load_faiss(path, options)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise StoreError(f"cannot read the vector index {path} ({exc}); delete it to "
                             f"have it rebuilt from the store's metadata") from exc

    @classmethod
    def _load_npz(cls, path: str, options: IndexOptions | None) -> FaissIndex:
        with np.load(path, allow_pickle=False) as state:
            if int(state["format"]) != _FORMAT:
                raise ValueError(f"index format {int(state['format'])}, expected {_FORMAT}")
            self = cls(int(state["dim"]), options)
            vectors = state["vectors"]
            self._store = VectorStore(self.dim, vectors.dtype)
            if len(vectors):
                self._store.add(state["ids"].astype(np.int64), vectors)
            if "ivf" in state.files:
                self._ivf = IVFPQ.from_state(_faiss(), state)
        return self

    @classmethod
    def _load_faiss(cls, path: str, options: IndexOptions | None) -> FaissIndex:
        faiss = _faiss()
        index = faiss.read_index(path)
        if not isinstance(index, faiss.IndexIDMap2):
            raise StoreError(f"{path} is not an index written by FaissIndex.save; delete it "
                             f"to have it rebuilt from the store's metadata")
        self = cls(index.d, options)
        ids = faiss.vector_to_array(index.id_map).astype(np.int64)
        if len(ids):
            self.add(ids, index.index.reconstruct_n(0, index.ntotal))
        return self


class _Selector:
    """A FAISS id selector for a list of ranges; the object keeps the SWIG parts alive
    for the search it is made for (None selects everything). Up to ``_OR_RANGES`` ranges are OR-ed
    range tests; more (a scope of many videos, each with its own cutoff) become one
    hashed set of the ids inside them."""

    def __init__(self, ranges: list[tuple[int, int]] | None, store: VectorStore) -> None:
        self._keep: list = []
        self.selector = None
        if not ranges:
            return
        faiss = _faiss()
        if len(ranges) > _OR_RANGES:
            ids = np.concatenate([store.ids[a:b] for a, b in store.spans(ranges)])
            self.selector = faiss.IDSelectorBatch(ids)
            self._keep.append(ids)
            return
        for lo, hi in ranges:
            sel = faiss.IDSelectorRange(lo, hi)
            self._keep.append(sel)
            self.selector = sel if self.selector is None else \
                faiss.IDSelectorOr(self.selector, sel)
            self._keep.append(self.selector)


def _inside(ids: np.ndarray, ranges: list[tuple[int, int]] | None) -> np.ndarray:
    ok = ids >= 0
    if ranges:
        hit = np.zeros_like(ok)
        for lo, hi in ranges:
            hit |= (ids >= lo) & (ids < hi)
        ok &= hit
    return ok


def _discard(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
