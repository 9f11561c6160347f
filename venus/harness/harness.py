"""The Harness: the background loop of the dual-loop runtime, shared by many sessions.

Top of the harness package; composes capabilities, channels, the dispatcher and the
reintegration rules. The session calls it synchronously and it never blocks:

Sessions reach it only through the `SessionLink` that `Harness.attach` returns.

* **capture** (`Harness.submit`): bind a `DelegationRequest` to its session's channel,
  validate arguments against the capability's schema (nothing runs otherwise), detect
  duplicates of in-flight work, fix an `EvidenceSnapshot`, and queue a `WorkItem`;
  decisions (cancel, revise, retry, retain, replace) act on earlier items;
* **dispatch** (`venus.harness.dispatch.Dispatcher`) runs it in the background;
* **return + reintegration** (`Harness.reintegrate`, `Harness.to_speak`): finished items
  wait in the session's private channel; a freshness check decides deliver / revise /
  retry / replace / drop, the delivery policy decides when; `Harness.on_playback` turns a
  playback acknowledgement into DELIVERED, an interrupted playback back into pending.

Durability is the timeline: `Harness.attach` on a loaded timeline restores its items,
marking those that were running as INTERRUPTED for the frontend to retry or cancel.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from venus.clock import Clock
from venus.events import (
    DelegationAction,
    DelegationRequested,
    DeliveryPolicy,
    ErrorCategory,
    EvidenceSnapshot,
    PlaybackAcknowledged,
    ReintegrationDecided,
    ResultDelivered,
    Verdict,
    WorkItemCreated,
    WorkItemStateChanged,
    WorkState,
)
from venus.harness.requests import DelegationRequest, ResultOffer
from venus.harness.capability import ArgumentsInvalid, Capability, CapabilityRegistry, canonical_key
from venus.harness.channel import BackgroundChannel
from venus.harness.context import MemoryView
from venus.harness.dispatch import Dispatcher
from venus.harness.link import SessionLink
from venus.harness.recovery import restore_items
from venus.harness.reintegration import (
    Conversation,
    FreshnessPolicy,
    check_freshness,
    may_speak,
    spoken_text,
)
from venus.harness.workitem import WorkItem
from venus.timeline import Timeline

__all__ = ["Harness", "HarnessOptions"]

logger = logging.getLogger(__name__)
A = DelegationAction


@dataclass(frozen=True)
class HarnessOptions:
    """How the background loop behaves.

    ``concurrency`` bounds attempts running at once over all sessions;
    ``transcript_lines`` and ``keyframes`` size the evidence snapshot.
    """

    concurrency: int = 16
    freshness: FreshnessPolicy = field(default_factory=FreshnessPolicy)
    transcript_lines: int = 8
    keyframes: int = 10


class Harness:
    """Routes delegation requests of many sessions to capabilities and back."""

    def __init__(self, capabilities: CapabilityRegistry | Iterable[Capability], clock: Clock,
                 options: HarnessOptions | None = None) -> None:
        self.registry = (capabilities if isinstance(capabilities, CapabilityRegistry)
                         else CapabilityRegistry(list(capabilities)))
        self.clock = clock
        self.options = options or HarnessOptions()
        self.dispatcher = Dispatcher(clock, self.options.concurrency)
        self.channels: dict[str, BackgroundChannel] = {}

    # -- sessions ------------------------------------------------------------------

    def attach(self, session_id: str, timeline: Timeline,
               memory: MemoryView | None = None) -> SessionLink:
        """Open the private channel of a session (restoring its items from its timeline)
        and return the session's `SessionLink`, its only way in."""
        if session_id in self.channels:
            raise ValueError(f"session {session_id!r} is already attached to this harness")
        channel = BackgroundChannel(session_id, timeline, memory,
                                    transcript_lines=self.options.transcript_lines,
                                    keyframes=self.options.keyframes)
        restore_items(channel, self.registry)
        self.channels[session_id] = channel
        return SessionLink(self, channel)

    async def detach(self, channel: BackgroundChannel, reason: str = "session ended") -> None:
        """Stop a session's work: running items and undelivered results end CANCELLED."""
        channel.closed = True
        await self.dispatcher.cancel_and_wait(list(channel.open()), reason)
        for item in list(channel.open()):
            channel.cancel_pending(item, f"{reason} before delivery")
        self.channels.pop(channel.session_id, None)

    def check(self) -> None:
        """Re-raise a bug that killed a background task (never a capability's error)."""
        self.dispatcher.tasks.raise_crash()

    async def join(self) -> None:
        """Wait until no background task is running."""
        await self.dispatcher.tasks.join()

    async def aclose(self) -> None:
        for channel in list(self.channels.values()):
            await self.detach(channel, "harness closed")
        await self.dispatcher.tasks.cancel_all()

    # -- capture -------------------------------------------------------------------

    def submit(self, channel: BackgroundChannel, request: DelegationRequest) -> str | None:
        """Record and act on one request; returns the id of a new work item, if any."""
        if channel.closed:
            raise RuntimeError(f"session {channel.session_id!r} is detached from the harness")
        rid = request.request_id or channel.next_request_id()
        channel.record(DelegationRequested(rid, request.action, request.capability,
                                           dict(request.arguments), request.target))
        if request.action is A.REQUEST:
            return self._create(channel, rid, request)
        target = channel.get(request.target)
        if target is None or target.terminal:
            what = "no such item" if target is None else f"it is already {target.state.value}"
            channel.reject(rid, ErrorCategory.UNKNOWN_ITEM,
                           f"cannot {request.action.value} work item {request.target!r}: {what}")
            return None
        return self._decide(channel, rid, request, target)

    def _decide(self, channel: BackgroundChannel, rid: str, request: DelegationRequest,
                target: WorkItem) -> str | None:
        if request.action is A.CANCEL:
            self.cancel(channel, target, "cancelled by the user")
        elif request.action is A.RETAIN:
            target.retained = True
        elif request.action is A.RETRY:
            self._retry(channel, rid, target)
        elif request.action in (A.REVISE, A.REPLACE):
            return self._supersede(channel, rid, request, target)
        return None

    def _create(self, channel: BackgroundChannel, rid: str, request: DelegationRequest,
                supersedes: str | None = None) -> str | None:
        cap = self.registry.get(request.capability or "")
        if cap is None:
            known = ", ".join(sorted(c.name for c in self.registry)) or "none"
            channel.reject(rid, ErrorCategory.UNKNOWN_CAPABILITY,
                           f"no capability named {request.capability!r} (registered: {known})")
            return None
        try:
            arguments = cap.validate(request.arguments)
        except ArgumentsInvalid as exc:
            channel.reject(rid, ErrorCategory.INVALID_ARGUMENTS, str(exc))
            return None
        duplicate = channel.duplicate_of(canonical_key(cap.name, arguments))
        if duplicate is not None and duplicate.item_id != supersedes:
            channel.reject(rid, ErrorCategory.DUPLICATE,
                           f"the same {cap.name} request is already {duplicate.state.value} "
                           f"as {duplicate.item_id}", duplicate.item_id)
            return None
        item = self._new_item(channel, rid, cap, arguments, request, supersedes)
        self.dispatcher.start(channel, item, cap)
        return item.item_id

    def _new_item(self, channel: BackgroundChannel, rid: str, cap: Capability,
                  arguments: dict, request: DelegationRequest,
                  supersedes: str | None) -> WorkItem:
        snapshot = self.snapshot(channel)
        item = WorkItem(channel.next_item_id(), channel.session_id, rid, cap.name, arguments,
                        cap.idempotency_key(arguments), snapshot, request.policy or cap.policy,
                        snapshot.time, supersedes, canonical_key(cap.name, arguments),
                        turns_at_request=channel.user_turns)
        channel.add(item)
        channel.record(WorkItemCreated(item.item_id, rid, cap.name, arguments,
                                       item.idempotency_key, snapshot, item.policy, supersedes))
        channel.record(WorkItemStateChanged(item.item_id, WorkState.QUEUED, None, item.attempt))
        return item

    def snapshot(self, channel: BackgroundChannel) -> EvidenceSnapshot:
        """The evidence at this request boundary: position, memory version, words, frames."""
        memory = channel.memory
        return EvidenceSnapshot(
            session_id=channel.session_id, seq=channel.timeline.next_seq - 1,
            time=channel.now(), memory_version=memory.version if memory is not None else None,
            transcript=tuple(channel.transcript), keyframes=tuple(channel.frame_times))

    # -- decisions -----------------------------------------------------------------

    def cancel(self, channel: BackgroundChannel, item: WorkItem, reason: str) -> None:
        """Cancel an item in any non-terminal state; a running task stops promptly."""
        if not self.dispatcher.cancel(item, reason):
            channel.cancel_pending(item, reason)

    def _retry(self, channel: BackgroundChannel, rid: str, item: WorkItem) -> None:
        if item.state not in (WorkState.FAILED, WorkState.COMPLETED, WorkState.INTERRUPTED):
            channel.reject(rid, ErrorCategory.UNKNOWN_ITEM,
                           f"work item {item.item_id} is {item.state.value}; nothing to retry")
            return
        if item.capability not in self.registry:
            channel.reject(rid, ErrorCategory.UNKNOWN_CAPABILITY,
                           f"cannot retry {item.item_id}: no capability named "
                           f"{item.capability!r} is registered now")
            return
        self.restart(channel, item, "retry requested")

    def restart(self, channel: BackgroundChannel, item: WorkItem, reason: str) -> None:
        """Queue a finished or interrupted item for another run."""
        item.attempt += 1
        item.verdict = None
        channel.move(item, WorkState.QUEUED, reason)
        self.dispatcher.start(channel, item, self.registry.get(item.capability))

    def _supersede(self, channel: BackgroundChannel, rid: str, request: DelegationRequest,
                   old: WorkItem) -> str | None:
        if request.action is A.REVISE:  # same intent: same capability, updated arguments
            request = DelegationRequest.new(old.capability, {**old.arguments, **request.arguments},
                                            policy=request.policy or old.policy)
        new_id = self._create(channel, rid, request, supersedes=old.item_id)
        if new_id is None:
            return None
        old.superseded_by = new_id
        # A running old item is stopped now; a finished one is replaced at reintegration.
        self.dispatcher.cancel(old, f"superseded by {new_id}")
        return new_id

    # -- return and reintegration ------------------------------------------------------

    def reintegrate(self, channel: BackgroundChannel) -> tuple[list[ResultOffer], list[ResultOffer]]:
        """Check the freshness of every finished item of a session.

        Returns ``(offers, context)``: results that may be spoken, and results delivered
        silently now (DELIVERING until `acknowledge_context`). Superseded and stale items
        are cancelled with their reason; items with newer evidence are re-run.
        """
        offers: list[ResultOffer] = []
        context: list[ResultOffer] = []
        for item in channel.pending():
            verdict, reason = self._verdict(channel, item)
            if verdict in (Verdict.REPLACE, Verdict.DROP):
                channel.cancel_pending(item, reason)
            elif verdict is Verdict.RETRY:
                item.refreshed += 1
                item.snapshot = self.snapshot(channel)
                item.turns_at_request = channel.user_turns
                self.restart(channel, item, reason)
            elif item.policy is DeliveryPolicy.SILENT:
                channel.move(item, WorkState.DELIVERING, "added to the frontend's context")
                channel.context.append(item.item_id)
                context.append(self._offer(item, verdict))
            else:
                offers.append(self._offer(item, verdict))
        return offers, context

    def _verdict(self, channel: BackgroundChannel, item: WorkItem) -> tuple[Verdict, str]:
        cap = self.registry.get(item.capability)
        memory = channel.memory
        now = Conversation(channel.now(), channel.user_turns - item.turns_at_request,
                           memory.version if memory is not None else None,
                           cap is not None and cap.refresh_on_new_evidence,
                           cap is None or cap.perishable)
        verdict, reason = check_freshness(item, now, self.options.freshness)
        if verdict is not item.verdict:
            item.verdict = verdict
            channel.record(ReintegrationDecided(item.item_id, verdict, reason))
        return verdict, reason

    @staticmethod
    def _offer(item: WorkItem, verdict: Verdict) -> ResultOffer:
        return ResultOffer(item.item_id, item.capability, item.result, verdict, item.policy,
                           spoken_text(item, verdict))

    def to_speak(self, channel: BackgroundChannel, offers: list[ResultOffer], *,
                 assistant_speaking: bool, user_speaking: bool) -> list[ResultOffer]:
        """The offers to start speaking now under their delivery policy (still pending only).

        Every INTERRUPT offer goes; at most one WHEN_FLOOR_FREE offer, and only when
        neither side is speaking, so results are not stacked into one long monologue.
        """
        chosen: list[ResultOffer] = []
        floor_taken = False
        for offer in offers:
            item = channel.get(offer.item_id)
            if item is None or not item.pending_delivery or item.superseded_by is not None:
                continue
            speaking = assistant_speaking or floor_taken
            if may_speak(offer.policy, assistant_speaking=speaking, user_speaking=user_speaking):
                chosen.append(offer)
                floor_taken = True
        return chosen

    def delivering(self, channel: BackgroundChannel, item_id: str, utterance_id: str) -> None:
        """The session queued ``utterance_id`` to speak item ``item_id``."""
        item = channel.items[item_id]
        channel.move(item, WorkState.DELIVERING, f"speaking as {utterance_id}")
        item.utterance_id = utterance_id
        channel.speaking[utterance_id] = item_id

    def on_playback(self, channel: BackgroundChannel, utterance_id: str, *, complete: bool,
                    heard_fraction: float = 1.0) -> None:
        """Playback of an utterance ended: heard in full, or stopped part-way."""
        item = channel.get(channel.speaking.pop(utterance_id, None))
        if item is None or item.state is not WorkState.DELIVERING:
            return  # not a delivery, or the item was cancelled meanwhile
        item.utterance_id = None
        if complete:
            channel.record(ResultDelivered(item.item_id, utterance_id))
            channel.move(item, WorkState.DELIVERED)
            self._follow_up(channel, item)
            return
        back = WorkState.COMPLETED if item.result is not None and item.result.ok else WorkState.FAILED
        item.verdict = None
        channel.move(item, back, f"delivery interrupted after {heard_fraction:.0%}; pending again")

    def acknowledge_context(self, channel: BackgroundChannel) -> None:
        """The frontend has seen the silently delivered results: they are DELIVERED."""
        for item_id in channel.context:
            item = channel.items[item_id]
            if item.state is WorkState.DELIVERING:
                channel.record(PlaybackAcknowledged("", item_id, via="context"))
                channel.record(ResultDelivered(item_id, None, via="context"))
                channel.move(item, WorkState.DELIVERED)
                self._follow_up(channel, item)
        channel.context.clear()

    def _follow_up(self, channel: BackgroundChannel, item: WorkItem) -> None:
        """A standing request goes on after each delivery (a watch that fires every
        time): the same capability, asked again with the arguments it names."""
        cap = self.registry.get(item.capability)
        if cap is None or cap.follow_up is None or item.result is None or not item.result.ok \
                or channel.closed:
            return
        arguments = cap.follow_up(dict(item.arguments), item.result)
        if arguments is not None:
            self.submit(channel, DelegationRequest.new(cap.name, arguments, policy=item.policy))
