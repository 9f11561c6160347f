"""`AnswerSource`: the port through which answering reads a memory.

Declared here, below the pipeline, and implemented by the store
(`memory.store.reader.MemoryReader.answer_source`, the reader's lock held): answering
never imports the store, and the store reads its own rows and indexes to fill it. Every
read takes the time the question is asked at (``now`` / ``before``): nothing after it is
returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from memory.evidence import Evidence, Moment

if TYPE_CHECKING:
    from memory.answering.options import AnswerOptions
    from memory.models.base import Answerer, Reranker

__all__ = ["AnswerSource", "Candidates"]


@dataclass(frozen=True)
class Candidates:
    """The units inside retrieved moments: ``units`` (footers flagged ``boilerplate``),
    ``owners`` (the index of each unit's moment in the list asked about) and ``vectors``
    (the units' embeddings, one row each)."""

    units: list[Evidence]
    owners: list[int]
    vectors: np.ndarray


class AnswerSource(Protocol):
    """What answering reads from a memory."""

    @property
    def duration(self) -> float:
        """Media time covered by committed chunks (seconds)."""

    @property
    def recent_s(self) -> float:
        """How far back "just now" reaches (`StoreOptions.recent_s`)."""

    @property
    def answer_options(self) -> AnswerOptions: ...

    @property
    def answerer(self) -> Answerer: ...

    @property
    def reranker(self) -> Reranker | None: ...

    def embed(self, text: str) -> np.ndarray:
        """The text embedder's vector for ``text``."""

    def find(self, query: str, vector: np.ndarray, k: int, before: float,
             start: float | None = None, end: float | None = None) -> list[Moment]:
        """The ``k`` segments (or the open stretch) best matching ``query``, ending by
        ``before`` and overlapping ``[start, end]`` when given, best first."""

    def moments_between(self, start: float, end: float) -> list[Moment]:
        """Chronological segments overlapping ``[start, end]`` that end by ``end``, the
        open stretch up to ``end`` last."""

    def recent(self, at: float) -> Moment | None:
        """The last ``recent_s`` seconds before ``at`` as one moment."""

    def captioned(self, moment: Moment) -> Moment:
        """``moment`` with its key frame captioned, when a captioner is set."""

    def units_between(self, lo: float, hi: float, now: float | None = None) -> list[Evidence]:
        """Units overlapping ``[lo, hi]`` that end by ``now`` (default ``hi``), in time
        order, footers flagged."""

    def units_in(self, moments: Sequence[Moment], now: float) -> Candidates:
        """The units of ``moments`` that end by ``now`` and have an embedding."""

    def term_counts(self, terms: Sequence[str], now: float) -> tuple[int, dict[str, int]]:
        """How many segments are indexed by ``now``, and how many of them hold each term."""
