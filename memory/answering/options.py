"""`AnswerOptions`: how the store answers (a data type: the ranker is an object)."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory.answering.rank import UnitRanker
from memory.answering.rules import RuleRanker

__all__ = ["AnswerOptions"]


@dataclass
class AnswerOptions:
    """How the store answers.

    ``ranker``: scores the evidence units (any `UnitRanker`: `RuleRanker` by default, a
    variant such as ``RuleRanker().without("clauses")``, `DenseRanker`, your own); the
    memory abstains when the best unit scores under its ``min_score``. ``moments``:
    retrieved moments whose units are scored; ``reranker_weight``: how much a `Reranker`'s
    score (squashed to 0..1) counts beside the ranker's when ``MemoryModels.reranker`` is
    set (`memory.answering.blend.RerankBlend`).
    """

    ranker: UnitRanker = field(default_factory=RuleRanker)
    moments: int = 6
    reranker_weight: float = 0.5

    @property
    def min_score(self) -> float:
        """The ranker's abstention threshold."""
        return self.ranker.min_score
