"""Owned background tasks: every task the harness starts is named, tracked and cancellable.

No ``create_task`` handle is ever dropped. A task that dies of an unexpected exception is
a bug in our code: `TaskOwner.raise_crash` re-raises it in the foreground so it cannot
disappear into a log line. Cancellation is delivered as ``CancelledError`` and waited
for; nothing here swallows it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

__all__ = ["TaskOwner"]

logger = logging.getLogger(__name__)


class TaskOwner:
    """Starts, tracks and cancels named tasks on the running loop."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._crash: BaseException | None = None

    def start(self, name: str, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        if name in self._tasks:
            coro.close()
            raise RuntimeError(f"{self.name}: a task named {name!r} is already running")
        task = asyncio.get_running_loop().create_task(coro, name=f"{self.name}:{name}")
        self._tasks[name] = task
        task.add_done_callback(lambda t, key=name: self._finished(key, t))
        return task

    def running(self, name: str) -> bool:
        return name in self._tasks

    def cancel(self, name: str) -> bool:
        """Request cancellation of one task; True if it was running."""
        task = self._tasks.get(name)
        if task is None:
            return False
        task.cancel()
        return True

    async def cancel_all(self) -> None:
        """Cancel every task and wait until all have finished."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def cancel_and_wait(self, names: list[str]) -> None:
        """Cancel the named tasks that are running and wait until they have finished."""
        tasks = [self._tasks[n] for n in names if n in self._tasks]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def join(self) -> None:
        """Wait until no task is left (tasks may start others meanwhile)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    def raise_crash(self) -> None:
        """Re-raise the first unexpected exception a task died of, if any."""
        if self._crash is not None:
            crash, self._crash = self._crash, None
            raise crash

    def __len__(self) -> int:
        return len(self._tasks)

    def _finished(self, name: str, task: asyncio.Task[Any]) -> None:
        if self._tasks.get(name) is task:
            del self._tasks[name]
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            logger.error("task %s:%s crashed: %r", self.name, name, exc)
            if self._crash is None:
                self._crash = exc
