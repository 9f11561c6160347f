"""FaissIndex against brute-force numpy search on seeded data (exact, HNSW, ranges)."""

from __future__ import annotations

import numpy as np
import pytest

from memory.errors import StoreError
from memory.index import FaissIndex, IndexOptions, VectorIndex


def _unit(rng, n, d=32):
    v = rng.normal(size=(n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _brute(queries, vectors, ids, k, id_range=None):
    if id_range is not None:
        keep = (ids >= id_range[0]) & (ids < id_range[1])
        vectors, ids = vectors[keep], ids[keep]
    sims = queries @ vectors.T
    order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return ids[order]


@pytest.fixture()
def data():
    rng = np.random.default_rng(7)
    ids = rng.permutation(10_000)[:600].astype(np.int64)
    return rng, ids, _unit(rng, 600), _unit(rng, 20)


def test_exact_search_matches_numpy(data):
    _, ids, vectors, queries = data
    index = FaissIndex(32)
    assert isinstance(index, VectorIndex)
    index.add(ids, vectors)
    assert index.kind == "exact" and len(index) == 600
    scores, got = index.search(queries, 10)
    np.testing.assert_array_equal(got, _brute(queries, vectors, ids, 10))
    np.testing.assert_allclose(scores[:, 0], (queries @ vectors.T).max(axis=1), rtol=1e-5)


def test_id_range_restricts_results(data):
    _, ids, vectors, queries = data
    index = FaissIndex(32)
    index.add(ids, vectors)
    _, got = index.search(queries, 5, id_range=(2000, 4000))
    np.testing.assert_array_equal(got, _brute(queries, vectors, ids, 5, (2000, 4000)))


def test_switches_to_hnsw_with_high_recall(data):
    _, ids, vectors, queries = data
    index = FaissIndex(32, IndexOptions(hnsw_threshold=200))
    index.add(ids[:150], vectors[:150])
    assert index.kind == "exact"
    index.add(ids[150:], vectors[150:])
    assert index.kind == "hnsw" and len(index) == 600
    _, got = index.search(queries, 10)
    truth = _brute(queries, vectors, ids, 10)
    recall = np.mean([len(set(g) & set(t)) / 10 for g, t in zip(got, truth)])
    assert recall >= 0.95
    # A narrow range is answered exactly even under HNSW.
    _, narrow = index.search(queries, 3, id_range=(0, 1500))
    np.testing.assert_array_equal(narrow, _brute(queries, vectors, ids, 3, (0, 1500)))


@pytest.mark.parametrize("threshold", [10_000, 100])
def test_remove_then_search(data, threshold):
    _, ids, vectors, queries = data
    index = FaissIndex(32, IndexOptions(hnsw_threshold=threshold))
    index.add(ids, vectors)
    gone = ids[:300]
    assert index.remove(np.concatenate([gone, [10_001]])) == 300
    assert len(index) == 300
    _, got = index.search(queries, 5)
    assert not set(got.ravel()) & set(gone.tolist())
    if threshold > 600:
        np.testing.assert_array_equal(got, _brute(queries, vectors[300:], ids[300:], 5))


def test_duplicate_ids_and_bad_shapes_are_rejected(data):
    _, ids, vectors, _ = data
    index = FaissIndex(32)
    index.add(ids[:3], vectors[:3])
    with pytest.raises(ValueError, match="already in the index"):
        index.add(ids[:1], vectors[:1])
    with pytest.raises(ValueError, match="dim 32"):
        index.add(np.array([1]), np.zeros((1, 8), np.float32))


def test_empty_and_short_results_are_padded():
    index = FaissIndex(4)
    scores, ids = index.search(np.ones((1, 4), np.float32), 3)
    assert ids.tolist() == [[-1, -1, -1]]
    index.add(np.array([5]), np.array([[1, 0, 0, 0]], np.float32))
    scores, ids = index.search(np.array([[1, 0, 0, 0]], np.float32), 3)
    assert ids.tolist() == [[5, -1, -1]] and scores[0, 0] == pytest.approx(1.0)


@pytest.mark.parametrize("threshold", [10_000, 100])
def test_save_load_gives_identical_results(tmp_path, data, threshold):
    _, ids, vectors, queries = data
    index = FaissIndex(32, IndexOptions(hnsw_threshold=threshold))
    index.add(ids, vectors)
    path = str(tmp_path / "v.faiss")
    index.save(path)
    loaded = FaissIndex.load(path, IndexOptions(hnsw_threshold=threshold))
    assert loaded.kind == index.kind and len(loaded) == len(index)
    for a, b in zip(index.search(queries, 7, (0, 5000)), loaded.search(queries, 7, (0, 5000))):
        np.testing.assert_array_equal(a, b)


def test_load_of_garbage_is_a_store_error(tmp_path):
    bad = tmp_path / "v.faiss"
    bad.write_bytes(b"not an index")
    with pytest.raises(StoreError, match="delete it"):
        FaissIndex.load(str(bad))
