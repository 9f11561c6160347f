"""Building the causal `SessionView` a frontend receives at a chunk boundary.

Composition helper of the runtime: it reads the session's timeline and its harness link,
both of which only hold what was recorded up to now, so the view is causal.
"""

from __future__ import annotations

from venus.frontend.base import ResultOffer, SessionView
from venus.harness.link import SessionLink
from venus.timeline import Timeline

__all__ = ["build_view"]


def build_view(timeline: Timeline, link: SessionLink, *, chunk_index: int,
               since_seq: int, speaking: bool, offers: tuple[ResultOffer, ...],
               context: tuple[ResultOffer, ...]) -> SessionView:
    """The frontend's view after chunk ``chunk_index``; ``recent`` starts at ``since_seq``."""
    memory = link.memory
    return SessionView(
        session_id=timeline.session_id, time=timeline.now(), chunk_index=chunk_index,
        speaking=speaking, transcript=link.transcript, work=link.work(),
        results=tuple(offers), context=tuple(context), recent=timeline.since(since_seq),
        memory_version=memory.version if memory is not None else None,
    )
