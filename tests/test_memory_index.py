"""FaissIndex against brute-force numpy search on seeded data: exact, IVF-PQ, id ranges
(one and many), removal, retraining, persistence (and the older FAISS-file checkpoints)."""

from __future__ import annotations

import numpy as np
import pytest

from memory.errors import StoreError
from memory.index import FaissIndex, IndexOptions, VectorIndex
from memory.index.ivfpq import recall_at


def _unit(rng, n, d=32):
    v = rng.normal(size=(n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _clustered(rng, n, d=32, clusters=40, spread=0.6):
    """Vectors around a few centres (the same ones for every ``rng``), like the segments
    of many videos and the questions asked about them."""
    centres = _unit(np.random.default_rng(99), clusters, d)
    v = centres[rng.integers(0, clusters, n)] + spread * rng.normal(size=(n, d)) / np.sqrt(d)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def _brute(queries, vectors, ids, k, ranges=None):
    if ranges is not None:
        ranges = [ranges] if np.isscalar(ranges[0]) else ranges
        keep = np.zeros(len(ids), bool)
        for lo, hi in ranges:
            keep |= (ids >= lo) & (ids < hi)
        vectors, ids = vectors[keep], ids[keep]
    sims = queries @ vectors.T
    order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return ids[order]


@pytest.fixture()
def data():
    rng = np.random.default_rng(7)
    ids = rng.permutation(10_000)[:600].astype(np.int64)
    return rng, ids, _unit(rng, 600), _unit(rng, 20)


@pytest.fixture(scope="module")
def big():
    """6000 clustered vectors, ids in blocks of 1000 per "video", an IVF-PQ index on them."""
    rng = np.random.default_rng(11)
    vectors = _clustered(rng, 6000)
    ids = (np.arange(6000) // 1000) * 1_000_000 + np.arange(6000) % 1000
    index = FaissIndex(32, IndexOptions(approximate_at=4000, exact_scope=500))
    index.add(ids[:3000], vectors[:3000])
    assert index.kind == "exact"
    index.add(ids[3000:], vectors[3000:])
    queries = _clustered(np.random.default_rng(12), 50)
    return index, ids, vectors, queries


def test_exact_search_matches_numpy(data):
    _, ids, vectors, queries = data
    index = FaissIndex(32)
    assert isinstance(index, VectorIndex)
    index.add(ids, vectors)
    assert index.kind == "exact" and len(index) == 600
    scores, got = index.search(queries, 10)
    np.testing.assert_array_equal(got, _brute(queries, vectors, ids, 10))
    np.testing.assert_allclose(scores[:, 0], (queries @ vectors.T).max(axis=1), rtol=1e-5)


def test_id_ranges_restrict_results(data):
    _, ids, vectors, queries = data
    index = FaissIndex(32)
    index.add(ids, vectors)
    _, got = index.search(queries, 5, id_range=(2000, 4000))
    np.testing.assert_array_equal(got, _brute(queries, vectors, ids, 5, (2000, 4000)))
    ranges = [(7000, 9000), (0, 1000), (800, 1500)]  # unsorted and overlapping
    _, got = index.search(queries, 8, id_range=ranges)
    np.testing.assert_array_equal(got, _brute(queries, vectors, ids, 8, ranges))


def test_trains_ivfpq_with_recall_checked_against_exact(big):
    index, ids, vectors, queries = big
    assert index.kind == "ivfpq" and len(index) == 6000
    assert index.recall >= 0.97  # measured on its own vectors when it was trained
    _, got = index.search(queries, 10)
    assert recall_at(got, _brute(queries, vectors, ids, 10), 10) >= 0.95
    assert index.check_recall(queries, 10) >= 0.95
    assert index.nbytes < vectors.nbytes  # float16 vectors + 4-byte codes


def test_ivfpq_filters_stay_exact(big):
    index, ids, vectors, queries = big
    one_video = (2_000_000, 3_000_000)  # 1000 vectors: above exact_scope, so filtered IVF
    _, got = index.search(queries, 10, id_range=one_video)
    assert ((got >= one_video[0]) & (got < one_video[1])).all()
    assert recall_at(got, _brute(queries, vectors, ids, 10, one_video), 10) >= 0.95
    cutoffs = [(v * 1_000_000, v * 1_000_000 + 300) for v in range(6)]  # a cutoff per video
    _, got = index.search(queries, 10, id_range=cutoffs)
    truth = _brute(queries, vectors, ids, 10, cutoffs)
    # 1800 vectors in scope: answered through the filter, never outside it
    assert all(any(lo <= i < hi for lo, hi in cutoffs) for i in got.ravel())
    assert recall_at(got, truth, 10) >= 0.95
    narrow = (5_000_000, 5_000_200)  # under exact_scope: exact
    _, got = index.search(queries, 5, id_range=narrow)
    np.testing.assert_array_equal(got, _brute(queries, vectors, ids, 5, narrow))


def test_many_ranges_use_one_id_set(big):
    index, ids, vectors, queries = big
    ranges = [(v * 1_000_000 + a, v * 1_000_000 + a + 40) for v in range(6) for a in
              range(0, 1000, 100)]  # 60 ranges, 2400 vectors
    _, got = index.search(queries, 10, id_range=ranges)
    assert all(any(lo <= i < hi for lo, hi in ranges) for i in got.ravel())
    assert recall_at(got, _brute(queries, vectors, ids, 10, ranges), 10) >= 0.9


def test_retrains_after_growing():
    rng = np.random.default_rng(3)
    vectors = _clustered(rng, 5000)
    index = FaissIndex(32, IndexOptions(approximate_at=1000, retrain_growth=4.0))
    index.add(np.arange(1000), vectors[:1000])
    assert index._ivf.trained_n == 1000
    index.add(np.arange(1000, 3999), vectors[1000:3999])
    assert index._ivf.trained_n == 1000
    index.add(np.arange(3999, 5000), vectors[3999:])
    assert index._ivf.trained_n == 5000 and index.recall >= 0.97


@pytest.mark.parametrize("approximate_at", [None, 100])
def test_remove_then_search(data, approximate_at):
    _, ids, vectors, queries = data
    index = FaissIndex(32, IndexOptions(approximate_at=approximate_at, exact_scope=0,
                                        exact_range_fraction=0.0))
    index.add(ids, vectors)
    gone = ids[:300]
    assert index.remove(np.concatenate([gone, [10_001]])) == 300
    assert len(index) == 300
    _, got = index.search(queries, 5)
    assert not set(got.ravel()) & set(gone.tolist())
    if approximate_at is None:
        np.testing.assert_array_equal(got, _brute(queries, vectors[300:], ids[300:], 5))
    assert index.remove_range(0, 5000) == int((ids[300:] < 5000).sum())
    assert (index.ids() >= 5000).all()


def test_duplicate_ids_and_bad_shapes_are_rejected(data):
    _, ids, vectors, _ = data
    index = FaissIndex(32)
    index.add(ids[:3], vectors[:3])
    with pytest.raises(ValueError, match="already in the index"):
        index.add(ids[:1], vectors[:1])
    with pytest.raises(ValueError, match="dim 32"):
        index.add(np.array([1]), np.zeros((1, 8), np.float32))
    with pytest.raises(ValueError, match="non-negative"):
        index.add(np.array([-4]), vectors[:1])


def test_out_of_order_adds_are_merged(data):
    _, ids, vectors, queries = data
    index = FaissIndex(32)
    for i in range(0, 600, 50):  # random ids, added in batches
        index.add(ids[i:i + 50], vectors[i:i + 50])
    np.testing.assert_array_equal(index.ids(), np.sort(ids))
    np.testing.assert_array_equal(index.search(queries, 10)[1], _brute(queries, vectors, ids, 10))
    np.testing.assert_allclose(index.vectors(ids[:3]), vectors[:3])


def test_empty_and_short_results_are_padded():
    index = FaissIndex(4)
    scores, ids = index.search(np.ones((1, 4), np.float32), 3)
    assert ids.tolist() == [[-1, -1, -1]]
    index.add(np.array([5]), np.array([[1, 0, 0, 0]], np.float32))
    scores, ids = index.search(np.array([[1, 0, 0, 0]], np.float32), 3)
    assert ids.tolist() == [[5, -1, -1]] and scores[0, 0] == pytest.approx(1.0)


@pytest.mark.parametrize("approximate_at", [10_000, 100])
def test_save_load_gives_identical_results(tmp_path, data, approximate_at):
    _, ids, vectors, queries = data
    options = IndexOptions(approximate_at=approximate_at, exact_scope=0)  # scopes use IVF too
    index = FaissIndex(32, options)
    index.add(ids, vectors)
    path = str(tmp_path / "v.faiss")
    index.save(path)
    loaded = FaissIndex.load(path, options)
    assert loaded.kind == index.kind and len(loaded) == len(index)
    assert loaded.recall == index.recall
    for scope in ((0, 5000), None):  # a scope and the whole index (it crashed once reloaded)
        for a, b in zip(index.search(queries, 7, scope), loaded.search(queries, 7, scope)):
            np.testing.assert_array_equal(a, b)


def test_an_older_faiss_checkpoint_is_read(tmp_path, data):
    import faiss

    _, ids, vectors, queries = data
    old = faiss.IndexIDMap2(faiss.IndexFlatIP(32))
    old.add_with_ids(vectors, ids)
    faiss.write_index(old, str(tmp_path / "old.faiss"))
    loaded = FaissIndex.load(str(tmp_path / "old.faiss"))
    np.testing.assert_array_equal(loaded.search(queries, 5)[1], _brute(queries, vectors, ids, 5))


def test_load_of_garbage_is_a_store_error(tmp_path):
    bad = tmp_path / "v.faiss"
    bad.write_bytes(b"not an index")
    with pytest.raises(StoreError, match="delete it"):
        FaissIndex.load(str(bad))
