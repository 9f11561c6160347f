"""`EncoderRanker`: a ranker that reads the question and the units with its own encoder.

Beside the other rankers (`memory.answering.rank`). The memory's index keeps the embedder
it was built with (MiniLM by default); answers may read with another text encoder from a
local path (any sentence-transformers directory through `memory.models.MiniLMEmbedder`),
given to the ranker it wraps as the dense part's vectors. Measured side by side on every
split of ``venus bench qa`` (``--encoder PATH``), all-mpnet-base-v2 and
multilingual-e5-small did not earn their cost over MiniLM (``docs/answers.md``, "Other
encoders"), so no default uses this: it is the seam for trying one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from memory.answering.question import Question
from memory.answering.rank import RankContext, Scores, UnitRanker
from memory.evidence import Evidence
from memory.models.base import TextEmbedder

__all__ = ["EncoderRanker"]


@dataclass
class EncoderRanker:
    """``base`` ranking with vectors from ``encoder``: the question (what is left once its
    time phrase is out) with ``query_prefix``, each unit with ``passage_prefix`` (e5's
    ``"query: "`` / ``"passage: "``). Vectors are kept for the last ``cache`` texts (a
    memory's units come back question after question). ``threshold``: its own abstention
    threshold (recalibrate for an encoder: the base's is the default)."""

    base: UnitRanker
    encoder: TextEmbedder
    label: str = "encoder"
    query_prefix: str = ""
    passage_prefix: str = ""
    threshold: float | None = None
    cache: int = 4096
    _vectors: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return f"{self.base.name} @ {self.label}"

    @property
    def min_score(self) -> float:
        return self.base.min_score if self.threshold is None else self.threshold

    def rank(self, question: Question, units: Sequence[Evidence],
             context: RankContext) -> Scores:
        if not units:
            return self.base.rank(question, units, context)
        vector = self._embed([self.query_prefix + question.query])[0]
        vectors = self._embed([self.passage_prefix + u.text for u in units])
        return self.base.rank(question, units,
                              dataclasses.replace(context, vector=vector, vectors=vectors))

    def _embed(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            rows = np.asarray(self.encoder.embed(missing), dtype=np.float32)
            rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
            self._vectors.update(zip(missing, rows))
            while len(self._vectors) > self.cache:
                self._vectors.pop(next(iter(self._vectors)))
        return np.vstack([self._vectors[t] for t in texts])
