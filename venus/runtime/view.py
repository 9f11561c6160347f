"""Building the causal `SessionView` a frontend receives at a chunk boundary.

Composition helper of the runtime: it reads the session's timeline and the harness's
channel, both of which only hold what was recorded up to now, so the view is causal.
"""

from __future__ import annotations

from venus.frontend.base import ResultOffer, SessionView, WorkItemView
from venus.harness.channel import BackgroundChannel
from venus.timeline import Timeline

__all__ = ["build_view"]


def build_view(timeline: Timeline, channel: BackgroundChannel, *, chunk_index: int,
               since_seq: int, speaking: bool, offers: list[ResultOffer],
               context: list[ResultOffer]) -> SessionView:
    """The frontend's view after chunk ``chunk_index``; ``recent`` starts at ``since_seq``."""
    work = tuple(
        WorkItemView(i.item_id, i.capability, i.state, dict(i.arguments), i.snapshot.time)
        for i in channel.open() if not i.pending_delivery
    )
    memory = channel.memory
    return SessionView(
        session_id=timeline.session_id, time=timeline.now(), chunk_index=chunk_index,
        speaking=speaking, transcript=tuple(channel.transcript), work=work,
        results=tuple(offers), context=tuple(context), recent=timeline.since(since_seq),
        memory_version=memory.version if memory is not None else None,
    )
