"""`memory.answering` as one seam: a question read once, rankers passed as objects, the
rule table written once, and the pipeline reading a memory through its port only (here a
fake one: any `AnswerSource` answers)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from memory.answering import (
    FEATURES,
    NOT_SEEN,
    AnswerOptions,
    Candidates,
    DenseRanker,
    ExtractiveAnswerer,
    Question,
    RuleRanker,
    Scores,
    UnitRanker,
)
from memory.answering.pipeline import answer
from memory.evidence import SAID, SHOWN, Evidence, Moment
from memory.lexical import tokenize

DOCS = Path(__file__).resolve().parent.parent / "docs" / "answers.md"


def test_a_question_is_read_once_into_its_parts():
    q = Question.parse("How many moons does Saturn have?")
    assert q.terms == ("moon", "saturn") and q.wanted == "number" and q.counted == "moon"
    assert q.names == (("saturn",),) and q.kind is None and q.time is None
    q = Question.parse("What spread the diseases that killed the canal workers?")
    assert q.clause == frozenset(tokenize("killed canal workers"))
    q = Question.parse("What was on the slide at 1:30?", now=200.0)
    assert q.kind == SHOWN and q.time.point == 90.0 and not q.asks_more
    assert Question.parse("What was said about bees at 1:30?", now=200.0).asks_more
    assert Question.of(q) is q


def test_the_feature_table_in_the_docs_is_the_code_s():
    rows = re.findall(r"^\| `(\w+)` \| ([\d.]+|switch) \|", DOCS.read_text(encoding="utf-8"),
                      re.M)
    assert [(n, None if w == "switch" else float(w)) for n, w in rows] == \
        [(f.name, f.weight) for f in FEATURES]


def test_a_variant_is_a_feature_set():
    default = RuleRanker()
    assert default.name == "rules" and default.features == {f.name for f in FEATURES}
    variant = default.without("clauses")
    assert variant.name == "rules -clauses" and variant.weight("clauses") == 0.0
    assert default.weighted(type=0.15).name == "rules type=0.15"
    assert variant != default and default.without() == default
    with pytest.raises(ValueError, match="unknown ranker feature"):
        default.without("clauses").weighted(clause=0.5)
    assert isinstance(default, UnitRanker) and isinstance(DenseRanker(), UnitRanker)


# -- the pipeline on a fake memory ---------------------------------------------------------
SENTENCES = ("Bees carry pollen from flower to flower.",
             "The hive keeps a steady temperature in winter.",
             "Saturn has 146 known moons.")


def _vector(text: str) -> np.ndarray:
    """A bag of hashed terms, normalised: texts sharing terms are close."""
    v = np.zeros(64, np.float32)
    for t in tokenize(text):
        v[sum(map(ord, t)) % 64] += 1.0
    return v / max(float(np.linalg.norm(v)), 1e-9)


class FakeSource:
    """An `AnswerSource` over three sentences, one moment each, ten seconds apart."""

    def __init__(self, options: AnswerOptions) -> None:
        self.answer_options, self.answerer, self.reranker = options, ExtractiveAnswerer(), None
        self.units = [Evidence(SAID, t, 10.0 * i + 1.0, 10.0 * i + 5.0, i)
                      for i, t in enumerate(SENTENCES)]
        self.moments = [Moment(10.0 * i, 10.0 * i + 10.0, 0.0, u.text, u.text, id=i)
                        for i, u in enumerate(self.units)]

    duration = property(lambda self: 30.0)
    recent_s = property(lambda self: 60.0)

    def embed(self, text):
        return _vector(text)

    def find(self, query, vector, k, before, start=None, end=None):
        ranked = sorted(self.moments, key=lambda m: -float(_vector(m.transcript) @ vector))
        return ranked[:k]

    def moments_between(self, start, end):
        return [m for m in self.moments if m.end > start and m.end <= end]

    def recent(self, at):
        return None

    def captioned(self, moment):
        return moment

    def units_between(self, lo, hi, now=None):
        return [u for u in self.units if u.end > lo and u.start < hi]

    def units_in(self, moments, now):
        units = [self.units[m.id] for m in moments]
        return Candidates(units, list(range(len(units))),
                          np.vstack([_vector(u.text) for u in units]))

    def term_counts(self, terms, now):
        return 3, {t: sum(t in tokenize(s) for s in SENTENCES) for t in terms}


class Scripted:
    """A ranker of one's own: scores the unit that names ``word`` 1, the others 0."""

    name = "scripted"

    def __init__(self, word: str, min_score: float = 0.5) -> None:
        self.word, self.min_score, self.asked = word, min_score, []

    def rank(self, question, units, context):
        self.asked.append(question)
        return Scores(np.array([float(self.word in u.text) for u in units]))


def test_any_ranker_passed_in_the_options_decides_the_answer():
    ranker = Scripted("hive")
    reply = answer(FakeSource(AnswerOptions(ranker=ranker)), "What do bees carry?", 30.0, 3)
    assert reply.found and reply.text.startswith('At 0:11 it was said: "The hive')
    assert reply.extras["ranker"] == "scripted" and isinstance(ranker.asked[0], Question)
    shy = Scripted("hive", min_score=1.5)  # its own threshold: it abstains
    reply = answer(FakeSource(AnswerOptions(ranker=shy)), "What do bees carry?", 30.0, 3)
    assert not reply.found and reply.text == NOT_SEEN


def test_the_default_ranker_answers_through_the_port():
    source = FakeSource(AnswerOptions())
    reply = answer(source, "How many moons does Saturn have?", 30.0, 3)
    assert reply.found and "146 known moons" in reply.text
    assert reply.evidence[0].start == 21.0 and reply.citations[0].start == 20.0
    anchored = answer(source, "What was said at 0:12?", 30.0, 3)
    assert anchored.found and "hive" in anchored.text and anchored.extras["anchored_answer"]
    assert not answer(source, "What was said at 0:50?", 30.0, 3).found


class HashEncoder:
    """A `TextEmbedder` of hashed terms; records what it was asked to embed."""

    dim = 64

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen += list(texts)
        return np.vstack([_vector(t) for t in texts])


def test_an_encoder_ranker_reads_with_its_own_vectors():
    from memory.answering import EncoderRanker, RankContext

    units = [Evidence(SAID, t, 0.0, 1.0) for t in SENTENCES]
    blind = RankContext(np.zeros(64, np.float32), np.zeros((3, 64), np.float32), [1.0] * 3, {})
    encoder = HashEncoder()
    ranker = EncoderRanker(DenseRanker(), encoder, "hash", "query: ", "passage: ", cache=4)
    question = Question.parse("Saturn has how many known moons?")
    scores = ranker.rank(question, units, blind).values
    assert int(np.argmax(scores)) == 2 and scores[2] > 0.5  # the memory's vectors were zeros
    assert DenseRanker().rank(question, units, blind).values.tolist() == [0.0, 0.0, 0.0]
    assert encoder.seen[0].startswith("query: ") and encoder.seen[1].startswith("passage: ")
    ranker.rank(question, units, blind)  # all four texts cached: nothing embedded again
    assert len(encoder.seen) == 4 and ranker.name == "dense @ hash"
    assert ranker.min_score == DenseRanker().min_score
