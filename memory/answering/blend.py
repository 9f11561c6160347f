"""`RerankBlend`: a `Reranker` model's score blended into another ranker's.

Beside `memory.answering.rules`: a cross-encoder or an extractive QA model from a local
path (`memory.models.rerank`) rescores the units, squashed to 0..1, and counts
``weight`` beside the base ranker's score; a SQuAD 2.0 style model also says, per unit,
whether it rates "no answer" above the unit's best span (the memory then abstains). The
pipeline wraps the configured ranker in one when `MemoryModels.reranker` is set
(``docs/answers.md``, "Rerankers from a local path").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory.answering.question import Question
from memory.answering.rank import RankContext, Scores, UnitRanker
from memory.evidence import Evidence
from memory.models.base import Reranker

__all__ = ["RerankBlend"]


@dataclass(frozen=True)
class RerankBlend:
    """``(1 - weight) * base + weight * sigmoid(reranker)``; abstains at the base
    ranker's ``min_score`` unless given its own (recalibrate when adding a reranker)."""

    base: UnitRanker
    reranker: Reranker
    weight: float = 0.5
    threshold: float | None = None

    @property
    def name(self) -> str:
        return f"{self.base.name} + reranker {self.weight:g}"

    @property
    def min_score(self) -> float:
        return self.base.min_score if self.threshold is None else self.threshold

    def rank(self, question: Question, units: Sequence[Evidence],
             context: RankContext) -> Scores:
        scores = self.base.rank(question, units, context)
        if not units:
            return scores
        relevance = self.reranker.rerank(question.text, [u.text for u in units])
        squashed = np.array([1.0 / (1.0 + math.exp(-r.score)) for r in relevance])
        no_answer = None
        if any(r.no_answer is not None for r in relevance):
            no_answer = tuple(r.no_answer is not None and r.no_answer >= r.score
                              for r in relevance)
        return Scores((1.0 - self.weight) * scores.values + self.weight * squashed, no_answer)
