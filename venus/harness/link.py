"""`SessionLink`: the one object between a session and the harness.

Composition at the top of the harness, beside `venus.harness.Harness`, which hands one out
per session (`Harness.attach`). The session never touches the harness's channel: it
submits requests, ticks the link at each chunk boundary and gets values back (results to
offer, results delivered silently, whether a result being spoken was cancelled), and it
reports playback. Everything the link changes is recorded on the session's timeline by
the harness, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from venus.events import WorkState
from venus.harness.channel import BackgroundChannel
from venus.harness.context import MemoryView
from venus.harness.requests import DelegationRequest, ResultOffer, WorkItemView
from venus.speech.base import PlaybackReport, PlaybackStatus

if TYPE_CHECKING:
    from venus.harness.harness import Harness

__all__ = ["SessionLink", "Tick"]

_RUNNING = (WorkState.QUEUED, WorkState.RUNNING, WorkState.COMPLETED, WorkState.FAILED)


@dataclass(frozen=True)
class Tick:
    """What the harness has for the session at one chunk boundary.

    ``offers``: finished results that may be spoken; ``context``: results delivered
    silently now (the frontend sees them in its view); ``stop``: a result being spoken was
    cancelled, so the session must stop its output now.
    """

    offers: tuple[ResultOffer, ...] = ()
    context: tuple[ResultOffer, ...] = ()
    stop: bool = False


class SessionLink:
    """One session's private connection to a (possibly shared) `Harness`."""

    def __init__(self, harness: Harness, channel: BackgroundChannel) -> None:
        self._harness = harness
        self._channel = channel

    @property
    def session_id(self) -> str:
        return self._channel.session_id

    @property
    def memory(self) -> MemoryView | None:
        return self._channel.memory

    # -- the foreground's calls, in the order of one chunk -----------------------------
    def tick(self) -> Tick:
        """Reintegrate finished work (freshness checks, silent deliveries)."""
        offers, context = self._harness.reintegrate(self._channel)
        return Tick(tuple(offers), tuple(context), self.take_stop())

    def acknowledge_context(self) -> None:
        """The frontend has seen the silently delivered results: they are DELIVERED."""
        self._harness.acknowledge_context(self._channel)

    def submit(self, request: DelegationRequest) -> str | None:
        """Record and act on one request; the id of a new work item, if any."""
        return self._harness.submit(self._channel, request)

    def take_stop(self) -> bool:
        """Whether a result being spoken was cancelled since the last call."""
        stopped = bool(self._channel.stops)
        self._channel.stops.clear()
        return stopped

    def choose(self, offers: tuple[ResultOffer, ...] | list[ResultOffer], *,
               assistant_speaking: bool, user_speaking: bool) -> list[ResultOffer]:
        """The offers to start speaking now, under their delivery policies."""
        return self._harness.to_speak(self._channel, list(offers),
                                      assistant_speaking=assistant_speaking,
                                      user_speaking=user_speaking)

    def delivering(self, item_id: str, utterance_id: str) -> None:
        """The session queued ``utterance_id`` to speak item ``item_id``."""
        self._harness.delivering(self._channel, item_id, utterance_id)

    def delivered_by(self, utterance_id: str) -> str | None:
        """The work item ``utterance_id`` delivers, if any."""
        return self._channel.speaking.get(utterance_id)

    def on_playback(self, report: PlaybackReport) -> None:
        """Playback of an utterance ended (heard in full, or stopped part-way)."""
        if report.status is PlaybackStatus.STARTED:
            return
        self._harness.on_playback(self._channel, report.utterance_id,
                                  complete=report.status is PlaybackStatus.FINISHED,
                                  heard_fraction=report.heard_fraction)

    def check(self) -> None:
        """Re-raise a bug that killed a background task (never a capability's error)."""
        self._harness.check()

    # -- what the session reads ----------------------------------------------------------
    def work(self) -> tuple[WorkItemView, ...]:
        """Open items not yet waiting for delivery, oldest first."""
        return tuple(WorkItemView(i.item_id, i.capability, i.state, dict(i.arguments),
                                  i.snapshot.time)
                     for i in self._channel.open() if not i.pending_delivery)

    @property
    def transcript(self) -> tuple[str, ...]:
        """The recent user words the harness keeps for evidence snapshots."""
        return tuple(self._channel.transcript)

    @property
    def busy(self) -> bool:
        """Background work is still queued, running or waiting to be delivered."""
        return any(i.state in _RUNNING for i in self._channel.open())

    def counts(self) -> tuple[int, int]:
        """``(delivered, cancelled)`` work items of this session so far."""
        items = self._channel.items.values()
        return (sum(i.state is WorkState.DELIVERED for i in items),
                sum(i.state is WorkState.CANCELLED for i in items))

    async def close(self, reason: str = "session ended") -> None:
        """Detach: running items and undelivered results end CANCELLED."""
        await self._harness.detach(self._channel, reason)
