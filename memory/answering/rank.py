"""The ranker seam: a `UnitRanker` scores evidence units for a `Question`.

Above `memory.answering.question`, below the pipeline. A ranker is an object passed in
`memory.answering.AnswerOptions` (``ranker=...``), never a name looked up in a table, and
carries its own abstention threshold (``min_score``, calibrated for it by
`memory.benchmarks.qa.calibrate`). Shipped here: `DenseRanker` (the embedding's cosine
alone); `memory.answering.rules.RuleRanker` (the default: named features with weights)
and `memory.answering.blend.RerankBlend` (a `Reranker` model's score blended into
another ranker's) sit beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from memory.answering.question import Question
from memory.evidence import Evidence

__all__ = ["DenseRanker", "RankContext", "Scores", "UnitRanker", "idf_weights"]


@dataclass(frozen=True)
class RankContext:
    """What a ranker may read besides the question and the units: ``vector`` (the
    question's embedding), ``vectors`` (the units', L2-normalised, one row each),
    ``priors`` (the retrieval-rank prior of each unit's moment), ``idf`` (term weights,
    `idf_weights`) and ``groups`` (the moment of each unit; None: one each)."""

    vector: np.ndarray
    vectors: np.ndarray
    priors: Sequence[float]
    idf: Mapping[str, float]
    groups: Sequence[int] | None = None


@dataclass(frozen=True)
class Scores:
    """One score per unit; ``no_answer`` (from a SQuAD 2.0 style model, else None): per
    unit, whether the model rates "no answer" above the unit's best span."""

    values: np.ndarray
    no_answer: tuple[bool, ...] | None = None


@runtime_checkable
class UnitRanker(Protocol):
    """Scores evidence units for a question; the memory abstains when the best unit
    scores under ``min_score``."""

    name: str
    min_score: float

    def rank(self, question: Question, units: Sequence[Evidence],
             context: RankContext) -> Scores: ...


@dataclass(frozen=True)
class DenseRanker:
    """The cosine of the question's and each unit's embedding, clipped to 0..1.

    ``min_score``: calibrated for the embedded MiniLM embedder as the default ranker's is
    (`memory.benchmarks.qa.calibrate` on the tuning, dev and dev2 splits pooled): 0.506,
    pooled abstention 0.99 and false abstention 0.004, at key accuracy spoken 0.58, slide
    0.83, content 0.63 (the rule ranker's: 0.977)."""

    min_score: float = 0.506
    name: str = "dense"

    def rank(self, question: Question, units: Sequence[Evidence],
             context: RankContext) -> Scores:
        if not units:
            return Scores(np.zeros(0))
        return Scores(np.clip(context.vectors @ context.vector, 0.0, 1.0))


def idf_weights(terms: Sequence[str], docs: int, doc_freq: Mapping[str, int]) -> dict[str, float]:
    """Term weights for the lexical part: Lucene's idf, scaled so an unseen term is 1."""
    top = math.log(1.0 + (docs + 0.5) / 0.5)
    return {t: math.log(1.0 + (docs - doc_freq.get(t, 0) + 0.5) / (doc_freq.get(t, 0) + 0.5))
            / top for t in terms}
