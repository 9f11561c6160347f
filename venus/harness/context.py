"""What a capability sees when it runs: its `CapabilityContext` and the `MemoryView` seam.

Data types at the bottom of the harness. `MemoryView` is the memory as the runtime sees
it: retrieval, a time range of chunk summaries and a version that grows with each
ingested chunk (what the built-in capabilities use), and a direct answer (what the
embedded frontend speaks). ``memory.VideoMemory`` (video watched) and
``memory.NotesMemory`` (notes given) implement it; `venus.testing.FakeMemory` is the
fake for tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from venus.clock import Clock
from venus.errors import CapabilityFailure
from venus.events import EvidenceSnapshot

__all__ = ["CapabilityContext", "MemoryAnswer", "MemoryEvidence", "MemoryMoment", "MemoryView"]


@runtime_checkable
class MemoryMoment(Protocol):
    """One retrieved stretch of video (``memory.Moment`` has these members)."""

    start: float
    end: float
    score: float
    text: str  # the chunk summary
    transcript: str
    ocr_text: str
    keyframe: str | None


@runtime_checkable
class MemoryAnswer(Protocol):
    """A direct answer (``memory.Answer`` has this member and its citations)."""

    text: str


@runtime_checkable
class MemoryEvidence(Protocol):
    """One sentence said or line shown (``memory.Evidence`` has these members)."""

    kind: str  # "said", "shown" or "seen"
    text: str
    start: float
    end: float
    boilerplate: bool  # screen text repeated on most frames (a footer): never quoted


@runtime_checkable
class MemoryView(Protocol):
    """The memory API the runtime relies on."""

    @property
    def version(self) -> int:
        """Grows by one with each ingested chunk."""

    @property
    def duration(self) -> float:
        """Media seconds the memory holds (the video's own time, not the session's)."""

    def search(self, query: str, k: int = 5, before: float | None = None
               ) -> Sequence[MemoryMoment]:
        """The ``k`` best moments for ``query`` that ended before ``before``."""

    def moments(self, start: float, end: float) -> Sequence[MemoryMoment]:
        """Chunk summaries overlapping ``[start, end)``, in time order."""

    def answer(self, question: str, at: float | None = None, k: int = 3) -> MemoryAnswer:
        """A short reply to ``question`` asked at ``at``, quoting up to ``k`` moments
        (it says it has not seen it when nothing matches)."""

    def evidence(self, start: float, end: float) -> Sequence[MemoryEvidence]:
        """The sentences said and lines shown in ``[start, end]``, in time order."""


@dataclass(frozen=True)
class CapabilityContext:
    """Passed to a capability that declares a parameter annotated `CapabilityContext`.

    ``snapshot`` is the evidence fixed when the request was made: a capability should
    answer from it (e.g. search memory ``before=snapshot.time``) so the result is about
    what the user had seen when they asked. Wait only through ``clock``.
    """

    session_id: str
    item_id: str
    attempt: int
    idempotency_key: str
    snapshot: EvidenceSnapshot
    clock: Clock
    memory: MemoryView | None = None

    def require_memory(self) -> MemoryView:
        if self.memory is None:
            raise CapabilityFailure("this session has no video memory to search; attach one")
        return self.memory
