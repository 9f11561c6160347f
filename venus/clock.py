"""The one injectable clock: every wait in ``venus`` goes through it.

Bottom layer of the runtime (imports nothing from ``venus`` but errors). Two
implementations share the `Clock` Protocol:

* `WallClock` runs on the real clock for live sessions (plain ``asyncio.run``).
* `SimulatedClock` runs the same coroutines on an asyncio event loop whose ``time()`` is
  virtual. When no callback is ready the loop does not block: its selector *jumps* the
  virtual time straight to the next scheduled timer. Every ``asyncio`` timer
  (``asyncio.sleep``, ``asyncio.wait_for`` timeouts, ``loop.call_later``) therefore
  runs on session time, an hour of session runs in seconds, and because the loop's
  ready queue and timer heap are FIFO/deterministic the same inputs give the same
  timeline. Blocking (sync) functions run inline through `Clock.run_sync` in simulated
  time (they take zero session time), and in a worker thread on the wall clock.

This is the only module allowed to read the real clock (``time.monotonic``,
``time.perf_counter``); `perf_seconds` is the stopwatch benchmarks use.
"""

from __future__ import annotations

import asyncio
import selectors
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = ["Clock", "SimulatedClock", "SimulationStalledError", "WallClock", "hold_display",
           "perf_seconds"]

T = TypeVar("T")

# A simulated loop that has nothing scheduled can only be woken by another thread; if none
# does within this many real seconds the program is deadlocked (our bug), so we say so.
_STALL_SECONDS = 10.0


class SimulationStalledError(RuntimeError):
    """A simulated session waits for something no timer or task will ever resolve (a bug)."""


@runtime_checkable
class Clock(Protocol):
    """Session time in seconds and the only way ``venus`` waits."""

    kind: str

    def now(self) -> float:
        """Seconds on this clock (arbitrary origin; differences are what matter)."""

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time (negative waits return at once)."""

    async def sleep_until(self, when: float) -> None:
        """Wait until `now` reaches ``when``."""

    async def run_sync(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking function without stalling other tasks (inline when simulated)."""

    def run(self, main: Coroutine[Any, Any, T]) -> T:
        """Run ``main`` to completion on an event loop driven by this clock."""


class WallClock:
    """The real clock, for live sessions. ``now()`` counts from construction."""

    kind = "wall"

    def __init__(self) -> None:
        self._origin = time.monotonic()

    def now(self) -> float:
        return time.monotonic() - self._origin

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def sleep_until(self, when: float) -> None:
        await self.sleep(when - self.now())

    async def run_sync(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    def run(self, main: Coroutine[Any, Any, T]) -> T:
        _refuse_inside_a_loop(main)
        return asyncio.run(main)


class SimulatedClock:
    """Deterministic virtual time: sleeping jumps ahead instead of waiting.

    Coroutines that wait on this clock must run inside `SimulatedClock.run` (or
    ``await`` inside a coroutine it runs); waiting on it from any other loop is a bug and
    raises `RuntimeError`, because it would silently sleep on the wall clock.
    """

    kind = "simulated"

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._loop: asyncio.AbstractEventLoop | None = None

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        self._require_own_loop()
        await asyncio.sleep(max(0.0, seconds))

    async def sleep_until(self, when: float) -> None:
        await self.sleep(when - self._now)

    async def run_sync(self, fn: Callable[..., T], *args: Any) -> T:
        # Inline on purpose: a worker thread would finish at a wall-clock moment and make
        # the simulated timeline depend on the machine's speed.
        return fn(*args)

    def run(self, main: Coroutine[Any, Any, T]) -> T:
        if self._loop is not None:
            main.close()
            raise RuntimeError("SimulatedClock.run() is already running; await the coroutine")
        _refuse_inside_a_loop(main)
        loop = _VirtualTimeLoop(self)
        self._loop = loop
        try:
            return loop.run_until_complete(main)
        finally:
            _shutdown(loop)
            self._loop = None

    def _advance(self, seconds: float) -> None:
        self._now += seconds

    def _require_own_loop(self) -> None:
        if asyncio.get_running_loop() is not self._loop:
            raise RuntimeError(
                "a SimulatedClock was awaited outside SimulatedClock.run(); run the session "
                "with clock.run(...) (or Session.run()) so its time is virtual"
            )


def _refuse_inside_a_loop(main: Coroutine[Any, Any, Any]) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    main.close()
    raise RuntimeError(
        "a clock's run() was called inside a running event loop (a notebook?); there, use "
        "`await session.arun()` on the wall clock, or `await asyncio.to_thread(session.run)`"
    )


def hold_display(seconds: float) -> None:
    """Block this thread for ``seconds`` of wall time so a person can watch a change.

    For on-screen pacing only (notebook tables); session logic waits on its clock.
    """
    if seconds > 0:
        time.sleep(seconds)


def perf_seconds() -> float:
    """A high-resolution wall-clock stopwatch reading, for benchmarks only."""
    return time.perf_counter()


class _VirtualSelector(selectors.BaseSelector):
    """A real selector for I/O that advances virtual time instead of blocking."""

    def __init__(self, clock: SimulatedClock) -> None:
        self._real = selectors.DefaultSelector()
        self._clock = clock

    def register(self, fileobj, events, data=None):  # type: ignore[override]
        return self._real.register(fileobj, events, data)

    def unregister(self, fileobj):  # type: ignore[override]
        return self._real.unregister(fileobj)

    def modify(self, fileobj, events, data=None):  # type: ignore[override]
        return self._real.modify(fileobj, events, data)

    def get_map(self):  # type: ignore[override]
        return self._real.get_map()

    def close(self) -> None:
        self._real.close()

    def select(self, timeout: float | None = None):  # type: ignore[override]
        ready = self._real.select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:
            # Nothing scheduled: only another thread (call_soon_threadsafe) can wake us.
            ready = self._real.select(_STALL_SECONDS)
            if not ready:
                raise SimulationStalledError(
                    "the simulated session has no timer, ready task or I/O left but has not "
                    "finished: something awaits a future nobody will resolve"
                )
            return ready
        self._clock._advance(timeout)
        return []


class _VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self, clock: SimulatedClock) -> None:
        super().__init__(selector=_VirtualSelector(clock))
        self._clock = clock

    def time(self) -> float:
        return self._clock._now


def _shutdown(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left and close the loop (what ``asyncio.run`` does on exit)."""
    try:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        loop.close()

