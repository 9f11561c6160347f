"""BM25 index: scores against the textbook formula, ranking, ranges, removal; RRF."""

from __future__ import annotations

import math

import pytest

from memory.lexical import BM25Index, reciprocal_rank_fusion, tokenize

DOCS = {
    10: "The mitochondria is the powerhouse of the cell",
    11: "Photosynthesis happens in the chloroplasts of plant cells",
    12: "Our guest speaker today is Professor Zanzibar from Lisbon",
    13: "Cells divide by mitosis; mitosis has four phases",
}


def _index():
    index = BM25Index()
    for doc_id, text in DOCS.items():
        index.add(doc_id, text)
    return index


def test_tokenize_drops_stop_words_and_folds_plurals():
    assert tokenize("The Cells of plants, 42 times!") == ["cell", "plant", "42", "time"]


def test_rare_name_ranks_its_document_first():
    hits = _index().search("who is Zanzibar?", k=3)
    assert hits[0][0] == 12 and len(hits) == 1


def test_score_matches_the_bm25_formula():
    index = _index()
    docs = [tokenize(t) for t in DOCS.values()]
    avg = sum(map(len, docs)) / len(docs)
    df = sum("mitosi" in d for d in docs)
    idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
    tf, length = docs[3].count("mitosi"), len(docs[3])
    expected = idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * length / avg))
    assert index.scores("mitosis")[13] == pytest.approx(expected)


def test_id_range_and_removal():
    index = _index()
    assert [i for i, _ in index.search("cell", k=5, id_range=(11, 13))] == [11]
    assert index.remove([11, 99]) == 1
    assert 11 not in dict(index.search("chloroplasts cell", k=5))
    with pytest.raises(ValueError, match="already indexed"):
        index.add(10, "again")


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = reciprocal_rank_fusion([[1, 2, 3], [2, 4]])
    assert fused[0][0] == 2
    assert {i for i, _ in fused} == {1, 2, 3, 4}
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
