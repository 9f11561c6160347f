"""The `Reranker` backends, run by their real loading code on tiny random-weight BERT
models built from configs (no checkpoint ships anywhere, so none is downloaded)."""

from __future__ import annotations

import pytest

from memory.errors import ModelUnavailableError
from memory.models import CrossEncoderReranker, ExtractiveQAReranker, Relevance, Reranker

WORDS = ("the a of is what who how many do does plants need light sun water rain cat dog red "
         "blue watson bell called first call his assistant thomas").split()


def _tiny(tmp_path, head: str):
    from transformers import (
        BertConfig,
        BertForQuestionAnswering,
        BertForSequenceClassification,
        BertTokenizerFast,
    )

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    tokenizer = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)})
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=32,
                        max_position_embeddings=64, num_labels=1 if head == "ce" else 2)
    cls = BertForSequenceClassification if head == "ce" else BertForQuestionAnswering
    model = cls(config)
    path = tmp_path / head
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


PASSAGES = ["the first call was made to his assistant thomas watson", "plants need light",
            "red cat"]


def test_cross_encoder_scores_each_passage(tmp_path):
    reranker = CrossEncoderReranker(_tiny(tmp_path, "ce"))
    assert isinstance(reranker, Reranker)
    got = reranker.rerank("who did bell call first", PASSAGES)
    assert len(got) == 3 and all(isinstance(r, Relevance) and r.no_answer is None for r in got)
    again = reranker.rerank("who did bell call first", PASSAGES[::-1])
    assert [r.score for r in again] == pytest.approx([r.score for r in got][::-1], abs=1e-5)


def test_extractive_qa_model_gives_a_span_and_a_no_answer_score(tmp_path):
    reranker = ExtractiveQAReranker(_tiny(tmp_path, "qa"))
    got = reranker.rerank("who did bell call first", PASSAGES)
    assert len(got) == 3
    for passage, r in zip(PASSAGES, got):
        assert r.no_answer == 0.0 and r.span and r.span in passage
        assert len(r.span.split()) <= 30


def test_a_missing_model_is_one_clear_error(tmp_path):
    with pytest.raises(ModelUnavailableError, match="never downloaded"):
        CrossEncoderReranker(tmp_path / "nothing").rerank("q", ["p"])
