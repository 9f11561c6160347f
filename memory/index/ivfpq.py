"""The approximate engine of `FaissIndex`: FAISS IVF-PQ, re-scored with the stored vectors.

An inverted file of ``nlist`` k-means cells holds each vector as a product-quantised code
(``pq_bytes`` bytes, by residual to its cell); a search visits the ``nprobe`` nearest
cells, ranks their codes, and the best ``refine_factor * k`` candidates are re-scored
with the vectors the index keeps (`memory.index.store.VectorStore`). The engine is
trained once on a sample of the vectors present, and ``nprobe`` is then raised until the
index finds ``target_recall`` of the exact top 10 for its own vectors (leave-one-out),
so its recall is checked against exact search every time it is (re)built.

FAISS enforces id filters itself while scanning (``IDSelectorRange`` / ``IDSelectorOr``),
so the causal cutoff and per-video scopes never admit an id outside them; a scope that
holds a fraction ``f`` of the index is searched with ``nprobe / f`` cells, so it finds
as many candidates as an unfiltered search.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np

__all__ = ["IVFPQ", "exact_topk", "recall_at"]

logger = logging.getLogger(__name__)


def recall_at(found: np.ndarray, truth: np.ndarray, k: int) -> float:
    """Mean share of each query's exact top ``k`` ids that ``found`` holds (ids -1 never
    count; a query whose truth has fewer than ``k`` ids is scored on those)."""
    shares = []
    for got, want in zip(found, truth):
        want = [i for i in want[:k] if i >= 0]
        if want:
            shares.append(len(set(got[:k].tolist()) & set(want)) / len(want))
    return float(np.mean(shares)) if shares else 1.0


def exact_topk(faiss, queries: np.ndarray, vectors: np.ndarray, k: int):
    """Exact inner-product top-``k`` rows of ``vectors`` (float32 or float16) for each query:
    ``(scores, rows)``, rows -1 where there are fewer than ``k``."""
    n = len(queries)
    if len(vectors) == 0 or k <= 0:
        return np.full((n, k), -np.inf, np.float32), np.full((n, k), -1, np.int64)
    scores, rows = [], []
    step = 65_536  # bounded temporaries when the store is float16
    for p in range(0, len(vectors), step):
        block = np.ascontiguousarray(vectors[p:p + step], dtype=np.float32)
        s, r = faiss.knn(queries, block, min(k, len(block)), metric=faiss.METRIC_INNER_PRODUCT)
        scores.append(s)
        rows.append(np.where(r >= 0, r + p, -1))
    s, r = np.hstack(scores), np.hstack(rows)
    order = np.argsort(-s, axis=1, kind="stable")[:, :k]
    s, r = np.take_along_axis(s, order, 1), np.take_along_axis(r, order, 1)
    if s.shape[1] < k:
        pad = k - s.shape[1]
        s = np.hstack([s, np.full((n, pad), -np.inf, np.float32)])
        r = np.hstack([r, np.full((n, pad), -1, np.int64)])
    return s.astype(np.float32), r.astype(np.int64)


def nlist_for(n: int) -> int:
    """Cells for ``n`` vectors: about sqrt(n), a power of two, with at least 39 training
    points per cell (FAISS's k-means minimum). Few large cells keep training cheap (it is
    k-means over a sample); the PQ scan of a few thousand codes per query stays well under
    a millisecond."""
    target = 2 ** round(math.log2(max(math.sqrt(max(n, 1)), 16.0)))
    return int(max(16, min(target, 65_536, 2 ** int(math.log2(max(n // 39, 16))))))


class IVFPQ:
    """FAISS ``IndexIVFPQ`` (inner product) with its search settings."""

    def __init__(self, faiss, index, nprobe: int, trained_n: int, recall: float) -> None:
        self.faiss, self.index = faiss, index
        self.nprobe, self.trained_n, self.recall = int(nprobe), int(trained_n), float(recall)

    @property
    def nlist(self) -> int:
        return int(self.index.nlist)

    @classmethod
    def train(cls, faiss, vectors: np.ndarray, options, seed: int = 0) -> IVFPQ:
        """Train on a sample of ``vectors`` (float32 rows) sized for their number."""
        n, dim = vectors.shape
        nlist = options.nlist or nlist_for(n)
        m = options.pq_bytes or _pq_bytes(dim)
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFPQ(quantizer, dim, nlist, m, 8, faiss.METRIC_INNER_PRODUCT)
        index.cp.max_points_per_centroid = options.train_points_per_list
        index.cp.niter = options.train_iterations
        index.cp.seed = seed
        index.pq.cp.niter = options.train_iterations
        rng = np.random.default_rng(seed)
        sample = vectors[np.sort(rng.permutation(n)[:nlist * options.train_points_per_list])]
        index.train(np.ascontiguousarray(sample, dtype=np.float32))
        return cls(faiss, index, min(options.nprobe, nlist), n, float("nan"))

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        self.index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), ids)

    def remove(self, ids: np.ndarray) -> None:
        self.index.remove_ids(self.faiss.IDSelectorBatch(ids))

    def candidates(self, queries: np.ndarray, n: int, selector=None,
                   fraction: float = 1.0) -> np.ndarray:
        """Ids of the ``n`` best codes per query (-1 padded), within ``selector``."""
        nprobe = min(self.nlist, max(1, math.ceil(self.nprobe / max(fraction, 1e-9))))
        params = self.faiss.SearchParametersIVF(nprobe=nprobe, sel=selector) \
            if selector is not None else self.faiss.SearchParametersIVF(nprobe=nprobe)
        _, ids = self.index.search(queries, n, params=params)
        return ids

    def calibrate(self, store, options, seed: int = 0) -> None:
        """Raise ``nprobe`` until recall@10 of the re-scored search reaches
        ``options.target_recall`` on queries made from the index's own vectors: half are
        stored vectors (each one's own id left out), half the midpoints of two random
        ones, which fall between clusters where an inverted file is weakest."""
        rng = np.random.default_rng(seed + 1)
        n = options.calibration_queries
        rows = rng.integers(0, len(store), n)
        queries = store.vectors[rows].astype(np.float32)
        half = n // 2
        queries[half:] += store.vectors[rng.integers(0, len(store), n - half)]
        queries /= np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
        own = np.where(np.arange(n) < half, store.ids[rows], -2)
        _, truth_rows = exact_topk(self.faiss, queries, store.vectors, 11)
        truth = _drop_self(np.where(truth_rows >= 0, store.ids[np.maximum(truth_rows, 0)], -1),
                           own, 10)
        while True:
            got = _drop_self(refine(self, store, queries, 11, options.refine_factor)[1], own, 10)
            self.recall = recall_at(got, truth, 10)
            if self.recall >= options.target_recall or self.nprobe >= self.nlist:
                break
            self.nprobe = min(self.nlist, self.nprobe * 2)
        logger.info("IVF-PQ over %d vectors: %d cells, nprobe %d, recall@10 %.3f vs exact",
                    len(store), self.nlist, self.nprobe, self.recall)

    # -- persistence ----------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {"ivf": self.faiss.serialize_index(self.index),
                "ivf_settings": np.array([self.nprobe, self.trained_n], np.int64),
                "ivf_recall": np.array(self.recall)}

    @classmethod
    def from_state(cls, faiss, state) -> IVFPQ:
        # deserialize_index returns the IndexIVFPQ itself. A downcast_index of it would be a
        # second wrapper without ownership: once the first is collected, the C++ index is
        # freed under it (a reloaded index then searched freed memory).
        index = faiss.deserialize_index(np.asarray(state["ivf"], np.uint8))
        nprobe, trained_n = (int(x) for x in state["ivf_settings"])
        return cls(faiss, index, nprobe, trained_n, float(state["ivf_recall"]))


def refine(engine: IVFPQ, store, queries: np.ndarray, k: int, factor: int, selector=None,
           fraction: float = 1.0):
    """Candidates from the codes, re-scored exactly with the stored vectors: the top
    ``k`` ``(scores, ids)`` per query."""
    cand = engine.candidates(queries, max(k * factor, k), selector, fraction)
    scores = np.full((len(queries), k), -np.inf, np.float32)
    ids = np.full((len(queries), k), -1, np.int64)
    for i, (q, c) in enumerate(zip(queries, cand)):
        c = c[c >= 0]
        if not c.size:
            continue
        s = store.vectors[store.rows(c)].astype(np.float32) @ q
        top = np.argsort(-s, kind="stable")[:k]
        scores[i, :len(top)], ids[i, :len(top)] = s[top], c[top]
    return scores, ids


def _drop_self(found: np.ndarray, own: np.ndarray, k: int) -> np.ndarray:
    out = np.full((len(found), k), -1, np.int64)
    for i, (row, me) in enumerate(zip(found, own)):
        kept = row[row != me][:k]
        out[i, :len(kept)] = kept
    return out


def _pq_bytes(dim: int) -> int:
    """About one byte per 8 dimensions, among the code sizes FAISS's GPU IVF-PQ takes."""
    for m in (96, 64, 56, 48, 40, 32, 28, 24, 20, 16, 12, 8, 4, 2, 1):
        if dim % m == 0 and dim // m >= 4 and m <= max(1, dim // 8):
            return m
    return 1
