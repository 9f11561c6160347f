"""The private background channel of one session: its work items and its return path.

Middle of the harness. A `BackgroundChannel` belongs to exactly one session: it holds
that session's work items, records their state changes on that session's timeline, and
is the only place the harness puts their results. Items are created through the channel
and carry its session id; a result for another session's item is refused with
`LifecycleError` (a bug), so results cannot cross sessions by construction.
"""

from __future__ import annotations

from collections import deque

from venus.events import (
    ChunkReceived,
    DelegationRejected,
    DelegationRequested,
    ErrorCategory,
    ErrorRecorded,
    Event,
    ResultReady,
    UserWordsTranscribed,
    WorkItemStateChanged,
    WorkResult,
    WorkState,
)
from venus.harness.context import MemoryView
from venus.harness.workitem import IN_FLIGHT, LifecycleError, WorkItem
from venus.timeline import Timeline, TimelineEntry

__all__ = ["BackgroundChannel"]


class BackgroundChannel:
    """One session's work items, idempotency ledger and results."""

    def __init__(self, session_id: str, timeline: Timeline, memory: MemoryView | None = None,
                 *, transcript_lines: int = 8, keyframes: int = 10) -> None:
        if timeline.session_id != session_id:
            raise ValueError(f"timeline of {timeline.session_id!r} given to session {session_id!r}")
        self.session_id = session_id
        self.timeline = timeline
        self.memory = memory
        self.items: dict[str, WorkItem] = {}
        self._live: dict[str, WorkItem] = {}  # the non-terminal ones, so chunk work is O(live)
        # idempotency key -> result of the one allowed run (None while it runs or if it died)
        self.ledger: dict[str, WorkResult | None] = {}
        self.context: list[str] = []  # items delivered silently, awaiting the frontend
        self.stops: list[str] = []  # utterances whose item was cancelled while speaking
        self.speaking: dict[str, str] = {}  # utterance id -> item id it delivers
        self.closed = False
        # Rolling conversation state for evidence snapshots and freshness checks.
        self.transcript: deque[str] = deque(maxlen=transcript_lines)
        self.frame_times: deque[float] = deque(maxlen=keyframes)
        self.user_turns = 0
        self._chunk = -1
        self._words_chunk: int | None = None
        self._requests = 0
        for entry in timeline:
            self._observe(entry)
        timeline.subscribe(self._observe)

    # -- ids -----------------------------------------------------------------------

    def next_request_id(self) -> str:
        return f"r{self._requests + 1}"

    def next_item_id(self) -> str:
        return f"{self.session_id}/w{len(self.items) + 1}"

    # -- recording -----------------------------------------------------------------

    def now(self) -> float:
        return self.timeline.now()

    def record(self, event: Event) -> TimelineEntry:
        return self.timeline.record(event)

    def reject(self, request_id: str, category: ErrorCategory, reason: str,
               existing: str | None = None) -> None:
        self.record(DelegationRejected(request_id, category, reason, existing))

    def error(self, category: ErrorCategory, message: str, item_id: str | None = None) -> None:
        self.record(ErrorRecorded("harness", category, message, item_id))

    # -- items ---------------------------------------------------------------------

    def add(self, item: WorkItem) -> None:
        self._check_owner(item)
        self.items[item.item_id] = item
        if not item.terminal:
            self._live[item.item_id] = item

    def move(self, item: WorkItem, state: WorkState, reason: str = "") -> None:
        """Move ``item`` along its lifecycle and record the change."""
        self._check_owner(item)
        previous = item.move(state)
        if item.terminal:
            self._live.pop(item.item_id, None)
        self.record(WorkItemStateChanged(item.item_id, state, previous, item.attempt, reason))

    def finish(self, item: WorkItem, result: WorkResult) -> None:
        """A run ended: keep the result and mark the item COMPLETED or FAILED."""
        self._check_owner(item)
        item.result = result
        self.record(ResultReady(item.item_id, result))
        if result.error is not None:
            self.error(result.error.category, result.error.message, item.item_id)
        self.move(item, WorkState.COMPLETED if result.ok else WorkState.FAILED)

    def cancel_pending(self, item: WorkItem, reason: str) -> None:
        """Cancel an item that has no running task (queued-for-delivery or interrupted)."""
        if item.terminal:
            return
        if item.state is WorkState.DELIVERING and item.utterance_id:
            self.stops.append(item.utterance_id)
        self.move(item, WorkState.CANCELLED, reason)

    def get(self, item_id: str | None) -> WorkItem | None:
        return self.items.get(item_id) if item_id else None

    def pending(self) -> list[WorkItem]:
        """Finished items waiting for delivery, oldest first."""
        return [i for i in self._live.values() if i.pending_delivery]

    def open(self) -> list[WorkItem]:
        """Items not yet DELIVERED or CANCELLED, oldest first."""
        return list(self._live.values())

    def duplicate_of(self, request_key: str) -> WorkItem | None:
        """An in-flight item with the same capability and arguments, if any."""
        for item in self._live.values():
            if (item.state in IN_FLIGHT and item.superseded_by is None
                    and item.request_key == request_key):
                return item
        return None

    def _observe(self, entry: TimelineEntry) -> None:
        event = entry.event
        if isinstance(event, ChunkReceived):
            self._chunk = event.index
            if event.frames:
                self.frame_times.append(event.start)
        elif isinstance(event, UserWordsTranscribed):
            # A turn is a run of chunks with user words; a silent chunk ends it.
            if self._words_chunk is None or self._chunk - self._words_chunk > 1:
                self.user_turns += 1
            self._words_chunk = self._chunk
            self.transcript.append(event.text)
        elif isinstance(event, DelegationRequested):
            self._requests += 1

    def _check_owner(self, item: WorkItem) -> None:
        if item.session_id != self.session_id:
            raise LifecycleError(
                f"work item {item.item_id} of session {item.session_id!r} reached the "
                f"channel of session {self.session_id!r}"
            )
