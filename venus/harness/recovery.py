"""Durability: rebuild a session's work items from its timeline after a restart.

Used by `venus.harness.Harness.attach`. The timeline already holds every item's creation
(with its evidence snapshot), state changes and results, so it is the store. Items that
were queued or running when the process stopped become INTERRUPTED (the frontend can
retry or cancel them); a delivery in progress goes back to pending, because nobody
acknowledged that the user heard it. Side-effecting runs that started are put back into
the idempotency ledger so a retry cannot repeat them.
"""

from __future__ import annotations

from venus.events import ResultReady, WorkItemCreated, WorkItemStateChanged, WorkState
from venus.harness.capability import CapabilityRegistry, canonical_key
from venus.harness.channel import BackgroundChannel
from venus.harness.workitem import WorkItem

__all__ = ["restore_items"]


def restore_items(channel: BackgroundChannel, registry: CapabilityRegistry) -> list[WorkItem]:
    """Load the items recorded on ``channel.timeline``; returns those needing attention."""
    items = _replay(channel)
    for item in items:
        channel.add(item)
    needing: list[WorkItem] = []
    for item in items:
        if item.terminal:
            continue
        _restore_ledger(channel, registry, item)
        if item.state in (WorkState.QUEUED, WorkState.RUNNING):
            channel.move(item, WorkState.INTERRUPTED, "the session stopped while it was running")
        elif item.state is WorkState.DELIVERING:
            back = WorkState.COMPLETED if item.result and item.result.ok else WorkState.FAILED
            channel.move(item, back, "delivery was not acknowledged before the session stopped")
        needing.append(item)
    return needing


def _replay(channel: BackgroundChannel) -> list[WorkItem]:
    items: dict[str, WorkItem] = {}
    for entry in channel.timeline:
        event = entry.event
        if isinstance(event, WorkItemCreated):
            items[event.item_id] = WorkItem(
                event.item_id, channel.session_id, event.request_id, event.capability,
                dict(event.arguments), event.idempotency_key, event.snapshot, event.policy,
                event.snapshot.time, event.supersedes,
                canonical_key(event.capability, dict(event.arguments)),
                turns_at_request=channel.user_turns)
        elif isinstance(event, WorkItemStateChanged) and event.item_id in items:
            item = items[event.item_id]
            item.state, item.attempt = event.state, event.attempt
            item.history.append(event.state)
        elif isinstance(event, ResultReady) and event.item_id in items:
            items[event.item_id].result = event.result
    for item in items.values():
        if item.supersedes in items:
            items[item.supersedes].superseded_by = item.item_id
    return list(items.values())


def _restore_ledger(channel: BackgroundChannel, registry: CapabilityRegistry,
                    item: WorkItem) -> None:
    cap = registry.get(item.capability)
    if cap is None or not cap.side_effects or WorkState.RUNNING not in item.history:
        return
    ok = item.result is not None and item.result.ok
    channel.ledger[item.idempotency_key] = item.result if ok else None
