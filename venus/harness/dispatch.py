"""Dispatch: run work items as owned tasks with slots, timeouts, retries and idempotency.

Middle of the harness, between the data (`workitem`, `channel`) and the `Harness` that
composes it. One task per run of an item, owned by a `TaskOwner`. An attempt ends in a
normalized `WorkResult` whatever the capability does (raises, hangs past its timeout,
returns malformed output): the tool's mistakes are recorded, never raised. Cancellation
is the exception: it is recorded as CANCELLED and re-raised, never swallowed, even when
the capability itself swallowed it. A side-effecting capability runs at most once per
idempotency key and session; a later run with the same key reuses the result.
"""

from __future__ import annotations

import asyncio
import logging

from venus.clock import Clock
from venus.errors import CapabilityFailure
from venus.events import ErrorCategory, WorkResult, WorkState
from venus.harness.capability import Capability, MalformedOutput
from venus.harness.channel import BackgroundChannel
from venus.harness.context import CapabilityContext
from venus.harness.tasks import TaskOwner
from venus.harness.workitem import WorkItem, failure

__all__ = ["Dispatcher"]

logger = logging.getLogger(__name__)


class Dispatcher:
    """Runs items with at most ``concurrency`` attempts at once across all sessions."""

    def __init__(self, clock: Clock, concurrency: int = 16) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.clock = clock
        self.concurrency = concurrency
        self.tasks = TaskOwner("harness")
        self._task_of: dict[str, str] = {}
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, channel: BackgroundChannel, item: WorkItem, cap: Capability) -> None:
        """Run ``item`` (state QUEUED) in the background; returns at once."""
        name = f"{item.item_id}#{len(item.history)}"
        self._task_of[item.item_id] = name
        self.tasks.start(name, self._drive(name, channel, item, cap))

    def running(self, item: WorkItem) -> bool:
        name = self._task_of.get(item.item_id)
        return name is not None and self.tasks.running(name)

    def cancel(self, item: WorkItem, reason: str) -> bool:
        """Ask the item's task to stop; it records CANCELLED with ``reason``."""
        if not self.running(item):
            return False
        item.cancel_reason = reason
        return self.tasks.cancel(self._task_of[item.item_id])

    async def cancel_and_wait(self, items: list[WorkItem], reason: str) -> None:
        names = []
        for item in items:
            if self.running(item):
                item.cancel_reason = reason
                names.append(self._task_of[item.item_id])
        await self.tasks.cancel_and_wait(names)

    # -- one run: attempts until success, a final failure or cancellation ---------

    async def _drive(self, name: str, channel: BackgroundChannel, item: WorkItem,
                     cap: Capability) -> None:
        try:
            result = await self._attempts(channel, item, cap)
        except asyncio.CancelledError:
            reason = item.cancel_reason or "cancelled"
            if not item.terminal:
                channel.error(ErrorCategory.CANCELLED, f"{cap.name} was cancelled: {reason}",
                              item.item_id)
                channel.move(item, WorkState.CANCELLED, reason)
            raise
        finally:
            if self._task_of.get(item.item_id) == name:
                del self._task_of[item.item_id]
        channel.finish(item, result)

    async def _attempts(self, channel: BackgroundChannel, item: WorkItem,
                        cap: Capability) -> WorkResult:
        while True:
            async with self._slot():
                channel.move(item, WorkState.RUNNING)
                result = await self._attempt(channel, item, cap)
            if result.ok or not self._should_retry(cap, item, result):
                return result
            delay = cap.retry.delay(item.attempt)
            channel.error(result.error.category, result.error.message, item.item_id)
            item.attempt += 1
            channel.move(item, WorkState.QUEUED,
                         f"retry {item.attempt}/{cap.retry.attempts} in {delay:g}s")
            await self.clock.sleep(delay)

    async def _attempt(self, channel: BackgroundChannel, item: WorkItem,
                       cap: Capability) -> WorkResult:
        key = item.idempotency_key
        if cap.side_effects:
            if key in channel.ledger:
                return _reuse(channel.ledger[key], cap, key)
            channel.ledger[key] = None
        context = CapabilityContext(channel.session_id, item.item_id, item.attempt, key,
                                    item.snapshot, self.clock, channel.memory)
        result = await self._call(cap, item, context)
        if item.cancel_reason is not None:
            # The capability swallowed our CancelledError; cancellation still wins.
            raise asyncio.CancelledError()
        if cap.side_effects and result.ok:
            channel.ledger[key] = result
        return result

    async def _call(self, cap: Capability, item: WorkItem,
                    context: CapabilityContext) -> WorkResult:
        try:
            return await asyncio.wait_for(cap.invoke(item.arguments, context), cap.timeout)
        except asyncio.TimeoutError:
            return failure(ErrorCategory.TIMEOUT,
                           f"{cap.name} did not finish within its {cap.timeout:g}s timeout",
                           retryable=cap.retry.on_timeout)
        except CapabilityFailure as exc:
            return failure(ErrorCategory.RAISED, str(exc), retryable=exc.retryable)
        except MalformedOutput as exc:
            return failure(ErrorCategory.MALFORMED_OUTPUT, str(exc))
        except Exception as exc:  # the tool's own bug: record it, keep the session going
            logger.info("capability %s raised", cap.name, exc_info=True)
            return failure(ErrorCategory.RAISED, f"{cap.name} raised {type(exc).__name__}: {exc}",
                           retryable=isinstance(exc, cap.retry.retry_on))

    def _should_retry(self, cap: Capability, item: WorkItem, result: WorkResult) -> bool:
        error = result.error
        return (error is not None and error.retryable and not cap.side_effects
                and item.attempt < cap.retry.attempts and item.cancel_reason is None)

    def _slot(self) -> asyncio.Semaphore:
        # A semaphore belongs to one event loop; a harness may serve several runs in turn.
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            self._slots, self._loop = asyncio.Semaphore(self.concurrency), loop
        return self._slots


def _reuse(prior: WorkResult | None, cap: Capability, key: str) -> WorkResult:
    if prior is not None:
        return prior
    return failure(ErrorCategory.ALREADY_ATTEMPTED,
                   f"{cap.name} has side effects and already ran with idempotency key {key}; "
                   f"it is not run twice")
